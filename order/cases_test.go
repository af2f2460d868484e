package order_test

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/order"
)

// The cases below are those the ProcessTrace documentation names as giving
// events out of order, and the trace layouts that break the per-buffer
// assumptions. Each pins what every mode delivers. Timestamps are written
// relative to the session start: with a 10 MHz QPC clock one tick is one
// FILETIME unit (100 ns).

const (
	second = 10_000_000 // FILETIME units
	hour   = 3600 * second
	// century is about a hundred years, for timestamps forged far away.
	century = 100 * 365 * 24 * hour
)

func cpu(n uint16, seq int64) etltest.Buffer { return etltest.Buffer{CPU: n, SequenceNumber: seq} }

// check runs every read-ahead setting and requires the same output from
// each; it returns what the first gave.
func check(t *testing.T, opts order.Options, srcs ...order.Source) ([]out, order.Stats) {
	t.Helper()
	var first []out
	var stats order.Stats
	for i, rm := range readModes {
		o := rm.opts
		o.Mode, o.Window, o.WindowRecords = opts.Mode, opts.Window, opts.WindowRecords
		got, st := collect(t, o, srcs...)
		data := 0
		for _, ss := range st.Streams {
			if !ss.Header {
				data++
			}
		}
		// Read-ahead on and a merge to run: the merge has a goroutine of
		// its own, and must give what the merge on one goroutine gives.
		want := o.MergeAhead && o.ReadAhead >= 0 && o.DecodeAhead == 0 && runtime.GOMAXPROCS(0) >= 2 && data >= 2 && o.Mode != order.FileOrder
		assert.Equal(t, want, st.Pipelined, rm.name)
		if i == 0 {
			first, stats = got, *st
			continue
		}
		require.Equal(t, len(first), len(got), rm.name)
		for j := range first {
			assert.Equal(t, first[j].tag, got[j].tag, "%s: item %d", rm.name, j)
			assert.Equal(t, first[j].err != nil, got[j].err != nil, "%s: item %d", rm.name, j)
		}
		assert.Equal(t, stats.Inversions, st.Inversions, rm.name)
		assert.Equal(t, stats.BackwardSteps, st.BackwardSteps, rm.name)
		assert.Equal(t, stats.Late, st.Late, rm.name)
	}
	return first, stats
}

// TestClockSetBackwards: with the system-time clock (type 2), setting the
// clock back while collecting makes a stream's timestamps jump back. The
// merge keeps the stream's order, so the records after the jump come out as
// soon as that stream is chosen again, all of them before the other
// streams' records; the jump is one inversion of an hour. Sorted delivers
// them late, at once, since its window had already moved past them.
func TestClockSetBackwards(t *testing.T) {
	s := session()
	s.ClockType = etltest.ClockSystemTime
	s.HeaderTimeStamp = s.StartTime // system-time stamps are FILETIMEs
	S := s.StartTime
	data := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, S), ev(2, S+1*second), ev(3, S+2*second), ev(4, S+2*second-hour), ev(5, S+3*second-hour)}},
		buf{cpu(1, 2), []etltest.Record{ev(11, S+second/2), ev(12, S+3*second/2), ev(13, S+5*second/2), ev(14, S+7*second/2)}},
	)
	src := source(data, s)

	got, st := check(t, order.Options{}, src)
	assert.Equal(t, []uint64{1, 11, 2, 12, 3, 4, 5, 13, 14}, tags(got))
	assert.Equal(t, 1, st.Inversions)
	assert.Equal(t, time.Hour, st.LargestInversion)
	assert.Equal(t, 1, st.BackwardSteps)
	assert.Equal(t, time.Hour, st.LargestBackwardStep)
	require.Len(t, st.Streams, 3)
	assert.Equal(t, 1, st.Streams[1].Inversions, "the jump is in processor 0's stream")
	assert.Equal(t, 0, st.Streams[2].Inversions)

	got, st = check(t, order.Options{Mode: order.Sorted, Window: time.Second}, src)
	assert.Equal(t, []uint64{1, 11, 4, 5, 2, 12, 3, 13, 14}, tags(got))
	assert.Equal(t, 2, st.Late)
	assert.Equal(t, time.Hour-1500*time.Millisecond, st.LargestLateness)
	assert.Equal(t, 2, st.Streams[1].Late)

	// A window wider than the jump puts everything in order.
	got, st = check(t, order.Options{Mode: order.Sorted, Window: 2 * time.Hour}, src)
	assert.Equal(t, []uint64{4, 5, 1, 11, 2, 12, 3, 13, 14}, tags(got))
	assert.Zero(t, st.Late)
}

