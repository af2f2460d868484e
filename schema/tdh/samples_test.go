package tdh_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/tdh"
)

// The MetaData class and its opcodes (kernel-events.md §19.6).
var metaData = uuid.MustParse("bbccf6c1-6cd1-48c4-80ff-839482e37671")

const (
	opEventInfo    = 32
	opEventMapInfo = 33
)

// metadataBlobs returns the payloads of a sample's EventInfo and
// EventMapInfo records, in file order.
func metadataBlobs(tb testing.TB, name string) (infos, maps [][]byte) {
	tb.Helper()
	f, err := etl.Open(samples.Path(tb, name))
	require.NoError(tb, err)
	defer f.Close()
	for r, err := range f.Records() {
		if err != nil || r.ProviderId != metaData || !r.HeaderType.IsClassic() {
			continue
		}
		switch r.EventDescriptor.Opcode {
		case opEventInfo:
			infos = append(infos, bytes.Clone(r.UserData))
		case opEventMapInfo:
			maps = append(maps, bytes.Clone(r.UserData))
		}
	}
	return infos, maps
}

var (
	clrProvider = uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	tplProvider = uuid.MustParse("2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5")
)

// describeFields lists fields as "Name:InType/OutType[count]" with their
// length reference and map name, for compact comparisons.
func describeFields(fs []payload.Field) []string {
	var out []string
	for i := range fs {
		s := fs[i].String()
		if fs[i].LengthField != "" {
			s += " len=" + fs[i].LengthField
		}
		if fs[i].Map != nil {
			s += " map=" + fs[i].Map.Name
		}
		out = append(out, s)
	}
	return out
}

