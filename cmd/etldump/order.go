package main

import (
	"iter"

	"github.com/etlkit/etlkit/buffer"
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
	srcs := make([]order.Source, len(d.inputs))
	for i, in := range d.inputs {
		srcs[i] = in.f.Source()
		srcs[i].Observer = &watch{Observer: srcs[i].Observer, p: d.progress}
	}
	d.merge = order.New(opts, srcs...)
	return d.merge.Records()
}

// watch passes a source's buffers on to the file's own counts and tells
// the progress bar how far the iteration is: in time order every buffer is
// scanned first and loaded later, so bytes scanned alone would reach the
// total long before the end. The embedded Observer forwards everything
// else.
type watch struct {
	order.Observer
	p *progress
}

func (w *watch) Scanned(b *buffer.Buffer, span int64, err error) {
	w.p.scanned(span, err != nil)
	w.Observer.Scanned(b, span, err)
}

func (w *watch) Loaded(b *buffer.Buffer, err error) {
	w.p.loaded()
	w.Observer.Loaded(b, err)
}