// TestLowResolutionClock: a coarse clock gives many records on different
// processors the same timestamp. Ties go to the lower processor number, and
// a processor's own records keep their order.
func TestLowResolutionClock(t *testing.T) {
	s := session()
	s.ClockType = etltest.ClockSystemTime
	s.HeaderTimeStamp = s.StartTime
	t0, t1 := s.StartTime+156250, s.StartTime+312500 // 15.625 ms ticks
	data := build(t, s, nil,
		buf{cpu(3, 1), []etltest.Record{ev(41, t0)}},
		buf{cpu(0, 2), []etltest.Record{ev(1, t0), ev(2, t0), ev(3, t1)}},
		buf{cpu(2, 3), []etltest.Record{ev(31, t1)}},
		buf{cpu(1, 4), []etltest.Record{ev(21, t0), ev(22, t1), ev(23, t1)}},
	)
	src := source(data, s)
	got, st := check(t, order.Options{}, src)
	assert.Equal(t, []uint64{1, 2, 21, 41, 3, 22, 23, 31}, tags(got))
	assert.Equal(t, 4, st.Ties)
	assert.Zero(t, st.BackwardSteps)

	got, st = check(t, order.Options{Mode: order.Sorted}, src)
	assert.Equal(t, []uint64{1, 2, 21, 41, 3, 22, 23, 31}, tags(got))
	assert.Equal(t, 4, st.Ties)

	got, st = check(t, order.Options{Mode: order.FileOrder}, src)
	assert.Equal(t, []uint64{41, 1, 2, 3, 31, 21, 22, 23}, tags(got))
	assert.Equal(t, 1, st.BackwardSteps)
	assert.Equal(t, 2, st.Ties)
}

// TestImpreciseClocks: processors that disagree slightly about time. An
// effect on processor 1, whose clock is 5 µs behind, carries a timestamp
// before its cause on processor 0, and is delivered first: the merge orders
// by the timestamps as written and cannot see the skew, and neither can
// the counts.
func TestImpreciseClocks(t *testing.T) {
	s := session()
	const skew = 50 // 5 µs
	data := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+1000), ev(2, base+1040)}},
		buf{cpu(1, 2), []etltest.Record{ev(21, base+1020-skew), ev(22, base+1070-skew)}},
	)
	src := source(data, s)
	for _, mode := range []order.Mode{order.Ordered, order.Sorted} {
		got, st := check(t, order.Options{Mode: mode}, src)
		assert.Equal(t, []uint64{21, 1, 22, 2}, tags(got), mode)
		assert.Zero(t, st.Inversions, mode)
		assert.Zero(t, st.BackwardSteps, mode)
	}
}

// TestUnsortedBuffer: a buffer whose records are not in time order. Ordered
// keeps the buffer's order and counts the inversion; Sorted repairs it.
func TestUnsortedBuffer(t *testing.T) {
	s := session()
	data := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10), ev(2, base+30), ev(3, base+20), ev(4, base+40)}},
		buf{cpu(1, 2), []etltest.Record{ev(11, base+25)}},
	)
	src := source(data, s)
	got, st := check(t, order.Options{}, src)
	assert.Equal(t, []uint64{1, 11, 2, 3, 4}, tags(got))
	assert.Equal(t, 1, st.Inversions)
	assert.Equal(t, time.Microsecond, st.LargestInversion)
	assert.Equal(t, 1, st.BackwardSteps)

	got, st = check(t, order.Options{Mode: order.Sorted}, src)
	assert.Equal(t, []uint64{1, 3, 11, 2, 4}, tags(got))
	assert.Zero(t, st.BackwardSteps)
	assert.Zero(t, st.Late)
	assert.Equal(t, 1, st.Inversions, "the inversion is still reported")
}

