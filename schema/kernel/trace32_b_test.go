package kernel_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema/kernel"
)

// TestGroups32BitTrace reads a 32-bit session written by etltest, whose
// clock runs at the 3.579545 MHz of the ACPI timer, and decodes a disk
// read, a file name, a TCP receive and the CPU configuration with 4-byte
// pointers; the read's ElapsedTimeMSec converts its ticks with that clock.
func TestGroups32BitTrace(t *testing.T) {
	s := etltest.DefaultSession()
	s.Bits32 = true
	s.PerfFreq = 3_579_545
	at := s.HeaderTimeStamp
	out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.CPU(0).Add(
			&etltest.PerfInfo{Bits32: true, Version: 3, HookId: 0x010A, TimeStamp: at + 10,
				Payload: newPB(4).u32(0).u32(0x60043).u32(4096).u32(0).u64(1 << 33).ptr(0x8A0028E0).ptr(0x82A1DC60).
					u64(3_579_545).u32(44).b},
			&etltest.PerfInfo{Bits32: true, Version: 2, HookId: 0x0424, TimeStamp: at + 20,
				Payload: newPB(4).ptr(0x8A0028E0).w(`\Device\HarddiskVolume1\pagefile.sys`).b},
			&etltest.PerfInfo{Bits32: true, Version: 2, HookId: 0x060B, TimeStamp: at + 30,
				Payload: newPB(4).u32(1234).u32(512).ip4(192, 168, 1, 10).ip4(192, 168, 1, 20).be16(443).be16(50000).
					u32(8).ptr(0x85001000).b},
			&etltest.System{Bits32: true, Version: 3, HookId: 0x0B0A, TimeStamp: at + 40, ProcessId: 4, ThreadId: 8,
				Payload: newPB(4).u32(1000).u32(1).u32(512).u32(4096).u32(65536).wn("OLDBOX", 256).wn("WORKGROUP", 134).
					ptr(0).ptr(0x7FFEFFFF).u16(0).u16(6).u16(0x1706).u8(1).u8(1).u32(0).b},
		)
		return nil
	})
	require.NoError(t, err)
	rd, err := etl.NewReader(bytes.NewReader(out), int64(len(out)))
	require.NoError(t, err)
	got := map[string]string{}
	var vals []payload.Value
	for r, err := range rd.Events() {
		require.NoError(t, err)
		g, ok := kernel.Group(r)
		if !ok || g == 0 {
			continue
		}
		require.Equal(t, 4, r.PointerSize())
		e, exact, ok := kernel.LookupRecord(r)
		require.True(t, ok)
		assert.True(t, exact, e.Name)
		vals, err = e.Payload.Decode(r.UserData, r.PointerSize(), vals[:0])
		require.NoError(t, err, e.Name)
		if e.Computed != nil {
			vals = e.Computed(r, vals)
		}
		got[e.Name] = string(payload.AppendTextFields(nil, vals, " "))
	}
	assert.Equal(t, map[string]string{
		"DiskIO/Read": "DiskNumber=0 IrpFlags=Nocache, MountCompletion, SynchronousPagingIo TransferSize=4096 Reserved=0 " +
			"ByteOffset=8589934592 FileKey=0x8A0028E0 Irp=0x82A1DC60 HighResResponseTime=3579545 IssuingThreadId=44 " +
			"Priority=Normal ElapsedTimeMSec=1000",
		"FileIO/FileRundown": `FileObject=0x8A0028E0 FileName=\Device\HarddiskVolume1\pagefile.sys`,
		"TcpIp/Recv":         "PID=1234 size=512 daddr=192.168.1.10 saddr=192.168.1.20 dport=443 sport=50000 seqnum=8 connid=0x85001000",
		"SystemConfig/CPU": "MHz=1000 NumberOfProcessors=1 MemSize=512 PageSize=4096 AllocationGranularity=65536 " +
			"ComputerName=OLDBOX DomainName=WORKGROUP HyperThreadingFlag=0x0 HighestUserAddress=0x7FFEFFFF " +
			"ProcessorArchitecture=0 ProcessorLevel=6 ProcessorRevision=5894 PaeEnabled=1 NxEnabled=1 MemorySpeed=0",
	}, got)
}
