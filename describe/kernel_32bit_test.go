package describe_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema/kernel"
)

// kernelTrace builds a session with one record of each kind whose
// payload has pointer-sized fields, written with 4- or 8-byte pointers
// and the header types of that width.
func kernelTrace(t *testing.T, ptr int) []byte {
	bits32 := ptr == 4
	s := etltest.DefaultSession()
	s.Bits32 = bits32
	s.LogFileMode |= etltest.ModeSystemLogger
	ts := s.HeaderTimeStamp
	next := func() int64 { ts += 1000; return ts }
	p := func() *etltest.Payload { return new(etltest.Payload) }
	process := p().Ptr(ptr, 0x8A000040).U32(1234).U32(567).U32(1).I32(259).Ptr(ptr, 0x1AB000).U32(0x2).
		Ptr(ptr, 0x8B000010).Ptr(ptr, 0).SID(1, 5, 21, 1111, 2222, 3333, 1001).
		AnsiZ("tool.exe").UTF16Z(`tool.exe -x`).UTF16Z("").UTF16Z("").Bytes()
	thread := p().U32(1234).U32(4321).Ptr(ptr, 0x8C001000).Ptr(ptr, 0x8C000000).Ptr(ptr, 0x00300000).
		Ptr(ptr, 0x002F0000).Ptr(ptr, 0xFF).Ptr(ptr, 0x77001234).Ptr(ptr, 0x7FFDE000).U32(0).
		U8(8).U8(5).U8(2).U8(0).UTF16Z("worker").Bytes()
	image := p().Ptr(ptr, 0x77000000).Ptr(ptr, 0x3C000).U32(1234).U32(0x4F1D2).U32(0x61A2B3C4).U8(12).U8(1).U16(0).
		Ptr(ptr, 0x77000000).U32(0).U32(0).U32(0).U32(0).UTF16Z(`\Windows\SysWOW64\ntdll.dll`).Bytes()
	perfctr := p().U32(1234).U32(10).U32(20).U32(0)
	for i := uint64(1); i <= 11; i++ {
		perfctr.Ptr(ptr, i*0x1000)
	}
	sample := p().Ptr(ptr, 0x77005678).U32(4321).U16(1).U8(8<<3 | 1).U8(0).Bytes()
	stack := p().U64(uint64(ts)).U32(1234).U32(4321).Ptr(ptr, 0x77005678).Ptr(ptr, 0x77001234).Ptr(ptr, 0x00401000).Bytes()
	hardFault := p().U64(uint64(ts)).U64(0x4000).Ptr(ptr, 0x77010000).Ptr(ptr, 0x8D000000).U32(4321).U32(0x2000).Bytes()
	imageID := p().Ptr(ptr, 0x77000000).Ptr(ptr, 0x3C000).U32(1234).U32(0x61A2B3C4).UTF16Z("ntdll.dll").Bytes()
	rsds := p().Ptr(ptr, 0x77000000).U32(1234).GUID(kernel.ImageIDTask).U32(2).AnsiZ("wntdll.pdb").Bytes()
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		return b.WriteBuffer(etltest.Buffer{CPU: 0, SequenceNumber: 1},
			&etltest.System{Bits32: bits32, Version: 4, HookId: 0x0301, ThreadId: 88, ProcessId: 567, TimeStamp: next(), Payload: process},
			&etltest.System{Bits32: bits32, Version: 3, HookId: 0x0501, ThreadId: 99, ProcessId: 567, TimeStamp: next(), Payload: thread},
			&etltest.System{Bits32: bits32, Version: 3, HookId: 0x030A, ThreadId: 4321, ProcessId: 1234, TimeStamp: next(), Payload: image},
			&etltest.System{Bits32: bits32, Version: 2, HookId: 0x0321, ThreadId: 4321, ProcessId: 1234, TimeStamp: next(), Payload: perfctr.Bytes()},
			&etltest.PerfInfo{Bits32: bits32, Version: 2, HookId: 0x0F2E, TimeStamp: next(), Payload: sample},
			&etltest.PerfInfo{Bits32: bits32, Version: 2, HookId: 0x1820, TimeStamp: next(), Payload: stack},
			&etltest.PerfInfo{Bits32: bits32, Version: 2, HookId: 0x0220, TimeStamp: next(), Payload: hardFault},
			&etltest.Full{Bits32: bits32, Type: kernel.OpcodeImageID, Version: 2, Guid: kernel.ImageIDTask, TimeStamp: next(), Payload: imageID},
			&etltest.Full{Bits32: bits32, Type: kernel.OpcodeDbgIDRSDS, Version: 2, Guid: kernel.ImageIDTask, TimeStamp: next(), Payload: rsds},
		)
	})
	require.NoError(t, err)
	return data
}

