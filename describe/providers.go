package describe

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
	"github.com/etlkit/etlkit/schema/eventsource"
	"github.com/etlkit/etlkit/schema/kernel"
	"github.com/etlkit/etlkit/schema/providers"
)

// ProviderIndex finds providers by the names a Describer gives them, in any
// case, as TraceEvent matches them: a name stands for every GUID any source
// names so (Windows Kernel for every kernel group, KernelTraceControl for
// its classes, a manifest provider for its GUID). It answers
// filter.Options.ResolveProvider. Fill it, then read it from any number of
// goroutines.
type ProviderIndex struct {
	base  *ProviderIndex
	ids   map[string][]uuid.UUID // by lower-case name
	names map[string]string      // the name as first given, by lower-case name
}

// builtInSets are the sets DescribeOptions gives as BuiltIn.
func builtInSets() []*schema.Set { return []*schema.Set{dotnet.Set()} }

// builtInProviders indexes the tables built in: the kernel's groups and
// classes, the .NET runtime's providers and the well-known provider names.
var builtInProviders = sync.OnceValue(func() *ProviderIndex {
	x := &ProviderIndex{}
	kernel.EachProvider(x.Add)
	for _, s := range builtInSets() {
		s.EachProvider(x.Add)
	}
	providers.Each(x.Add)
	return x
})

// NewProviderIndex returns the index of the names a Describer with opts
// gives providers: the built-in tables (the kernel's, the .NET runtime's,
// the well-known names of package providers), and the sets and TMF
// messages opts holds (what a trace said of itself, the user's manifests,
// WPP). The names that TraceLogging and EventSource providers carry in
// their records are only in the trace: AddRecords reads them.
func NewProviderIndex(opts Options) *ProviderIndex {
	x := &ProviderIndex{base: builtInProviders()}
	for _, s := range append([]*schema.Set{opts.Trace, opts.Manifests}, opts.BuiltIn...) {
		if s != nil && !slices.Contains(builtInSets(), s) {
			s.EachProvider(x.Add)
		}
	}
	opts.WPP.EachProvider(x.Add)
	return x
}

// Add records that name stands for the provider id.
func (x *ProviderIndex) Add(id uuid.UUID, name string) {
	name = strings.TrimSpace(name)
	if name == "" || id == uuid.Nil {
		return
	}
	k := strings.ToLower(name)
	if x.base != nil && slices.Contains(x.base.ids[k], id) {
		return
	}
	if x.ids == nil {
		x.ids, x.names = make(map[string][]uuid.UUID), make(map[string]string)
	}
	if slices.Contains(x.ids[k], id) {
		return
	}
	x.ids[k] = append(x.ids[k], id)
	if _, ok := x.names[k]; !ok {
		x.names[k] = name
	}
}

// Lookup returns the GUIDs name stands for, in any case; nil when none.
func (x *ProviderIndex) Lookup(name string) []uuid.UUID {
	k := strings.ToLower(strings.TrimSpace(name))
	var out []uuid.UUID
	if x.base != nil {
		out = append(out, x.base.ids[k]...)
	}
	for _, id := range x.ids[k] {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// AddRecords adds the names the records carry: the provider traits of
// TraceLogging and EventSource records, and the name of an EventSource
// without a manifest in the trace whose GUID is the one its name gives
// (eventsource.GUIDFromName), for each of names that is one. It reads
// every record (an etl.Reader's Records), so it is for the names no other
// source knows.
func (x *ProviderIndex) AddRecords(records iter.Seq2[*record.Record, error], names ...string) {
	derived := make(map[uuid.UUID]string, len(names))
	for _, n := range names {
		derived[eventsource.GUIDFromName(n)] = n
	}
	// A provider writes the same traits into each of its records: one
	// record with a name is enough.
	seen, named := map[uuid.UUID]bool{}, map[uuid.UUID]bool{}
	var traits record.TraitsCache
	for rec, err := range records {
		if err != nil || named[rec.ProviderId] {
			continue
		}
		if n := traits.ProviderName(rec); n != "" {
			x.Add(rec.ProviderId, n)
			named[rec.ProviderId] = true
		}
		if !seen[rec.ProviderId] {
			seen[rec.ProviderId] = true
			if n, ok := derived[rec.ProviderId]; ok {
				x.Add(rec.ProviderId, n)
			}
		}
	}
}

// UnknownProviderError is the error of Resolve for a name no source gives
// a provider.
type UnknownProviderError struct {
	Name string
	// Closest are the known names nearest to Name, the nearest first.
	Closest []string
}

func (e *UnknownProviderError) Error() string {
	msg := fmt.Sprintf("%q names no provider of the traces, the manifests or the built-in tables", e.Name)
	if len(e.Closest) > 0 {
		msg += "; the closest names: " + strings.Join(e.Closest, ", ")
	}
	return msg + " (a GUID is always accepted)"
}

// maxClosest is how many names an UnknownProviderError suggests.
const maxClosest = 5

// Resolve is Lookup for filter.Options.ResolveProvider: a name that stands
// for no GUID is an *UnknownProviderError with the closest known names.
func (x *ProviderIndex) Resolve(name string) ([]uuid.UUID, error) {
	if ids := x.Lookup(name); len(ids) > 0 {
		return ids, nil
	}
	return nil, &UnknownProviderError{Name: name, Closest: x.Closest(name, maxClosest)}
}

// Closest returns up to n known names nearest to name: those that hold it,
// or that it holds, in any case, first, then by edit distance.
func (x *ProviderIndex) Closest(name string, n int) []string {
	want := strings.ToLower(strings.TrimSpace(name))
	type cand struct {
		name     string
		apart    bool // neither holds the other
		distance int
	}
	var cs []cand
	add := func(idx *ProviderIndex) {
		for k, shown := range idx.names {
			cs = append(cs, cand{shown, !strings.Contains(k, want) && !strings.Contains(want, k), editDistance(k, want)})
		}
	}
	if x.base != nil {
		add(x.base)
	}
	add(x)
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case a.apart != b.apart:
			if a.apart {
				return 1
			}
			return -1
		case a.distance != b.distance:
			return a.distance - b.distance
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, c := range cs {
		if len(out) == n {
			break
		}
		if !slices.ContainsFunc(out, func(s string) bool { return strings.EqualFold(s, c.name) }) {
			out = append(out, c.name)
		}
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
