package main

import (
	"fmt"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
	"github.com/etlkit/etlkit/schema/manifest"
	"github.com/etlkit/etlkit/schema/providers"
)

// describer fills a describe.Description for each record: provider and
// event names, and the payload decoded where a schema is known. payload
// says whether the encoder prints the payload; --count and --stats need
// only the names.
type describer struct {
	d       *describe.Describer
	payload bool
}

// newDescriber describes with trace, what the inputs say of their own
// events (see learnTrace), first, then the --manifest events (nil for
// none), then the built-in tables; learned (nil for none) is the first
// pass over the inputs, whose kernel file and volume names and .NET type
// names the descriptions start from.
func newDescriber(payload bool, trace, manifests *schema.Set, learned *describe.Learner) *describer {
	opts := describe.Options{
		Trace:         trace,
		Manifests:     manifests,
		BuiltIn:       []*schema.Set{dotnet.Set()},
		ProviderNames: providers.Name,
	}
	if learned != nil {
		opts.KernelNames, opts.TypeNames = learned.KernelNames(), learned.TypeNames()
	}
	return &describer{d: describe.New(opts), payload: payload}
}

func (z *describer) describe(r *record.Record, d *describe.Description) {
	z.d.Describe(r, d, z.payload)
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
// metadata are described too. One set serves every input: the files of
// one capture describe each other's events. Metadata that cannot be used
// is reported on standard error; the run goes on.
func (d *dumper) learnTrace() *schema.Set {
	if d.trace != nil {
		return d.trace
	}
	l := describe.NewLearner()
	l.SetManifestParser(parseManifest)
	// TDH metadata carries the .NET runtime's raw task and opcode names;
	// the built-in tables and the runtime's manifest name the same events
	// as TraceEvent does, with the same layout.
	if d.manifests != nil {
		l.Defer(d.manifests)
	}
	l.Defer(dotnet.Set())
	for _, in := range d.inputs {
		before := len(l.Errors())
		// The pass that reads the records decompresses the buffers
		// again rather than taking them from this one: LZ77 decompresses
		// at about 1.5 GB/s, while holding the 22 MiB of net452's
		// buffers cost more in first touches of fresh memory (jsonl
		// 0.33 -> 0.27 s, peak RSS 50 -> 31 MB without them).
		l.Scan(in.f.Buffers(), &in.f.Header().Clock)
		for i, err := range l.Errors()[before:] {
			if before+i >= maxLearnWarnings {
				break
			}
			fmt.Fprintf(d.stderr, "etldump: %s: %v\n", in.name, err)
		}
	}
	if n := l.Stats().Errors; n > maxLearnWarnings {
		fmt.Fprintf(d.stderr, "etldump: %s could not be used\n", counted(n-maxLearnWarnings, "more metadata record", "more metadata records"))
	}
	for _, p := range l.Pending() {
		fmt.Fprintf(d.stderr, "etldump: EventSource manifest of provider %v (process %d) incomplete: %d of %s\n",
			p.Provider, p.ProcessID, p.Have, counted(p.Total, "chunk", "chunks"))
	}
	d.trace, d.learned = l.Set(), l
	return d.trace
}

// parseManifest turns the manifest an EventSource wrote into its trace
// into events, whose bit maps name values as TraceEvent shows them.
func parseManifest(xml []byte, source string, set *schema.Set) error {
	providers, err := manifest.Parse(xml, source)
	if err != nil {
		return err
	}
	for _, p := range providers {
		p.UseEventSourceMaps()
		p.AddTo(set)
	}
	return nil
}
