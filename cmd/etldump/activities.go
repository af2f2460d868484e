package main

import (
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/record/activity"
	"github.com/etlkit/etlkit/schema/tracelogging"
	"github.com/etlkit/etlkit/sink/textsink"
)

// activities is --activities: the records that pass the filters, in the
// chosen order, go through an activity tracker, and the tree it builds is
// printed once the input ends.
func (d *dumper) activities() {
	tr := activity.Tracker{EventName: tracelogging.NewCache(0, 0).EventName}
	d.each(func(r *record.Record) bool {
		tr.Add(r)
		return true
	})
	f := tr.Forest()
	if d.opts.format == "json" {
		d.write(textsink.AppendActivitiesJSON(d.line[:0], f))
		return
	}
	d.write(textsink.AppendActivitiesText(d.line[:0], f))
}
