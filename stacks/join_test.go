package stacks_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/stacktest"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/stacks"
)

// Addresses of the built traces: kernel code, and user code of the test
// process.
const (
	k1, k2, k3 = 0xFFFFF800_00001000, 0xFFFFF800_00002000, 0xFFFFF800_00003000
	u1, u2, u3 = 0x7FF6_0000_1000, 0x7FF6_0000_2000, 0x7FF6_0000_3000
	pid, tid   = 1234, 5678
)

// threads adds the rundown that puts tid (and tid+4) in pid.
func threads(tr *stacktest.Trace) {
	tr.ProcessRundown(0, 1, pid, "app.exe")
	tr.ThreadRundown(0, 2, pid, tid)
	tr.ThreadRundown(0, 3, pid, tid+4)
}

func TestKernelAndUserPartsStitched(t *testing.T) {
	tr := stacktest.New()
	threads(tr)
	tr.Sample(0, 100, tid, k1)
	tr.Stack(0, 101, 100, pid, tid, k1, k2)
	tr.Stack(0, 102, 100, pid, tid, u1, u2)
	o := join(t, tr, nil)
	require.Len(t, o.samples, 1)
	s := o.at(t, 100)
	assert.Equal(t, []uint64{k1, k2, u1, u2}, o.addrs(t, 100), "kernel part, then user part, leaf first")
	assert.Equal(t, stacks.JoinComplete, s.Join)
	assert.EqualValues(t, pid, s.PID)
	assert.True(t, s.PIDKnown)
	assert.Equal(t, "app.exe", s.Process)
	assert.True(t, s.CPUSample)
	assert.Equal(t, 1, o.j.Stats().Deferred)
}

func TestWholeStackInOneRecord(t *testing.T) {
	tr := stacktest.New()
	threads(tr)
	tr.Sample(0, 100, tid, k1)
	tr.Stack(0, 101, 100, pid, tid, k1, k2, u1)
	tr.Sample(0, 200, tid, u1)
	tr.Stack(0, 201, 200, pid, tid, u1, u2)
	o := join(t, tr, nil)
	assert.Equal(t, []uint64{k1, k2, u1}, o.addrs(t, 100))
	assert.Equal(t, []uint64{u1, u2}, o.addrs(t, 200), "a sample of user mode has a user part only")
	assert.Equal(t, 2, o.j.Stats().Complete)
	assert.Zero(t, o.j.Stats().Deferred)
}

// TestUserPartLate: a thread sampled twice in the kernel gets its user part
// when it returns to user mode, named by the first waiting sample's time;
// both samples take it (PerfView's reading), while another thread's
// samples in between are not touched.
func TestUserPartLate(t *testing.T) {
	tr := stacktest.New()
	threads(tr)
	tr.Sample(0, 100, tid, k1)
	tr.Stack(0, 101, 100, pid, tid, k1, k2)
	tr.Sample(1, 150, tid+4, u3)
	tr.Stack(1, 151, 150, pid, tid+4, u3)
	tr.Sample(0, 200, tid, k3)
	tr.Stack(0, 201, 200, pid, tid, k3, k2)
	tr.Stack(0, 300, 100, pid, tid, u1, u2)
	o := join(t, tr, nil)
	require.Len(t, o.samples, 3)
	assert.Equal(t, []uint64{k1, k2, u1, u2}, o.addrs(t, 100))
	assert.Equal(t, []uint64{k3, k2, u1, u2}, o.addrs(t, 200))
	assert.Equal(t, []uint64{u3}, o.addrs(t, 150))
	assert.Equal(t, 2, o.j.Stats().Deferred)
	assert.Zero(t, o.j.Stats().KernelOnly)
}