// TestOverlappingBuffers: two buffers of one stream whose time ranges
// overlap. The stream is read in sequence order, buffer after buffer.
func TestOverlappingBuffers(t *testing.T) {
	s := session()
	data := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10), ev(2, base+50)}},
		buf{cpu(1, 2), []etltest.Record{ev(11, base+40)}},
		buf{cpu(0, 3), []etltest.Record{ev(3, base+30), ev(4, base+60)}},
	)
	src := source(data, s)
	got, st := check(t, order.Options{}, src)
	assert.Equal(t, []uint64{1, 11, 2, 3, 4}, tags(got))
	assert.Equal(t, 1, st.Inversions)
	assert.Equal(t, 2*time.Microsecond, st.LargestInversion)

	got, _ = check(t, order.Options{Mode: order.Sorted}, src)
	assert.Equal(t, []uint64{1, 3, 11, 2, 4}, tags(got))
}

// TestTimestampFarInFuture: an overridden timestamp a century ahead holds
// its stream back until every other stream is done, as a merge must; the
// records after it follow it. Sorted with a one-second window lets the
// future record wait in the window and delivers its successor late.
func TestTimestampFarInFuture(t *testing.T) {
	s := session()
	data := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10), ev(2, base+century), ev(3, base+30)}},
		buf{cpu(1, 2), []etltest.Record{ev(11, base+20), ev(12, base+40)}},
	)
	src := source(data, s)
	got, st := check(t, order.Options{}, src)
	assert.Equal(t, []uint64{1, 11, 12, 2, 3}, tags(got))
	assert.Equal(t, 1, st.Inversions)
	assert.Equal(t, time.Duration(century-30)*100, st.LargestInversion)
	assert.Equal(t, s.StartTime+century, got[4].ft)

	got, st = check(t, order.Options{Mode: order.Sorted, Window: time.Second}, src)
	assert.Equal(t, []uint64{1, 11, 12, 3, 2}, tags(got))
	assert.Equal(t, 1, st.Late)
	assert.Equal(t, time.Microsecond, st.LargestLateness)

	got, st = check(t, order.Options{Mode: order.Sorted}, src)
	assert.Equal(t, []uint64{1, 11, 3, 12, 2}, tags(got))
	assert.Zero(t, st.Late)
}

// TestTimestampFarInPast: a timestamp a century back comes out as soon as
// its stream is chosen, before everything else.
func TestTimestampFarInPast(t *testing.T) {
	s := session()
	data := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10), ev(2, base-century), ev(3, base+30)}},
		buf{cpu(1, 2), []etltest.Record{ev(11, base+20), ev(12, base+40)}},
	)
	src := source(data, s)
	got, st := check(t, order.Options{}, src)
	assert.Equal(t, []uint64{1, 2, 11, 3, 12}, tags(got))
	assert.Equal(t, s.StartTime-century, got[2].ft)
	assert.Equal(t, 1, st.Inversions)
	assert.Equal(t, time.Duration(century+10)*100, st.LargestBackwardStep)
}

// TestSingleStream: under EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING there is
// one stream, in sequence order, whatever processor numbers the buffers
// carry; per-processor buffering would merge the same buffers differently.
func TestSingleStream(t *testing.T) {
	s := session()
	bufs := []buf{
		{cpu(0, 2), []etltest.Record{ev(3, base+30), ev(4, base+40)}},
		{cpu(0, 1), []etltest.Record{ev(1, base+10), ev(2, base+20)}},
		{cpu(3, 3), []etltest.Record{ev(5, base+50), ev(6, base+70)}},
		{cpu(1, 4), []etltest.Record{ev(7, base+60), ev(8, base+80)}},
	}
	s.LogFileMode |= etltest.ModeNoPerProcessorBuffering
	src := source(build(t, s, nil, bufs...), s)
	got, st := check(t, order.Options{}, src)
	assert.Equal(t, []uint64{1, 2, 3, 4, 5, 6, 7, 8}, tags(got))
	require.Len(t, st.Streams, 2, "the header buffer and one stream")
	assert.Equal(t, 8, st.Streams[1].Records)
	assert.Equal(t, 1, st.Inversions)

	s.LogFileMode &^= etltest.ModeNoPerProcessorBuffering
	got, st = check(t, order.Options{}, source(build(t, s, nil, bufs...), s))
	assert.Equal(t, []uint64{1, 2, 3, 4, 5, 7, 6, 8}, tags(got))
	assert.Len(t, st.Streams, 4)
	assert.Zero(t, st.Inversions)
}

