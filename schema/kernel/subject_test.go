package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/kernel"
)

// perfInfoRec is kernelRec with a PERFINFO header: no thread or process.
func perfInfoRec(group, op uint8, version uint16, payload []byte) *record.Record {
	r := kernelRec(group, op, version, 0, 0, payload)
	r.HeaderType, r.HasThreadProcess = header.TypePerfInfo64, false
	return r
}

func sampleV2(tid uint32) []byte {
	return new(etltest.Payload).Ptr(8, 0xFFFFF800_00001000).U32(tid).U16(1).U8(0x70).U8(0).Bytes()
}

func stackV2(pid, tid uint32) []byte {
	return new(etltest.Payload).U64(12345).U32(pid).U32(tid).Ptr(8, 0x1000).Ptr(8, 0x2000).Bytes()
}

func TestSubject(t *testing.T) {
	const gP, gT, gPerf, gStack, gTcp, gDisk = 0x03, 0x05, 0x0F, 0x18, 0x06, 0x01
	var p kernel.Processes
	learn := func(r *record.Record) kernel.Subject { p.Learn(r); return p.Subject(r) }
	subj := func(pid, tid uint32, hasPid, hasTid bool) kernel.Subject {
		return kernel.Subject{ProcessID: pid, ThreadID: tid, HasProcess: hasPid, HasThread: hasTid}
	}

	// A rundown puts thread 584 in process 1980.
	learn(kernelRec(gP, 3, 4, 0, 0, processV4(1980, "Test.x64.exe")))
	got := learn(kernelRec(gT, 3, 2, 0, 0, threadV2(1980, 584)))
	assert.Equal(t, subj(1980, 584, true, true), got, "a rundown is its thread's, not its header's")

	// A CPU sample is its thread's, in the thread's process.
	sample := perfInfoRec(gPerf, 46, 2, sampleV2(584))
	got = learn(sample)
	assert.Equal(t, subj(1980, 584, true, true), got)
	assert.True(t, got.Differs(sample))
	assert.Equal(t, "Test.x64.exe", p.ProcessName(got.ProcessID))

	// A stack is the process and thread it names.
	got = learn(perfInfoRec(gStack, 32, 2, stackV2(1980, 600)))
	assert.Equal(t, subj(1980, 600, true, true), got)

	// A thread start is the new thread's, not its creator's.
	got = learn(kernelRec(gT, 1, 2, 8, 4, threadV2(1980, 700)))
	assert.Equal(t, subj(1980, 700, true, true), got)
	got = learn(perfInfoRec(gPerf, 46, 2, sampleV2(700)))
	assert.Equal(t, subj(1980, 700, true, true), got)

	// An image load whose header names its process keeps the header's
	// thread; a network event names its process and no thread.
	img := new(etltest.Payload).Ptr(8, 0x7FF0000).Ptr(8, 0x1000).U32(1980).U32(0).U32(0).
		U8(0).U8(0).U16(0).Ptr(8, 0).U32(0).U32(0).U32(0).U32(0).UTF16Z(`C:\a.dll`).Bytes()
	got = learn(kernelRec(0x14, 10, 3, 584, 1980, img))
	assert.Equal(t, subj(1980, 584, true, true), got)
	assert.False(t, got.Differs(kernelRec(0x14, 10, 3, 584, 1980, img)))
	tcp := new(etltest.Payload).U32(4).U32(84).U32(0x0100007F).U32(0x0100007F).U16(80).U16(5000).
		U32(0).U32(0).Bytes()
	got = learn(perfInfoRec(gTcp, 11, 2, tcp))
	assert.Equal(t, subj(4, 0, true, false), got)

	// A disk read is its issuing thread's.
	read := new(etltest.Payload).U32(0).U32(0).U32(4096).U32(0).U64(0).Ptr(8, 0).Ptr(8, 0).U64(0).U32(584).Bytes()
	got = learn(perfInfoRec(gDisk, 10, 3, read))
	assert.Equal(t, subj(1980, 584, true, true), got)

	// A sample of a thread nothing named has only its thread; a record
	// other than a kernel one is its header's; a header's -1 is no id.
	assert.Equal(t, subj(0, 999, false, true), learn(perfInfoRec(gPerf, 46, 2, sampleV2(999))))
	mf := &record.Record{HeaderType: header.TypeEventHeader64, ProcessId: 12, ThreadId: 13, HasThreadProcess: true}
	assert.Equal(t, subj(12, 13, true, true), learn(mf))
	assert.False(t, learn(mf).Differs(mf))
	classic := &record.Record{HeaderType: header.TypeFull64, ProcessId: 2876, ThreadId: 0xFFFFFFFF, HasThreadProcess: true}
	assert.Equal(t, subj(2876, 0, true, false), learn(classic))
	none := &record.Record{HeaderType: header.TypeFull64, ProcessId: 0xFFFFFFFF, ThreadId: 0xFFFFFFFF, HasThreadProcess: true}
	assert.Equal(t, kernel.Subject{}, learn(none))
	assert.False(t, kernel.Subject{}.Differs(none))
	// A truncated payload names nothing.
	assert.Equal(t, kernel.Subject{}, learn(perfInfoRec(gPerf, 46, 2, sampleV2(584)[:9])))
}

