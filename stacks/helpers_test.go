package stacks_test

import (
	"bytes"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/stacks"
)

// t0 is the raw time of the first record of the built traces: the
// session's header time stamp.
const t0 = 1_000_000_000

// trace is a trace being built for a test: records per processor, each
// processor's in time order.
type trace struct {
	bits32 bool // a 32-bit kernel: 4-byte pointers in the kernel's records
	cpus   map[int][]etltest.Record
}

func newTrace() *trace { return &trace{cpus: map[int][]etltest.Record{}} }

func (tr *trace) add(cpu int, r etltest.Record) { tr.cpus[cpu] = append(tr.cpus[cpu], r) }

func (tr *trace) ptr() int {
	if tr.bits32 {
		return 4
	}
	return 8
}

// perfInfo adds a PERFINFO record of the kernel's pointer size.
func (tr *trace) perfInfo(cpu int, at int64, hook uint16, payload []byte) {
	tr.add(cpu, &etltest.PerfInfo{Bits32: tr.bits32, Version: 2, HookId: hook, TimeStamp: t0 + at, Payload: payload})
}

// system adds a SYSTEM record (with a thread and process in its header).
func (tr *trace) system(cpu int, at int64, hook, version uint16, tid, pid uint32, payload []byte) {
	tr.add(cpu, &etltest.System{Bits32: tr.bits32, Version: version, HookId: hook, ThreadId: tid, ProcessId: pid,
		TimeStamp: t0 + at, Payload: payload})
}

// sample adds a PerfInfo/Sample of thread tid at instruction pointer ip.
func (tr *trace) sample(cpu int, at int64, tid uint32, ip uint64) {
	tr.perfInfo(cpu, at, 0x0F2E, new(etltest.Payload).Ptr(tr.ptr(), ip).U32(tid).U16(1).U8(0).U8(0).Bytes())
}

// stack adds a StackWalk/Stack for the event of thread tid at raw time ev.
func (tr *trace) stack(cpu int, at, ev int64, pid, tid uint32, frames ...uint64) {
	p := new(etltest.Payload).U64(uint64(t0 + ev)).U32(pid).U32(tid)
	for _, f := range frames {
		p.Ptr(tr.ptr(), f)
	}
	tr.perfInfo(cpu, at, 0x1820, p.Bytes())
}

// keyRef adds a StackKeyKernel or StackKeyUser.
func (tr *trace) keyRef(cpu int, at, ev int64, kernel bool, pid, tid uint32, key uint64) {
	hook := uint16(0x1826)
	if kernel {
		hook = 0x1825
	}
	tr.perfInfo(cpu, at, hook, new(etltest.Payload).U64(uint64(t0+ev)).U32(pid).U32(tid).Ptr(tr.ptr(), key).Bytes())
}

// keyDef adds a KeyCreate (34), KeyDelete (35) or KeyRundown (36).
func (tr *trace) keyDef(cpu int, at int64, op uint8, key uint64, frames ...uint64) {
	p := new(etltest.Payload).Ptr(tr.ptr(), key)
	for _, f := range frames {
		p.Ptr(tr.ptr(), f)
	}
	tr.perfInfo(cpu, at, 0x1800|uint16(op), p.Bytes())
}

// threadRundown adds a Thread/DCStart (v2) of thread tid in process pid.
func (tr *trace) threadRundown(cpu int, at int64, pid, tid uint32) {
	tr.system(cpu, at, 0x0503, 2, tid, pid, threadV2(tr.ptr(), pid, tid))
}

// threadEnd adds a Thread/End (v2).
func (tr *trace) threadEnd(cpu int, at int64, pid, tid uint32) {
	tr.system(cpu, at, 0x0502, 2, tid, pid, threadV2(tr.ptr(), pid, tid))
}

func threadV2(ptr int, pid, tid uint32) []byte {
	p := new(etltest.Payload).U32(pid).U32(tid)
	for range 7 {
		p.Ptr(ptr, 0x1000)
	}
	return p.U32(0).Bytes()
}

// processRundown adds a Process/DCStart (v4).
func (tr *trace) processRundown(cpu int, at int64, pid uint32, image string) {
	p := new(etltest.Payload).Ptr(tr.ptr(), 0xA000).U32(pid).U32(4).U32(1).I32(259).Ptr(tr.ptr(), 0x1AB000).
		U32(0).U32(0).AnsiZ(image).UTF16Z("").UTF16Z("").UTF16Z("")
	tr.system(cpu, at, 0x0303, 4, 0, 0, p.Bytes())
}

// image adds an Image event (v2): opcode 10 Load, 2 Unload, 3 DCStart,
// 4 DCEnd.
func (tr *trace) image(cpu int, at int64, op uint8, pid uint32, base, size uint64, path string) {
	p := new(etltest.Payload).Ptr(tr.ptr(), base).Ptr(tr.ptr(), size).U32(pid).U32(0x1234).U32(0).U32(0).
		Ptr(tr.ptr(), base).U32(0).U32(0).U32(0).U32(0).UTF16Z(path)
	tr.perfInfo(cpu, at, 0x1400|uint16(op), p.Bytes())
}

var imageIDTask = uuid.MustParse("b3e675d7-2554-4f18-830b-2762732560de")

