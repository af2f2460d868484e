package describe_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/eventsource"
)

// learnSamples scans the named samples with one Learner.
func learnSamples(t *testing.T, parse describe.ManifestParser, names ...string) *describe.Learner {
	l := describe.NewLearner()
	l.SetManifestParser(parse)
	for _, name := range names {
		f, err := etl.Open(samples.Path(t, name))
		require.NoError(t, err)
		l.Scan(f.Buffers(), &f.Header().Clock)
		f.Close()
	}
	return l
}

// decodeShare describes every record of a sample and counts those with a
// name and a payload decoded without error (bytes after the last field
// allowed), by provider for those that miss.
type decodeShare struct {
	records, decoded, fromTrace, decodeErrors int
	// misses counts the records not decoded, by provider and event name;
	// names all records by full name.
	misses, names map[string]int
}

func (s decodeShare) String() string {
	return fmt.Sprintf("%d of %d records decoded (%.2f%%), %d from the trace's metadata, %d decode errors",
		s.decoded, s.records, 100*float64(s.decoded)/float64(s.records), s.fromTrace, s.decodeErrors)
}

func measure(t *testing.T, name string, trace *schema.Set) decodeShare {
	f, err := etl.Open(samples.Path(t, name))
	require.NoError(t, err)
	defer f.Close()
	z := describe.New(describe.Options{Trace: trace})
	s := decodeShare{misses: map[string]int{}, names: map[string]int{}}
	var d describe.Description
	for r, err := range f.Events() {
		require.NoError(t, err)
		s.records++
		z.Describe(r, &d, true)
		if d.Err != nil && !payload.IsTrailing(d.Err) {
			s.decodeErrors++
		}
		if d.Event != nil && trace != nil {
			if e, _ := trace.Lookup(keyOf(r, &d)); e == d.Event {
				s.fromTrace++
			}
		}
		s.names[d.ProviderName+"/"+d.EventName]++
		ok := d.EventName != "" && (d.Decoded || len(r.UserData) == 0)
		if ok {
			s.decoded++
			continue
		}
		p := d.ProviderName
		if p == "" {
			if n, ok := builtInNames[r.ProviderId]; ok {
				p = n
			} else {
				p = r.ProviderId.String()
			}
		}
		s.misses[fmt.Sprintf("%s/%s", p, d.EventName)]++
	}
	return s
}

func TestLearnNet452(t *testing.T) {
	l := learnSamples(t, nil, "net452-x64-merged-compressed.etl")
	assert.Empty(t, l.Errors())
	assert.Empty(t, l.Pending())
	// 61 EventInfo records, each a different event; 24 maps; PerfView's
	// manifest twice (a repeat), TplEventSource's and
	// FrameworkEventSource's once.
	assert.Equal(t, describe.LearnStats{EventInfos: 61, EventMapInfos: 24, Events: 61, Maps: 24,
		ManifestChunks: 4, Manifests: 3}, l.Stats())
	s := measure(t, "net452-x64-merged-compressed.etl", l.Set())
	assert.Equal(t, 66398, s.fromTrace, "records the trace's metadata describes")
	assert.Equal(t, 0, s.decodeErrors)

	// The events whose TDH names are TraceEvent's: the same counts as its
	// COUNT lines.
	for name, n := range map[string]int{
		"Microsoft-Windows-Kernel-EventTracing/ETW_TASK_PROVIDER/ETW_OPCODE_ENABLE":        15,
		"Microsoft-Windows-Kernel-EventTracing/ETW_TASK_PROVIDER/ETW_OPCODE_REGISTER":      31,
		"Microsoft-Windows-Kernel-EventTracing/ETW_TASK_PROVIDER/ETW_OPCODE_UNREGISTER":    31,
		"Microsoft-Windows-Kernel-File/Create":                                             562,
		"Microsoft-Windows-Kernel-Process/ProcessStart/Start":                              1,
		"Microsoft-Windows-Kernel-Process/ProcessStop/Stop":                                1,
		"Microsoft-Windows-DNS-Client/DnsServerForInterface":                               4,
		"Microsoft-Windows-Immersive-Shell/ImmersiveShellAppManagerSetActiveProcess/Start": 2,
		"Microsoft-Windows-DotNETRuntime/GarbageCollection/IncreaseMemoryPressure":         2,
		"Microsoft-Windows-DotNETRuntime/AppDomainResourceManagement/ThreadCreated":        4,
		"PerfView/ManifestData":                                         2,
		"System.Threading.Tasks.TplEventSource/ManifestData":            1,
		"System.Diagnostics.Eventing.FrameworkEventSource/ManifestData": 1,
	} {
		assert.Equal(t, n, s.names[name], name)
	}
}

