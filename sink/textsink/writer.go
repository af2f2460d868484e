// Package textsink writes ETW records as text: one line per record for
// people and for awk (Text), JSON lines for jq and log pipelines (JSONL),
// RFC 4180 CSV for spreadsheets (CSV), and the event XML tracerpt writes
// (XML). It is what etldump prints.
//
// Each record is written with what package describe says of it: provider
// and event names, and the payload decoded into named values where a
// schema is known; a record without one keeps its payload as hex.
//
//	names, _ := describe.ForTrace(nil, f.Reader)
//	w, err := textsink.NewWriter(os.Stdout, textsink.Options{Format: textsink.JSONL})
//	…
//	var desc describe.Description
//	for rec, err := range f.Events() {
//		if err != nil {
//			continue
//		}
//		names.Describe(rec, &desc, true)
//		if err := w.Write(rec, &desc); err != nil {
//			return err
//		}
//	}
//	return w.Close()
//
// Lines are built with appenders into one reused buffer: fmt and
// encoding/json cost an allocation or a reflection walk per record, which
// on a multi-million-record trace is most of the run time.
package textsink

import (
	"errors"
	"fmt"
	"io"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/record"
)

// Format names an output format.
type Format string

// The formats. The zero Format is Text.
const (
	// Text is one line per record, columns separated by one space, none
	// of them empty (a "-" stands for what the record does not carry),
	// then the payload fields as name=value:
	//
	//	TIME CPU PID/TID PROVIDER/EVENT LEVEL KEYWORD FIELDS...
	Text Format = "text"
	// JSONL is one compact JSON object per record, with fixed member names
	// in a fixed order.
	JSONL Format = "jsonl"
	// CSV is RFC 4180 CSV with a header row of the JSONL member names, in
	// the same order.
	CSV Format = "csv"
	// XML is the event schema tracerpt writes: one <Event> per record
	// inside <Events>.
	XML Format = "xml"
)

// Formats lists the formats, Text first.
func Formats() []Format { return []Format{Text, JSONL, CSV, XML} }

// Options choose the format and how it shows records.
type Options struct {
	// Format is the output format; "" means Text.
	Format Format
	// Message, with Text, shows an event whose schema gives a message
	// (a manifest's message string) as that message with its %1...%n
	// filled in, in place of its fields.
	Message bool
}

// Encoder appends records in one format to a byte slice, for Go code that
// frames its own output (a message per record, say); Writer writes them to
// an io.Writer. An Encoder keeps a little state from one record to the
// next (the date of the last second, the names last quoted) and is not
// safe for concurrent use.
type Encoder struct {
	enc encoder
}

// encoder is one format.
type encoder interface {
	begin(dst []byte) []byte
	record(dst []byte, r *record.Record, d *describe.Description) []byte
	end(dst []byte) []byte
}

// NewEncoder returns an encoder of the format opts names.
func NewEncoder(opts Options) (*Encoder, error) {
	switch opts.Format {
	case Text, "":
		return &Encoder{&textEncoder{message: opts.Message}}, nil
	case JSONL:
		return &Encoder{&jsonlEncoder{}}, nil
	case CSV:
		return &Encoder{&csvEncoder{}}, nil
	case XML:
		return &Encoder{&xmlEncoder{}}, nil
	}
	return nil, fmt.Errorf("textsink: unknown format %q", opts.Format)
}

// Begin appends what comes before the first record: the CSV header row,
// the XML declaration and <Events>; nothing for Text and JSONL.
func (e *Encoder) Begin(dst []byte) []byte { return e.enc.begin(dst) }

// Append appends one record: a line, or for XML an <Event> element. The
// description d is what package describe gave for r; one with no names and
// not Decoded shows the record's numbers and its payload as hex.
func (e *Encoder) Append(dst []byte, r *record.Record, d *describe.Description) []byte {
	return e.enc.record(dst, r, d)
}

// End appends what comes after the last record: </Events> for XML.
func (e *Encoder) End(dst []byte) []byte { return e.enc.end(dst) }

// flushSize is how much a Writer gathers before it writes: blocks larger
// than a bufio.Writer's buffer go straight through it instead of being
// copied line by line.
const flushSize = 256 << 10

// ErrClosed is returned by Write and Flush after Close.
var ErrClosed = errors.New("textsink: writer closed")

// Writer writes records in one format to an io.Writer, in blocks. It does
// not close the io.Writer.
type Writer struct {
	w   io.Writer
	enc encoder
	buf []byte
	// ready says that Write may encode at once: the output has begun, and
	// neither an error nor Close has stopped it.
	ready  bool
	begun  bool
	closed bool
	err    error
}

// NewWriter returns a writer of the format opts names to w.
func NewWriter(w io.Writer, opts Options) (*Writer, error) {
	enc, err := NewEncoder(opts)
	if err != nil {
		return nil, err
	}
	return &Writer{w: w, enc: enc.enc, buf: make([]byte, 0, 4096)}, nil
}

// Write encodes one record with its description. The first error writing
// to the io.Writer is returned then and by every later call.
func (w *Writer) Write(r *record.Record, d *describe.Description) error {
	if !w.ready {
		if err := w.start(); err != nil {
			return err
		}
	}
	w.buf = w.enc.record(w.buf, r, d)
	if len(w.buf) > flushSize {
		return w.flush()
	}
	return nil
}

// start begins the output before the first record, or says why Write
// cannot go on.
func (w *Writer) start() error {
	switch {
	case w.closed:
		return ErrClosed
	case w.err != nil:
		return w.err
	}
	w.begin()
	w.ready = true
	return nil
}

func (w *Writer) begin() {
	w.buf, w.begun = w.enc.begin(w.buf), true
}

// Flush writes what the Writer holds to the io.Writer.
func (w *Writer) Flush() error {
	if w.closed {
		return ErrClosed
	}
	return w.flush()
}

func (w *Writer) flush() error {
	if w.err != nil {
		return w.err
	}
	if len(w.buf) > 0 {
		if _, err := w.w.Write(w.buf); err != nil {
			w.err, w.ready = err, false
			return err
		}
		w.buf = w.buf[:0]
	}
	return nil
}

// Close writes what ends the output (the CSV header row and the XML
// document of a run without records too) and flushes.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed, w.ready = true, false
	if w.err == nil {
		if !w.begun {
			w.begin()
		}
		w.buf = w.enc.end(w.buf)
		w.flush()
	}
	return w.err
}
