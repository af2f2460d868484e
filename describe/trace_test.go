package describe_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
	"github.com/etlkit/etlkit/schema/manifest"
	"github.com/etlkit/etlkit/schema/providers"
)

// handBuilt is ForTrace put together from the parts, as a program had to
// before it: a Learner with the EventSource parser and the deferred sets,
// a Scan of the buffers, and the Options of every source.
func handBuilt(t *testing.T, r *etl.Reader, manifests *schema.Set) *describe.Describer {
	t.Helper()
	l := describe.NewLearner()
	l.SetManifestParser(func(xml []byte, source string, set *schema.Set) error {
		provs, err := manifest.Parse(xml, source)
		for _, p := range provs {
			p.UseEventSourceMaps()
			p.AddTo(set)
		}
		return err
	})
	if manifests != nil {
		l.Defer(manifests)
	}
	l.Defer(dotnet.Set())
	l.Scan(r.Buffers(), &r.Header().Clock)
	return describe.New(describe.Options{
		Trace: l.Set(), Manifests: manifests, BuiltIn: []*schema.Set{dotnet.Set()}, ProviderNames: providers.Name,
		KernelNames: l.KernelNames(), TypeNames: l.TypeNames(),
	})
}

// TestForTraceIsTheWholePipeline: on the merged .NET sample (TDH metadata
// learned from the trace, kernel names, .NET type names) and on a trace
// with an EventSource manifest, and with the .NET runtime's manifest given,
// ForTrace names and decodes every record as
// the parts put together by hand do, and as many as it should.
func TestForTraceIsTheWholePipeline(t *testing.T) {
	for _, c := range []struct {
		file            string
		manifests       bool
		minDecoded      int
		eventInfos      int // TDH EventInfo records learned
		manifestsParsed int // EventSource manifests learned
	}{
		{"net452-x64-merged-compressed.etl", false, 170000, 61, 3},
		{"diaghub-user-paged.etl", false, 1, 0, 1},
		{"gcevents-manifest.etl", true, 60, 0, 0},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := etl.Open(samples.Path(t, c.file))
			require.NoError(t, err)
			defer f.Close()
			var opts *describe.TraceOptions
			var set *schema.Set
			if c.manifests {
				set, err = describe.LoadManifests(nil, samples.ManifestPath(t, "ClrEtwAll.man"))
				require.NoError(t, err)
				opts = &describe.TraceOptions{Manifests: set}
			}
			got, learned := describe.ForTrace(opts, f.Reader)
			assert.Equal(t, c.eventInfos, learned.Stats().EventInfos)
			assert.Equal(t, c.manifestsParsed, learned.Stats().ManifestsParsed)
			want := handBuilt(t, f.Reader, set)
			var a, b describe.Description
			decoded := 0
			for r, err := range f.Events() {
				require.NoError(t, err)
				got.Describe(r, &a, true)
				want.Describe(r, &b, true)
				require.Equal(t, b.ProviderName, a.ProviderName, "record at 0x%x", r.FileOffset)
				require.Equal(t, b.EventName, a.EventName, "record at 0x%x", r.FileOffset)
				require.Equal(t, b.Decoded, a.Decoded, "record at 0x%x", r.FileOffset)
				require.Equal(t, string(payload.AppendJSONObject(nil, b.Fields)), string(payload.AppendJSONObject(nil, a.Fields)), "record at 0x%x", r.FileOffset)
				if a.Decoded {
					decoded++
				}
			}
			assert.GreaterOrEqual(t, decoded, c.minDecoded)
		})
	}
}
