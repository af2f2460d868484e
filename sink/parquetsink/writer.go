// Package parquetsink writes ETW records as Parquet, the columnar format
// that DuckDB, Spark, Trino, ClickHouse and BigQuery read natively.
//
// One row per record, with the field names of etldump's JSON lines:
//
//	TimeStamp          TIMESTAMP(NANOS): UTC, 100 ns kept
//	RawTimeStamp       INT64, the session clock as stored
//	HeaderType         STRING (SYSTEM64, EVENT_HEADER64, …)
//	ProviderId         STRING, the GUID in lower case
//	ProviderName       STRING
//	EventName          STRING
//	Id, Task           UINT16
//	Version, Channel,
//	Level, Opcode      UINT8
//	Keyword            UINT64
//	ProcessId,
//	ThreadId           UINT32
//	ProcessorNumber    UINT16
//	ActivityId,
//	RelatedActivityId  STRING GUIDs
//	Flags              UINT16
//	Payload            JSON text: the decoded fields as one object
//	UserData           BINARY: the payload bytes, when not decoded
//	File               STRING: the input a row came from (Options.FileColumn)
//
// A field the record's header does not carry is NULL, as the JSON lines
// leave it out: kernel records have no Id, Channel, Level, Task, Keyword or
// ActivityId; classic records no Id, Channel, Task, Keyword or ActivityId;
// PERFINFO records no process or thread (see record.DescriptorFieldsOf).
//
// The writer streams: records are staged in chunks of a few thousand rows,
// every column is encoded and compressed (zstd) by its own goroutine as
// chunks come, and a row group is written out every DefaultRowGroupRows
// rows or DefaultRowGroupBytes bytes, whichever comes first. Memory stays
// bounded by one row group's compressed pages and a few chunks, whatever
// the number of records.
package parquetsink

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/google/uuid"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

const (
	// DefaultRowGroupRows is the number of rows after which a row group is
	// written out; DuckDB writes row groups of about this size itself.
	DefaultRowGroupRows = 128 << 10
	// DefaultRowGroupBytes bounds a row group by its staged (uncompressed)
	// size, so that traces with large payloads keep memory bounded too:
	// the row group's compressed pages are held until it is written.
	DefaultRowGroupBytes = 32 << 20

	// A chunk is the unit handed to the column goroutines. Chunks of
	// 8192 rows and 4 MiB took the same CPU on a 1 GiB trace but held
	// 40 MiB more on a trace of 180,000 records, whose first touch of
	// fresh memory costs system time.
	chunkRows  = 2048
	chunkBytes = 1 << 20
	// chunksInFlight is the number of chunks staged or being encoded at
	// once: the slowest column (usually Payload) may lag behind the
	// others, and a row group be written out, while Write stages that
	// many chunks before it waits.
	chunksInFlight = 6
)

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("parquetsink: writer closed")

// Decoded is what the caller knows about a record beyond its header: the
// names and the decoded payload. The writer reads it during Write only.
type Decoded struct {
	ProviderName string // "" writes NULL
	EventName    string // "" writes NULL
	// Payload is the decoded payload as one JSON object, or nil when the
	// payload was not decoded; the record's UserData is written instead
	// (when it has any).
	Payload []byte
	// AppendPayload, when not nil, is called instead of reading Payload:
	// it appends the payload's JSON object to dst and returns the result,
	// so that the object is rendered where the writer keeps it rather
	// than copied there. It must not keep dst.
	AppendPayload func(dst []byte) []byte
	// File names the input the record came from; written only to a File
	// column (Options.FileColumn).
	File string
}

// Options tunes a Writer; the zero value is the default.
type Options struct {
	// FileColumn adds the File column, for several inputs in one file.
	FileColumn bool
	// RowGroupRows and RowGroupBytes bound a row group; zero means
	// DefaultRowGroupRows and DefaultRowGroupBytes.
	RowGroupRows  int
	RowGroupBytes int
}