func TestLearnDiaghubUserPaged(t *testing.T) {
	// Alone, the user-mode part of the capture carries only
	// TplEventSource's manifest: its .NET runtime events need the built-in
	// tables, TplEventSource's events the manifest parser.
	l := learnSamples(t, nil, "diaghub-user-paged.etl")
	assert.Equal(t, describe.LearnStats{ManifestChunks: 2, Manifests: 1}, l.Stats())
	s := measure(t, "diaghub-user-paged.etl", l.Set())
	assert.Equal(t, 22035, s.records)
	assert.Equal(t, 259, s.decoded, "%v", s)
	assert.Equal(t, map[string]int{
		"Microsoft-Windows-DotNETRuntime/": 21757, "System.Threading.Tasks.TplEventSource/": 18,
		"6f669bfa-816a-4204-a824-47c8e6a00474/": 1}, s.misses)

	// With the metadata the kernel part of the same capture carries
	// (diaghub-classic.etl), every record but one decodes: that one's
	// provider has no metadata anywhere.
	l = learnSamples(t, nil, "diaghub-classic.etl", "diaghub-user-paged.etl")
	assert.Equal(t, describe.LearnStats{EventInfos: 17, EventMapInfos: 7, Events: 17, Maps: 7, ManifestChunks: 2, Manifests: 1}, l.Stats())
	s = measure(t, "diaghub-user-paged.etl", l.Set())
	assert.Equal(t, 22034, s.decoded, "%v", s)
	assert.Equal(t, 21777, s.fromTrace)
	assert.Equal(t, 0, s.decodeErrors)
	assert.Equal(t, map[string]int{"6f669bfa-816a-4204-a824-47c8e6a00474/": 1}, s.misses)
}

// keyOf is the key the Describer looks a record up by.
func keyOf(r *record.Record, d *describe.Description) schema.Key {
	if d.Kernel || r.HeaderType.IsClassic() {
		return schema.Key{Provider: r.ProviderId, ID: uint16(r.EventDescriptor.Opcode), Version: r.ClassVersion, Classic: true}
	}
	return schema.Key{Provider: r.ProviderId, ID: r.EventDescriptor.Id, Version: uint16(r.EventDescriptor.Version)}
}

// builtInNames names, for the counts above, providers that the built-in
// tables will name.
var builtInNames = map[uuid.UUID]string{
	uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"): "Microsoft-Windows-DotNETRuntime",
}

// knownEvent is an event a test's stand-in for the manifest parser knows.
type knownEvent struct {
	id, version uint16
	name        string
	fields      []payload.Field
}

// standIn returns a stand-in for the manifest parser that knows some
// events of some EventSources, and checks that their manifests declare
// them.
func standIn(known map[string][]knownEvent) describe.ManifestParser {
	return func(xml []byte, source string, set *schema.Set) error {
		p, err := eventsource.ProviderOf(xml)
		if err != nil {
			return err
		}
		for _, e := range known[p.Name] {
			decl := fmt.Sprintf(`<event value="%d" version="%d"`, e.id, e.version)
			if !bytes.Contains(xml, []byte(decl)) {
				return fmt.Errorf("%s: no %s", source, decl)
			}
			set.Add(schema.Key{Provider: p.GUID, ID: e.id, Version: e.version},
				&schema.Event{Provider: p.Name, Name: e.name, Payload: payload.MustSchema(e.name, e.fields)})
		}
		return nil
	}
}

func i32s(names ...string) []payload.Field {
	var fs []payload.Field
	for _, n := range names {
		fs = append(fs, payload.Field{Name: n, InType: payload.InInt32})
	}
	return fs
}

