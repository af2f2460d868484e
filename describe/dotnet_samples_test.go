package describe_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
)

// TestTraceMetadataAgreesWithBuiltInDotNet decodes every .NET runtime
// record of the merged sample twice, with the TDH metadata the trace
// carries and with the built-in tables made from the runtime's manifest,
// and holds every field the metadata gives to the tables' field of the
// same name: the same kind of value read from the same bytes.
func TestTraceMetadataAgreesWithBuiltInDotNet(t *testing.T) {
	const name = "net452-x64-merged-compressed.etl"
	l := learnSamples(t, nil, name)
	f, err := etl.Open(samples.Path(t, name))
	require.NoError(t, err)
	defer f.Close()
	fromTrace := describe.New(describe.Options{Trace: l.Set()})
	builtIn := describe.New(describe.Options{BuiltIn: []*schema.Set{dotnet.Set()}})
	var a, b describe.Description
	records, fields := 0, 0
	differ, skipped := map[string]int{}, map[string]int{}
	for r, err := range f.Records() {
		require.NoError(t, err)
		fromTrace.Describe(r, &a, true)
		if a.Event == nil {
			continue
		}
		if e, _ := l.Set().Lookup(keyOf(r, &a)); e != a.Event {
			continue
		}
		builtIn.Describe(r, &b, true)
		if b.Event == nil || !a.Decoded || !b.Decoded {
			skipped[a.ProviderName+"/"+a.EventName]++
			continue
		}
		records++
		theirs := map[string]string{}
		for _, v := range b.Fields {
			theirs[v.Name()] = rawText(v)
		}
		for _, v := range a.Fields {
			fields++
			if got, ok := theirs[v.Name()]; !ok || got != rawText(v) {
				differ[fmt.Sprintf("%s.%s", a.EventName, v.Name())]++
			}
		}
	}
	t.Logf("%d records, %d fields compared; differ: %v; not compared: %v", records, fields, differ, skipped)
	// Every .NET record the metadata describes; the others are of
	// providers the tables do not know.
	assert.Equal(t, 65741, records)
	// The fields include the TypeName of 54 GC/FinalizeObject records
	// (from BulkType records). Both sources read the 14,983 stack walks'
	// Stack to FrameCount, not to the manifest's count of 2, which left
	// the other frames over as payload.TrailingData.
	assert.Equal(t, 472819+54, fields)
	assert.Empty(t, differ)
	for k := range skipped {
		assert.False(t, strings.HasPrefix(k, "Microsoft-Windows-DotNETRuntime"), k)
	}
}

// rawText is the bytes a value was read from, and its kind: the two
// sources split the payload alike when every field's bytes agree (the
// names maps give values may differ: the tables name some values the
// metadata leaves as numbers).
func rawText(v payload.Value) string {
	return fmt.Sprintf("%v %x", v.Kind(), v.Raw())
}

// TestFinalizeObjectTypeNames: the runtime logs a type's BulkType just
// after the first FinalizeObject of that type, so a Describer names it
// only when a first pass learned the trace's type names, as TraceEvent
// names it; in time order alone the first is empty and the next named.
func TestFinalizeObjectTypeNames(t *testing.T) {
	const name = "net452-x64-merged-compressed.etl"
	f, err := etl.Open(samples.Path(t, name))
	require.NoError(t, err)
	defer f.Close()
	l := describe.NewLearner()
	l.Scan(f.Buffers(), &f.Header().Clock)
	const cwt = "System.Runtime.CompilerServices.ConditionalWeakTable`2[System.Object,System.Object]"
	n, ok := l.TypeNames().Name(3988, 0x72C61F4)
	require.True(t, ok)
	assert.Equal(t, cwt, n)

	first := func(opts describe.Options) []string {
		z := describe.New(opts)
		var d describe.Description
		var got []string
		for r, err := range f.Events() {
			require.NoError(t, err)
			z.Describe(r, &d, true)
			if d.EventName != "GC/FinalizeObject" {
				continue
			}
			v, ok := payload.Lookup(d.Fields, "TypeName")
			require.True(t, ok)
			got = append(got, v.Str())
			if len(got) == 3 {
				break
			}
		}
		return got
	}
	builtIn := []*schema.Set{dotnet.Set()}
	assert.Equal(t, []string{cwt, "SubtreeFinalizer", cwt}, first(describe.Options{BuiltIn: builtIn, TypeNames: l.TypeNames()}))
	assert.Equal(t, []string{"", "", cwt}, first(describe.Options{BuiltIn: builtIn}))
}

// TestDotNetDecodingAllocatesNothing: once warm, describing and decoding
// the .NET runtime's events allocates nothing per record, but for the
// error of a payload longer than its schema says: FitBucketInfo and
// LOHCompact, whose manifest packs the structs the runtime writes aligned.
func TestDotNetDecodingAllocatesNothing(t *testing.T) {
	var recs []*record.Record
	for _, trace := range []string{"gcevents-manifest.etl", "gcrundown-manifest.etl"} {
		f, err := etl.Open(samples.Path(t, trace))
		require.NoError(t, err)
		for r, err := range f.Records() {
			require.NoError(t, err)
			recs = append(recs, r.Clone())
		}
		f.Close()
	}
	z, _ := describe.ForTrace(nil)
	var d describe.Description
	decoded := 0
	for _, r := range recs {
		z.Describe(r, &d, true)
		if d.Decoded && strings.HasPrefix(d.ProviderName, "Microsoft-Windows-DotNETRuntime") {
			decoded++
		}
	}
	assert.Greater(t, decoded, 150)
	trailing := map[string]int{}
	for _, r := range recs {
		allocs := testing.AllocsPerRun(10, func() { z.Describe(r, &d, true) })
		if payload.IsTrailing(d.Err) {
			trailing[d.EventName]++
			continue
		}
		if allocs != 0 {
			t.Errorf("%s/%s (%v, %d bytes): %v allocations", d.ProviderName, d.EventName, r.HeaderType, len(r.UserData), allocs)
		}
	}
	assert.Equal(t, map[string]int{"GC/FitBucketInfo": 1, "GC/LOHCompact": 1}, trailing)
}
