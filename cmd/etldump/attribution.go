package main

import (
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/kernel"
)

// attribution follows the processes and threads of the inputs, in the
// order the records come, and gives each record the process it is about
// (kernel.Processes.Subject): for --pid, --process and --tid, and for the
// outputs that show it.
type attribution struct {
	procs kernel.Processes
	// subject is the current record's, set by next.
	subject kernel.Subject
}

// attributes reports whether the run needs the process each record is
// about: its filters judge it, or its output shows it.
func (d *dumper) attributes() bool {
	s := &d.opts.session
	if len(s.ProcessIDs) > 0 || len(s.ThreadIDs) > 0 || len(s.ProcessNames) > 0 {
		return true
	}
	if d.opts.view != "" {
		return false
	}
	switch d.opts.format {
	case "text", "jsonl", "csv", "parquet":
		return true
	}
	return false
}

// newAttribution starts the attribution of a run, with what the first
// pass over the inputs learned of the threads that records name before
// their thread events.
func (d *dumper) newAttribution() *attribution {
	a := &attribution{}
	if d.learned != nil {
		a.procs.Ahead = d.learned.Ahead()
	}
	return a
}

// next takes the next record in order: what it says of processes and
// threads, then who it is about.
func (a *attribution) next(r *record.Record) {
	a.procs.Learn(r)
	a.subject = a.procs.Subject(r)
}

// lookups are the filter's process lookups, reading the current record's
// subject.
func (d *dumper) attributionLookups(l *filter.Lookup) {
	l.Process = func(*record.Record) (uint32, bool) { return d.attr.subject.ProcessID, d.attr.subject.HasProcess }
	l.Thread = func(*record.Record) (uint32, bool) { return d.attr.subject.ThreadID, d.attr.subject.HasThread }
	l.ProcessName = func(*record.Record) (string, bool) {
		if !d.attr.subject.HasProcess {
			return "", false
		}
		n := d.attr.procs.ProcessName(d.attr.subject.ProcessID)
		return n, n != ""
	}
}

// processName is the image name of the current record's subject where
// the output shows it, "" otherwise.
func (a *attribution) processName(r *record.Record) string {
	if !a.subject.Differs(r) {
		return ""
	}
	return a.procs.ProcessName(a.subject.ProcessID)
}
