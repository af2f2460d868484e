package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
	"github.com/etlkit/etlkit/schema/manifest"
)

// input is one opened file of the command line.
type input struct {
	name string
	f    *etl.File
}

// dumper runs one invocation: it opens the inputs, walks their records in
// the chosen order, filters them and hands them to the output.
type dumper struct {
	opts   *options
	stderr io.Writer
	w      *bufio.Writer
	line   []byte // reused for every record
	err    error  // the first write error
	status int
	// writing is set once the output is being written: what fails
	// before (no input opened, a bad manifest or filter) writes nothing.
	writing bool

	inputs   []*input
	filter   *filter.Filter
	describe *describer
	// manifests holds the events of the --manifest files, nil for none;
	// trace what the inputs say of their own events, once learned.
	manifests *schema.Set
	trace     *schema.Set
	// learned is the first pass that learned trace, with the inputs'
	// kernel file and volume names and .NET type names.
	learned  *describe.Learner
	progress *progress
	set      *etl.Set
}

func (d *dumper) fail(status int) {
	d.status = max(d.status, status)
}

func (d *dumper) dump() int {
	defer d.closeInputs()
	if len(d.opts.manifests) > 0 {
		set, err := manifest.LoadPaths(manifest.Options{Warn: func(err error) {
			fmt.Fprintf(d.stderr, "etldump: --manifest: %v\n", err)
		}}, d.opts.manifests...)
		if err != nil {
			// A manifest named on its own must be read; each refusal is
			// said.
			errs := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			}
			for _, e := range errs {
				fmt.Fprintf(d.stderr, "etldump: --manifest: %v\n", e)
			}
			d.fail(exitFatal)
			return d.status
		}
		// .NET events read the same with the runtime's manifest as with
		// the built-in tables.
		dotnet.ApplyTraceEventConventions(set)
		d.manifests = set
	}
	d.open()
	if len(d.inputs) == 0 {
		return d.status
	}
	d.line = make([]byte, 0, 4096)
	if d.opts.view == "header" {
		d.writing = true
		d.printHeaders()
		return d.status
	}
	if d.opts.filtered {
		// Event names come from the same sources as the output's, so
		// --event-name matches what EventName shows: kernel, manifest and
		// TraceLogging names alike.
		var trace *schema.Set
		if usesEventNames(&d.opts.session) {
			trace = d.learnTrace()
		}
		names := newDescriber(false, trace, d.manifests, nil)
		flt, err := filter.Compile(filter.Options{
			TraceStart: d.traceStart(),
			Lookup:     filter.Lookup{EventName: names.d.EventName},
		}, d.opts.session)
		if err != nil {
			fmt.Fprintf(d.stderr, "etldump: filter: %v\n", err)
			d.fail(exitFatal)
			return d.status
		}
		d.filter = flt
	}
	d.progress = newProgress(d.opts.progress, d.stderr, d.inputs, d.opts.order != "file")
	d.writing = true
	switch d.opts.view {
	case "count":
		d.count()
	case "stats":
		d.stats()
	case "activities":
		d.activities()
	default:
		if d.opts.format == "etl" {
			d.writeETL()
		} else if isProfileFormat(d.opts.format) {
			d.profile()
		} else {
			d.records()
		}
	}
	d.progress.finish()
	if d.err == nil {
		for _, in := range d.inputs {
			d.reportDamage(in.name, in.f.Stats())
		}
	}
	return d.status
}

// stdin is what the input "-" reads.
var stdin io.Reader = os.Stdin

// open opens every file of the command line; "-" is standard input, read
// once. One that cannot be read at all is reported and left out, and the
// run goes on with the others.
func (d *dumper) open() {
	readStdin := false
	for _, name := range d.opts.files {
		var f *etl.File
		var err error
		switch {
		case name != "-":
			f, err = etl.OpenWith(name, etl.OpenOptions{MaxUnwrapped: d.opts.maxUnwrapped})
		case readStdin:
			err = errors.New("standard input is given more than once")
		default:
			readStdin = true
			f, err = etl.OpenReaderWith(stdin, name, etl.OpenOptions{MaxUnwrapped: d.opts.maxUnwrapped})
		}
		if err != nil {
			fmt.Fprintln(d.stderr, fileMessage(name, err))
			d.fail(exitFatal)
			continue
		}
		d.inputs = append(d.inputs, &input{name: name, f: f})
	}
}

func (d *dumper) closeInputs() {
	for _, in := range d.inputs {
		in.f.Close()
	}
}

// traceStart is the start of the earliest input: relative --from and --to
// count from it.
func (d *dumper) traceStart() time.Time {
	var start time.Time
	for _, in := range d.inputs {
		t := header.FileTimeToTime(in.f.Header().StartTime)
		if start.IsZero() || t.Before(start) {
			start = t
		}
	}
	return start
}