// describeKernelTrace describes every record after the logfile header: its name,
// then its fields as text.
func describeKernelTrace(t *testing.T, data []byte) []string {
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	z := describe.New(describe.Options{})
	var d describe.Description
	var out []string
	for rec, err := range r.Events() {
		require.NoError(t, err)
		z.Describe(rec, &d, true)
		require.True(t, d.Decoded, "%s", d.EventName)
		require.NoError(t, d.Err, "%s", d.EventName)
		out = append(out, d.EventName+" "+string(payload.AppendTextFields(nil, d.Fields, " ")))
	}
	return out[1:]
}

// TestKernel32BitPointers decodes the same events written by a 32-bit and
// a 64-bit session: pointer-sized fields follow the record, so every value
// agrees, although each payload with a pointer is shorter in the first.
func TestKernel32BitPointers(t *testing.T) {
	got32 := describeKernelTrace(t, kernelTrace(t, 4))
	got64 := describeKernelTrace(t, kernelTrace(t, 8))
	assert.Equal(t, got64, got32)
	assert.Equal(t, []string{
		`Process/Start UniqueProcessKey=0x8A000040 ProcessID=1234 ParentID=567 SessionID=1 ExitStatus=259 PageDirectoryBase=0x1AB000 ` +
			`Flags=Wow64 UserSID=S-1-5-21-1111-2222-3333-1001 ImageFileName=tool.exe CommandLine=tool.exe -x PackageFullName= ApplicationID=`,
		`Thread/Start ProcessID=1234 ThreadID=4321 StackBase=0x8C001000 StackLimit=0x8C000000 UserStackBase=0x300000 UserStackLimit=0x2F0000 ` +
			`StartAddr=0xFF Win32StartAddr=0x77001234 TebBase=0x7FFDE000 SubProcessTag=0 BasePriority=8 PagePriority=5 IoPriority=2 ` +
			`ThreadFlags=0 ThreadName=worker ParentThreadID=99 ParentProcessID=567`,
		`Image/Load ImageBase=0x77000000 ImageSize=245760 ProcessID=1234 ImageChecksum=324050 TimeDateStamp=1638052804 SignatureLevel=12 ` +
			`SignatureType=1 Reserved0=0 DefaultBase=0x77000000 Reserved1=0 Reserved2=0 Reserved3=0 Reserved4=0 ` +
			`FileName=\Windows\SysWOW64\ntdll.dll BuildTime=2021-11-27T22:40:04.0000000Z`,
		`Process/PerfCtrRundown ProcessID=1234 MemoryCount=10 HandleCount=20 Reserved=0 PeakVirtualSize=4096 PeakWorkingSetSize=8192 ` +
			`PeakPagefileUsage=12288 QuotaPeakPagedPoolUsage=16384 QuotaPeakNonPagedPoolUsage=20480 VirtualSize=24576 WorkingSetSize=28672 ` +
			`PagefileUsage=32768 QuotaPagedPoolUsage=36864 QuotaNonPagedPoolUsage=40960 PrivatePageCount=45056`,
		`PerfInfo/Sample InstructionPointer=0x77005678 ThreadID=4321 Count=1 Flags=0x41 Rank=0 ProcessorNumber=0 Priority=8 ` +
			`ExecutingDPC=true ExecutingISR=false`,
		`StackWalk/Stack EventTimeStamp=1000000000 StackProcess=1234 StackThread=4321 Stack=["0x77005678","0x77001234","0x401000"] FrameCount=3`,
		// The fault began at the session's first tick and ended 7000
		// ticks of 100 ns later.
		`Memory/HardFault InitialTime=1000000000 ReadOffset=16384 VirtualAddress=0x77010000 FileKey=0x8D000000 ThreadID=4321 ` +
			`ByteCount=8192 ElapsedTimeMSec=0.7`,
		`ImageID ImageBase=0x77000000 ImageSize=245760 ProcessID=1234 TimeDateStamp=1638052804 OriginalFileName=ntdll.dll ` +
			`BuildTime=2021-11-27T22:40:04.0000000Z`,
		`ImageID/DbgID_RSDS ImageBase=0x77000000 ProcessID=1234 GuidSig=b3e675d7-2554-4f18-830b-2762732560de Age=2 PDBFileName=wntdll.pdb`,
	}, got32)
}