// TestRelogged: a relogged, merged trace has a small header buffer and may
// carry the logfile header of another trace among its records. Only the
// first buffer's header comes first; the other is a record of its stream,
// delivered at its time.
func TestRelogged(t *testing.T) {
	s := session()
	s.LogFileMode = etltest.ModeFileSequential | etltest.ModeRelog
	s.HeaderBuffer = &etltest.Buffer{Type: buffer.TypeHeader, Flags: buffer.FlagFlushMarker, Size: 0x400}
	other := etltest.DefaultSession()
	other.HeaderTimeStamp = base + 25
	data := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10), etltest.LogfileHeader{Session: &other, BuffersWritten: 9}, ev(2, base+30)}},
		buf{cpu(1, 2), []etltest.Record{ev(11, base+20), ev(12, base+40)}},
	)
	got, st := check(t, order.Options{}, source(data, s))
	assert.Equal(t, []uint64{1, 11, 2, 12}, tags(got))
	require.Len(t, got, 6)
	assert.Equal(t, s.StartTime, got[0].ft, "the file's own logfile header first")
	assert.Equal(t, 0, got[0].buffer)
	assert.Equal(t, uint64(0), got[3].tag, "the merged trace's header at its time")
	assert.Equal(t, s.StartTime+25, got[3].ft)
	assert.Equal(t, 1, got[3].buffer)
	assert.Zero(t, st.BackwardSteps)
}

// TestSeveralSources: files with different clocks merge on UTC time; ties
// go to the lower processor number, then to the file given first. Each
// file's header buffer comes first, in the order the files were given.
func TestSeveralSources(t *testing.T) {
	a := session()
	dataA := build(t, a, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10), ev(2, base+40)}},
		buf{cpu(1, 2), []etltest.Record{ev(3, base+25)}},
	)
	// B: a 1 MHz clock (10 units a tick) anchored 5 units after A's start.
	b := session()
	b.PerfFreq = 1_000_000
	b.StartTime = a.StartTime + 5
	b.HeaderTimeStamp = 7000
	dataB := build(t, b, nil,
		buf{cpu(1, 1), []etltest.Record{ev(103, 7002)}},
		buf{cpu(0, 2), []etltest.Record{ev(101, 7001), ev(104, 7002), ev(102, 7003)}},
	)
	got, st := check(t, order.Options{}, source(dataA, a), source(dataB, b))
	assert.Equal(t, []uint64{1, 101, 104, 3, 103, 102, 2}, tags(got))
	var srcs []int
	for _, o := range got {
		srcs = append(srcs, o.src)
	}
	assert.Equal(t, []int{0, 1, 0, 1, 1, 0, 1, 1, 0}, srcs)
	assert.Equal(t, a.StartTime+5, got[1].ft, "B's header, second")
	assert.Equal(t, a.StartTime+25, got[4].ft)
	assert.Equal(t, a.StartTime+25, got[5].ft)
	assert.Equal(t, 2, st.Ties)
	require.Len(t, st.Streams, 6)
	assert.True(t, st.Streams[0].Header && st.Streams[1].Header)
	assert.Equal(t, 1, st.Streams[1].Source)

	got, _ = check(t, order.Options{Mode: order.FileOrder}, source(dataA, a), source(dataB, b))
	assert.Equal(t, []uint64{1, 2, 3, 103, 101, 104, 102}, tags(got))
}

