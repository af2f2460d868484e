package kernel

import (
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// PerfInfo group (0x0F), kernel-events.md §8: profile samples, system
// calls, interrupts and DPCs, mostly with PERFINFO headers (no process or
// thread in the header).

// sampleFlagsIndex is the index of Flags in a v2 profile sample: the byte
// after Count, which the MOF folds into Reserved and TraceEvent reads as
// bit 0 executing a DPC, bit 1 executing an ISR, bits 3-7 the thread's
// priority. The byte after it is the thread's rank.
const sampleFlagsIndex = 3

// Bits of a profile sample's Flags.
const (
	sampleExecutingDPC  = 0x1
	sampleExecutingISR  = 0x2
	samplePriorityShift = 3
)

// interruptInitialTime is the index of InitialTime in the ISR and DPC
// classes.
const interruptInitialTime = 0

func init() {
	later(func() {
		const g = 0x0F
		interval := fields(u32("SampleSource"), u32("NewInterval"), u32("OldInterval"))
		spin := fields(u32("SpinLockSpinThreshold"), u32("SpinLockContentionSampleRate"), u32("SpinLockAcquireSampleRate"))
		isr := fields(wmiTime("InitialTime"), ptr("Routine"), u8("ReturnValue"), u16("Vector"), u8("Reserved"))
		dpc := fields(wmiTime("InitialTime"), ptr("Routine"))
		elapsed := withElapsed(interruptInitialTime, "InitialTime")
		timer2 := fields(ptr("Timer"), ptr("DisableCallback"), ptr("DisableContext"))
		registers := fields(u64("Rip"), u64("Rax"), u64("Rcx"), u64("Rdx"), u64("Rbx"), u64("Rsp"), u64("Rbp"), u64("Rsi"), u64("Rdi"))
		for _, r := range []string{"R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"} {
			registers = append(registers, u64(r))
		}
		arm := fields(hex(u32("Cpsr")))
		for _, r := range []string{"X0", "X1", "X2", "X3", "X4", "X5", "X6", "X7", "X8", "X9", "X10", "X11", "X12", "X13",
			"X14", "X15", "X16", "X17", "X18", "X19", "X20", "X21", "X22", "X23", "X24", "X25", "X26", "X27", "X28",
			"Fp", "Lr", "Sp", "Pc"} {
			arm = append(arm, u64(r))
		}
		register(
			// An ANSI message and one UTF-16 unit of padding, which the
			// samples' marks end without.
			class{name: "Mark_V0", group: g, version: 0, opcodes: []uint8{34}, fields: fields(
				astr("Message"), optional(u16("Padding")))},

			class{name: "ISR_V1", group: g, version: 1, opcodes: []uint8{67, 95}, computed: elapsed, fields: fields(
				wmiTime("InitialTime"), ptr("Routine"), u32("ReturnValue"))},
			class{name: "DPC_V1", group: g, version: 1, opcodes: []uint8{68, 69}, computed: elapsed, fields: dpc},
			class{name: "SampledProfile_V1", group: g, version: 1, opcodes: []uint8{46}, computed: sampleInfo, fields: fields(
				ptr("InstructionPointer"), u32("ThreadID"), u16("Count"))},

			class{name: "SampledProfile", group: g, version: 2, opcodes: []uint8{46}, computed: sampleInfo, fields: fields(
				ptr("InstructionPointer"), u32("ThreadID"), u16("Count"), hex(u8("Flags")), u8("Rank"))},
			class{name: "PmcCounterProfile", group: g, version: 2, opcodes: []uint8{47}, fields: fields(
				ptr("InstructionPointer"), u32("ThreadID"), u16("ProfileSource"), u16("Reserved"))},
			class{name: "SampledProfileInterval_V2", group: g, version: 2, opcodes: []uint8{72, 73, 74}, fields: interval},
			class{name: "PmcCounterConfig_V2", group: g, version: 2, opcodes: []uint8{48}, fields: fields(
				u32("CounterCount"), counted(wstr("CounterName"), "CounterCount"))},
			class{name: "PmcCounterCorruption_V2", group: g, version: 2, opcodes: []uint8{49}, fields: fields(
				u32("ProcessorNumber"), u32("CounterCount"), counted(payload.Field{Name: "CounterStatus", InType: payload.InStruct,
					Members: fields(u32("ProfileSource"), u64("LastKnownGoodTimestamp"))}, "CounterCount"))},
			class{name: "SpinLockConfig_V2", group: g, version: 2, opcodes: []uint8{75, 76}, fields: spin},
			class{name: "SysCallEnter", group: g, version: 2, opcodes: []uint8{51}, fields: fields(ptr("SysCallAddress"))},
			class{name: "SysCallExit", group: g, version: 2, opcodes: []uint8{52}, fields: fields(
				payload.Field{Name: "SysCallNtStatus", InType: payload.InUInt32, OutType: payload.OutNTStatus})},
			class{name: "ISR", group: g, version: 2, opcodes: []uint8{67, 95}, computed: elapsed, fields: isr},
			class{name: "ISR_MSI", group: g, version: 2, opcodes: []uint8{50}, computed: elapsed, fields: append(
				isr[:len(isr):len(isr)], u32("MessageNumber"))},
			class{name: "ISR_Unexpected", group: g, version: 2, opcodes: []uint8{92}, fields: fields(u16("Vector"))},
			class{name: "DPC", group: g, version: 2, opcodes: []uint8{66, 68, 69, 70}, computed: elapsed, fields: dpc},
			class{name: "WDF_DPC", group: g, version: 2, opcodes: []uint8{98}, fields: fields(ptr("Routine"))},
			class{name: "WDF_ISR", group: g, version: 2, opcodes: []uint8{96, 97}, fields: fields(ptr("Routine"))},
			class{name: "WDF_WorkItem", group: g, version: 2, opcodes: []uint8{103}, fields: fields(ptr("Routine"))},
			class{name: "DebuggerEnabled", group: g, version: 2, opcodes: []uint8{58}, fields: fields()},
			class{name: "IoTimerEvent", group: g, version: 2, opcodes: []uint8{93, 94}, fields: fields(
				ptr("DeviceObject"), ptr("TimerRoutine"))},
			class{name: "SetOrExpireKTimer2", group: g, version: 2, opcodes: []uint8{104, 105}, fields: fields(
				u64("DueTime"), u64("MaximumDueTime"), u64("Period"), ptr("Timer"), ptr("Callback"),
				ptr("CallbackContext"), hex(u8("TimerFlags")))},
			class{name: "CancelKTimer2", group: g, version: 2, opcodes: []uint8{106}, fields: fields(ptr("Timer"))},
			class{name: "DisableKTimer2", group: g, version: 2, opcodes: []uint8{107}, fields: append(
				timer2[:len(timer2):len(timer2)], hex(u8("TimerFlags")))},
			class{name: "FinalizeKTimer2", group: g, version: 2, opcodes: []uint8{108}, fields: timer2},
			class{name: "HV_Hypercall", group: g, version: 2, opcodes: []uint8{114}, fields: fields(
				hex(u32("CallCode")), u8("IsFast"), u8("IsNested"))},
			class{name: "ContextRegistersAMD64", group: g, version: 2, opcodes: []uint8{122}, fields: registers},
			class{name: "ContextRegistersARM64", group: g, version: 2, opcodes: []uint8{123}, fields: arm},

			class{name: "SampledProfileInterval_V3", group: g, version: 3, opcodes: []uint8{73, 74}, fields: append(
				interval[:3:3], wstr("SourceName"))},
			class{name: "SpinLockConfig_V3", group: g, version: 3, opcodes: []uint8{75, 76}, fields: append(
				spin[:3:3], u32("SpinLockHoldThreshold"))},
		)
	})
}

// sampleInfo appends what TraceEvent shows beside a profile sample: the
// processor it was taken on (from the record header), and from the v2
// Flags byte the thread's priority and whether a DPC or an ISR was
// running.
func sampleInfo(r *record.Record, vals []payload.Value) []payload.Value {
	vals = append(vals, payload.NewUint(processorNumberField, uint64(r.ProcessorNumber)))
	f, ok := valueAt(vals, sampleFlagsIndex, "Flags")
	if !ok {
		return vals
	}
	b := f.Uint()
	return append(vals,
		payload.NewUint(priorityField, b>>samplePriorityShift),
		payload.NewBool(executingDPCField, b&sampleExecutingDPC != 0),
		payload.NewBool(executingISRField, b&sampleExecutingISR != 0))
}