// TestUserPartNeverComes: the thread ends in the kernel, or the trace
// does; the samples keep their kernel part.
func TestUserPartNeverComes(t *testing.T) {
	tr := stacktest.New()
	threads(tr)
	tr.Sample(0, 100, tid, k1)
	tr.Stack(0, 101, 100, pid, tid, k1, k2)
	tr.ThreadEnd(0, 150, pid, tid)
	tr.Sample(1, 200, tid+4, k3)
	tr.Stack(1, 201, 200, pid, tid+4, k3)
	o := join(t, tr, nil)
	require.Len(t, o.samples, 2)
	assert.Equal(t, stacks.JoinKernelOnly, o.at(t, 100).Join)
	assert.Equal(t, []uint64{k1, k2}, o.addrs(t, 100))
	assert.Equal(t, stacks.JoinKernelOnly, o.at(t, 200).Join)
	assert.Equal(t, 2, o.j.Stats().KernelOnly)
}

// TestStackKeys: keys referred to before their definition, deleted (the
// key's life ends), used again for another stack, defined by the end
// rundown; a kernel key and a user key of the same value at once; a key
// created before it is used.
func TestStackKeys(t *testing.T) {
	const a, b, c = 0xFFFFFA80_0000_1000, 0xFFFFFA80_0000_2000, 0xFFFFFA80_0000_3000
	tr := stacktest.New()
	threads(tr)
	tr.KeyDef(0, 50, 34, c, k3) // KeyCreate, before any use
	tr.Sample(0, 100, tid, k1)
	tr.KeyRef(0, 101, 100, true, pid, tid, a)
	tr.KeyRef(0, 102, 100, false, pid, tid, a) // the same value, a user stack
	tr.KeyDef(0, 150, 35, a, k1, k2)           // KeyDelete of the kernel key a (ends in the kernel)
	tr.Sample(0, 200, tid, k1)
	tr.KeyRef(0, 201, 200, true, pid, tid, a) // a new life of a
	tr.KeyRef(0, 202, 200, false, pid, tid, b)
	tr.Sample(0, 300, tid, k3)
	tr.KeyRef(0, 301, 300, true, pid, tid, c)
	tr.KeyRef(0, 302, 300, false, pid, tid, b)
	tr.KeyDef(0, 400, 35, a, u1, u2)     // KeyDelete of the user key a
	tr.KeyDef(0, 410, 36, a, k2, k1, k3) // KeyRundown of the kernel key a's second life
	tr.KeyDef(0, 420, 36, b, u3)
	tr.KeyDef(0, 430, 36, 0xDEAD, u3) // a key no event used
	o := join(t, tr, nil)
	require.Len(t, o.samples, 3)
	assert.Equal(t, []uint64{k1, k2, u1, u2}, o.addrs(t, 100))
	assert.Equal(t, []uint64{k2, k1, k3, u3}, o.addrs(t, 200))
	assert.Equal(t, []uint64{k3, u3}, o.addrs(t, 300))
	st := o.j.Stats()
	assert.Equal(t, 4, st.KeyDefinitions)
	assert.Equal(t, 1, st.UnusedDefinitions)
	assert.Zero(t, st.UndefinedKeys)
}

func TestStackKeyNeverDefined(t *testing.T) {
	tr := stacktest.New()
	threads(tr)
	tr.Sample(0, 100, tid, u1)
	tr.KeyRef(0, 101, 100, false, pid, tid, 0x77)
	o := join(t, tr, nil)
	require.Len(t, o.samples, 1)
	assert.Empty(t, o.addrs(t, 100))
	assert.Equal(t, 1, o.j.Stats().UndefinedKeys)
}

// TestMissingEvent: a stack whose event is not in the trace is an orphan;
// a sample without a stack record has its instruction pointer as its one
// frame.
func TestMissingEvent(t *testing.T) {
	tr := stacktest.New()
	threads(tr)
	tr.Stack(0, 90, 80, pid, tid, k1, u1)
	tr.Sample(0, 100, tid, u2)
	tr.Sample(0, 200, tid, u1)
	tr.Stack(0, 201, 200, pid, tid, u1, u3)
	tr.KeyRef(0, 250, 240, false, pid, tid+4, 0x55)
	o := join(t, tr, nil)
	require.Len(t, o.samples, 2)
	assert.Equal(t, stacks.JoinNoStack, o.at(t, 100).Join)
	assert.Equal(t, []uint64{u2}, o.addrs(t, 100))
	assert.Equal(t, []uint64{u1, u3}, o.addrs(t, 200))
	assert.Equal(t, 2, o.j.Stats().Orphans)
	assert.Zero(t, o.j.Stats().UndefinedKeys, "an orphan reference makes no key")
}