// TestCircularFile: a circular file wraps, so its oldest buffers are not
// at its start, and sequence numbers exceed BuffersWritten.
func TestCircularFile(t *testing.T) {
	s := session()
	s.LogFileMode = header.ModeFileCircular
	s.BuffersWritten = etltest.Ptr(uint32(3))
	data := build(t, s, nil,
		buf{cpu(0, 8), []etltest.Record{ev(9, base+80), ev(10, base+90)}},
		buf{cpu(1, 9), []etltest.Record{ev(11, base+95)}},
		buf{cpu(0, 4), []etltest.Record{ev(1, base+10), ev(2, base+20)}},
		buf{cpu(1, 5), []etltest.Record{ev(3, base+25), ev(4, base+35)}},
		buf{cpu(0, 6), []etltest.Record{ev(5, base+40), ev(6, base+50)}},
		buf{cpu(1, 7), []etltest.Record{ev(7, base+60), ev(8, base+70)}},
	)
	src := source(data, s)
	got, st := check(t, order.Options{}, src)
	assert.Equal(t, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, tags(got))
	assert.Zero(t, st.BackwardSteps)
	assert.Equal(t, int64(4), st.Streams[1].FirstSequence)
	assert.Equal(t, int64(8), st.Streams[1].LastSequence)
	assert.Equal(t, 3, st.Streams[1].Buffers)

	got, st = check(t, order.Options{Mode: order.FileOrder}, src)
	assert.Equal(t, []uint64{9, 10, 11, 1, 2, 3, 4, 5, 6, 7, 8}, tags(got))
	assert.Equal(t, 1, st.BackwardSteps)
}

// TestNewFileSequenceNumbers: a file of a NEWFILE session starts with high
// sequence numbers, has gaps, and exceeds BuffersWritten.
func TestNewFileSequenceNumbers(t *testing.T) {
	s := session()
	s.LogFileMode = header.ModeFileNewFile
	s.BuffersWritten = etltest.Ptr(uint32(4))
	data := build(t, s, nil,
		buf{cpu(0, 913), []etltest.Record{ev(5, base+50)}},
		buf{cpu(0, 908), []etltest.Record{ev(1, base+10), ev(3, base+30)}},
		buf{cpu(1, 910), []etltest.Record{ev(2, base+20), ev(4, base+40)}},
	)
	got, st := check(t, order.Options{}, source(data, s))
	assert.Equal(t, []uint64{1, 2, 3, 4, 5}, tags(got))
	assert.Equal(t, int64(908), st.Streams[1].FirstSequence)
	assert.Equal(t, int64(913), st.Streams[1].LastSequence)
}

// TestEqualSequenceNumbers: appended sessions restart their sequence
// numbers; buffers with the same number stay in file order, even when time
// says otherwise (each starts a new run of numbering).
func TestEqualSequenceNumbers(t *testing.T) {
	s := session()
	s.LogFileMode = header.ModeFileAppend
	data := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+50)}},
		buf{cpu(1, 1), []etltest.Record{ev(11, base+5)}},
		buf{cpu(0, 1), []etltest.Record{ev(2, base+10)}},
	)
	got, st := check(t, order.Options{}, source(data, s))
	assert.Equal(t, []uint64{11, 1, 2}, tags(got))
	assert.Equal(t, 1, st.Streams[1].Inversions)
}

// TestAppendedSession: a session appending to an existing file numbers its
// buffers from 1 again. Ordering a processor's buffers by sequence number
// alone would interleave the two sessions' buffers (1 2 5 6 3 4 7 8, one
// inversion); each run of numbering is ordered on its own and the runs by
// file position.
func TestAppendedSession(t *testing.T) {
	s := session()
	s.LogFileMode = header.ModeFileAppend
	data := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10), ev(2, base+20)}},
		buf{cpu(0, 2), []etltest.Record{ev(3, base+30), ev(4, base+40)}},
		// The appended session.
		buf{cpu(0, 1), []etltest.Record{ev(5, base+50), ev(6, base+60)}},
		buf{cpu(0, 2), []etltest.Record{ev(7, base+70), ev(8, base+80)}},
	)
	for _, mode := range []order.Mode{order.Ordered, order.Sorted} {
		got, st := check(t, order.Options{Mode: mode}, source(data, s))
		assert.Equal(t, []uint64{1, 2, 3, 4, 5, 6, 7, 8}, tags(got), mode)
		assert.Zero(t, st.Inversions, mode)
		assert.Zero(t, st.BackwardSteps, mode)
		assert.Equal(t, 2, st.Sources[0].SequenceRuns, mode)
		require.Len(t, st.Streams, 2)
		assert.Equal(t, int64(1), st.Streams[1].FirstSequence)
		assert.Equal(t, int64(2), st.Streams[1].LastSequence)
	}
}

