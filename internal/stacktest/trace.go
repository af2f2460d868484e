// Package stacktest builds traces of CPU samples, stacks, images and .NET
// methods for the tests of packages stacks and sink/profilesink: each
// record is placed on a processor at a time the test chooses.
package stacktest

import (
	"testing"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/schema/dotnet"
)

// T0 is the raw time of the first record of the built traces: the
// session's header time stamp.
const T0 = 1_000_000_000

// Trace is a trace being built for a test: records per processor, each
// processor's in time order. Times are given from T0.
type Trace struct {
	Bits32 bool // a 32-bit kernel: 4-byte pointers in the kernel's records
	cpus   map[int][]etltest.Record
}

// New returns an empty trace.
func New() *Trace { return &Trace{cpus: map[int][]etltest.Record{}} }

// Add adds a record to processor cpu.
func (tr *Trace) Add(cpu int, r etltest.Record) { tr.cpus[cpu] = append(tr.cpus[cpu], r) }

// Ptr is the pointer size of the kernel's records.
func (tr *Trace) Ptr() int {
	if tr.Bits32 {
		return 4
	}
	return 8
}

// PerfInfo adds a PERFINFO record of the kernel's pointer size.
func (tr *Trace) PerfInfo(cpu int, at int64, hook uint16, payload []byte) {
	tr.Add(cpu, &etltest.PerfInfo{Bits32: tr.Bits32, Version: 2, HookId: hook, TimeStamp: T0 + at, Payload: payload})
}

// System adds a SYSTEM record (with a thread and process in its header).
func (tr *Trace) System(cpu int, at int64, hook, version uint16, tid, pid uint32, payload []byte) {
	tr.Add(cpu, &etltest.System{Bits32: tr.Bits32, Version: version, HookId: hook, ThreadId: tid, ProcessId: pid,
		TimeStamp: T0 + at, Payload: payload})
}

// Sample adds a PerfInfo/Sample of thread tid at instruction pointer ip.
func (tr *Trace) Sample(cpu int, at int64, tid uint32, ip uint64) {
	tr.PerfInfo(cpu, at, 0x0F2E, new(etltest.Payload).Ptr(tr.Ptr(), ip).U32(tid).U16(1).U8(0).U8(0).Bytes())
}

// Stack adds a StackWalk/Stack for the event of thread tid at raw time ev.
func (tr *Trace) Stack(cpu int, at, ev int64, pid, tid uint32, frames ...uint64) {
	p := new(etltest.Payload).U64(uint64(T0 + ev)).U32(pid).U32(tid)
	for _, f := range frames {
		p.Ptr(tr.Ptr(), f)
	}
	tr.PerfInfo(cpu, at, 0x1820, p.Bytes())
}

// KeyRef adds a StackKeyKernel or StackKeyUser.
func (tr *Trace) KeyRef(cpu int, at, ev int64, kernel bool, pid, tid uint32, key uint64) {
	hook := uint16(0x1826)
	if kernel {
		hook = 0x1825
	}
	tr.PerfInfo(cpu, at, hook, new(etltest.Payload).U64(uint64(T0+ev)).U32(pid).U32(tid).Ptr(tr.Ptr(), key).Bytes())
}

// KeyDef adds a KeyCreate (34), KeyDelete (35) or KeyRundown (36).
func (tr *Trace) KeyDef(cpu int, at int64, op uint8, key uint64, frames ...uint64) {
	p := new(etltest.Payload).Ptr(tr.Ptr(), key)
	for _, f := range frames {
		p.Ptr(tr.Ptr(), f)
	}
	tr.PerfInfo(cpu, at, 0x1800|uint16(op), p.Bytes())
}

// ThreadRundown adds a Thread/DCStart (v2) of thread tid in process pid.
func (tr *Trace) ThreadRundown(cpu int, at int64, pid, tid uint32) {
	tr.System(cpu, at, 0x0503, 2, tid, pid, threadV2(tr.Ptr(), pid, tid))
}

// ThreadEnd adds a Thread/End (v2).
func (tr *Trace) ThreadEnd(cpu int, at int64, pid, tid uint32) {
	tr.System(cpu, at, 0x0502, 2, tid, pid, threadV2(tr.Ptr(), pid, tid))
}

func threadV2(ptr int, pid, tid uint32) []byte {
	p := new(etltest.Payload).U32(pid).U32(tid)
	for range 7 {
		p.Ptr(ptr, 0x1000)
	}
	return p.U32(0).Bytes()
}

// ProcessRundown adds a Process/DCStart (v4).
func (tr *Trace) ProcessRundown(cpu int, at int64, pid uint32, image string) {
	p := new(etltest.Payload).Ptr(tr.Ptr(), 0xA000).U32(pid).U32(4).U32(1).I32(259).Ptr(tr.Ptr(), 0x1AB000).
		U32(0).U32(0).AnsiZ(image).UTF16Z("").UTF16Z("").UTF16Z("")
	tr.System(cpu, at, 0x0303, 4, 0, 0, p.Bytes())
}

