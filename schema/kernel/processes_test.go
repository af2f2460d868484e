package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/kernel"
)

// kernelRec is a SYSTEM64 record of the given group, opcode and version,
// whose header names the thread and process that logged it.
func kernelRec(group, op uint8, version uint16, tid, pid uint32, payload []byte) *record.Record {
	return &record.Record{
		HeaderType: header.TypeSystem64, HookId: uint16(group)<<8 | uint16(op), ClassVersion: version,
		ProviderId:      record.KernelGroupGUID(group, op),
		EventDescriptor: header.EventDescriptor{Opcode: op, Version: uint8(version)},
		ThreadId:        tid, ProcessId: pid, HasThreadProcess: true, UserData: payload,
	}
}

func processV4(pid uint32, image string) []byte {
	return new(etltest.Payload).Ptr(8, 0xFFFF_A000_0000_0000).U32(pid).U32(4).U32(1).I32(259).Ptr(8, 0x1AB000).
		U32(0).U32(0).AnsiZ(image).UTF16Z(`C:\x.exe`).UTF16Z("").UTF16Z("").Bytes()
}

func threadV4(pid, tid uint32, name string) []byte {
	p := new(etltest.Payload).U32(pid).U32(tid)
	for range 7 {
		p.Ptr(8, 0x1000)
	}
	return p.U32(0).U8(8).U8(5).U8(2).U8(0).UTF16Z(name).Bytes()
}

func threadV2(pid, tid uint32) []byte {
	p := new(etltest.Payload).U32(pid).U32(tid)
	for range 7 {
		p.Ptr(8, 0x1000)
	}
	return p.U32(0).Bytes()
}

func TestProcessesLearnsFromPayloadNotHeader(t *testing.T) {
	const gP, gT = 0x03, 0x05
	var p kernel.Processes
	// A Start's header names the creating thread (tid 8 of process 4).
	p.Learn(kernelRec(gP, 1, 4, 8, 4, processV4(1234, "app.exe")))
	p.Learn(kernelRec(gT, 1, 4, 8, 4, threadV4(1234, 5678, "")))
	p.Learn(kernelRec(gT, 3, 2, 8, 4, threadV2(1234, 5680)))
	pid, ok := p.ProcessOf(5678)
	require.True(t, ok)
	assert.EqualValues(t, 1234, pid)
	pid, ok = p.ProcessOf(5680)
	require.True(t, ok)
	assert.EqualValues(t, 1234, pid)
	assert.Equal(t, "app.exe", p.ProcessName(1234))
	_, ok = p.ProcessOf(8)
	assert.False(t, ok, "the header's thread is not learned from a Start")

	// SetName names the thread; a rundown without a name keeps it.
	p.Learn(kernelRec(gT, 72, 2, 5678, 1234, new(etltest.Payload).U32(1234).U32(5678).UTF16Z("worker").Bytes()))
	assert.Equal(t, "worker", p.ThreadName(5678))
	p.Learn(kernelRec(gT, 4, 4, 5678, 1234, threadV4(1234, 5678, "")))
	assert.Equal(t, "worker", p.ThreadName(5678))

	// An ended thread is kept until its id is reused.
	p.Learn(kernelRec(gT, 2, 4, 5678, 1234, threadV4(1234, 5678, "")))
	pid, ok = p.ProcessOf(5678)
	require.True(t, ok)
	assert.EqualValues(t, 1234, pid)
	p.Learn(kernelRec(gP, 1, 4, 8, 4, processV4(999, "other.exe")))
	p.Learn(kernelRec(gT, 1, 4, 8, 4, threadV4(999, 5678, "")))
	pid, _ = p.ProcessOf(5678)
	assert.EqualValues(t, 999, pid)
	assert.Equal(t, "", p.ThreadName(5678), "a new thread does not inherit the old one's name")

	// The idle threads are process 0's.
	pid, ok = p.ProcessOf(0)
	assert.True(t, ok)
	assert.EqualValues(t, 0, pid)
}

func TestProcessesMemoryBoundedByLiveThreads(t *testing.T) {
	const gT = 0x05
	var p kernel.Processes
	for i := range uint32(100_000) {
		tid := 4 * (i + 1)
		p.Learn(kernelRec(gT, 1, 2, 8, 4, threadV2(100, tid)))
		p.Learn(kernelRec(gT, 2, 2, tid, 100, threadV2(100, tid)))
	}
	threads, _ := p.Len()
	assert.LessOrEqual(t, threads, 2100, "ended threads are dropped once they outnumber the live ones")
}

// TestProcessesSample checks the threads of the merged .NET sample against
// the processes its StackWalk records name for them (StackProcess is the
// process of StackThread at the time of the event).
func TestProcessesSample(t *testing.T) {
	f, err := etl.Open(samples.Path(t, "net452-x64-merged-compressed.etl"))
	require.NoError(t, err)
	defer f.Close()
	var p kernel.Processes
	checked, unknown := 0, 0
	for r, err := range f.Events() {
		require.NoError(t, err)
		p.Learn(r)
		if r.HookId>>8 != 0x18 || !r.HeaderType.IsKernel() || r.EventDescriptor.Opcode != 37 && r.EventDescriptor.Opcode != 38 {
			continue
		}
		// StackKeyKernel and StackKeyUser: EventTimeStamp, StackProcess, StackThread, key.
		pid := le32(r.UserData[8:])
		tid := le32(r.UserData[12:])
		got, ok := p.ProcessOf(tid)
		if !ok {
			unknown++
			continue
		}
		require.Equal(t, pid, got, "thread %d", tid)
		checked++
	}
	assert.Greater(t, checked, 9000)
	assert.Zero(t, unknown)
	assert.Equal(t, "System", p.ProcessName(4))
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