// TestAhead: a thread named only by a later rundown is found through
// Ahead; one whose first event is its Start is not, since what ran under
// its id before was another thread.
func TestAhead(t *testing.T) {
	const gT, gP, gPerf = 0x05, 0x03, 0x0F
	var a kernel.Ahead
	a.Learn(kernelRec(gT, 4, 2, 0, 0, threadV2(1980, 584))) // DCEnd
	a.Learn(kernelRec(gT, 2, 2, 0, 0, threadV2(2000, 584))) // a later thread event: the first wins
	a.Learn(kernelRec(gT, 1, 2, 8, 4, threadV2(3000, 600))) // Start
	a.Learn(kernelRec(gT, 4, 2, 0, 0, threadV2(3000, 600)))
	a.Learn(kernelRec(gP, 4, 4, 0, 0, processV4(1980, "late.exe")))
	a.Learn(kernelRec(gP, 1, 4, 0, 0, processV4(3000, "started.exe")))
	threads, procs := a.Len()
	assert.Equal(t, 1, threads)
	assert.Equal(t, 1, procs)

	p := kernel.Processes{Ahead: &a}
	s := p.Subject(perfInfoRec(gPerf, 46, 2, sampleV2(584)))
	assert.Equal(t, kernel.Subject{ProcessID: 1980, ThreadID: 584, HasProcess: true, HasThread: true}, s)
	assert.Equal(t, "late.exe", p.ProcessName(1980))
	assert.Equal(t, "", p.ProcessName(3000))
	s = p.Subject(perfInfoRec(gPerf, 46, 2, sampleV2(600)))
	assert.False(t, s.HasProcess)
	// What the pass in order has seen wins over Ahead.
	p.Learn(kernelRec(gT, 1, 2, 8, 4, threadV2(42, 584)))
	s = p.Subject(perfInfoRec(gPerf, 46, 2, sampleV2(584)))
	assert.EqualValues(t, 42, s.ProcessID)
}

// FuzzSubject: any kernel header and payload, learned and attributed in
// turn, neither panics nor keeps the payload; a record whose header names
// its process keeps it unless the payload names another.
func FuzzSubject(f *testing.F) {
	f.Add(uint16(0x0F2E), uint16(2), false, sampleV2(584))
	f.Add(uint16(0x1820), uint16(2), false, stackV2(1980, 600))
	f.Add(uint16(0x0501), uint16(2), true, threadV2(1980, 700))
	f.Add(uint16(0x0303), uint16(4), true, processV4(1980, "a.exe"))
	var p kernel.Processes
	var a kernel.Ahead
	p.Ahead = &a
	f.Fuzz(func(t *testing.T, hook, version uint16, ids bool, payload []byte) {
		r := perfInfoRec(uint8(hook>>8), uint8(hook), version, payload)
		if ids {
			r.HeaderType, r.HasThreadProcess, r.ProcessId, r.ThreadId = header.TypeSystem32, true, 77, 78
		}
		a.Learn(r)
		p.Learn(r)
		s := p.Subject(r)
		_ = p.ProcessName(s.ProcessID)
		if ids && s.HasProcess && s.ProcessID != 77 && len(payload) < 4 {
			t.Fatalf("process %d from a %d-byte payload", s.ProcessID, len(payload))
		}
		if !ids && !s.HasProcess && !s.HasThread && s.Differs(r) {
			t.Fatal("an empty subject differs")
		}
	})
}
