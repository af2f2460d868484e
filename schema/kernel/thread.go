package kernel

import (
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// Thread group (0x05), kernel-events.md §5. Field names are TraceEvent's:
// ThreadID for the MOF's TThreadId, and StartAddr for field 7 in every
// version (the MOF calls it Affinity from v3 on; the bytes are the same).

// Thread group opcodes that need their number here.
const (
	opThreadStart = 1
	opThreadEnd   = 2
	opThreadDCEnd = 4
	groupThread   = 0x05
)

// waitReasons are the KWAIT_REASON values of a context switch's
// OldThreadWaitReason.
var waitReasons = values("WaitReason",
	entry(0, "Executive"), entry(1, "FreePage"), entry(2, "PageIn"), entry(3, "PoolAllocation"),
	entry(4, "DelayExecution"), entry(5, "Suspended"), entry(6, "UserRequest"), entry(7, "WrExecutive"),
	entry(8, "WrFreePage"), entry(9, "WrPageIn"), entry(10, "WrPoolAllocation"), entry(11, "WrDelayExecution"),
	entry(12, "WrSuspended"), entry(13, "WrUserRequest"), entry(14, "WrEventPair"), entry(15, "WrQueue"),
	entry(16, "WrLpcReceive"), entry(17, "WrLpcReply"), entry(18, "WrVirtualMemory"), entry(19, "WrPageOut"),
	entry(20, "WrRendezvous"), entry(21, "WrKeyedEvent"), entry(22, "WrTerminated"), entry(23, "WrProcessInSwap"),
	entry(24, "WrCpuRateControl"), entry(25, "WrCalloutStack"), entry(26, "WrKernel"), entry(27, "WrResource"),
	entry(28, "WrPushLock"), entry(29, "WrMutex"), entry(30, "WrQuantumEnd"), entry(31, "WrDispatchInt"),
	entry(32, "WrPreempted"), entry(33, "WrYieldExecution"), entry(34, "WrFastMutex"), entry(35, "WrGuardedMutex"),
	entry(36, "WrRundown"), entry(37, "WrAlertByThreadId"), entry(38, "WrDeferredPreempt"),
)

// threadStates are the KTHREAD_STATE values of OldThreadState.
var threadStates = values("ThreadState",
	entry(0, "Initialized"), entry(1, "Ready"), entry(2, "Running"), entry(3, "Standby"),
	entry(4, "Terminated"), entry(5, "Waiting"), entry(6, "Transition"), entry(7, "DeferredReady"),
	entry(8, "GateWait"), entry(9, "WaitingForProcessInSwap"),
)

// processorModes are the KPROCESSOR_MODE values of a wait mode.
var processorModes = values("ProcessorMode", entry(0, "KernelMode"), entry(1, "UserMode"))

// readyFlags are the bits of ReadyThread's Flag byte.
var readyFlags = bits("ReadyThreadFlags",
	entry(0x1, "ExecutingDpc"), entry(0x2, "KernelStackNotResident"),
	entry(0x4, "ProcessOutOfMemory"), entry(0x8, "DirectSwitchAttempt"),
)

func init() {
	later(func() {
		const g = groupThread
		ids := func() []payload.Field { return fields(u32("ProcessID"), u32("ThreadID")) }
		stacks := func() []payload.Field {
			return fields(ptr("StackBase"), ptr("StackLimit"), ptr("UserStackBase"), ptr("UserStackLimit"),
				ptr("StartAddr"), ptr("Win32StartAddr"))
		}
		v1 := append(append(ids(), stacks()...), i8("WaitMode"))
		// Thread_V1_TypeGroup2 (8 bytes) and TypeGroup1 share DCEnd: the
		// sources disagree, so the 8-byte form is TypeGroup1 cut after the ids.
		v1DCEnd := append(append(ids(), optional(ptr("StackBase"))), v1[3:]...)
		v2 := append(append(ids(), stacks()...), ptr("TebBase"), u32("SubProcessTag"))
		v3 := append(append(v2[:len(v2):len(v2)], u8("BasePriority"), u8("PagePriority"), u8("IoPriority"),
			u8("ThreadFlags")), optional(wstr("ThreadName")))
		v4 := append(v3[:len(v3)-1:len(v3)-1], wstr("ThreadName"))
		cswitch := func(b10, b11, b13 payload.Field) []payload.Field {
			return fields(u32("NewThreadID"), u32("OldThreadID"), i8("NewThreadPriority"), i8("OldThreadPriority"),
				b10, b11, mapped(i8("OldThreadWaitReason"), waitReasons), b13,
				mapped(i8("OldThreadState"), threadStates), i8("OldThreadWaitIdealProcessor"))
		}
		waitMode := mapped(i8("OldThreadWaitMode"), processorModes)
		cswitch1 := cswitch(i8("NewThreadQuantum"), i8("OldThreadQuantum"), waitMode)
		cswitch2 := append(cswitch(u8("PreviousCState"), i8("SpareByte"), waitMode), u32("NewThreadWaitTime"), u32("Reserved"))
		cswitch3 := append(cswitch(u8("PreviousCState"), i8("SpareByte"), i8("ThreadFlags")), u32("NewThreadWaitTime"), u32("Reserved"))
		worker := fields(u32("ThreadID"), u64("StartTime"), ptr("ThreadRoutine"))
		register(
			class{name: "Thread_V0_TypeGroup1", group: g, version: 0, opcodes: []uint8{1, 2, 3, 4}, fields: fields(
				u32("ThreadID"), u32("ProcessID")), computed: threadParents},
			class{name: "Thread_V1_TypeGroup1", group: g, version: 1, opcodes: []uint8{1, 3}, fields: v1, computed: threadParents},
			class{name: "Thread_V1_TypeGroup1", group: g, version: 1, opcodes: []uint8{opThreadDCEnd}, fields: v1DCEnd, computed: threadParents},
			class{name: "Thread_V1_TypeGroup2", group: g, version: 1, opcodes: []uint8{opThreadEnd}, fields: ids(), computed: threadParents},
			class{name: "CSwitch_V1", group: g, version: 1, opcodes: []uint8{36}, fields: cswitch1},
			class{name: "WorkerThread_V1", group: g, version: 1, opcodes: []uint8{57}, fields: worker},

			class{name: "Thread_V2_TypeGroup1", group: g, version: 2, opcodes: []uint8{1, 2, 3, 4}, fields: v2, computed: threadParents},
			class{name: "ThreadSetName", group: g, version: 2, opcodes: []uint8{72}, fields: fields(
				u32("ProcessID"), u32("ThreadID"), wstr("ThreadName"))},
			class{name: "CSwitch_V2", group: g, version: 2, opcodes: []uint8{36}, fields: cswitch2},
			class{name: "CompCS", group: g, version: 2, opcodes: []uint8{37}, fields: fields()},
			class{name: "SpinLock", group: g, version: 2, opcodes: []uint8{41}, fields: fields(
				ptr("SpinLockAddress"), ptr("CallerAddress"), u64("AcquireTime"), u64("ReleaseTime"),
				u32("WaitTimeInCycles"), u32("SpinCount"), u32("ThreadID"), u32("InterruptCount"),
				u8("Irql"), u8("AcquireDepth"), hex(u8("Flag")), fixedBytes("Reserved", 5))},
			class{name: "ReadyThread", group: g, version: 2, opcodes: []uint8{50}, fields: fields(
				u32("ThreadID"), i8("AdjustReason"), i8("AdjustIncrement"), mapped(i8("Flag"), readyFlags), i8("Reserved"))},
			class{name: "ThreadAffinity", group: g, version: 2, opcodes: []uint8{53}, fields: fields(
				ptr("Affinity"), u32("ThreadID"), u16("Group"), u16("Reserved"))},
			class{name: "WorkerThread", group: g, version: 2, opcodes: []uint8{57}, fields: worker},
			class{name: "AntiStarvationBoost", group: g, version: 2, opcodes: []uint8{60}, fields: fields(
				u32("ThreadID"), u16("ProcessorIndex"), u8("Priority"), u8("Reserved"))},
			class{name: "ThreadMigration", group: g, version: 2, opcodes: []uint8{61}, fields: fields(
				u32("ThreadID"), u16("SourceProcessorIndex"), u16("TargetProcessorIndex"), u8("Priority"),
				boolean("IdealProcessorAdjust"), u16("OldIdealProcessorIndex"))},
			class{name: "KernelQueueEnqueue", group: g, version: 2, opcodes: []uint8{62}, fields: fields(
				ptr("Entry"), u32("ThreadID"))},
			class{name: "KernelQueueDequeue", group: g, version: 2, opcodes: []uint8{63}, fields: fields(
				u32("ThreadID"), u32("EntryCount"), counted(ptr("Entries"), "EntryCount"))},
			class{name: "WorkerThread_StartStop_V2", group: g, version: 2, opcodes: []uint8{64, 65}, fields: fields(
				ptr("CallbackRoutine"))},
			class{name: "AutoBoostSetFloor", group: g, version: 2, opcodes: []uint8{66}, fields: fields(
				ptr("Lock"), u32("ThreadID"), u8("NewCpuPriorityFloor"), u8("OldCpuPriority"), u8("IoPriorities"),
				hex(u8("BoostFlags")))},
			class{name: "AutoBoostClearFloor", group: g, version: 2, opcodes: []uint8{67}, fields: fields(
				ptr("LockAddress"), u32("ThreadID"), hex(u32("BoostBitmap")))},
			class{name: "AutoBoostEntryExhaustion", group: g, version: 2, opcodes: []uint8{68}, fields: fields(
				ptr("LockAddress"), u32("ThreadID"))},
			class{name: "SubProcessTagChanged", group: g, version: 2, opcodes: []uint8{69}, fields: fields(
				u32("OldTag"), u32("NewTag"))},

			// v3 adds the priorities; TraceEvent reads a ThreadName after them
			// when the payload has one, which Windows 10 writes.
			class{name: "Thread_V3_TypeGroup1", group: g, version: 3, opcodes: []uint8{1, 2, 3, 4}, fields: v3, computed: threadNameParents},
			class{name: "ThreadPriority", group: g, version: 3, opcodes: []uint8{48, 49, 51, 52}, fields: fields(
				u32("ThreadID"), u8("OldPriority"), u8("NewPriority"), u16("Reserved"))},
			class{name: "CSwitch_V3", group: g, version: 3, opcodes: []uint8{36}, fields: cswitch3},
			class{name: "Thread_TypeGroup1", group: g, version: 4, opcodes: []uint8{1, 2, 3, 4}, fields: v4, computed: threadParents},
			class{name: "CSwitch_V4", group: g, version: 4, opcodes: []uint8{36}, fields: cswitch3},
		)
	})
}

// threadNameIndex is the index of ThreadName in the v3 and v4 layouts.
const threadNameIndex = 14

// threadNameField stands for the ThreadName a v3 payload ends without.
var threadNameField = payload.NewField(payload.Field{Name: "ThreadName", InType: payload.InUnicodeString})

// threadNameParents is threadParents for v3, whose payload may end before
// ThreadName: TraceEvent then shows it empty, and so do we, so that every
// v3 and v4 thread event has the same fields.
func threadNameParents(r *record.Record, vals []payload.Value) []payload.Value {
	if len(vals) == threadNameIndex {
		vals = append(vals, payload.NewString(threadNameField, nil))
	}
	return threadParents(r, vals)
}

// threadParents appends ParentThreadID and ParentProcessID as TraceEvent
// shows them: Thread/Start is logged by the creating thread, so the
// record header names the parent; for the other events, and for records
// without a thread and process in their header, both are -1.
func threadParents(r *record.Record, vals []payload.Value) []payload.Value {
	tid, pid := int64(-1), int64(-1)
	if r.EventDescriptor.Opcode == opThreadStart && r.HasThreadProcess {
		tid, pid = int64(r.ThreadId), int64(r.ProcessId)
	}
	return append(vals, payload.NewInt(parentThreadField, tid), payload.NewInt(parentProcessField, pid))
}
