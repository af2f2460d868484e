package kernel_test

import (
	"fmt"
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

// The tasks of the groups whose events TestGroupsMatchTraceEvent compares.
var comparedTasks = []string{"DiskIO", "FileIO", "TcpIp", "UdpIp", "Registry", "SystemConfig", "SysConfig", "ALPC"}

// comparedEvent reports whether an EVENT line is of the compared tasks,
// under the Windows Kernel provider or under MSNT_SystemTrace (the events
// TraceEvent decodes from the MOF rather than knowing them).
func comparedEvent(name string) bool {
	for _, p := range []string{kernel.ProviderName + "/", kernel.SystemTraceName + "/"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			return compared(rest)
		}
	}
	return false
}

func compared(name string) bool {
	task, _, _ := strings.Cut(name, "/")
	for _, c := range comparedTasks {
		if task == c {
			return true
		}
	}
	return false
}

// TestGroupsMatchTraceEvent compares every EVENT line TraceEvent printed
// for the merged .NET sample in the groups of comparedTasks with the
// record at the same time and processor: its name and every field. The
// records are decoded with their class, and shown with a State that
// learns from a first pass over the trace (file names a rundown gives at
// its end) and then in time order (disk completions), as a Describer
// does. Misses other than knownMisses fail the test, and so do known
// misses that stop missing; both are named.
func TestGroupsMatchTraceEvent(t *testing.T) {
	listing, path := perfview.ReadSample(t, "net452-x64-merged-compressed.etl")
	var expected []perfview.Event
	for _, e := range listing.Events {
		if comparedEvent(e.Name) {
			expected = append(expected, e)
		}
	}
	require.Len(t, expected, 80)
	x := perfview.NewIndex[payload.Value](expected)

	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var names kernel.State
	for r, err := range f.Events() {
		require.NoError(t, err)
		names.Learn(r)
	}
	state := names.Clone()
	got := map[string]int{}
	var t0 int64 = -1
	var vals []payload.Value
	for r, err := range f.Events() {
		require.NoError(t, err)
		ft, _ := r.FileTime()
		if t0 < 0 {
			t0 = ft
		}
		state.Learn(r)
		e, _, ok := kernel.LookupRecord(r)
		if !ok || !compared(e.Name) || e.Provider != kernel.ProviderName && e.Provider != kernel.SystemTraceName {
			continue
		}
		got[e.Name]++
		cpu, us := int(r.ProcessorNumber), (ft-t0)/10
		if !x.Wants(cpu, us) {
			continue
		}
		rec := &perfview.Record[payload.Value]{Name: e.Provider + "/" + e.Name}
		if e.Payload != nil {
			vals, err = e.Payload.Decode(r.UserData, r.PointerSize(), vals[:0])
			require.NoError(t, err, e.Name)
			if e.Computed != nil {
				vals = e.Computed(r, vals)
			}
			rec.Fields = perfview.ValueFields(state.Rewrite(e, vals))
		}
		x.Add(cpu, us, rec)
	}

	outs := perfview.Match(expected, x, perfview.ValueAgree)
	perfview.CheckMisses(t, outs, perfview.MergedKernelMisses())
	total := perfview.Total(outs)
	t.Logf("%v", total)
	assert.Equal(t, perfview.Score{Names: 80, NamesAll: 80, Fields: 442 - 17, FieldsAll: 442}, total)

	// The COUNT lines of the compared tasks.
	counts := listing.CountsOf(kernel.ProviderName + "/")
	for n, c := range counts {
		if n = strings.TrimPrefix(n, kernel.ProviderName+"/"); compared(n) {
			assert.Equal(t, c, got[n], "COUNT %s", n)
		}
	}
	for n, c := range got {
		if _, printed := counts[kernel.ProviderName+"/"+n]; !printed {
			t.Logf("not counted by TraceEvent: %s (%d)", n, c)
		}
	}
}

