package dotnet_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
	"github.com/etlkit/etlkit/schema/manifest"
)

// TestTablesMatchManifest holds the built-in tables to what the manifest
// reader makes of the manifest they were generated from: every event, its
// names, message and payload layout, and no event more.
func TestTablesMatchManifest(t *testing.T) {
	path := samples.ManifestPath(t, "ClrEtwAll.man")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(data)
	tables, err := os.ReadFile("tables.go")
	require.NoError(t, err)
	first, _, _ := strings.Cut(string(tables), "\n")
	require.Contains(t, first, hex.EncodeToString(sum[:]), "tables.go is stale: run go generate ./schema/dotnet")

	provs, err := manifest.Parse(data, "ClrEtwAll.man")
	require.NoError(t, err)
	want := &schema.Set{}
	for _, p := range provs {
		p.AddTo(want)
	}
	got := dotnet.ManifestSet()
	assert.Equal(t, want.Len(), got.Len())
	n := 0
	want.Each(func(k schema.Key, e *schema.Event) {
		g, exact := got.Lookup(k)
		if assert.True(t, exact, "%v", k) {
			assert.Equal(t, e, g, "%v", k)
			n++
		}
	})
	assert.Equal(t, 510, n)
	for _, p := range provs {
		name, ok := got.ProviderName(p.GUID)
		assert.True(t, ok)
		assert.Equal(t, p.Name, name)
	}
}

// TestConventionsGiveTheSameSet: the manifest read with the TraceEvent
// conventions applied is the built-in set, Computed fields aside (funcs
// compare only by presence).
func TestConventionsGiveTheSameSet(t *testing.T) {
	data, err := os.ReadFile(samples.ManifestPath(t, "ClrEtwAll.man"))
	require.NoError(t, err)
	provs, err := manifest.Parse(data, "ClrEtwAll.man")
	require.NoError(t, err)
	want := &schema.Set{}
	for _, p := range provs {
		p.AddTo(want)
	}
	dotnet.ApplyTraceEventConventions(want)
	got := dotnet.Set()
	computed := 0
	want.Each(func(k schema.Key, e *schema.Event) {
		g, exact := got.Lookup(k)
		require.True(t, exact, "%v", k)
		we, ge := *e, *g
		assert.Equal(t, we.Computed == nil, ge.Computed == nil, "%v", k)
		if we.Computed != nil {
			computed++
		}
		we.Computed, ge.Computed = nil, nil
		assert.Equal(t, we, ge, "%v", k)
	})
	// HeapStats' three versions, and the module events with an IL path.
	assert.Equal(t, 23, computed)
}

func decodeEvent(t *testing.T, id uint16, version uint16, data []byte) (*schema.Event, string) {
	t.Helper()
	e, exact := dotnet.Set().Lookup(schema.Key{Provider: dotnet.RuntimeProvider, ID: id, Version: version})
	require.NotNil(t, e)
	require.True(t, exact)
	vals, err := e.Payload.Decode(data, 8, nil)
	require.NoError(t, err)
	if e.Computed != nil {
		vals = e.Computed(nil, vals)
	}
	return e, string(payload.AppendJSONObject(nil, vals))
}

func le(vs ...any) []byte {
	var b []byte
	for _, v := range vs {
		switch x := v.(type) {
		case uint16:
			b = binary.LittleEndian.AppendUint16(b, x)
		case uint32:
			b = binary.LittleEndian.AppendUint32(b, x)
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, x)
		case uint8:
			b = append(b, x)
		case string: // UTF-16, NUL-terminated
			for _, c := range utf16.Encode([]rune(x)) {
				b = binary.LittleEndian.AppendUint16(b, c)
			}
			b = append(b, 0, 0)
		}
	}
	return b
}