// TestIdleAndSystem: the idle threads (tid 0 on every processor) are told
// apart by processor; System's kernel stacks are whole stacks.
func TestIdleAndSystem(t *testing.T) {
	tr := stacktest.New()
	tr.ProcessRundown(0, 1, 4, "System")
	tr.ThreadRundown(0, 2, 4, 8)
	tr.Sample(0, 100, 0, k1)
	tr.Sample(1, 101, 0, k2)
	tr.Stack(1, 102, 101, 0, 0, k2, k3)
	tr.Stack(0, 103, 100, 0, 0, k1, k3)
	tr.Sample(2, 110, 0, k3) // no stack
	tr.Sample(3, 120, 8, k1)
	tr.Stack(3, 121, 120, 4, 8, k1, k2)
	o := join(t, tr, nil)
	require.Len(t, o.samples, 4)
	assert.Equal(t, []uint64{k1, k3}, o.addrs(t, 100))
	assert.Equal(t, []uint64{k2, k3}, o.addrs(t, 101))
	assert.Equal(t, []uint64{k3}, o.addrs(t, 110))
	assert.Equal(t, "Idle", o.at(t, 100).Process)
	assert.True(t, o.at(t, 100).PIDKnown)
	assert.Equal(t, stacks.JoinComplete, o.at(t, 120).Join, "System has no user mode to wait for")
	assert.Equal(t, "System", o.at(t, 120).Process)
	assert.Equal(t, []uint64{k1, k2}, o.addrs(t, 120))
}

// TestWOW64: a 32-bit process on a 64-bit kernel has its 32-bit user
// frames in the kernel's 8-byte frames; its .NET runtime logs 4-byte
// frames.
func TestWOW64(t *testing.T) {
	tr := stacktest.New()
	threads(tr)
	tr.Sample(0, 100, tid, k1)
	tr.Stack(0, 101, 100, pid, tid, k1)
	tr.Stack(0, 102, 100, pid, tid, 0x7790_1000, 0x7790_2000, 0x0040_1000)
	tr.CLREvent(0, 200, true, pid, tid)
	tr.CLRStack(0, 201, true, pid, tid, 0x0900_1000, 0x7790_2000)
	alloc := func(r *record.Record) bool { return r.ProviderId == stacktest.CLRRuntime && r.EventDescriptor.Id == 10 }
	o := join(t, tr, nil)
	require.Len(t, o.samples, 1)
	assert.Equal(t, []uint64{k1, 0x7790_1000, 0x7790_2000, 0x0040_1000}, o.addrs(t, 100))
	o = join(t, tr, alloc)
	require.Len(t, o.samples, 1)
	assert.Equal(t, []uint64{0x0900_1000, 0x7790_2000}, o.addrs(t, 200))
	assert.False(t, o.at(t, 200).CPUSample)
}

// Test32BitKernel: a 32-bit kernel's records have 4-byte frames, and its
// kernel boundary is 0x80000000.
func Test32BitKernel(t *testing.T) {
	tr := stacktest.New()
	tr.Bits32 = true
	threads(tr)
	tr.Sample(0, 100, tid, 0x8200_1000)
	tr.Stack(0, 101, 100, pid, tid, 0x8200_1000, 0x8200_2000)
	tr.Stack(0, 102, 100, pid, tid, 0x7700_1000)
	o := join(t, tr, nil)
	require.Len(t, o.samples, 1)
	assert.Equal(t, []uint64{0x8200_1000, 0x8200_2000, 0x7700_1000}, o.addrs(t, 100))
	assert.Equal(t, 1, o.j.Stats().Deferred, "the kernel part waited for the user part")
}