// Writer writes records to one Parquet file. Write and Close are called
// from one goroutine.
type Writer struct {
	fw        *file.Writer
	ncol      int
	rowsLimit int
	bytesLim  int

	// rgRows and rgBytes are what Write has staged of the current row
	// group; the row group itself belongs to the goroutine that runs
	// rowGroups.
	rgRows  int
	rgBytes int

	cur      *chunk
	free     chan *chunk
	full     chan *chunk // staged chunks, to rowGroups
	work     []chan *chunk
	inflight sync.WaitGroup // chunks handed to the columns and not yet back
	workers  sync.WaitGroup
	done     chan struct{} // rowGroups has written its last row group

	errMu  sync.Mutex
	err    error
	failed atomic.Bool

	rows   int64
	closed bool
}

// chunk is a few thousand rows, column by column.
type chunk struct {
	rg    file.BufferedRowGroupWriter
	rows  int
	bytes int
	// last: the chunk ends its row group.
	last    bool
	cols    [numColumns]stage
	pending atomic.Int32 // columns still to encode it
}

// newChunk makes a chunk with room for chunkRows rows of the first ncol
// columns, so that staging does not grow slices row by row. Payload and
// UserData get room for a full chunk and one record more: grown by
// appends from a quarter of that, they were reallocated and copied six
// times on the way.
func newChunk(ncol int) *chunk {
	c := &chunk{}
	for i := range ncol {
		s := &c.cols[i]
		col := &columns[i]
		if !col.required {
			s.defs = make([]int16, 0, chunkRows)
		}
		switch {
		case col.phys == physInt32:
			s.i32 = make([]int32, 0, chunkRows)
		case col.phys == physInt64:
			s.i64 = make([]int64, 0, chunkRows)
		case col.guid:
			s.guids = make([]uuid.UUID, 0, chunkRows)
		default:
			s.ends = make([]int, 0, chunkRows)
			if i == colPayload || i == colUserData {
				s.data = make([]byte, 0, chunkBytes+64<<10)
			} else {
				s.data = make([]byte, 0, 16*chunkRows)
			}
		}
	}
	return c
}

// stage holds one column of a chunk: the values present (dense) and, for
// an optional column, one definition level per row (0 is NULL).
type stage struct {
	i32  []int32
	i64  []int64
	data []byte // the byte values, end to end
	ends []int  // where each byte value ends in data
	// guids are a GUID column's values, as they are: the column's
	// goroutine writes them as text.
	guids []uuid.UUID
	defs  []int16
}

// NewWriter starts a Parquet file on w. The file is complete once Close
// has returned nil; w is not closed.
func NewWriter(w io.Writer, opts Options) (*Writer, error) {
	ncol := numColumns
	if !opts.FileColumn {
		ncol--
	}
	sc, err := newSchema(ncol)
	if err != nil {
		return nil, fmt.Errorf("parquetsink: schema: %w", err)
	}
	fw, err := file.NewParquetWriterWithError(w, sc, file.WithWriterProps(writerProperties(ncol)))
	if err != nil {
		return nil, fmt.Errorf("parquetsink: %w", err)
	}
	pw := &Writer{
		fw:        fw,
		ncol:      ncol,
		rowsLimit: opts.RowGroupRows,
		bytesLim:  opts.RowGroupBytes,
		free:      make(chan *chunk, chunksInFlight),
		full:      make(chan *chunk, chunksInFlight),
		work:      make([]chan *chunk, ncol),
		done:      make(chan struct{}),
	}
	if pw.rowsLimit <= 0 {
		pw.rowsLimit = DefaultRowGroupRows
	}
	if pw.bytesLim <= 0 {
		pw.bytesLim = DefaultRowGroupBytes
	}
	for range chunksInFlight - 1 {
		pw.free <- newChunk(ncol)
	}
	pw.cur = newChunk(ncol)
	for i := range pw.work {
		pw.work[i] = make(chan *chunk, chunksInFlight)
		pw.workers.Add(1)
		go pw.column(i)
	}
	go pw.rowGroups()
	return pw, nil
}