// imageID adds KernelTraceControl's ImageID and DbgID_RSDS of an image.
func (tr *trace) imageID(cpu int, at int64, pid uint32, base, size uint64, tds uint32, guid uuid.UUID, age uint32, pdb string) {
	tr.add(cpu, &etltest.Full{Type: 0, Version: 2, ThreadId: ^uint32(0), ProcessId: pid, TimeStamp: t0 + at, Guid: imageIDTask,
		Payload: new(etltest.Payload).Ptr(8, base).Ptr(8, size).U32(pid).U32(tds).UTF16Z("x").Bytes()})
	tr.add(cpu, &etltest.Full{Type: 36, Version: 2, ThreadId: ^uint32(0), ProcessId: pid, TimeStamp: t0 + at, Guid: imageIDTask,
		Payload: new(etltest.Payload).Ptr(8, base).U32(pid).GUID(guid).U32(age).AnsiZ(pdb).Bytes()})
}

var (
	clrRuntime = uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	clrRundown = uuid.MustParse("a669021c-c450-4609-a035-5af59af4df18")
)

// method adds a .NET method event (v1): runtime 143 MethodLoadVerbose,
// 144 MethodUnloadVerbose; rundown 143 MethodDCStartVerbose, 144
// MethodDCEndVerbose.
func (tr *trace) method(cpu int, at int64, rundown bool, id uint16, bits32 bool, pid, tid uint32, start uint64, size uint32, ns, name, sig string) {
	prov := clrRuntime
	if rundown {
		prov = clrRundown
	}
	p := new(etltest.Payload).U64(0x100+start).U64(0x7000).U64(start).U32(size).U32(0x06000001).U32(8).
		UTF16Z(ns).UTF16Z(name).UTF16Z(sig).U16(11)
	tr.add(cpu, &etltest.Event{Bits32: bits32, ThreadId: tid, ProcessId: pid, TimeStamp: t0 + at, ProviderId: prov,
		Descriptor: header.EventDescriptor{Id: id, Version: 1, Level: 4}, UserData: p.Bytes()})
}

// clrEvent adds a .NET runtime event (GC/AllocationTick, id 10 v2, with a
// short payload); clrStack the ClrStackWalk that follows one.
func (tr *trace) clrEvent(cpu int, at int64, bits32 bool, pid, tid uint32) {
	tr.add(cpu, &etltest.Event{Bits32: bits32, ThreadId: tid, ProcessId: pid, TimeStamp: t0 + at, ProviderId: clrRuntime,
		Descriptor: header.EventDescriptor{Id: 10, Version: 2, Opcode: 11, Task: 1, Level: 5, Keyword: 1},
		UserData: new(etltest.Payload).U32(100).U32(0).U16(11).U64(100).Bytes()})
}

func (tr *trace) clrStack(cpu int, at int64, bits32 bool, pid, tid uint32, frames ...uint64) {
	ptr := 8
	if bits32 {
		ptr = 4
	}
	p := new(etltest.Payload).U16(11).U8(0).U8(0).U32(uint32(len(frames)))
	for _, f := range frames {
		p.Ptr(ptr, f)
	}
	tr.add(cpu, &etltest.Event{Bits32: bits32, ThreadId: tid, ProcessId: pid, TimeStamp: t0 + at, ProviderId: clrRuntime,
		Descriptor: header.EventDescriptor{Id: 82, Opcode: 82, Task: 11, Keyword: 0x40000000}, UserData: p.Bytes()})
}

// bytes writes the trace.
func (tr *trace) bytes(t testing.TB) []byte {
	t.Helper()
	s := etltest.DefaultSession()
	s.BufferSize = 0x10000
	if tr.bits32 {
		s.PointerSize = 4
	}
	out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		for cpu := range 8 {
			if recs := tr.cpus[cpu]; len(recs) > 0 {
				b.CPU(cpu).Add(recs...)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// joined is the outcome of a Joiner over a trace.
type joined struct {
	j       *stacks.Joiner
	samples []stacks.Sample
}

// join runs a Joiner with the given selection over the trace.
func (tr *trace) join(t testing.TB, sel func(r *record.Record) bool) *joined {
	t.Helper()
	return joinBytes(t, tr.bytes(t), sel)
}

func joinBytes(t testing.TB, b []byte, sel func(r *record.Record) bool) *joined {
	t.Helper()
	r, err := etl.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	out := &joined{}
	out.j = stacks.NewJoiner(stacks.Options{Select: sel, Emit: func(s *stacks.Sample) { out.samples = append(out.samples, *s) }})
	for rec, err := range r.Events() {
		require.NoError(t, err)
		out.j.Add(rec)
	}
	out.j.Close()
	return out
}

// at returns the sample of raw time t0+at.
func (o *joined) at(t testing.TB, at int64) stacks.Sample {
	t.Helper()
	for _, s := range o.samples {
		if s.Time == t0+at {
			return s
		}
	}
	t.Fatalf("no sample at %d", at)
	return stacks.Sample{}
}

// addrs is the stack of the sample at raw time t0+at.
func (o *joined) addrs(t testing.TB, at int64) []uint64 {
	t.Helper()
	return o.j.Addresses(nil, o.at(t, at).Stack)
}

// names is the stack of the sample at t0+at, each frame named.
func (o *joined) names(t testing.TB, at int64) []string {
	t.Helper()
	var out []string
	for _, f := range o.j.Frames(nil, o.at(t, at).Stack) {
		out = append(out, f.Name())
	}
	return out
}