func TestLearnEventSourceNet452(t *testing.T) {
	l := learnSamples(t, standIn(map[string][]knownEvent{"PerfView": {
		{22, 0, "PerfViewLog", []payload.Field{{Name: "message", InType: payload.InUnicodeString}}},
		{2, 0, "Tracing/Start", nil},
	}}), "net452-x64-merged-compressed.etl")
	assert.Equal(t, 3, l.Stats().ManifestsParsed)
	assert.Empty(t, l.Errors())
	s := measure(t, "net452-x64-merged-compressed.etl", l.Set())
	// TraceEvent counts 53 PerfViewLog events and one Tracing/Start.
	assert.Equal(t, 53, s.names["PerfView/PerfViewLog"])
	assert.Equal(t, 1, s.names["PerfView/Tracing/Start"])
	assert.Equal(t, 0, s.decodeErrors)
}

func TestLearnEventSourceBeforeItsManifest(t *testing.T) {
	// In diaghub-user-paged.etl eight of TplEventSource's events come
	// before its manifest in the file.
	l := learnSamples(t, standIn(map[string][]knownEvent{"System.Threading.Tasks.TplEventSource": {
		{7, 1, "TaskScheduled/Send", i32s("OriginatingTaskSchedulerID", "OriginatingTaskID", "TaskID", "CreatingTaskID", "TaskCreationOptions", "appDomain")},
		{8, 0, "TaskStarted", i32s("OriginatingTaskSchedulerID", "OriginatingTaskID", "TaskID")},
		{9, 1, "TaskCompleted", append(i32s("OriginatingTaskSchedulerID", "OriginatingTaskID", "TaskID"),
			payload.Field{Name: "IsExceptional", InType: payload.InBoolean})},
	}}), "diaghub-user-paged.etl")
	assert.Equal(t, 1, l.Stats().ManifestsParsed)
	f, err := etl.Open(samples.Path(t, "diaghub-user-paged.etl"))
	require.NoError(t, err)
	defer f.Close()
	z := describe.New(describe.Options{Trace: l.Set()})
	var d describe.Description
	decoded, before := 0, 0
	manifestSeen := false
	tpl := uuid.MustParse("2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5")
	for r, err := range f.Records() {
		require.NoError(t, err)
		if r.ProviderId != tpl {
			continue
		}
		if eventsource.IsManifest(&r.EventDescriptor) {
			manifestSeen = true
			continue
		}
		z.Describe(r, &d, true)
		require.True(t, d.Decoded, "%s", d.EventName)
		require.NoError(t, d.Err)
		decoded++
		if !manifestSeen {
			before++
		}
	}
	assert.Equal(t, 18, decoded)
	assert.Equal(t, 8, before)
}

func TestLearnedEventsDecodeWithoutAllocating(t *testing.T) {
	l := learnSamples(t, nil, "net452-x64-merged-compressed.etl")
	f, err := etl.Open(samples.Path(t, "net452-x64-merged-compressed.etl"))
	require.NoError(t, err)
	defer f.Close()
	// One record of each event the metadata describes, manifest events
	// included.
	var recs []*record.Record
	var trailing []string
	seenKeys := map[schema.Key]bool{}
	var d describe.Description
	z := describe.New(describe.Options{Trace: l.Set()})
	for r, err := range f.Records() {
		require.NoError(t, err)
		z.Describe(r, &d, true)
		k := keyOf(r, &d)
		if e, _ := l.Set().Lookup(k); e == nil || e != d.Event || seenKeys[k] {
			continue
		}
		seenKeys[k] = true
		if payload.IsTrailing(d.Err) {
			// payload.DecodeError is made for each such record.
			trailing = append(trailing, d.EventName)
			continue
		}
		recs = append(recs, r.Clone())
	}
	// The .NET manifest declares CLRStackWalk's Stack with count="2", as
	// does the TDH metadata made from it; the frames go on to FrameCount,
	// and read so leave no bytes over.
	assert.Empty(t, trailing)
	require.Len(t, recs, 61+3, "61 TDH events and 3 EventSources' manifest events")
	allocs := testing.AllocsPerRun(20, func() {
		for _, r := range recs {
			z.Describe(r, &d, true)
			if !d.Decoded || d.Err != nil {
				t.Fatalf("%s not decoded: %v", d.EventName, d.Err)
			}
		}
	})
	assert.Zero(t, allocs)
}