// TestSequenceRestart: a merged file holds three runs of numbering, on two
// processors, each run's buffers written slightly out of order and each
// restarting at a different number. Every processor's buffers stay in run
// order, and within a run in sequence order.
func TestSequenceRestart(t *testing.T) {
	s := session()
	s.LogFileMode = etltest.ModeFileSequential | etltest.ModeRelog
	data := build(t, s, nil,
		// Run 1: 1..4, 2 written before 1.
		buf{cpu(1, 2), []etltest.Record{ev(11, base+15)}},
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10)}},
		buf{cpu(0, 3), []etltest.Record{ev(2, base+20)}},
		buf{cpu(1, 4), []etltest.Record{ev(12, base+25)}},
		// Run 2: 3..6.
		buf{cpu(0, 3), []etltest.Record{ev(3, base+30)}},
		buf{cpu(1, 5), []etltest.Record{ev(14, base+45)}},
		buf{cpu(1, 4), []etltest.Record{ev(13, base+35)}},
		buf{cpu(0, 6), []etltest.Record{ev(4, base+40)}},
		// Run 3: 3..5, 4 written first.
		buf{cpu(0, 4), []etltest.Record{ev(6, base+60)}},
		buf{cpu(0, 3), []etltest.Record{ev(5, base+50)}},
		buf{cpu(1, 5), []etltest.Record{ev(15, base+55)}},
	)
	got, st := check(t, order.Options{}, source(data, s))
	assert.Equal(t, []uint64{1, 11, 2, 12, 3, 13, 4, 14, 5, 15, 6}, tags(got))
	assert.Zero(t, st.Inversions)
	assert.Zero(t, st.BackwardSteps)
	assert.Zero(t, st.Ties)
	assert.Equal(t, 3, st.Sources[0].SequenceRuns)

	// Without restarts, buffers written out of order are one run.
	got, st = check(t, order.Options{}, source(build(t, s, nil,
		buf{cpu(0, 2), []etltest.Record{ev(2, base+20)}},
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10)}},
		buf{cpu(0, 3), []etltest.Record{ev(3, base+30)}},
	), s))
	assert.Equal(t, []uint64{1, 2, 3}, tags(got))
	assert.Equal(t, 1, st.Sources[0].SequenceRuns)
}

// subTick returns sessions whose clocks resolve far below 100 ns: a 3 GHz
// cycle counter and a 24 MHz QPC, both anchored at StartTime.
func subTick() (cycles, qpc etltest.Session) {
	cycles = session()
	cycles.ClockType, cycles.PerfFreq, cycles.CPUSpeedInMHz = header.ClockCPUCycle, 0, 3000
	qpc = session()
	qpc.PerfFreq = 24_000_000
	return cycles, qpc
}

// TestSubTickOrderInOneFile: records of two processors inside one 100 ns
// unit come out by raw timestamp, not by processor number, and are not
// ties.
func TestSubTickOrderInOneFile(t *testing.T) {
	cycles, qpc := subTick()
	for _, c := range []struct {
		name string
		s    etltest.Session
		n    int   // records that fit in the first 100 ns after the start
		step int64 // raw ticks between them
	}{{"3GHz", cycles, 4, 60}, {"24MHz", qpc, 2, 1}} {
		// Processor 0 has the even tags, processor 1 the odd ones.
		var even, odd []etltest.Record
		for i := 0; i < c.n; i++ {
			// After the logfile header, which is at base.
			r := ev(uint64(i+1), base+int64(i+1)*c.step)
			if i%2 == 0 {
				odd = append(odd, r)
			} else {
				even = append(even, r)
			}
		}
		data := build(t, c.s, nil, buf{cpu(0, 1), even}, buf{cpu(1, 2), odd})
		want := []uint64{1, 2, 3, 4}[:c.n]
		for _, mode := range []order.Mode{order.Ordered, order.Sorted} {
			got, st := check(t, order.Options{Mode: mode}, source(data, c.s))
			assert.Equal(t, want, tags(got), "%s %v", c.name, mode)
			for _, o := range got[1:] {
				assert.Equal(t, c.s.StartTime, o.ft, "%s: every record in the first 100 ns", c.name)
			}
			assert.Zero(t, st.Ties, c.name)
			assert.Zero(t, st.BackwardSteps, c.name)
		}
		// Equal raw timestamps on two processors are a tie.
		data = build(t, c.s, nil,
			buf{cpu(0, 1), []etltest.Record{ev(1, base+c.step)}},
			buf{cpu(1, 2), []etltest.Record{ev(2, base+c.step)}},
		)
		got, st := check(t, order.Options{}, source(data, c.s))
		assert.Equal(t, []uint64{1, 2}, tags(got), c.name)
		assert.Equal(t, 1, st.Ties, c.name)
	}
}

