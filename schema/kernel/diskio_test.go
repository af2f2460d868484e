package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema/kernel"
)

// TestDiskIoFields decodes a payload of every DiskIo class at both pointer
// sizes. The values of the v3 Read are those of a read in the merged .NET
// sample (TraceEvent: IrpFlags=Nocache, MountComple…; Priority=Normal;
// ElapsedTimeMSec=25.821).
func TestDiskIoFields(t *testing.T) {
	const (
		irp  = 0xFFFFFA8302A1DC60
		file = 0xFFFFF8A0028E0140
	)
	rw := func(ps int, v uint8) []byte {
		p := newPB(ps).u32(1).u32(0x60043).u32(16384)
		if v == 1 {
			p.u32(7) // ResponseTime
		} else {
			p.u32(0) // Reserved
		}
		p.u64(849788928).ptr(file)
		if v >= 2 {
			p.ptr(irp)
		}
		if v >= 1 {
			p.u64(258208)
		}
		if v >= 3 {
			p.u32(44)
		}
		return p.b
	}
	const (
		flags = "IrpFlags=Nocache, MountCompletion, SynchronousPagingIo"
		rw64  = "DiskNumber=1 " + flags + " TransferSize=16384 Reserved=0 ByteOffset=849788928 FileKey=0xFFFFF8A0028E0140 "
		rw32  = "DiskNumber=1 " + flags + " TransferSize=16384 Reserved=0 ByteOffset=849788928 FileKey=0x28E0140 "
	)
	checkFields(t, []fieldCase{
		{hook: 0x010A, version: 3, ps: 8, data: rw(8, 3), event: "DiskIO/Read",
			want: rw64 + "Irp=0xFFFFFA8302A1DC60 HighResResponseTime=258208 IssuingThreadId=44 Priority=Normal ElapsedTimeMSec=25.8208"},
		{hook: 0x010B, version: 3, ps: 4, data: rw(4, 3), event: "DiskIO/Write",
			want: rw32 + "Irp=0x2A1DC60 HighResResponseTime=258208 IssuingThreadId=44 Priority=Normal ElapsedTimeMSec=25.8208"},
		{hook: 0x0137, version: 3, ps: 8, data: rw(8, 3), event: "DiskIO/OpticalRead",
			want: rw64 + "Irp=0xFFFFFA8302A1DC60 HighResResponseTime=258208 IssuingThreadId=44 Priority=Normal ElapsedTimeMSec=25.8208"},
		{hook: 0x010A, version: 2, ps: 8, data: rw(8, 2), event: "DiskIO/Read",
			want: rw64 + "Irp=0xFFFFFA8302A1DC60 HighResResponseTime=258208 Priority=Normal ElapsedTimeMSec=25.8208"},
		{hook: 0x010B, version: 2, ps: 4, data: rw(4, 2), event: "DiskIO/Write",
			want: rw32 + "Irp=0x2A1DC60 HighResResponseTime=258208 Priority=Normal ElapsedTimeMSec=25.8208"},
		{hook: 0x010A, version: 1, ps: 4, data: rw(4, 1), event: "DiskIO/Read",
			want: "DiskNumber=1 " + flags + " TransferSize=16384 ResponseTime=7 ByteOffset=849788928 FileKey=0x28E0140 " +
				"HighResResponseTime=258208 Priority=Normal ElapsedTimeMSec=25.8208"},
		{hook: 0x010B, version: 0, ps: 8, data: rw(8, 0), event: "DiskIO/Write",
			want: rw64[:len(rw64)-1] + " Priority=Normal"},

		// Without a priority, and with flags of their own.
		{hook: 0x010E, version: 3, ps: 8, data: newPB(8).u32(2).u32(0x400).u64(786839).ptr(irp).u32(12).b,
			event: "DiskIO/FlushBuffers",
			want:  "DiskNumber=2 IrpFlags=CloseOperation HighResResponseTime=786839 Irp=0xFFFFFA8302A1DC60 IssuingThreadId=12 Priority=0 ElapsedTimeMSec=78.6839"},
		{hook: 0x0139, version: 3, ps: 4, data: newPB(4).u32(2).u32(0x20000).u64(10).ptr(irp).u32(12).b,
			event: "DiskIO/OpticalFlushBuffers",
			want:  "DiskNumber=2 IrpFlags=None HighResResponseTime=10 Irp=0x2A1DC60 IssuingThreadId=12 Priority=Verylow ElapsedTimeMSec=0.001"},
		{hook: 0x010E, version: 2, ps: 4, data: newPB(4).u32(0).u32(0x80_0000).u64(5).ptr(irp).b,
			event: "DiskIO/FlushBuffers",
			want:  "DiskNumber=0 IrpFlags=8388608 HighResResponseTime=5 Irp=0x2A1DC60 Priority=0 ElapsedTimeMSec=0.0005"},

		{hook: 0x010C, version: 3, ps: 8, data: newPB(8).ptr(irp).u32(44).b, event: "DiskIO/ReadInit",
			want: "Irp=0xFFFFFA8302A1DC60 IssuingThreadId=44"},
		{hook: 0x013C, version: 3, ps: 4, data: newPB(4).ptr(irp).u32(44).b, event: "DiskIO/OpticalFlushInit",
			want: "Irp=0x2A1DC60 IssuingThreadId=44"},
		{hook: 0x010D, version: 2, ps: 4, data: newPB(4).ptr(irp).b, event: "DiskIO/WriteInit", want: "Irp=0x2A1DC60"},

		// Driver call tracing: v1 and v2 order the call's fields
		// differently; v3 records fall back to v2.
		{hook: 0x0122, version: 1, ps: 8, data: newPB(8).u32(9).ptr(0xFFFFF80001234560).ptr(irp).u32(3).u32(1).ptr(file).b,
			event: "DiskIO/DrvMjFnCall",
			want: "UniqMatchId=9 RoutineAddr=0xFFFFF80001234560 Irp=0xFFFFFA8302A1DC60 MajorFunction=3 MinorFunction=1 " +
				"FileObject=0xFFFFF8A0028E0140"},
		{hook: 0x0122, version: 2, ps: 4, data: newPB(4).u32(3).u32(1).ptr(0x81234560).ptr(file).ptr(irp).u32(9).b,
			event: "DiskIO/DrvMjFnCall",
			want:  "MajorFunction=3 MinorFunction=1 RoutineAddr=0x81234560 FileObject=0x28E0140 Irp=0x2A1DC60 UniqMatchId=9"},
		{hook: 0x0122, version: 3, ps: 8, data: newPB(8).u32(3).u32(1).ptr(0x81234560).ptr(file).ptr(irp).u32(9).b,
			event: "DiskIO/DrvMjFnCall",
			want:  "MajorFunction=3 MinorFunction=1 RoutineAddr=0x81234560 FileObject=0xFFFFF8A0028E0140 Irp=0xFFFFFA8302A1DC60 UniqMatchId=9"},
		{hook: 0x0123, version: 1, ps: 4, data: newPB(4).u32(9).ptr(irp).b, event: "DiskIO/DrvMjFnRet",
			want: "UniqMatchId=9 Irp=0x2A1DC60"},
		{hook: 0x0123, version: 2, ps: 8, data: newPB(8).ptr(irp).u32(9).b, event: "DiskIO/DrvMjFnRet",
			want: "Irp=0xFFFFFA8302A1DC60 UniqMatchId=9"},
		{hook: 0x0125, version: 2, ps: 4, data: newPB(4).ptr(0x81234560).ptr(irp).u32(9).b, event: "DiskIO/DrvComplRout",
			want: "Routine=0x81234560 IrpPtr=0x2A1DC60 UniqMatchId=9"},
		{hook: 0x0134, version: 1, ps: 8, data: newPB(8).ptr(0x81234560).ptr(irp).u32(9).b, event: "DiskIO/DrvComplReq",
			want: "RoutineAddr=0x81234560 Irp=0xFFFFFA8302A1DC60 UniqMatchId=9"},
		{hook: 0x0134, version: 2, ps: 4, data: newPB(4).ptr(0x81234560).ptr(irp).u32(9).b, event: "DiskIO/DrvComplReq",
			want: "RoutineAddr=0x81234560 Irp=0x2A1DC60 UniqMatchId=9"},
		{hook: 0x0135, version: 1, ps: 4, data: newPB(4).ptr(irp).u32(9).b, event: "DiskIO/DrvComplReqRet",
			want: "Irp=0x2A1DC60 UniqMatchId=9"},
		{hook: 0x0135, version: 2, ps: 8, data: newPB(8).ptr(irp).u32(9).b, event: "DiskIO/DrvComplReqRet",
			want: "Irp=0xFFFFFA8302A1DC60 UniqMatchId=9"},
	})
}

// TestDiskIoAllocs decodes a disk read and works out its computed fields
// without allocating once the value slice has grown.
func TestDiskIoAllocs(t *testing.T) {
	data := newPB(8).u32(1).u32(0x60043).u32(16384).u32(0).u64(849788928).ptr(1).ptr(2).u64(258208).u32(44).b
	r := kernelRecordV(t, 0x010A, 3, 8, 0, data)
	e, _, ok := kernel.LookupRecord(r)
	require.True(t, ok)
	var vals []payload.Value
	run := func() {
		vals, _ = e.Payload.Decode(r.UserData, r.PointerSize(), vals[:0])
		vals = e.Computed(r, vals)
	}
	run()
	assert.Len(t, vals, 11, "9 fields, Priority and ElapsedTimeMSec")
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, run))
}
