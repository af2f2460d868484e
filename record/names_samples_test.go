package record_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	tl "github.com/etlkit/etlkit/record/tracelogging"
)

// TestKernelNamesMatchTraceEvent counts the kernel records of the merged
// .NET sample by name and compares with the COUNT lines TraceEvent printed
// for it.
func TestKernelNamesMatchTraceEvent(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	fh, err := os.Open(filepath.Join(filepath.Dir(path), "expected", "net452-x64-merged-compressed.perfview.txt"))
	require.NoError(t, err)
	defer fh.Close()
	want := map[string]int{}
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		name, ok := strings.CutPrefix(sc.Text(), "COUNT "+record.KernelProviderName+"/")
		if !ok {
			continue
		}
		i := strings.LastIndexByte(name, ':')
		n, err := strconv.Atoi(name[i+1:])
		require.NoError(t, err)
		want[name[:i]] = n
	}
	require.NoError(t, sc.Err())
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
		name = record.AppendKernelEventName(name[:0], uint8(r.HookId>>8), uint8(r.HookId))
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
		"SystemConfig/Opcode(18)": 1, "SystemConfig/Opcode(28)": 1, "Image/Opcode(34)": 1,
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
		var vals []tl.Value
		for r, err := range f.Records() {
			require.NoError(t, err)
			if !r.HeaderType.IsKernel() || r.HookId>>8 != 0 || r.HookId == 0 {
				continue
			}
			vals, err = r.EventTraceFields(vals[:0])
			require.NoError(t, err, "%s hook %#04x", file, r.HookId)
			key := file + " " + record.KernelEventName(0, uint8(r.HookId))
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
		"net452-x64-merged-compressed.etl EventTrace/Extension":       `{"GroupMask1":"0x1270F","GroupMask2":"0x2","GroupMask3":"0x0","GroupMask4":"0x0","GroupMask5":"0x0","GroupMask6":"0x0","GroupMask7":"0x0","GroupMask8":"0x0","KernelEventVersion":42}`,
		"net452-x64-merged-compressed.etl EventTrace/EndExtension":    `{"GroupMask1":"0x0","GroupMask2":"0x0","GroupMask3":"0x0","GroupMask4":"0x0","GroupMask5":"0x0","GroupMask6":"0x0","GroupMask7":"0x0","GroupMask8":"0x0","KernelEventVersion":42}`,
		"net452-x64-merged-compressed.etl EventTrace/RundownComplete": `{}`,
		"diaghub-kernel.etl EventTrace/Extension":                     `{"GroupMask1":"0x0","GroupMask2":"0x0","GroupMask3":"0x0","GroupMask4":"0x0","GroupMask5":"0x0","GroupMask6":"0x0","GroupMask7":"0x0","GroupMask8":"0x0","KernelEventVersion":80}`,
		"diaghub-kernel.etl EventTrace/EndExtension":                  `{"GroupMask1":"0x5","GroupMask2":"0x0","GroupMask3":"0x0","GroupMask4":"0x0","GroupMask5":"0x0","GroupMask6":"0x0","GroupMask7":"0x0","GroupMask8":"0x0","KernelEventVersion":80}`,
		"diaghub-kernel.etl EventTrace/RundownComplete":               `{}`,
		"amsi-tracelogging.etl EventTrace/PartitionInfoExtension":     `{"EventVersion":0,"Reserved":0,"PartitionType":0,"QpcOffsetFromRoot":0,"PartitionId":` + zeroGUID + `,"ParentId":` + zeroGUID + `}`,
	}, decoded)
	assert.Equal(t, 3, counts["net452-x64-merged-compressed.etl EventTrace/Extension"], "TraceEvent counts 3")
	assert.Equal(t, 2, counts["net452-x64-merged-compressed.etl EventTrace/EndExtension"], "TraceEvent counts 2")
	assert.Equal(t, 2, counts["net452-x64-merged-compressed.etl EventTrace/RundownComplete"], "TraceEvent counts 2")
}

// TestProviderTraitsSamples reads the provider of every TraceLogging record.
func TestProviderTraitsSamples(t *testing.T) {
	cases := map[string]struct {
		names  map[string]int
		groups map[string]uuid.UUID
	}{
		"lxcore-tracelogging.etl": {
			names:  map[string]int{"Microsoft.Windows.Subsystem.LxCore": 2},
			groups: map[string]uuid.UUID{"Microsoft.Windows.Subsystem.LxCore": uuid.MustParse("4f50731a-89cf-4782-b3e0-dce8c90476ba")},
		},
		"selfdescribing-compressed.etl": {names: map[string]int{"MySource": 1}},
		"amsi-tracelogging.etl":         {names: map[string]int{"AmsiTrace": 19}},
		"win11-sih.etl":                 {names: map[string]int{"SIHTraceLogging": 10}},
		"hw3d-tracelogging.etl":         {names: map[string]int{"Atum-Hw3d": 1}},
	}
	for file, c := range cases {
		t.Run(file, func(t *testing.T) {
			f, err := etl.Open(samples.Path(t, file))
			require.NoError(t, err)
			defer f.Close()
			var cache record.TraitsCache
			names := map[string]int{}
			groups := map[string]uuid.UUID{}
			for r, err := range f.Records() {
				require.NoError(t, err)
				pt, ok, err := r.ProviderTraits()
				require.NoError(t, err)
				if !ok {
					continue
				}
				names[pt.Name]++
				assert.Equal(t, pt.Name, string(r.ProviderNameBytes()))
				assert.Equal(t, pt.Name, cache.ProviderName(r))
				if pt.HasGroup {
					groups[pt.Name] = pt.Group
				}
			}
			assert.Equal(t, c.names, names)
			if c.groups == nil {
				c.groups = map[string]uuid.UUID{}
			}
			assert.Equal(t, c.groups, groups)
		})
	}
}
