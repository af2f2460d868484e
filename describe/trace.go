package describe

import (
	"iter"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
	"github.com/etlkit/etlkit/schema/manifest"
	"github.com/etlkit/etlkit/schema/providers"
	"github.com/etlkit/etlkit/schema/wpp"
)

// TraceOptions choose the sources ForTrace uses beyond what the traces
// carry and the built-in tables: the user's manifests and TMF messages. The zero value, or nil, gives none.
type TraceOptions struct {
	// Manifests are the events of instrumentation manifests that describe
	// the user's own providers (see LoadManifests), nil for none. They
	// come after what the traces say of themselves and before the
	// built-in tables.
	Manifests *schema.Set
	// WPP holds the TMF messages WPP records are named and decoded with
	// (see Options.WPP), nil for none; WPPPointerSize sizes the pointers
	// of the messages whose header does not give it.
	WPP            *wpp.Set
	WPPPointerSize int
}

// LoadManifests reads instrumentation manifests for TraceOptions: each
// path is a manifest file (.man or .xml) or a directory of them, read as
// manifest.LoadPaths reads them with opts (nil for the defaults). Events of
// the .NET runtime's providers are named and laid out as the built-in
// tables name them. The set holds what could be read, also when the error
// says what could not.
func LoadManifests(opts *manifest.Options, paths ...string) (*schema.Set, error) {
	var o manifest.Options
	if opts != nil {
		o = *opts
	}
	set, err := manifest.LoadPaths(o, paths...)
	if set != nil {
		dotnet.ApplyTraceEventConventions(set)
	}
	return set, err
}

// ForTrace returns a Describer for the records of one or more traces read
// together, and the Learner of its first pass. The first pass reads the
// buffers of every trace once (the files of one capture describe each
// other's events) and learns what they say of themselves: the TDH
// metadata and EventSource manifests a merged or managed trace carries,
// the kernel's volume mappings and file names, the .NET runtime's type
// names. The Describer then names and decodes a record from, in order:
// the TraceLogging schema in the record, what the first pass learned,
// opts.Manifests, and the built-in tables (the kernel's classes, the .NET
// runtime's manifest, well-known provider names); see Options.
//
// Metadata the first pass could not use does not stop it: the Learner's
// Errors and Pending say what it was. The readers' Stats are those of the
// first pass until they are read again.
func ForTrace(opts *TraceOptions, traces ...Trace) (*Describer, *Learner) {
	l := NewTraceLearner(opts)
	for _, t := range traces {
		l.ScanTrace(t)
	}
	return New(l.DescribeOptions()), l
}

// A Trace is what a first pass reads of a trace: its buffers in file order
// and the clock of its timestamps. An *etl.Reader (and an *etl.File) is
// one.
type Trace interface {
	Buffers() iter.Seq2[*buffer.Buffer, error]
	Clock() *header.Clock
}

// NewTraceLearner returns the Learner ForTrace uses before it has read
// anything, for a caller that scans its traces one by one (ScanTrace):
// EventSource manifests in a trace are parsed with their maps named as
// TraceEvent names them, and the events opts.Manifests and the .NET
// runtime's tables describe at the version TDH metadata does are left to
// them (see Defer).
func NewTraceLearner(opts *TraceOptions) *Learner {
	l := NewLearner()
	l.SetManifestParser(parseEventSourceManifest)
	if opts != nil {
		if opts.Manifests != nil {
			l.Defer(opts.Manifests)
		}
		l.trace = *opts
	}
	l.Defer(dotnet.Set())
	return l
}

// ScanTrace learns from every buffer of t (Scan over t.Buffers, with its
// clock).
func (l *Learner) ScanTrace(t Trace) {
	l.Scan(t.Buffers(), t.Clock())
}

// DescribeOptions are the Options of a Describer that describes with what
// l learned, then the sources NewTraceLearner was given, then the built-in
// tables, starting from the kernel and .NET names l learned.
func (l *Learner) DescribeOptions() Options {
	return Options{
		Trace:          l.Set(),
		Manifests:      l.trace.Manifests,
		BuiltIn:        builtInSets(),
		ProviderNames:  providers.Name,
		KernelNames:    l.KernelNames(),
		TypeNames:      l.TypeNames(),
		WPP:            l.trace.WPP,
		WPPPointerSize: l.trace.WPPPointerSize,
	}
}

// parseEventSourceManifest turns the manifest an EventSource wrote into
// its trace into events, whose bit maps name values as TraceEvent shows
// them.
func parseEventSourceManifest(xml []byte, source string, set *schema.Set) error {
	provs, err := manifest.Parse(xml, source)
	if err != nil {
		return err
	}
	for _, p := range provs {
		p.UseEventSourceMaps()
		p.AddTo(set)
	}
	return nil
}
