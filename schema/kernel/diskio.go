package kernel

import (
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// DiskIo group (0x01), kernel-events.md §10: disk requests, logged when
// they complete (Read, Write, FlushBuffers) and when they are issued
// (the *Init events), and the driver call tracing of the same group.

const groupDiskIo = 0x01

// irpFlags are the IRP_* bits of wdm.h that a disk request carries. Two
// pairs of them share a bit (IRP_PAGING_IO and IRP_MOUNT_COMPLETION,
// IRP_INPUT_OPERATION and IRP_SYNCHRONOUS_PAGING_IO), and a bit map names
// each bit once: bit 1 takes the name TraceEvent prints for it, bit 6 its
// paging meaning, the one disk requests have. Bits 17–19 are not flags but
// the request's I/O priority (see splitIrpFlags).
var irpFlags = bits("IrpFlags",
	entry(0, "None"),
	entry(0x1, "Nocache"),
	entry(0x2, "MountCompletion"),
	entry(0x4, "SynchronousApi"),
	entry(0x8, "AssociatedIrp"),
	entry(0x10, "BufferedIo"),
	entry(0x20, "DeallocateBuffer"),
	entry(0x40, "SynchronousPagingIo"),
	entry(0x80, "CreateOperation"),
	entry(0x100, "ReadOperation"),
	entry(0x200, "WriteOperation"),
	entry(0x400, "CloseOperation"),
	entry(0x800, "DeferIoCompletion"),
	entry(0x1000, "ObQueryName"),
	entry(0x2000, "HoldDeviceQueue"),
	entry(0x400000, "UmDriverInitiatedIo"),
)

// irpPriorityShift and irpPriorityMask place the I/O priority in IrpFlags:
// the IO_PRIORITY_HINT plus one, 0 when the request has none.
const (
	irpPriorityShift = 17
	irpPriorityMask  = 7 << irpPriorityShift
)

// ioPriority names the priorities IrpFlags holds, spelled as TraceEvent
// prints them (the sample shows 1 as Verylow and 3 as Normal).
var ioPriority = values("IoPriority",
	entry(1, "Verylow"),
	entry(2, "Low"),
	entry(3, "Normal"),
	entry(4, "High"),
	entry(5, "Critical"),
)

// Fields worked out from a disk request: IrpFlags without the priority
// bits, the priority, and the time the request took in milliseconds, from
// its HighResResponseTime, which counts ticks of the session clock.
var (
	irpFlagsField     = mapped(u32("IrpFlags"), irpFlags)
	diskPriorityField = payload.Field{Name: "Priority", InType: payload.InUInt8, Map: ioPriority}
	elapsedMSecField  = payload.Field{Name: "ElapsedTimeMSec", InType: payload.InDouble}
)

// clockMSec converts a span of session-clock ticks to milliseconds, with
// the clock's 100 ns resolution; false when the record has no clock or the
// span does not fit one.
func clockMSec(c *header.Clock, ticks uint64) (float64, bool) {
	if c == nil || ticks > 1<<62 {
		return 0, false
	}
	// FileTime maps Anchor+ticks to StartTime plus the span in 100 ns
	// units, with integer arithmetic for any clock kind.
	ft := c.FileTime(c.Anchor + int64(ticks))
	return float64(ft-c.StartTime) / 1e4, true
}

// diskComputed splits IrpFlags into its flags and Priority, as TraceEvent
// shows them, and appends ElapsedTimeMSec where the class has a
// HighResResponseTime.
func diskComputed(r *record.Record, vals []payload.Value) []payload.Value {
	vals = splitIrpFlags(vals)
	return appendElapsed(r, vals)
}

// splitIrpFlags replaces IrpFlags by its flag bits and appends Priority.
func splitIrpFlags(vals []payload.Value) []payload.Value {
	for i, v := range vals {
		if v.Name() == "IrpFlags" {
			f := v.Uint()
			vals[i] = payload.NewUint(&irpFlagsField, f&^irpPriorityMask)
			return append(vals, payload.NewUint(&diskPriorityField, f&irpPriorityMask>>irpPriorityShift))
		}
	}
	return vals
}

// appendElapsed appends ElapsedTimeMSec from HighResResponseTime.
func appendElapsed(r *record.Record, vals []payload.Value) []payload.Value {
	if v, ok := payload.Lookup(vals, "HighResResponseTime"); ok {
		if ms, ok := clockMSec(r.Clock, v.Uint()); ok {
			vals = append(vals, payload.NewFloat(&elapsedMSecField, ms))
		}
	}
	return vals
}

func init() {
	later(func() {
		const g = groupDiskIo
		flags := func() payload.Field { return mapped(u32("IrpFlags"), irpFlags) }
		// TraceEvent calls the FileObject of a disk request FileKey: it is the
		// key FileIo's Name events give a file name.
		rw := func(reserved string, tail ...payload.Field) []payload.Field {
			return append(fields(u32("DiskNumber"), flags(), u32("TransferSize"), u32(reserved), u64("ByteOffset"),
				ptr("FileKey")), tail...)
		}
		// Of the driver call tracing, the request completion events keep
		// their layout from v1 to v2; each schema gets its own field slice.
		mjReturn := func() []payload.Field { return fields(ptr("Irp"), u32("UniqMatchId")) }
		complReq := func() []payload.Field { return fields(ptr("RoutineAddr"), ptr("Irp"), u32("UniqMatchId")) }
		register(
			class{name: "DiskIo_V0_TypeGroup1", group: g, version: 0, opcodes: []uint8{10, 11}, computed: diskComputed,
				fields: rw("Reserved")},
			class{name: "DiskIo_V1_TypeGroup1", group: g, version: 1, opcodes: []uint8{10, 11}, computed: diskComputed,
				fields: rw("ResponseTime", u64("HighResResponseTime"))},
			class{name: "V1_DriverMajorFunctionCall", group: g, version: 1, opcodes: []uint8{34}, fields: fields(
				u32("UniqMatchId"), ptr("RoutineAddr"), ptr("Irp"), u32("MajorFunction"), u32("MinorFunction"),
				ptr("FileObject"))},
			class{name: "V1_DriverMajorFunctionReturn", group: g, version: 1, opcodes: []uint8{35}, fields: fields(
				u32("UniqMatchId"), ptr("Irp"))},
			class{name: "V1_DriverCompleteRequest", group: g, version: 1, opcodes: []uint8{52}, fields: complReq()},
			class{name: "V1_DriverCompleteRequestReturn", group: g, version: 1, opcodes: []uint8{53}, fields: mjReturn()},

			class{name: "DiskIo_V2_TypeGroup1", group: g, version: 2, opcodes: []uint8{10, 11}, computed: diskComputed,
				fields: rw("Reserved", ptr("Irp"), u64("HighResResponseTime"))},
			class{name: "DiskIo_V2_TypeGroup2", group: g, version: 2, opcodes: []uint8{12, 13, 15}, fields: fields(
				ptr("Irp"))},
			class{name: "DiskIo_V2_TypeGroup3", group: g, version: 2, opcodes: []uint8{14}, computed: diskComputed,
				fields: fields(u32("DiskNumber"), flags(), u64("HighResResponseTime"), ptr("Irp"))},
			class{name: "DriverMajorFunctionCall", group: g, version: 2, opcodes: []uint8{34}, fields: fields(
				u32("MajorFunction"), u32("MinorFunction"), ptr("RoutineAddr"), ptr("FileObject"), ptr("Irp"),
				u32("UniqMatchId"))},
			class{name: "DriverMajorFunctionReturn", group: g, version: 2, opcodes: []uint8{35}, fields: mjReturn()},
			// The notes' MOF names the second field IrpPtr, the class page Irp.
			class{name: "DriverCompletionRoutine", group: g, version: 2, opcodes: []uint8{37}, fields: fields(
				ptr("Routine"), ptr("IrpPtr"), u32("UniqMatchId"))},
			class{name: "DriverCompleteRequest", group: g, version: 2, opcodes: []uint8{52}, fields: complReq()},
			class{name: "DriverCompleteRequestReturn", group: g, version: 2, opcodes: []uint8{53}, fields: mjReturn()},

			// v3 adds the thread that issued the request; the driver events
			// keep their v2 layout.
			class{name: "DiskIo_TypeGroup1", group: g, version: 3, opcodes: []uint8{10, 11, 55, 56}, computed: diskComputed,
				fields: rw("Reserved", ptr("Irp"), u64("HighResResponseTime"), u32("IssuingThreadId"))},
			class{name: "DiskIo_TypeGroup3", group: g, version: 3, opcodes: []uint8{14, 57}, computed: diskComputed,
				fields: fields(u32("DiskNumber"), flags(), u64("HighResResponseTime"), ptr("Irp"), u32("IssuingThreadId"))},
			class{name: "DiskIo_TypeGroup2", group: g, version: 3, opcodes: []uint8{12, 13, 15, 58, 59, 60}, fields: fields(
				ptr("Irp"), u32("IssuingThreadId"))},
		)
	})
}
