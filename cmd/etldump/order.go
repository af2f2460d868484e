package main

import (
	"iter"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/record"
)

// ordered iterates the records of every input in the order --order asks
// for: one timeline merged from every processor of every file (time), the
// files as stored one after another (file), or the timeline passed through
// a reorder window (sorted). Errors are the inputs' *etl.FormatError
// values; the damage summary is read from each file's Stats afterwards.
func (d *dumper) ordered() iter.Seq2[*record.Record, error] {
	opts := order.Options{}
	switch d.opts.order {
	case "file":
		opts.Mode = order.FileOrder
	case "sorted":
		opts.Mode = order.Sorted
		opts.Window, opts.WindowRecords = d.opts.window.dur, d.opts.window.count
	}
	readers := make([]*etl.Reader, len(d.inputs))
	for i, in := range d.inputs {
		readers[i] = in.f.Reader
	}
	d.set = etl.NewSet(readers...)
	return d.set.EventsWith(opts)
}