// TestSubTickOrderAcrossFiles: two files with a 3 GHz and a 24 MHz clock
// share a start; their records within one 100 ns unit alternate by time
// (10, 41.7, 50, 83.3 ns), not by file. The two logfile headers, both at
// the start, are a tie.
func TestSubTickOrderAcrossFiles(t *testing.T) {
	cycles, qpc := subTick()
	a := build(t, cycles, nil, buf{cpu(0, 1), []etltest.Record{ev(1, base+30), ev(3, base+150)}})
	b := build(t, qpc, nil, buf{cpu(0, 1), []etltest.Record{ev(2, base+1), ev(4, base+2)}})
	for _, mode := range []order.Mode{order.Ordered, order.Sorted} {
		got, st := check(t, order.Options{Mode: mode}, source(a, cycles), source(b, qpc))
		assert.Equal(t, []uint64{1, 2, 3, 4}, tags(got), mode)
		assert.Equal(t, []int{0, 1, 0, 1, 0, 1}, sourcesOf(got), mode)
		assert.Equal(t, 1, st.Ties, mode)
		assert.Zero(t, st.BackwardSteps, mode)
	}
	// The same instant on both clocks (1 µs: 3000 cycles, 24 ticks) is a tie.
	a = build(t, cycles, nil, buf{cpu(0, 1), []etltest.Record{ev(1, base+3000)}})
	b = build(t, qpc, nil, buf{cpu(0, 1), []etltest.Record{ev(2, base+24)}})
	got, st := check(t, order.Options{}, source(a, cycles), source(b, qpc))
	assert.Equal(t, []uint64{1, 2}, tags(got))
	assert.Equal(t, 2, st.Ties)
}

func sourcesOf(got []out) []int {
	var s []int
	for _, o := range got {
		s = append(s, o.src)
	}
	return s
}

// TestEventsLostBuffers: buffers flagged EVENTS_LOST or BUFFER_LOST are
// read like any other; the flag says events are missing around them.
func TestEventsLostBuffers(t *testing.T) {
	s := session()
	s.EventsLost = 7
	data := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10), ev(3, base+30)}},
		buf{etltest.Buffer{CPU: 1, SequenceNumber: 2, Flags: buffer.FlagEventsLost}, []etltest.Record{ev(2, base+20)}},
		buf{etltest.Buffer{CPU: 1, SequenceNumber: 3, Flags: buffer.FlagBufferLost}, []etltest.Record{ev(4, base+40)}},
	)
	src := source(data, s)
	obs := &counter{}
	src.Observer = obs
	got, _ := check(t, order.Options{}, src)
	assert.Equal(t, []uint64{1, 2, 3, 4}, tags(got))
	// One buffer of each, seen once by every read mode check runs.
	assert.Equal(t, len(readModes), obs.eventsLost)
	assert.Equal(t, len(readModes), obs.bufferLost)
}

// TestProcessorIndexBuffers: a buffer that stores a 16-bit processor
// index gives its records that processor and the PROCESSOR_INDEX flag. The
// records Sorted holds in its window are decoded again when released, and
// must come out with both, like those delivered at once.
func TestProcessorIndexBuffers(t *testing.T) {
	s := session()
	data := build(t, s, nil,
		buf{etltest.Buffer{CPU: 300, SequenceNumber: 1, ProcIndex: true}, []etltest.Record{ev(1, base+10), ev(3, base+30), ev(2, base+20)}},
		buf{cpu(1, 2), []etltest.Record{ev(11, base+15), ev(12, base+25)}},
	)
	src := source(data, s)
	for _, c := range []struct {
		mode order.Mode
		want []uint64
	}{
		{order.Ordered, []uint64{1, 11, 12, 3, 2}},
		{order.Sorted, []uint64{1, 11, 2, 12, 3}},
	} {
		got, _ := check(t, order.Options{Mode: c.mode}, src)
		assert.Equal(t, c.want, tags(got), c.mode)
		for _, o := range got[1:] {
			if o.tag < 10 {
				assert.Equal(t, out{tag: o.tag, cpu: 300, procIdx: true}, out{tag: o.tag, cpu: o.cpu, procIdx: o.procIdx}, c.mode)
			} else {
				assert.Equal(t, out{tag: o.tag, cpu: 1}, out{tag: o.tag, cpu: o.cpu, procIdx: o.procIdx}, c.mode)
			}
		}
	}
}