// TestGroupsSamples decodes every record of the groups of this file set in
// the kernel samples and asserts chosen values: a disk read's size and
// offset, the name the FileIo rundown gives the key a disk write carries,
// the volume mapping that makes it a drive path, a TCP connection's ends.
func TestGroupsSamples(t *testing.T) {
	mine := map[uint8]bool{0x01: true, 0x04: true, 0x06: true, 0x08: true, 0x09: true, 0x0A: true, 0x0B: true,
		0x0C: true, 0x0D: true, 0x0E: true, 0x10: true, 0x11: true, 0x12: true, 0x17: true, 0x19: true, 0x1A: true,
		0x1B: true, 0x1C: true}
	type tally struct{ records, decoded int }
	results := map[string]tally{}
	firsts := map[string]string{}
	for _, file := range []string{"net452-x64-merged-compressed.etl", "shutdown-kernel.etl", "diaghub-kernel.etl"} {
		f, err := etl.Open(samples.Path(t, file))
		require.NoError(t, err)
		var vals []payload.Value
		var tl tally
		for r, err := range f.Records() {
			require.NoError(t, err)
			g, isKernel := kernel.Group(r)
			e, _, ok := kernel.LookupRecord(r)
			if isKernel && !mine[g] || !isKernel && (!ok || e.Provider != kernel.ProviderName) {
				continue
			}
			tl.records++
			if !assert.True(t, ok, "%s: hook %#04x has no event", file, r.HookId) || e.Payload == nil {
				if ok {
					t.Logf("%s: %s has no layout", file, e.Name)
				}
				continue
			}
			vals, err = e.Payload.Decode(r.UserData, r.PointerSize(), vals[:0])
			if !assert.NoError(t, err, "%s: %s v%d", file, e.Name, r.EventDescriptor.Version) {
				continue
			}
			tl.decoded++
			if e.Computed != nil {
				vals = e.Computed(r, vals)
			}
			key := file + " " + e.Name + " " + sampleKey(r, vals)
			if _, seen := firsts[key]; !seen {
				firsts[key] = string(payload.AppendTextFields(nil, vals, " "))
			}
		}
		f.Close()
		results[file] = tl
	}
	assert.Equal(t, map[string]tally{
		"net452-x64-merged-compressed.etl": {6333, 6332}, // SysConfig/Opcode(37) has no layout
		"shutdown-kernel.etl":              {0, 0},       // only Process, Thread and Image records
		"diaghub-kernel.etl":               {406, 406},
	}, results)

	for key, want := range map[string]string{
		// TraceEvent: TransferSize=16,384; ByteOffset=849,788,928; ElapsedTimeMSec=25.821
		"net452-x64-merged-compressed.etl DiskIO/Read Irp=0xFFFFFA8302A1DC60": "DiskNumber=0 IrpFlags=MountCompletion " +
			"TransferSize=16384 Reserved=1 ByteOffset=849788928 FileKey=0xFFFFF8A0028E0140 Irp=0xFFFFFA8302A1DC60 " +
			"HighResResponseTime=258208 IssuingThreadId=44 Priority=Verylow ElapsedTimeMSec=25.8208",
		// The key the first write of C:\$LogFile carries.
		"net452-x64-merged-compressed.etl FileIO/FileRundown FileObject=0xFFFFFA83016048B0": `FileObject=0xFFFFFA83016048B0 ` +
			`FileName=\Device\HarddiskVolume2\$LogFile`,
		"net452-x64-merged-compressed.etl SysConfig/VolumeMapping DosPath=C:\\": `NtPath=\Device\HarddiskVolume2\ DosPath=C:\`,
		"net452-x64-merged-compressed.etl TcpIp/SendIPV6 sport=64025": "PID=4 size=65652 " + v6Ends +
			" dport=445 sport=64025 startime=1942 endtime=1942 seqnum=0 connid=0x0",
		"net452-x64-merged-compressed.etl UdpIp/Recv sport=60441": "PID=2108 size=173 daddr=239.255.255.250 " +
			"saddr=10.128.0.117 dport=1900 sport=60441 seqnum=0 connid=0x0",
		"diaghub-kernel.etl SystemConfig/CPU ": "MHz=2295 NumberOfProcessors=4 MemSize=16384 PageSize=4096 " +
			"AllocationGranularity=65536 ComputerName=liha-test DomainName=redmond.corp.microsoft.com HyperThreadingFlag=0xF " +
			"HighestUserAddress=0x7FFFFFFEFFFF ProcessorArchitecture=9 ProcessorLevel=6 ProcessorRevision=20225 " +
			"PaeEnabled=1 NxEnabled=1 MemorySpeed=0",
		"diaghub-kernel.etl SystemConfig/Processors ProcessorIndex=0": "ProcessorIndex=0 FeatureSet=0x3D1B3DFF " +
			"ProcessorSpeed=2295 ProcessorName=Intel(R) Xeon(R) CPU E5-2673 v4 @ 2.30GHz " +
			"ProcessorIdentifier=Intel64 Family 6 Model 79 Stepping 1 VendorIdentifier=GenuineIntel",
	} {
		assert.Equal(t, want, firsts[key], key)
	}
}

// sampleKey picks the field that tells the chosen records of
// TestGroupsSamples apart from the others of their event.
func sampleKey(r *record.Record, vals []payload.Value) string {
	for _, n := range []string{"Irp", "FileObject", "DosPath", "sport", "ProcessorIndex"} {
		if v, ok := payload.Lookup(vals, n); ok {
			return fmt.Sprintf("%s=%s", n, v.String())
		}
	}
	return ""
}
