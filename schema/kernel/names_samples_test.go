package kernel_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/perfview"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/kernel"
)

// decodeRecord decodes a kernel record's payload with its class, failing
// the test when it has none or the payload does not fit.
func decodeRecord(t *testing.T, r *record.Record, vals []payload.Value) []payload.Value {
	t.Helper()
	e, _, ok := kernel.LookupRecord(r)
	require.True(t, ok, "hook %#04x", r.HookId)
	require.NotNil(t, e.Payload, "%s has no payload layout", e.Name)
	vals, err := e.Payload.Decode(r.UserData, r.PointerSize(), vals[:0])
	require.NoError(t, err, "%s", e.Name)
	return vals
}

// TestKernelNamesMatchTraceEvent counts the kernel records of the merged
// .NET sample by name and compares with the COUNT lines TraceEvent printed
// for it.
func TestKernelNamesMatchTraceEvent(t *testing.T) {
	listing, path := perfview.ReadSample(t, "net452-x64-merged-compressed.etl")
	want := map[string]int{}
	for n, c := range listing.CountsOf(kernel.ProviderName + "/") {
		want[strings.TrimPrefix(n, kernel.ProviderName+"/")] = c
	}
	require.NotEmpty(t, want)

	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	got := map[string]int{}
	var name []byte
	for r, err := range f.Records() {
		require.NoError(t, err)
		if !r.HeaderType.IsKernel() {
			continue
		}
		name = kernel.AppendEventName(name[:0], uint8(r.HookId>>8), uint8(r.HookId))
		got[string(name)]++
		assert.Equal(t, record.KernelGroupGUID(uint8(r.HookId>>8), uint8(r.HookId)), r.ProviderId)
	}

	// TraceEvent keeps only part of the profile samples (it prints 6320 of
	// the 79528); its SysConfig events come from KernelTraceControl's
	// classic records, not from kernel headers.
	matched := 0
	for n, c := range want {
		switch {
		case n == "PerfInfo/Sample":
			assert.Greater(t, got[n], c, n)
		case strings.HasPrefix(n, "SysConfig/"):
			assert.Zero(t, got[n], n)
		default:
			assert.Equal(t, c, got[n], n)
			matched++
		}
	}
	assert.Equal(t, 41, matched, "kernel event names matched by count")
	// Names TraceEvent does not print for this file (it drops these
	// events), counted here so that a change in the table shows.
	for n, c := range map[string]int{
		"Thread/DCStart": 670, "Thread/DCStop": 664, "FileIO/FileCreate": 16, "FileIO/FileDelete": 14,
		"FileIO/FileRundown": 3054, "StackWalk/Stack": 252, "StackWalk/KeyDelete": 1909,
		"StackWalk/KeyRundown": 1012, "StackWalk/StackKeyKernel": 2061, "StackWalk/StackKeyUser": 7046,
		"SystemConfig/OpticalDisk": 1, "SystemConfig/DPI": 1, "Image/HypercallPage": 1,
		"SystemConfig/Platform": 1, "Image/KernelBase": 1,
	} {
		assert.Equal(t, c, got[n], n)
	}
}

// TestEventTraceSamples decodes the group-0 events of the samples.
func TestEventTraceSamples(t *testing.T) {
	decoded := map[string]string{}
	counts := map[string]int{}
	for _, file := range []string{"win11-waasmedic.etl", "net452-x64-merged-compressed.etl", "diaghub-kernel.etl", "amsi-tracelogging.etl"} {
		f, err := etl.Open(samples.Path(t, file))
		require.NoError(t, err)
		var vals []payload.Value
		for r, err := range f.Records() {
			require.NoError(t, err)
			if !r.HeaderType.IsKernel() || r.HookId>>8 != 0 || r.HookId == 0 {
				continue
			}
			vals = decodeRecord(t, r, vals)
			key := file + " " + kernel.EventName(0, uint8(r.HookId))
			counts[key]++
			if counts[key] == 1 {
				decoded[key] = string(payload.AppendJSONObject(nil, vals))
			}
		}
		f.Close()
	}
	zeroGUID := `"00000000-0000-0000-0000-000000000000"`
	assert.Equal(t, map[string]string{
		"win11-waasmedic.etl EventTrace/PartitionInfoExtension":       `{"EventVersion":0,"Reserved":0,"PartitionType":0,"QpcOffsetFromRoot":0,"PartitionId":` + zeroGUID + `,"ParentId":` + zeroGUID + `}`,
		"win11-waasmedic.etl EventTrace/BuildLab":                     `{"BuildLab":"22621.1.amd64fre.ni_release.220506-1250"}`,
		"win11-waasmedic.etl EventTrace/DbgIdRSDS":                    `{"GuidSig":"30869371-f7d6-ab23-8610-af80c72ae579","Age":1,"PdbFileName":"WaaSMedicSvcImpl.pdb"}`,
		"net452-x64-merged-compressed.etl EventTrace/Extension":       `{"GroupMask1":75535,"GroupMask2":2,"GroupMask3":0,"GroupMask4":0,"GroupMask5":0,"GroupMask6":0,"GroupMask7":0,"GroupMask8":0,"KernelEventVersion":42}`,
		"net452-x64-merged-compressed.etl EventTrace/EndExtension":    `{"GroupMask1":0,"GroupMask2":0,"GroupMask3":0,"GroupMask4":0,"GroupMask5":0,"GroupMask6":0,"GroupMask7":0,"GroupMask8":0,"KernelEventVersion":42}`,
		"net452-x64-merged-compressed.etl EventTrace/RundownComplete": `{}`,
		"diaghub-kernel.etl EventTrace/Extension":                     `{"GroupMask1":0,"GroupMask2":0,"GroupMask3":0,"GroupMask4":0,"GroupMask5":0,"GroupMask6":0,"GroupMask7":0,"GroupMask8":0,"KernelEventVersion":80}`,
		"diaghub-kernel.etl EventTrace/EndExtension":                  `{"GroupMask1":5,"GroupMask2":0,"GroupMask3":0,"GroupMask4":0,"GroupMask5":0,"GroupMask6":0,"GroupMask7":0,"GroupMask8":0,"KernelEventVersion":80}`,
		"diaghub-kernel.etl EventTrace/RundownComplete":               `{}`,
		"amsi-tracelogging.etl EventTrace/PartitionInfoExtension":     `{"EventVersion":0,"Reserved":0,"PartitionType":0,"QpcOffsetFromRoot":0,"PartitionId":` + zeroGUID + `,"ParentId":` + zeroGUID + `}`,
	}, decoded)
	assert.Equal(t, 3, counts["net452-x64-merged-compressed.etl EventTrace/Extension"], "TraceEvent counts 3")
	assert.Equal(t, 2, counts["net452-x64-merged-compressed.etl EventTrace/EndExtension"], "TraceEvent counts 2")
	assert.Equal(t, 2, counts["net452-x64-merged-compressed.etl EventTrace/RundownComplete"], "TraceEvent counts 2")
}