// counter is an Observer that counts.
type counter struct {
	scanned, scanErrs, loaded, loadErrs, recordErrs, cut int
	eventsLost, bufferLost                               int
	ended                                                int
}

func (c *counter) Scanned(b *buffer.Buffer, span int64, err error) {
	c.scanned++
	if err != nil {
		c.scanErrs++
	}
}
func (c *counter) Ended(bool) { c.ended++ }
func (c *counter) Loaded(b *buffer.Buffer, err error) {
	if err != nil {
		c.loadErrs++
		return
	}
	c.loaded++
	if b.BufferFlag&buffer.FlagEventsLost != 0 {
		c.eventsLost++
	}
	if b.BufferFlag&buffer.FlagBufferLost != 0 {
		c.bufferLost++
	}
}
func (c *counter) RecordError(err error, more bool) {
	if more {
		c.recordErrs++
	} else {
		c.cut++
	}
}

// TestDamagedBuffers: a buffer that does not decompress and one whose
// Offset points into its header cost those buffers only. The first's error
// comes in its place in its stream; the second's header cannot be trusted,
// not even for its processor, so its error comes after the merge; every
// other record is delivered.
func TestDamagedBuffers(t *testing.T) {
	s := session()
	data := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10), ev(2, base+30)}},
		buf{cpu(1, 2), []etltest.Record{ev(11, base+20), ev(12, base+40)}},
		buf{etltest.Buffer{CPU: 0, SequenceNumber: 3, BadCompression: true}, []etltest.Record{ev(99, base+35)}},
		buf{cpu(1, 4), []etltest.Record{ev(13, base+45)}},
		buf{etltest.Buffer{CPU: 0, SequenceNumber: 5, Offset: etltest.Ptr(uint32(0x20))}, []etltest.Record{ev(98, base+36)}},
		buf{cpu(0, 6), []etltest.Record{ev(3, base+50)}},
	)
	src := source(data, s)
	obs := &counter{}
	src.Observer = obs
	got, st := collect(t, order.Options{}, src)
	// Seven buffers: the walk cannot go through the one whose Offset points
	// into its header, and the one that does not decompress fails when read.
	assert.Equal(t, counter{scanned: 7, scanErrs: 1, loaded: 5, loadErrs: 1, ended: 1}, *obs)
	require.Len(t, st.Sources, 1)
	assert.Equal(t, 7, st.Sources[0].Records)
	assert.Equal(t, 6, st.Sources[0].HeaderTypes[header.TypePerfInfo64])
	assert.Equal(t, 1, st.Sources[0].HeaderTypes[header.TypeSystem64])
	assert.Len(t, st.Streams, 3, "the header buffer and processors 0 and 1")
	got, stats := check(t, order.Options{}, src)
	st = &stats
	var seq []string
	for _, o := range got[1:] {
		seq = append(seq, o.String())
	}
	assert.Equal(t, []string{"1", "11", "2", "error", "12", "13", "3", "error"}, seq)
	assert.True(t, errors.Is(got[4].err, buffer.ErrDecompress), "%v", got[4].err)
	assert.True(t, errors.Is(got[8].err, buffer.ErrMalformed), "%v", got[8].err)
	var fe *buffer.FormatError
	require.ErrorAs(t, got[8].err, &fe)
	assert.Equal(t, 5, fe.Buffer)
	assert.Equal(t, int64(s.BufferSize), fe.Skipped, "to the next buffer")
	assert.Equal(t, 7, st.Records, "the six records and the logfile header")

	got, _ = check(t, order.Options{Mode: order.FileOrder}, src)
	seq = seq[:0]
	for _, o := range got[1:] {
		seq = append(seq, o.String())
	}
	assert.Equal(t, []string{"1", "2", "11", "12", "error", "13", "error", "3"}, seq)
}
