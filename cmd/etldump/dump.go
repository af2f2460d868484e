package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/manifest"
	"github.com/etlkit/etlkit/sink/textsink"
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

	inputs []*input
	filter *filter.Filter
	// filteredOut, when set, is given the records the filter leaves out
	// (a pcapng capture learns its interfaces from them).
	filteredOut func(r *record.Record)
	describe    *describer
	// manifests holds the events of the --manifest files, nil for none.
	manifests *schema.Set
	// learned is the first pass over the inputs, once made: what they say
	// of their own events, their kernel file and volume names and .NET
	// type names.
	learned *describe.Learner
	// wpp holds the TMF messages of --tmf.
	wpp      wppOptions
	progress *progress
	set      *etl.Set
	// attr gives each record the process it is about, when the run needs
	// it (attributes); out counts the records out, for -n.
	attr *attribution
	out  int
}

func (d *dumper) fail(status int) {
	d.status = max(d.status, status)
}

func (d *dumper) dump() int {
	defer d.closeInputs()
	if len(d.opts.manifests) > 0 {
		set, err := describe.LoadManifests(&manifest.Options{Warn: func(err error) {
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
		d.manifests = set
	}
	d.open()
	if len(d.inputs) == 0 || !d.loadTMF() {
		return d.status
	}
	d.line = make([]byte, 0, 4096)
	if d.opts.view == "header" {
		d.writing = true
		d.printHeaders()
		return d.status
	}
	if d.attributes() {
		// The first pass gives the processes of threads that records
		// name before any thread event does; the outputs that show the
		// process make it anyway.
		d.learnTrace()
		d.attr = d.newAttribution()
	}
	if d.opts.filtered {
		// Event names come from the same sources as the output's, so
		// --event-name matches what EventName shows: kernel, manifest and
		// TraceLogging names alike.
		names := d.newDescriber(false, usesEventNames(&d.opts.session))
		lookup := filter.Lookup{EventName: names.d.EventName}
		if d.wpp.set != nil {
			lookup.Message = d.wpp.wppLevel
		}
		if d.attr != nil {
			d.attributionLookups(&lookup)
		}
		fopts := filter.Options{TraceStart: d.traceStart(), Lookup: lookup}
		if namesProviders(d.opts) {
			if d.learnsAnyway() {
				// The names the first pass learns count too, and it is made
				// for the output anyway.
				d.learnTrace()
			}
			fopts.ResolveProvider = d.newProviderNames().resolve
		}
		flt, err := filter.Compile(fopts, d.opts.session)
		var unknown *describe.UnknownProviderError
		if errors.As(err, &unknown) {
			fmt.Fprintf(d.stderr, "etldump: --provider: %v\n", unknown)
			d.fail(exitFatal)
			return d.status
		}
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
		} else if d.opts.format == "pcapng" {
			d.writePcapng()
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

// learnsAnyway reports whether the output describes records with what a
// first pass over the inputs learns: the record formats and --stats.
func (d *dumper) learnsAnyway() bool {
	switch d.opts.view {
	case "stats":
		return true
	case "":
		switch d.opts.format {
		case "text", "jsonl", "csv", "xml", "parquet":
			return true
		}
	}
	return false
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
			f, err = etl.OpenWith(name, d.openOptions())
		case readStdin:
			err = errors.New("standard input is given more than once")
		default:
			readStdin = true
			f, err = etl.OpenStream(stdin, name, d.openOptions())
		}
		if err != nil {
			fmt.Fprintln(d.stderr, fileMessage(name, err))
			d.fail(exitFatal)
			continue
		}
		d.inputs = append(d.inputs, &input{name: name, f: f})
	}
}

// openOptions are the etl.Options the flags ask for.
func (d *dumper) openOptions() *etl.Options {
	return &etl.Options{MaxUnwrapped: d.opts.maxUnwrapped}
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
	// a cost per record that --count notices.
	d.ordered()(func(r *record.Record, err error) bool {
		if n++; n&(ticksPerRecord-1) == 0 {
			d.progress.tick(r)
		}
		if err != nil {
			return true
		}
		if d.attr != nil {
			d.attr.next(r)
		}
		if d.filter != nil && !d.filter.Match(r) {
			if d.filteredOut != nil {
				d.filteredOut(r)
			}
			if d.describe != nil && d.describe.payload {
				// The names a kernel record shows may come from records
				// the filter drops.
				d.describe.d.Learn(r)
			}
			return true
		}
		return fn(r) && !d.limitReached()
	})
}

// limitReached counts one record out and reports whether -n is reached.
func (d *dumper) limitReached() bool {
	if d.opts.limit == 0 {
		return false
	}
	d.out++
	return d.out >= d.opts.limit
}

// origin is the name of the input the current record came from.
func (d *dumper) origin() string {
	if i := d.set.Origin(); i >= 0 && i < len(d.inputs) {
		return d.inputs[i].name
	}
	return ""
}

// extra is what the output shows of the current record besides its
// header and description: its input when there are several, and the
// process it is about.
func (d *dumper) extra(r *record.Record, x *textsink.Extra, multi bool) {
	*x = textsink.Extra{}
	if multi {
		x.File = d.origin()
	}
	if d.attr != nil {
		x.Subject, x.ProcessName = d.attr.subject, d.attr.processName(r)
	}
}

func (d *dumper) records() {
	d.describe = d.newDescriber(true, true)
	if d.opts.format == "parquet" {
		d.parquet()
		return
	}
	multi := len(d.opts.files) > 1
	w, err := textsink.NewWriter(d.w, textsink.Options{Format: textsink.Format(d.opts.format), Message: d.opts.message, FileColumn: multi})
	if err != nil {
		d.err = err
		return
	}
	var ds describe.Description
	var x textsink.Extra
	d.each(func(r *record.Record) bool {
		d.describe.describe(r, &ds)
		d.extra(r, &x, multi)
		return w.WriteExtra(r, &ds, &x) == nil
	})
	if err := w.Close(); err != nil && d.err == nil {
		d.err = err
	}
}

func (d *dumper) count() {
	n := 0
	d.each(func(*record.Record) bool { n++; return true })
	d.write(append(strconv.AppendInt(d.line[:0], int64(n), 10), '\n'))
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
	fmt.Fprintf(d.stderr, "etldump: %s: %s\n", name, st.DamageSummary())
}

// printHeaders is --header: each file's logfile header, a blank line
// between files in text, one JSON object per line with --format json.
func (d *dumper) printHeaders() {
	for i, in := range d.inputs {
		b := d.line[:0]
		if d.opts.format == "json" {
			b = textsink.AppendHeaderJSON(b, in.f)
		} else {
			if i > 0 {
				b = append(b, '\n')
			}
			b = textsink.AppendHeaderText(b, in.f)
		}
		if !d.write(b) {
			return
		}
	}
}

// stats is --stats: the records that pass the filters, named, counted by
// header type, provider and event.
func (d *dumper) stats() {
	sum := textsink.NewSummary()
	d.describe = d.newDescriber(false, true)
	var ds describe.Description
	d.each(func(r *record.Record) bool {
		d.describe.describe(r, &ds)
		sum.Add(r, &ds)
		return true
	})
	if d.set != nil {
		sum.SetOrder(d.opts.order, d.set.Stats().Order)
	}
	for _, in := range d.inputs {
		sum.AddInput(in.f)
	}
	if d.opts.format == "json" {
		d.write(sum.AppendJSON(d.line[:0]))
	} else {
		d.write(sum.AppendText(d.line[:0]))
	}
}
