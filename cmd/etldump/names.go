package main

import (
	"fmt"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/internal/digits"
	"github.com/etlkit/etlkit/record"
)

// describer fills a describe.Description for each record: provider and
// event names, and the payload decoded where a schema is known. payload
// says whether the output prints the payload; --count and --stats need
// only the names.
type describer struct {
	d       *describe.Describer
	payload bool
}

// newDescriber describes with what the inputs say of their own events
// (learnTrace) when learn is set, then the --manifest events, then the
// built-in tables. One that prints payloads starts from the kernel file
// and volume names and .NET type names the first pass learned.
func (d *dumper) newDescriber(payload, learn bool) *describer {
	var opts describe.Options
	if learn {
		opts = d.learnTrace().DescribeOptions()
	} else {
		opts = describe.NewTraceLearner(d.traceOptions()).DescribeOptions()
		opts.Trace = nil
	}
	if !payload || !learn {
		opts.KernelNames, opts.TypeNames = nil, nil
	}
	return &describer{d: describe.New(opts), payload: payload}
}

func (z *describer) describe(r *record.Record, d *describe.Description) {
	z.d.Describe(r, d, z.payload)
}

func (d *dumper) traceOptions() *describe.TraceOptions {
	return &describe.TraceOptions{Manifests: d.manifests, WPP: d.wpp.set, WPPPointerSize: d.wpp.pointerSize}
}

// maxLearnWarnings bounds the lines a run prints about metadata it could
// not use.
const maxLearnWarnings = 10

// usesEventNames reports whether the filters judge event names, which the
// trace's metadata can give.
func usesEventNames(s *filter.Session) bool {
	if len(s.EventNames.Names) > 0 {
		return true
	}
	for i := range s.Providers {
		if len(s.Providers[i].EventNames.Names) > 0 {
			return true
		}
	}
	return false
}

// learnTrace reads the TDH metadata and EventSource manifests of every
// input in a first, quick pass, so that events logged before their
// metadata are described too. One Learner serves every input: the files of
// one capture describe each other's events. Metadata that cannot be used
// is reported on standard error; the run goes on.
func (d *dumper) learnTrace() *describe.Learner {
	if d.learned != nil {
		return d.learned
	}
	l := describe.NewTraceLearner(d.traceOptions())
	for _, in := range d.inputs {
		before := len(l.Errors())
		// The pass that reads the records decompresses the buffers again
		// rather than taking them from this one: holding them costs more
		// in first touches of fresh memory than decompressing twice.
		l.ScanTrace(in.f)
		for i, err := range l.Errors()[before:] {
			if before+i >= maxLearnWarnings {
				break
			}
			fmt.Fprintf(d.stderr, "etldump: %s: %v\n", in.name, err)
		}
	}
	if n := l.Stats().Errors; n > maxLearnWarnings {
		fmt.Fprintf(d.stderr, "etldump: %s could not be used\n", digits.Counted(n-maxLearnWarnings, "more metadata record", "more metadata records"))
	}
	for _, p := range l.Pending() {
		fmt.Fprintf(d.stderr, "etldump: EventSource manifest of provider %v (process %d) incomplete: %d of %s\n",
			p.Provider, p.ProcessID, p.Have, digits.Counted(p.Total, "chunk", "chunks"))
	}
	d.learned = l
	return l
}