func TestDiaghubClassicMetadata(t *testing.T) {
	infos, maps := metadataBlobs(t, "diaghub-classic.etl")
	// The samples notes count 17 EventInfo and 7 EventMapInfo records.
	require.Len(t, infos, 17)
	require.Len(t, maps, 7)

	events := map[schema.Key]*schema.Event{}
	var names []string
	for i, b := range infos {
		ei, err := tdh.ParseEventInfo(b)
		require.NoError(t, err, "EventInfo %d", i)
		assert.Equal(t, tdh.SourceXMLFile, ei.DecodingSource, "EventInfo %d", i)
		k, ok := ei.Key()
		require.True(t, ok)
		e, err := ei.Event(func(name string) *payload.Map { return &payload.Map{Name: name} })
		require.NoError(t, err, "EventInfo %d: %s", i, ei.Name())
		require.NotNil(t, e.Payload)
		events[k] = e
		names = append(names, fmt.Sprintf("%s/%s v%d", e.Provider, e.Name, k.Version))
	}
	assert.Equal(t, []string{
		"Microsoft-Windows-DotNETRuntime/CLRLoader/AssemblyLoad v1",
		"Microsoft-Windows-DotNETRuntime/CLRLoader/ModuleLoad v2",
		"Microsoft-Windows-DotNETRuntime/CLRLoader/DomainModuleLoad v1",
		"Microsoft-Windows-DotNETRuntime/CLRLoader/AppDomainLoad v1",
		"Microsoft-Windows-DotNETRuntime/CLRMethod/MethodLoadVerbose v1",
		"Microsoft-Windows-DotNETRuntime/CLRMethod/MethodILToNativeMap v0",
		"System.Threading.Tasks.TplEventSource/TaskStarted v0",
		"System.Threading.Tasks.TplEventSource/TaskCompleted v1",
		"Microsoft-Windows-DotNETRuntime/CLRLoader/ModuleUnload v2",
		"Microsoft-Windows-DotNETRuntime/CLRLoader/AssemblyUnload v1",
		"Microsoft-Windows-DotNETRuntime/CLRLoader/AppDomainUnload v1",
		"Microsoft-Windows-DotNETRuntime/CLRMethod/MethodUnloadVerbose v1",
		"Microsoft-Windows-DotNETRuntime/CLRMethod/MethodUnloadVerbose v2",
		"Microsoft-Windows-DotNETRuntime/CLRRuntimeInformation/Start v0",
		"Microsoft-Windows-DotNETRuntime/CLRMethod/MethodJittingStarted v1",
		"System.Threading.Tasks.TplEventSource/TaskScheduled/Send v1",
		"Microsoft-Windows-DotNETRuntime/CLRMethod/MethodLoadVerbose v2",
	}, names)

	// MethodILToNativeMap: two arrays counted by property 3.
	il := events[schema.Key{Provider: clrProvider, ID: 190}]
	require.NotNil(t, il)
	assert.Equal(t, []string{
		"MethodID:UInt64/HexInt64", "ReJITID:UInt64/HexInt64", "MethodExtent:UInt8/UnsignedByte",
		"CountOfMapEntries:UInt16/UnsignedShort", "ILOffsets:UInt32/UnsignedInt[CountOfMapEntries]",
		"NativeOffsets:UInt32/UnsignedInt[CountOfMapEntries]", "ClrInstanceID:UInt16/UnsignedShort",
	}, describeFields(il.Payload.Fields))
	assert.Equal(t, "CLRMethod", il.Task)
	assert.Equal(t, "MethodILToNativeMap", il.Opcode)
	assert.Equal(t, "win:Verbose", il.Level)
	assert.Equal(t, []string{"JittedMethodILToNativeMapKeyword"}, il.Keywords)
	assert.Equal(t, "MethodID=%1;\r\nReJITID=%2;\r\nMethodExtent=%3;\r\nCountOfMapEntries=%4;\r\nClrInstanceID=%5", il.Message)

	// ModuleLoad v2: maps and strings.
	ml := events[schema.Key{Provider: clrProvider, ID: 152, Version: 2}]
	require.NotNil(t, ml)
	assert.Equal(t, []string{
		"ModuleID:UInt64/HexInt64", "AssemblyID:UInt64/HexInt64", "ModuleFlags:UInt32/UnsignedInt map=ModuleFlagsMap",
		"Reserved1:UInt32/UnsignedInt", "ModuleILPath:UnicodeString/String", "ModuleNativePath:UnicodeString/String",
		"ClrInstanceID:UInt16/UnsignedShort", "ManagedPdbSignature:GUID/GUID", "ManagedPdbAge:UInt32/UnsignedInt",
		"ManagedPdbBuildPath:UnicodeString/String", "NativePdbSignature:GUID/GUID", "NativePdbAge:UInt32/UnsignedInt",
		"NativePdbBuildPath:UnicodeString/String",
	}, describeFields(ml.Payload.Fields))

	// An EventSource's events, from TplEventSource's manifest.
	ts := events[schema.Key{Provider: tplProvider, ID: 7, Version: 1}]
	require.NotNil(t, ts)
	assert.Equal(t, "TaskScheduled/Send", ts.Name)
	assert.Equal(t, "Task %3 scheduled to TaskScheduler %1.", ts.Message)
	assert.Equal(t, []string{
		"OriginatingTaskSchedulerID:Int32/Int", "OriginatingTaskID:Int32/Int", "TaskID:Int32/Int",
		"CreatingTaskID:Int32/Int", "TaskCreationOptions:Int32/Int", "appDomain:Int32/Int",
	}, describeFields(ts.Payload.Fields))
	// EventSource adds its four session keywords to every event (§4.4).
	assert.Equal(t, []string{"Tasks", "Session3", "Session2", "Session1", "Session0"}, events[schema.Key{Provider: tplProvider, ID: 8}].Keywords)

	var mapNames []string
	byName := map[string]*payload.Map{}
	for i, b := range maps {
		provider, mi, err := tdh.ParseEventMapInfo(b)
		require.NoError(t, err, "EventMapInfo %d", i)
		assert.Equal(t, clrProvider, provider)
		assert.True(t, mi.Bits(), mi.Name)
		m, ok := mi.Map()
		require.True(t, ok, mi.Name)
		byName[mi.Name] = m
		mapNames = append(mapNames, fmt.Sprintf("%s:%d", mi.Name, len(mi.Entries)))
	}
	assert.Equal(t, []string{"AssemblyFlagsMap:4", "ModuleFlagsMap:4", "AppDomainFlagsMap:3", "MethodFlagsMap:4",
		"RuntimeSkuMap:2", "StartupFlagsMap:15", "StartupModeMap:5"}, mapNames)
	assert.Equal(t, []payload.MapEntry{{Value: 1, Name: "DomainNeutral"}, {Value: 2, Name: "Dynamic"},
		{Value: 4, Name: "Native"}, {Value: 8, Name: "Collectible"}}, byName["AssemblyFlagsMap"].Entries)
	assert.Equal(t, []payload.MapEntry{{Value: 1, Name: "DesktopClr"}, {Value: 2, Name: "CoreClr"}}, byName["RuntimeSkuMap"].Entries)
	name, ok := byName["StartupFlagsMap"].AppendName(nil, 0x1001)
	assert.True(t, ok)
	assert.Equal(t, "CONCURRENT_GC, SERVER_GC", string(name))
	// Every map named by a property is among them.
	for k, e := range events {
		if k.Provider != clrProvider {
			continue
		}
		for _, f := range e.Payload.Fields {
			if f.Map != nil {
				assert.Contains(t, byName, f.Map.Name, "%s.%s", e.Name, f.Name)
			}
		}
	}
}

func TestNet452Metadata(t *testing.T) {
	infos, maps := metadataBlobs(t, "net452-x64-merged-compressed.etl")
	// TraceEvent counts 61 EventInfo and 24 EventMapInfo records.
	require.Len(t, infos, 61)
	require.Len(t, maps, 24)
	providers := map[string]int{}
	for i, b := range infos {
		ei, err := tdh.ParseEventInfo(b)
		require.NoError(t, err, "EventInfo %d", i)
		_, err = ei.Event(func(name string) *payload.Map { return &payload.Map{Name: name} })
		require.NoError(t, err, "EventInfo %d: %s", i, ei.Name())
		providers[ei.ProviderName]++
	}
	assert.Equal(t, map[string]int{
		"Microsoft-Windows-DNS-Client": 1, "Microsoft-Windows-DotNETRuntime": 41,
		"Microsoft-Windows-DotNETRuntimeRundown": 9, "Microsoft-Windows-Immersive-Shell": 4,
		"Microsoft-Windows-Kernel-EventTracing": 3, "Microsoft-Windows-Kernel-File": 1,
		"Microsoft-Windows-Kernel-Process": 2,
	}, providers)
	for i, b := range maps {
		_, mi, err := tdh.ParseEventMapInfo(b)
		require.NoError(t, err, "EventMapInfo %d", i)
		_, ok := mi.Map()
		assert.True(t, ok, mi.Name)
		for _, e := range mi.Entries {
			assert.True(t, strings.HasSuffix(e.Output, " "), "%s: TDH ends map names with a space", mi.Name)
		}
	}
}