func TestBuiltInEvents(t *testing.T) {
	// GC/Start version 2: Count, Depth, Reason (mapped), Type (mapped),
	// ClrInstanceID, ClientSequenceNumber.
	e, got := decodeEvent(t, 1, 2, le(uint32(7), uint32(2), uint32(1), uint32(1), uint16(8), uint64(99)))
	assert.Equal(t, "Microsoft-Windows-DotNETRuntime", e.Provider)
	assert.Equal(t, "GC/Start", e.Name)
	assert.Equal(t, []string{"GC"}, e.Keywords)
	assert.Equal(t, `{"Count":7,"Depth":2,"Reason":1,"ReasonName":"Induced","Type":1,"TypeName":"BackgroundGC",`+
		`"ClrInstanceID":8,"ClientSequenceNumber":99}`, got)

	// GC/HeapStats version 2, with TraceEvent's totals and depth.
	var hs []any
	for g := uint64(0); g < 4; g++ {
		hs = append(hs, 100*(g+1), 10*g) // GenerationSize g, TotalPromotedSize g
	}
	hs = append(hs, uint64(1), uint64(2), uint32(3), uint32(4), uint32(5), uint16(9), uint64(1000), uint64(0))
	e, got = decodeEvent(t, 4, 2, le(hs...))
	assert.Equal(t, "GC/HeapStats", e.Name)
	assert.Equal(t, `{"GenerationSize0":"0x64","TotalPromotedSize0":"0x0","GenerationSize1":"0xC8","TotalPromotedSize1":"0xA",`+
		`"GenerationSize2":"0x12C","TotalPromotedSize2":"0x14","GenerationSize3":"0x190","TotalPromotedSize3":"0x1E",`+
		`"FinalizationPromotedSize":"0x1","FinalizationPromotedCount":2,"PinnedObjectCount":3,"SinkBlockCount":4,`+
		`"GCHandleCount":5,"ClrInstanceID":9,"GenerationSize4":"0x3E8","TotalPromotedSize4":"0x0",`+
		`"TotalHeapSize":2000,"TotalPromoted":60,"Depth":2}`, got)

	// GC/MarkWithType: TraceEvent's name and field name.
	e, got = decodeEvent(t, 202, 0, le(uint32(1), uint16(8), uint32(2), uint64(4096)))
	assert.Equal(t, "GC/MarkWithType", e.Name)
	assert.Equal(t, `{"HeapNum":1,"ClrInstanceID":8,"Type":2,"TypeName":"Handle","Promoted":4096}`, got)

	// Loader/ModuleLoad version 2, with the file name of the IL path.
	e, got = decodeEvent(t, 152, 2, le(uint64(0x10), uint64(0x20), uint32(0x8), uint32(0),
		`C:\app\bin\App.dll`, `C:\app\bin\App.ni.dll`, uint16(3),
		uint64(0), uint64(0), uint32(1), "a.pdb", uint64(0), uint64(0), uint32(2), "App.ni.pdb"))
	assert.Equal(t, "Loader/ModuleLoad", e.Name)
	assert.Contains(t, got, `"ModuleILPath":"C:\\app\\bin\\App.dll","ModuleNativePath":"C:\\app\\bin\\App.ni.dll","ClrInstanceID":3,`)
	assert.True(t, strings.HasSuffix(got, `,"ModuleILFileName":"App.dll"}`), got)
	assert.Contains(t, got, `"ModuleFlags":8,"ModuleFlagsName":"Manifest"`)

	// A flags value of 0 is None, as TraceEvent shows it.
	rundown := dotnet.RundownProvider
	ad, _ := dotnet.Set().Lookup(schema.Key{Provider: rundown, ID: 155, Version: 1})
	require.NotNil(t, ad)
	vals, err := ad.Payload.Decode(le(uint64(1), uint64(2), uint64(0), uint32(0), "asm", uint16(5)), 8, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"AssemblyID":"0x1","AppDomainID":"0x2","BindingID":"0x0","AssemblyFlags":0,"AssemblyFlagsName":"None",`+
		`"FullyQualifiedAssemblyName":"asm","ClrInstanceID":5}`,
		string(payload.AppendJSONObject(nil, vals)))
}

// TestPrivateEventsAsTraceEventShowsThem: the private provider's events
// get the names TraceEvent gives their values.
func TestPrivateEventsAsTraceEventShowsThem(t *testing.T) {
	private := dotnet.PrivateProvider
	decode := func(id, version uint16, data []byte) string {
		e, exact := dotnet.Set().Lookup(schema.Key{Provider: private, ID: id, Version: version})
		require.NotNil(t, e)
		require.True(t, exact)
		vals, err := e.Payload.Decode(data, 8, nil)
		require.NoError(t, err)
		return string(payload.AppendJSONObject(nil, vals))
	}
	// GC/GlobalHeapHistory v1: the public provider's Reason and
	// GlobalMechanisms maps.
	assert.Equal(t, `{"FinalYoungestDesired":"0x1000","NumHeaps":1,"CondemnedGeneration":0,"Gen0ReductionCount":0,`+
		`"Reason":0,"ReasonName":"AllocSmall","GlobalMechanisms":20,"GlobalMechanismsName":"Promotion, CardBundles","ClrInstanceID":9}`,
		decode(5, 1, le(uint64(0x1000), uint32(1), uint32(0), uint32(0), uint32(0), uint32(20), uint16(9))))
	// NgenBinder/NgenBind: the reason codes the samples establish.
	assert.Equal(t, `{"ClrInstanceID":9,"BindingID":8164512,"ReasonCode":9,"ReasonCodeName":"REJECT_IL_SIG","AssemblyName":"mscorlib"}`,
		decode(188, 0, le(uint16(9), uint64(8164512), uint32(9), "mscorlib")))

	// GC/IncreaseMemoryPressure keeps the manifest's task name, as
	// TraceEvent, whose own parser does not know it, names it.
	e, _ := dotnet.Set().Lookup(schema.Key{Provider: dotnet.RuntimeProvider, ID: 200})
	require.NotNil(t, e)
	assert.Equal(t, "GarbageCollection/IncreaseMemoryPressure", e.Name)
	// GC/FinalizeObject has room for its TypeName (see TypeNames).
	e, _ = dotnet.Set().Lookup(schema.Key{Provider: dotnet.RuntimeProvider, ID: dotnet.FinalizeObjectID})
	require.NotNil(t, e)
	assert.Equal(t, 1, e.Payload.Spare)
}

// TestNewerVersionDecodes: a version of an event newer than the manifest
// reads with the highest older one.
func TestNewerVersionDecodes(t *testing.T) {
	e, exact := dotnet.Set().Lookup(schema.Key{Provider: dotnet.RuntimeProvider, ID: 1, Version: 9})
	require.NotNil(t, e)
	assert.False(t, exact)
	assert.Equal(t, "GCStart_V2", e.Payload.Name)
}

// BenchmarkSet is what building the built-in set costs, once per process.
func BenchmarkSet(b *testing.B) {
	for b.Loop() {
		s := dotnet.ManifestSet()
		dotnet.ApplyTraceEventConventions(s)
	}
}

// TestStackWalkReadsFrameCountFrames: the runtime's stack events hold
// FrameCount frames, though the manifest declares a count of 2; the
// built-in tables and StackEvent (for the same event described by TDH
// metadata) read them all, and a stack cut short is an error, not a
// shorter stack.
func TestStackWalkReadsFrameCountFrames(t *testing.T) {
	stack := le(uint16(9), uint8(0), uint8(0), uint32(3), uint64(0x7FF1), uint64(0x7FF2), uint64(0x7FF3))
	e, got := decodeEvent(t, 82, 0, stack)
	assert.Equal(t, "ClrStack/Walk", e.Name)
	assert.Equal(t, `{"ClrInstanceID":9,"Reserved1":0,"Reserved2":0,"FrameCount":3,"Stack":["0x7FF1","0x7FF2","0x7FF3"]}`, got)
	_, err := e.Payload.Decode(stack[:len(stack)-8], 8, nil)
	assert.Error(t, err)

	// The event as the manifest (and TDH metadata made from it) says it.
	asDeclared, err := payload.NewSchema("ClrStackWalk", []payload.Field{
		{Name: "ClrInstanceID", InType: payload.InUInt16},
		{Name: "Reserved1", InType: payload.InUInt8},
		{Name: "Reserved2", InType: payload.InUInt8},
		{Name: "FrameCount", InType: payload.InUInt32},
		{Name: "Stack", InType: payload.InPointer, Arity: payload.FixedCount, Count: 2},
	})
	require.NoError(t, err)
	declared := &schema.Event{Name: "CLRStack/CLRStackWalk", Payload: asDeclared}
	k := schema.Key{Provider: dotnet.RuntimeProvider, ID: 82}
	fixed := dotnet.StackEvent(k, declared)
	require.NotSame(t, declared, fixed)
	vals, err := fixed.Payload.Decode(stack, 8, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"ClrInstanceID":9,"Reserved1":0,"Reserved2":0,"FrameCount":3,"Stack":["0x7FF1","0x7FF2","0x7FF3"]}`,
		string(payload.AppendJSONObject(nil, vals)))
	// The declared schema is left as it was, and other providers' events
	// are not touched.
	assert.Equal(t, payload.FixedCount, declared.Payload.Fields[4].Arity)
	other := schema.Key{Provider: uuid.MustParse("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716"), ID: 82}
	assert.Same(t, declared, dotnet.StackEvent(other, declared))
}