// each calls fn with every record that passes the filter, in the chosen
// order, until fn returns false.
func (d *dumper) each(fn func(r *record.Record) bool) {
	n := 0
	// The sequence is called with the loop body rather than ranged over:
	// a range loop over a function checks its state around every call,
	// 19 instructions a record, 3.6% of `--count` (callgrind, 64 MiB
	// etlgen trace).
	d.ordered()(func(r *record.Record, err error) bool {
		if n++; n&(ticksPerRecord-1) == 0 {
			d.progress.tick(r)
		}
		if err != nil {
			return true
		}
		if d.filter != nil && !d.filter.Match(r) {
			if d.describe != nil && d.describe.payload {
				// The names a kernel record shows may come from records
				// the filter drops.
				d.describe.d.Learn(r)
			}
			return true
		}
		return fn(r)
	})
}

func (d *dumper) records() {
	trace := d.learnTrace()
	d.describe = newDescriber(true, trace, d.manifests, d.learned)
	if d.opts.format == "parquet" {
		d.parquet()
		return
	}
	var enc encoder
	switch d.opts.format {
	case "jsonl":
		enc = &jsonlEncoder{}
	case "csv":
		enc = &csvEncoder{}
	case "xml":
		enc = &xmlEncoder{}
	default:
		enc = &textEncoder{message: d.opts.message}
	}
	if !d.write(enc.begin(d.line[:0])) {
		return
	}
	var ds describe.Description
	stopped := false
	// Lines are gathered into blocks larger than the bufio buffer, which
	// bufio then writes straight through instead of copying each line.
	batch := d.line[:0]
	d.each(func(r *record.Record) bool {
		d.describe.describe(r, &ds)
		batch = enc.record(batch, r, &ds)
		if len(batch) > outputBuffer {
			if !d.write(batch) {
				stopped = true
				return false
			}
			batch = batch[:0]
		}
		return true
	})
	if !stopped && d.write(batch) {
		d.write(enc.end(d.line[:0]))
	}
}

func (d *dumper) count() {
	n := 0
	d.each(func(*record.Record) bool { n++; return true })
	d.write(append(appendUint(d.line[:0], uint64(n)), '\n'))
}

// write hands one encoded piece to the buffered writer and keeps the grown
// buffer for the next record. It reports false once output has failed.
func (d *dumper) write(b []byte) bool {
	if cap(b) > cap(d.line) {
		d.line = b[:0]
	}
	if d.err != nil {
		return false
	}
	if len(b) == 0 {
		return true
	}
	if _, err := d.w.Write(b); err != nil {
		d.err = err
		return false
	}
	return true
}

// reportDamage writes the one-line summary of what a file lost, and marks
// the run as damaged.
func (d *dumper) reportDamage(name string, st *etl.Stats) {
	if !st.Damaged() {
		return
	}
	d.fail(exitDamaged)
	fmt.Fprintln(d.stderr, damageSummary(name, st))
}

// damageSummary says in one line how much was lost and where the first
// damage is, so that a user can look there with a hex viewer.
func damageSummary(name string, st *etl.Stats) string {
	var parts []string
	plural := func(n int, one, many string) {
		if n > 0 {
			parts = append(parts, counted(n, one, many))
		}
	}
	plural(st.BuffersSkipped, "buffer skipped", "buffers skipped")
	plural(st.RecordsSkipped, "record skipped", "records skipped")
	plural(st.BuffersCut, "buffer cut short", "buffers cut short")
	switch {
	case st.Unwrap != nil && errors.Is(st.Unwrap, etl.ErrUnwrapLimit):
		parts = append(parts, "its content stops at the --max-unwrapped limit")
	case st.Unwrap != nil:
		parts = append(parts, "its content breaks off")
	case st.Truncated:
		parts = append(parts, "the file ends inside its last buffer")
	}
	if len(parts) == 0 {
		plural(st.ErrorCount, "error", "errors")
	}
	var off int64
	first := ""
	if len(st.Errors) > 0 {
		off = st.Errors[0].Offset
		// The notice of a last buffer cut by the end of the file says
		// what "the file ends inside its last buffer" already says.
		// The content's end is told last.
		if fe := st.Errors[0]; !(st.Truncated && fe.Buffer == st.Buffers-1 && errors.Is(fe, etl.ErrTruncated)) && fe != st.Unwrap {
			first = errorReason(fe)
		}
	}
	msg := fmt.Sprintf("etldump: %s: offset 0x%x: damaged: %s; %s read", name, off, strings.Join(parts, ", "), counted(st.Records, "record", "records"))
	if first != "" {
		msg += "; first: " + first
	}
	if fe := st.Unwrap; fe != nil {
		msg += "; " + fe.Reason
	}
	return msg
}

// counted is a count with its noun: "1 record", "2 records", "0 records".
func counted[N int | int64 | uint32](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// errorReason is a FormatError without its offset, which the message
// carries in front.
func errorReason(fe *etl.FormatError) string {
	s := fe.Reason
	if fe.Buffer >= 0 {
		s = fmt.Sprintf("buffer %d: %s", fe.Buffer, s)
	}
	if fe.Err != nil {
		s += ": " + fe.Err.Error()
	}
	if fe.Skipped > 0 {
		s += "; " + fe.SkippedRange()
	}
	return s
}