// TestNamesFromTheTrace: frames named by the images of the sample's
// process (an unloaded image's range reused by another), the kernel's
// images shared by every process, .NET methods, and nothing.
func TestNamesFromTheTrace(t *testing.T) {
	pdbGUID := uuid.MustParse("72482100-1c1c-4a03-aed8-c4c71c2e8d1d")
	tr := stacktest.New()
	threads(tr)
	tr.ImageID(0, 4, 0, 0xFFFFF800_00000000, 0x100000, 0x5010ADCB, pdbGUID, 2, "ntkrnlmp.pdb")
	tr.Image(0, 4, 3, 0, 0xFFFFF800_00000000, 0x100000, `\SystemRoot\system32\ntoskrnl.exe`)
	tr.Image(0, 5, 3, pid, 0x7FF6_0000_0000, 0x10000, `\Device\HarddiskVolume2\app\app.exe`)
	tr.Image(0, 6, 10, pid, 0x7FF7_0000_0000, 0x10000, `\Device\HarddiskVolume2\app\old.dll`)
	tr.Method(0, 7, false, 143, false, pid, tid, 0x7FF5_0000_1000, 0x100, "App.Program", "Main", "void  (class System.String[])")
	tr.Sample(0, 100, tid, 0x7FF7_0000_1234)
	tr.Stack(0, 101, 100, pid, tid, 0x7FF7_0000_1234, 0x7FF5_0000_1010, 0x7FF6_0000_2000, 0x1234)
	tr.Image(0, 150, 2, pid, 0x7FF7_0000_0000, 0x10000, `\Device\HarddiskVolume2\app\old.dll`)
	tr.Image(0, 160, 10, pid, 0x7FF7_0000_0000, 0x20000, `\Device\HarddiskVolume2\app\new.dll`)
	tr.Sample(0, 200, tid, 0x7FF7_0000_1234)
	tr.Stack(0, 201, 200, pid, tid, 0xFFFFF800_00000100, 0x7FF7_0000_1234, 0x7FF5_0000_1010, 0x7FF6_0000_2000, 0x1234)
	tr.Method(0, 300, true, 144, false, pid, tid, 0x7FF5_0000_2000, 0x100, "App.Later", "Run", "int32  ()")
	tr.Sample(0, 250, tid+4, 0x7FF5_0000_2080)
	tr.Stack(0, 251, 250, pid, tid+4, 0x7FF5_0000_2080, 0x7FF6_0000_1000)
	o := join(t, tr, nil)
	require.Len(t, o.samples, 3)
	assert.Equal(t, []string{"old.dll!+0x1234", "App.Program.Main(class System.String[])", "app.exe!+0x2000", "?!0x1234"},
		o.names(t, 100))
	assert.Equal(t, []string{"ntoskrnl.exe!+0x100", "new.dll!+0x1234", "App.Program.Main(class System.String[])", "app.exe!+0x2000", "?!0x1234"},
		o.names(t, 200), "the reused range names the new image after the unload")
	assert.Equal(t, []string{"App.Later.Run()", "app.exe!+0x1000"}, o.names(t, 250),
		"a method of the end rundown names code run before it was logged")
	fr := o.j.Frames(nil, o.at(t, 200).Stack)
	require.NotNil(t, fr[0].Module)
	assert.True(t, fr[0].Module.Kernel)
	assert.Equal(t, "724821001C1C4A03AED8C4C71C2E8D1D2", fr[0].Module.BuildID(), "PDB GUID, then age")
	assert.Equal(t, "ntkrnlmp.pdb", fr[0].Module.PDB.Name)
	assert.EqualValues(t, 0x5010ADCB, fr[0].Module.TimeDateStamp)
	require.NotNil(t, fr[2].Method)
	assert.Nil(t, fr[2].Module, "JIT code lies in no image")
	assert.Equal(t, "", fr[3].Module.BuildID(), "no identity, no TimeDateStamp: no build id")
}