// Rows is the number of records written so far.
func (w *Writer) Rows() int64 { return w.rows }

// Write adds one record. Nothing of r or d is kept after it returns. An
// error (from encoding or from the underlying writer) is final.
func (w *Writer) Write(r *record.Record, d *Decoded) error {
	if w.closed {
		return ErrClosed
	}
	if w.failed.Load() {
		return w.firstError()
	}
	c := w.cur
	cols := &c.cols
	fs := record.DescriptorFieldsOf(r.HeaderType)
	ed := &r.EventDescriptor

	ns, ok := unixNano(r)
	cols[colTimeStamp].optInt64(ns, ok)
	cols[colRawTimeStamp].i64 = append(cols[colRawTimeStamp].i64, r.RawTimeStamp)
	cols[colHeaderType].reqString(r.HeaderType.String())
	cols[colProviderId].optGUID(r.ProviderId, r.HasProvider())
	optBytes(&cols[colProviderName], d.ProviderName, d.ProviderName != "")
	optBytes(&cols[colEventName], d.EventName, d.EventName != "")
	cols[colId].optInt32(int32(ed.Id), fs&record.FieldID != 0)
	cols[colVersion].optInt32(int32(ed.Version), fs&record.FieldVersion != 0)
	cols[colChannel].optInt32(int32(ed.Channel), fs&record.FieldChannel != 0)
	cols[colLevel].optInt32(int32(ed.Level), fs&record.FieldLevel != 0)
	cols[colOpcode].optInt32(int32(ed.Opcode), fs&record.FieldOpcode != 0)
	cols[colTask].optInt32(int32(ed.Task), fs&record.FieldTask != 0)
	cols[colKeyword].optInt64(int64(ed.Keyword), fs&record.FieldKeyword != 0)
	cols[colProcessId].optInt32(int32(r.ProcessId), r.HasThreadProcess)
	cols[colThreadId].optInt32(int32(r.ThreadId), r.HasThreadProcess)
	cols[colProcessorNumber].i32 = append(cols[colProcessorNumber].i32, int32(r.ProcessorNumber))
	cols[colActivityId].optGUID(r.ActivityId, fs&record.FieldActivityID != 0)
	rel, ok := r.RelatedActivity()
	cols[colRelatedActivityId].optGUID(rel, ok)
	cols[colFlags].i32 = append(cols[colFlags].i32, int32(r.Flags))
	payloadLen := len(d.Payload)
	decoded := d.Payload != nil
	if d.AppendPayload != nil {
		s := &cols[colPayload]
		n := len(s.data)
		s.data = d.AppendPayload(s.data)
		s.ends = append(s.ends, len(s.data))
		s.defs = append(s.defs, 1)
		payloadLen, decoded = len(s.data)-n, true
	} else {
		optBytes(&cols[colPayload], d.Payload, decoded)
	}
	optBytes(&cols[colUserData], r.UserData, !decoded && len(r.UserData) > 0)
	if w.ncol > colFile {
		cols[colFile].reqString(d.File)
	}

	// About what the row costs staged: the fixed columns, three GUIDs,
	// and the variable parts.
	c.bytes += 200 + len(d.ProviderName) + len(d.EventName) + payloadLen + len(r.UserData)
	c.rows++
	w.rows++
	if c.rows >= chunkRows || c.bytes >= chunkBytes ||
		w.rgRows+c.rows >= w.rowsLimit || w.rgBytes+c.bytes >= w.bytesLim {
		return w.dispatch()
	}
	return nil
}

// dispatch hands the current chunk on and takes a free one. Write goes
// on staging while the chunk is encoded and its row group written out.
func (w *Writer) dispatch() error {
	c := w.cur
	if c.rows == 0 {
		return w.firstError()
	}
	w.rgRows += c.rows
	w.rgBytes += c.bytes
	c.last = w.closed || w.rgRows >= w.rowsLimit || w.rgBytes >= w.bytesLim
	if c.last {
		w.rgRows, w.rgBytes = 0, 0
	}
	// c belongs to the other goroutines from here on.
	w.full <- c
	w.cur = <-w.free
	return w.firstError()
}