// TestKernel32BitSamples decodes the logfile headers of the 32-bit samples
// (a version 2 and a version 0 one) with 4-byte pointers.
func TestKernel32BitSamples(t *testing.T) {
	for _, c := range []struct {
		file, fields string
	}{
		{"small-32bit-compressed.etl", "BufferSize=65536 Version=0x2000A ProviderVersion=10586 NumberOfProcessors=4 " +
			"EndTime=2016-08-17T23:30:22.0688637Z TimerResolution=156250 MaxFileSize=0 LogFileMode=0x4011001 BuffersWritten=2 " +
			"StartBuffers=1 PointerSize=4 EventsLost=0 CPUSpeed=3193 LoggerName=0xA LogFileNamePointer=0x6 TimeZoneBias=480 " +
			"StandardName=@tzres.dll,-212 StandardDate=yearly, first Sunday of November, 02:00:00 StandardBias=0 " +
			"DaylightName=@tzres.dll,-211 DaylightDate=yearly, second Sunday of March, 02:00:00 DaylightBias=-60 Padding=0 " +
			"BootTime=2016-08-17T07:00:13.4934274Z PerfFreq=3117777 StartTime=2016-08-17T23:30:22.0379266Z ReservedFlags=1 " +
			"BuffersLost=0 SessionName=PerfWatsonGCHeapETLSession688 LogFileName=ReloggedFile.ETL UtcOffsetMinutes=480"},
		{"win7-explorer-runonce-32bit.etl", "BufferSize=8192 Version=0x5010106 ProviderVersion=7601 NumberOfProcessors=2 " +
			"EndTime=2018-03-11T23:38:26.4217802Z TimerResolution=156001 MaxFileSize=0 LogFileMode=0x20801 BuffersWritten=2 " +
			"StartBuffers=1 PointerSize=4 EventsLost=0 CPUSpeed=997 LoggerName=0x0 LogFileNamePointer=0x0 TimeZoneBias=300 " +
			"StandardName=@tzres.dll,-112 StandardDate=yearly, first Sunday of November, 02:00:00 StandardBias=0 " +
			"DaylightName=@tzres.dll,-111 DaylightDate=yearly, second Sunday of March, 02:00:00 DaylightBias=-60 Padding=0 " +
			"BootTime=2018-03-11T23:37:02.3595997Z PerfFreq=974511 StartTime=2018-03-11T23:38:15.5463362Z ReservedFlags=1 " +
			`BuffersLost=0 SessionName=ExplorerStartupLog_RunOnce LogFileName=C:\Users\Dany Quenneville\AppData\Local\Microsoft\Windows\Explorer\ExplorerStartupLog_RunOnce.etl ` +
			"UtcOffsetMinutes=300"},
	} {
		f, err := etl.Open(samples.Path(t, c.file))
		require.NoError(t, err)
		z := describe.New(describe.Options{})
		var d describe.Description
		for r, err := range f.Records() {
			require.NoError(t, err)
			require.Equal(t, 4, r.PointerSize())
			z.Describe(r, &d, true)
			require.True(t, d.Decoded, c.file)
			require.NoError(t, d.Err, c.file)
			assert.Equal(t, c.fields, string(payload.AppendTextFields(nil, d.Fields, " ")), c.file)
			break
		}
		f.Close()
	}
}

// TestKernelNamesFromFirstPass: a hard fault names its file by the file
// object, whose name the trace logs only later, in its FileIO rundown.
// Described record by record, the fault has no FileName; with the names a
// first pass learned (Learner.KernelNames), it has the one the rundown
// gives, read as a drive path with the merge's volume mapping.
func TestKernelNamesFromFirstPass(t *testing.T) {
	s := etltest.DefaultSession()
	ts := s.HeaderTimeStamp
	next := func() int64 { ts += 1000; return ts }
	p := func() *etltest.Payload { return new(etltest.Payload) }
	fault := p().U64(uint64(ts)).U64(0).Ptr(8, 0x77010000).Ptr(8, 0xFFFF8A00DEAD0000).U32(4).U32(4096).Bytes()
	rundown := p().Ptr(8, 0xFFFF8A00DEAD0000).UTF16Z(`\Device\HarddiskVolume2\Windows\System32\ntdll.dll`).Bytes()
	mapping := p().UTF16Z(`\Device\HarddiskVolume2\`).UTF16Z(`C:\`).Bytes()
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		return b.WriteBuffer(etltest.Buffer{CPU: 0, SequenceNumber: 1},
			&etltest.Full{Type: 35, Guid: kernel.SysConfigTask, TimeStamp: next(), Payload: mapping},
			&etltest.PerfInfo{Version: 2, HookId: 0x0220, TimeStamp: next(), Payload: fault},
			&etltest.PerfInfo{Version: 2, HookId: 0x0424, TimeStamp: next(), Payload: rundown},
		)
	})
	require.NoError(t, err)
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	l := describe.NewLearner()
	l.Scan(r.Buffers(), &r.Header().Clock)
	for _, c := range []struct {
		opts describe.Options
		name string
	}{
		{describe.Options{}, "<missing>"},
		{describe.Options{KernelNames: l.KernelNames()}, `C:\Windows\System32\ntdll.dll`},
	} {
		z := describe.New(c.opts)
		var d describe.Description
		faults := 0
		for rec, err := range r.Events() {
			require.NoError(t, err)
			z.Describe(rec, &d, true)
			if d.EventName == "Memory/HardFault" {
				faults++
				assert.Equal(t, c.name, fieldText(d.Fields, "FileName"))
			}
		}
		assert.Equal(t, 1, faults)
	}
}