// TestExtendedDataStacks: stacks an event carries in its extended data:
// whole (MatchId 0), a kernel part whose user part Kernel-EventTracing
// logs when the thread leaves the kernel, a stack-cache key, and 4-byte
// frames.
func TestExtendedDataStacks(t *testing.T) {
	provider := uuid.MustParse("edd08927-9cc4-4e65-b970-c2560fb5c289")
	eventTracing := uuid.MustParse("b675ec37-bdb6-4648-bc92-f3fdc74d3ca2")
	ev := func(at int64, id uint16, prov uuid.UUID, ext ...etltest.ExtItem) *etltest.Event {
		return &etltest.Event{ThreadId: tid, ProcessId: pid, TimeStamp: t0 + at, ProviderId: prov,
			Descriptor: header.EventDescriptor{Id: id}, Ext: ext}
	}
	tr := stacktest.New()
	threads(tr)
	tr.Add(0, ev(100, 12, provider, etltest.ExtStackTrace64(0, k1, u1, u2)))
	tr.Add(0, ev(200, 12, provider, etltest.ExtStackTrace64(7, k2, k3)))
	tr.Add(0, ev(250, 12, provider, etltest.ExtStackTrace64(8, k3)))
	tr.Add(0, ev(300, 18, eventTracing, etltest.ExtStackTrace64(7, u3, u1)))
	tr.Add(0, ev(400, 12, provider, etltest.ExtStackKey64(0, 0xFFFFFA80_0000_1000)))
	tr.Add(0, ev(500, 12, provider, etltest.ExtStackTrace32(0, 0x7790_1000, 0x7790_2000)))
	tr.KeyDef(0, 600, 36, 0xFFFFFA80_0000_1000, k1, u2)
	o := join(t, tr, func(r *record.Record) bool { return r.ProviderId == provider })
	require.Len(t, o.samples, 5)
	assert.Equal(t, []uint64{k1, u1, u2}, o.addrs(t, 100))
	assert.Equal(t, []uint64{k2, k3, u3, u1}, o.addrs(t, 200), "the user part Kernel-EventTracing logs")
	assert.Equal(t, []uint64{k3, u3, u1}, o.addrs(t, 250), "it serves every kernel part waiting on the thread")
	assert.Equal(t, []uint64{k1, u2}, o.addrs(t, 400))
	assert.Equal(t, []uint64{0x7790_1000, 0x7790_2000}, o.addrs(t, 500))
	assert.EqualValues(t, pid, o.at(t, 100).PID)
	assert.False(t, o.at(t, 100).CPUSample)
}

// TestSamplingInterval: each sample carries the interval in force; before
// the trace states one, none, and Interval gives the one to use.
func TestSamplingInterval(t *testing.T) {
	interval := func(source, newInterval, oldInterval uint32) []byte {
		return new(etltest.Payload).U32(source).U32(newInterval).U32(oldInterval).Bytes()
	}
	tr := stacktest.New()
	threads(tr)
	tr.Sample(0, 100, tid, u1)
	tr.System(0, 150, 0x0F49, 2, tid, pid, interval(0, 5000, 10000)) // CollectionStart
	tr.Sample(0, 200, tid, u1)
	tr.System(0, 250, 0x0F48, 2, tid, pid, interval(1, 100, 5000)) // SetInterval of another source
	tr.System(0, 260, 0x0F48, 2, tid, pid, interval(0, 20000, 5000))
	tr.Sample(0, 300, tid, u1)
	o := join(t, tr, nil)
	assert.EqualValues(t, 0, o.at(t, 100).Interval)
	assert.EqualValues(t, 5000, o.at(t, 200).Interval)
	assert.EqualValues(t, 20000, o.at(t, 300).Interval)
	assert.EqualValues(t, 5000, o.j.Interval(), "the first CollectionStart's")
}