// rowGroups starts a row group for the chunks that begin one, hands every
// chunk to the column goroutines and, after a row group's last chunk is
// encoded, writes the row group out; then it stops the column goroutines.
// It is the only goroutine that writes to the file until Close.
func (w *Writer) rowGroups() {
	defer close(w.done)
	var rg file.BufferedRowGroupWriter
	endRowGroup := func() {
		w.inflight.Wait()
		if rg != nil && !w.failed.Load() {
			if err := rg.Close(); err != nil {
				w.setError(err)
			}
		}
		rg = nil
	}
	for c := range w.full {
		if rg == nil && !w.failed.Load() {
			var err error
			if rg, err = w.fw.AppendBufferedRowGroupChecked(); err != nil {
				w.setError(err)
				rg = nil
			}
		}
		if rg == nil {
			// After an error the chunk is only given back.
			for i := range c.cols {
				c.cols[i].reset()
			}
			c.rows, c.bytes = 0, 0
			w.free <- c
			continue
		}
		c.rg = rg
		c.pending.Store(int32(w.ncol))
		w.inflight.Add(1)
		last := c.last
		for _, ch := range w.work {
			ch <- c
		}
		if last {
			endRowGroup()
		}
	}
	endRowGroup()
	for _, ch := range w.work {
		close(ch)
	}
	w.workers.Wait()
}

// column encodes column i of every chunk, in order.
func (w *Writer) column(i int) {
	defer w.workers.Done()
	var scratch columnScratch
	for c := range w.work[i] {
		s := &c.cols[i]
		if !w.failed.Load() {
			if err := scratch.write(c.rg, i, s, c.last); err != nil {
				w.setError(fmt.Errorf("parquetsink: column %s: %w", columns[i].name, err))
			}
		}
		s.reset()
		if c.pending.Add(-1) == 0 {
			c.rows, c.bytes, c.rg = 0, 0, nil
			w.free <- c
			w.inflight.Done()
		}
	}
}

// columnScratch is a column goroutine's reused views of a chunk's values.
type columnScratch struct {
	views []parquet.ByteArray
	// text holds a GUID column's values as text, each once per run of
	// equal values: the provider and activity of one record are mostly
	// those of the one before.
	text []byte
	// known remembers GUIDs written before, by a hash of the GUID: a
	// trace has few providers, and their records interleave.
	known [64]knownGUID
}

type knownGUID struct {
	guid uuid.UUID
	text [36]byte
	set  bool
}

// pageFlusher is what the column writers of arrow offer to encode and
// compress the values they hold as a page.
type pageFlusher interface {
	FlushBufferedDataPages() error
}

// write encodes column i of a chunk. At the end of a row group it also
// compresses the column's last page here, in the column's goroutine,
// rather than when the row group is written out; dictionary columns keep
// theirs, as their dictionary page must come first.
func (sc *columnScratch) write(rg file.BufferedRowGroupWriter, i int, s *stage, last bool) error {
	cw, err := rg.Column(i)
	if err != nil {
		return err
	}
	defs := s.defs
	if columns[i].required {
		defs = nil
	}
	switch cw := cw.(type) {
	case *file.Int32ColumnChunkWriter:
		_, err = cw.WriteBatch(s.i32, defs, nil)
	case *file.Int64ColumnChunkWriter:
		_, err = cw.WriteBatch(s.i64, defs, nil)
	case *file.ByteArrayColumnChunkWriter:
		var views []parquet.ByteArray
		if columns[i].guid {
			views = sc.guidViews(s.guids)
		} else {
			views = sc.views[:0]
			start := 0
			for _, end := range s.ends {
				views = append(views, s.data[start:end:end])
				start = end
			}
		}
		sc.views = views
		_, err = cw.WriteBatch(views, defs, nil)
		clear(views) // let the chunk's bytes go with the chunk
	default:
		err = fmt.Errorf("unexpected column writer %T", cw)
	}
	if err == nil && last && columns[i].enc != encDictionary {
		if f, ok := cw.(pageFlusher); ok {
			err = f.FlushBufferedDataPages()
		}
	}
	return err
}

