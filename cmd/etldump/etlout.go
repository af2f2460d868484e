package main

import (
	"errors"
	"fmt"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/digits"
	"github.com/etlkit/etlkit/internal/outfile"
	"github.com/etlkit/etlkit/sink/etlsink"
)

// checkETL settles the flags of --format etl: a trace is written to a
// file, each processor's records in time order, and it is not a view.
func (o *options) checkETL() error {
	if o.format != "etl" {
		return nil
	}
	switch {
	case o.view != "":
		return usagef("--format etl writes records into a trace; it cannot be combined with --%s", o.view)
	case o.output == "" || o.output == "-":
		return usagef("--format etl needs -o FILE: a trace is written to a file, not to standard output")
	case o.order == "file":
		return usagef("--format etl writes each processor's records in time order; --order file cannot be combined with it")
	}
	return nil
}

// writeETL writes the records that pass the filters into a new trace at
// -o, with the records that describe the trace (etlsink.IsTraceDescribing)
// whatever the filters say. Several inputs make one trace when their
// clocks agree; otherwise nothing is written.
func (d *dumper) writeETL() {
	name := d.opts.output
	inputs := make([]etlsink.Input, len(d.inputs))
	for i, in := range d.inputs {
		inputs[i] = etlsink.Input{Name: in.name, Reader: in.f.Reader}
	}
	s, err := etlsink.SessionFor(inputs...)
	if err != nil {
		fmt.Fprintf(d.stderr, "etldump: %v\n", err)
		d.fail(exitFatal)
		return
	}
	for i, shift := range s.Shifts {
		if shift != 0 {
			fmt.Fprintf(d.stderr, "etldump: %s: times move by %v: raw timestamps are kept and read with the clock anchor of %s\n",
				inputs[i].Name, shift, inputs[s.Base].Name)
		}
	}
	h := s.Header
	h.LogFileName = name
	if !d.opts.session.From.IsZero() || !d.opts.session.To.IsZero() {
		h.EndTime = 0 // the cut ends at its latest record
	}
	f, err := outfile.Create(name, outfile.Options{})
	if err != nil {
		fmt.Fprintf(d.stderr, "etldump: -o %s: %v\n", name, pathReason(err))
		d.fail(exitFatal)
		return
	}
	w, err := etlsink.NewWriter(f, &h, etlsink.Options{})
	if err == nil {
		err = d.copyRecords(w, s)
		err = errors.Join(err, w.Close())
	}
	if err == nil {
		err = f.Commit()
	}
	if err != nil {
		f.Abort()
		fmt.Fprintf(d.stderr, "etldump: -o %s: %v\n", name, err)
		d.fail(exitFatal)
	}
}

// copyRecords hands the records to w, each processor's in the order of its
// stream: in file order when that is the same (see etlsink.Session),
// otherwise in time order. A record w cannot place is reported and marks
// the run as damaged; a write error ends it.
func (d *dumper) copyRecords(w *etlsink.Writer, s *etlsink.Session) error {
	n, refused := 0, 0
	var first error
	records := d.ordered()
	src := func() *etl.Reader { return d.inputs[d.set.Origin()].f.Reader }
	if len(d.inputs) == 1 && s.StreamOrder && d.opts.order == "time" {
		in := d.inputs[0].f.Reader
		records, src = in.Records(), func() *etl.Reader { return in }
	}
	for r, err := range records {
		if n++; n&(ticksPerRecord-1) == 0 {
			d.progress.tick(r)
		}
		if err != nil {
			continue
		}
		if d.filter != nil && !d.filter.Match(r) && !etlsink.IsTraceDescribing(r) {
			continue
		}
		if err := w.Copy(r, src()); err != nil {
			var re *etlsink.RecordError
			if !errors.As(err, &re) {
				return err
			}
			if refused++; first == nil {
				first = err
			}
		}
	}
	if refused > 0 {
		fmt.Fprintf(d.stderr, "etldump: -o %s: %s could not be written; first: %v\n", d.opts.output, digits.Counted(refused, "record", "records"), first)
		d.fail(exitDamaged)
	}
	return nil
}