// Image adds an Image event (v2): opcode 10 Load, 2 Unload, 3 DCStart,
// 4 DCEnd.
func (tr *Trace) Image(cpu int, at int64, op uint8, pid uint32, base, size uint64, path string) {
	p := new(etltest.Payload).Ptr(tr.Ptr(), base).Ptr(tr.Ptr(), size).U32(pid).U32(0x1234).U32(0).U32(0).
		Ptr(tr.Ptr(), base).U32(0).U32(0).U32(0).U32(0).UTF16Z(path)
	tr.PerfInfo(cpu, at, 0x1400|uint16(op), p.Bytes())
}

// imageIDTask is KernelTraceControl's ImageID task.
var imageIDTask = uuid.MustParse("b3e675d7-2554-4f18-830b-2762732560de")

// ImageID adds KernelTraceControl's ImageID and DbgID_RSDS of an image.
func (tr *Trace) ImageID(cpu int, at int64, pid uint32, base, size uint64, tds uint32, guid uuid.UUID, age uint32, pdb string) {
	tr.Add(cpu, &etltest.Full{Type: 0, Version: 2, ThreadId: ^uint32(0), ProcessId: pid, TimeStamp: T0 + at, Guid: imageIDTask,
		Payload: new(etltest.Payload).Ptr(8, base).Ptr(8, size).U32(pid).U32(tds).UTF16Z("x").Bytes()})
	tr.Add(cpu, &etltest.Full{Type: 36, Version: 2, ThreadId: ^uint32(0), ProcessId: pid, TimeStamp: T0 + at, Guid: imageIDTask,
		Payload: new(etltest.Payload).Ptr(8, base).U32(pid).GUID(guid).U32(age).AnsiZ(pdb).Bytes()})
}

// The .NET runtime's providers.
var (
	CLRRuntime = dotnet.RuntimeProvider
	CLRRundown = dotnet.RundownProvider
)

// Method adds a .NET method event (v1): runtime 143 MethodLoadVerbose,
// 144 MethodUnloadVerbose; rundown 143 MethodDCStartVerbose, 144
// MethodDCEndVerbose.
func (tr *Trace) Method(cpu int, at int64, rundown bool, id uint16, bits32 bool, pid, tid uint32, start uint64, size uint32, ns, name, sig string) {
	prov := CLRRuntime
	if rundown {
		prov = CLRRundown
	}
	p := new(etltest.Payload).U64(0x100 + start).U64(0x7000).U64(start).U32(size).U32(0x06000001).U32(8).
		UTF16Z(ns).UTF16Z(name).UTF16Z(sig).U16(11)
	tr.Add(cpu, &etltest.Event{Bits32: bits32, ThreadId: tid, ProcessId: pid, TimeStamp: T0 + at, ProviderId: prov,
		Descriptor: header.EventDescriptor{Id: id, Version: 1, Level: 4}, UserData: p.Bytes()})
}

// CLREvent adds a .NET runtime event (GC/AllocationTick, id 10 v2, with a
// short payload); CLRStack the ClrStackWalk that follows one.
func (tr *Trace) CLREvent(cpu int, at int64, bits32 bool, pid, tid uint32) {
	tr.Add(cpu, &etltest.Event{Bits32: bits32, ThreadId: tid, ProcessId: pid, TimeStamp: T0 + at, ProviderId: CLRRuntime,
		Descriptor: header.EventDescriptor{Id: 10, Version: 2, Opcode: 11, Task: 1, Level: 5, Keyword: 1},
		UserData:   new(etltest.Payload).U32(100).U32(0).U16(11).U64(100).Bytes()})
}

func (tr *Trace) CLRStack(cpu int, at int64, bits32 bool, pid, tid uint32, frames ...uint64) {
	ptr := 8
	if bits32 {
		ptr = 4
	}
	p := new(etltest.Payload).U16(11).U8(0).U8(0).U32(uint32(len(frames)))
	for _, f := range frames {
		p.Ptr(ptr, f)
	}
	tr.Add(cpu, &etltest.Event{Bits32: bits32, ThreadId: tid, ProcessId: pid, TimeStamp: T0 + at, ProviderId: CLRRuntime,
		Descriptor: header.EventDescriptor{Id: 82, Opcode: 82, Task: 11, Keyword: 0x40000000}, UserData: p.Bytes()})
}

// Bytes writes the trace.
func (tr *Trace) Bytes(t testing.TB) []byte {
	t.Helper()
	s := etltest.DefaultSession()
	s.BufferSize = 0x10000
	if tr.Bits32 {
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
	if err != nil {
		t.Fatal(err)
	}
	return out
}