// guidViews writes GUIDs as text into sc.text and returns a view of each.
func (sc *columnScratch) guidViews(guids []uuid.UUID) []parquet.ByteArray {
	views := sc.views[:0]
	// Room for every value, so that the views stay valid.
	text := slices.Grow(sc.text[:0], 36*len(guids))
	var prev uuid.UUID
	var view []byte
	for i, g := range guids {
		if i == 0 || g != prev {
			k := &sc.known[(binary.LittleEndian.Uint64(g[:8])^binary.LittleEndian.Uint64(g[8:]))%uint64(len(sc.known))]
			if !k.set || k.guid != g {
				guid.Append(k.text[:0], g)
				k.guid, k.set = g, true
			}
			n := len(text)
			text = append(text, k.text[:]...)
			view = text[n : n+36 : n+36]
			prev = g
		}
		views = append(views, view)
	}
	sc.text = text
	return views
}

func (s *stage) reset() {
	s.i32, s.i64, s.data, s.ends, s.guids, s.defs = s.i32[:0], s.i64[:0], s.data[:0], s.ends[:0], s.guids[:0], s.defs[:0]
}

// optValue adds a number to vals, or NULL.
func optValue[T int32 | int64](s *stage, vals *[]T, v T, ok bool) {
	if ok {
		*vals = append(*vals, v)
		s.defs = append(s.defs, 1)
	} else {
		s.defs = append(s.defs, 0)
	}
}

func (s *stage) optInt32(v int32, ok bool) { optValue(s, &s.i32, v, ok) }
func (s *stage) optInt64(v int64, ok bool) { optValue(s, &s.i64, v, ok) }

// optBytes adds a byte value (a string or a slice), or NULL.
func optBytes[T string | []byte](s *stage, v T, ok bool) {
	if ok {
		s.data = append(s.data, v...)
		s.ends = append(s.ends, len(s.data))
		s.defs = append(s.defs, 1)
	} else {
		s.defs = append(s.defs, 0)
	}
}

func (s *stage) reqString(v string) {
	s.data = append(s.data, v...)
	s.ends = append(s.ends, len(s.data))
}

func (s *stage) optGUID(g uuid.UUID, ok bool) {
	if ok {
		s.guids = append(s.guids, g)
		s.defs = append(s.defs, 1)
	} else {
		s.defs = append(s.defs, 0)
	}
}

// Close writes what is staged, the last row group and the footer, and
// stops the column goroutines. It must be called, also after an error.
func (w *Writer) Close() error {
	if w.closed {
		return w.firstError()
	}
	w.closed = true
	if w.cur.rows > 0 {
		w.dispatch()
	}
	close(w.full)
	<-w.done
	if err := w.firstError(); err != nil {
		return err
	}
	if err := w.fw.Close(); err != nil {
		w.setError(err)
	}
	return w.firstError()
}

func (w *Writer) setError(err error) {
	w.errMu.Lock()
	if w.err == nil {
		w.err = err
		w.failed.Store(true)
	}
	w.errMu.Unlock()
}

func (w *Writer) firstError() error {
	if !w.failed.Load() {
		return nil
	}
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// unixNano is the record's UTC time in nanoseconds since 1970, or false
// when it has no clock or the time is outside what int64 nanoseconds hold;
// RawTimeStamp still has it then.
func unixNano(r *record.Record) (int64, bool) {
	ft, ok := r.FileTime()
	if !ok {
		return 0, false
	}
	return header.FileTimeToUnixNano(ft)
}
