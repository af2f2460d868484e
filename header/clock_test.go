package header_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/header"
)

// 2020-07-29T00:07:00.6236167Z as a FILETIME.
const start = int64(132404548206236167)

func TestFileTimeRoundTrip(t *testing.T) {
	tm := header.FileTimeToTime(start)
	assert.Equal(t, "2020-07-29T00:07:00.6236167Z", tm.Format("2006-01-02T15:04:05.0000000Z07:00"))
	assert.Equal(t, start, header.TimeToFileTime(tm))
	assert.Equal(t, time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC), header.FileTimeToTime(0))
	assert.Equal(t, time.Date(1600, 12, 31, 23, 59, 59, 999999900, time.UTC), header.FileTimeToTime(-1))
	assert.Equal(t, time.Date(1600, 12, 31, 23, 59, 58, 999999900, time.UTC), header.FileTimeToTime(-10_000_001))
	assert.Equal(t, time.Date(1600, 12, 31, 23, 59, 59, 0, time.UTC), header.FileTimeToTime(-10_000_000))
	assert.Equal(t, time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), header.FileTimeToTime(header.FileTimeEpochDelta))
}

func TestClockQPC(t *testing.T) {
	h := header.LogfileHeader{ReservedFlags: header.ClockQPC, PerfFreq: 3_579_545, StartTime: start}
	c := header.NewClock(&h, 1_000_000)
	assert.Equal(t, uint32(header.ClockQPC), c.Kind)
	assert.Equal(t, start, c.FileTime(1_000_000))
	// One second of ticks is 10^7 FILETIME units.
	assert.Equal(t, start+10_000_000, c.FileTime(1_000_000+3_579_545))
	// 1 tick = 2.7936… units: rounded down.
	assert.Equal(t, start+2, c.FileTime(1_000_001))
	// Before the anchor, rounded down too, so the mapping stays monotonic.
	assert.Equal(t, start-3, c.FileTime(999_999))
	assert.Equal(t, start-10_000_000, c.FileTime(1_000_000-3_579_545))
	// Large deltas do not overflow the intermediate product.
	day := int64(86400) * 3_579_545
	assert.Equal(t, start+864_000_000_000, c.FileTime(1_000_000+day))
	for raw := int64(999_990); raw < 1_000_010; raw++ {
		assert.LessOrEqual(t, c.FileTime(raw), c.FileTime(raw+1))
	}
}

func TestClock10MHzIsExactAddition(t *testing.T) {
	h := header.LogfileHeader{ReservedFlags: header.ClockQPC, PerfFreq: 10_000_000, StartTime: start}
	c := header.NewClock(&h, 5_000)
	assert.Equal(t, start+123, c.FileTime(5_123))
	assert.Equal(t, start-5_000, c.FileTime(0))
}

func TestClockSystemTime(t *testing.T) {
	h := header.LogfileHeader{ReservedFlags: header.ClockSystemTime, PerfFreq: 3_579_545, StartTime: start}
	c := header.NewClock(&h, start-7)
	assert.Equal(t, uint32(header.ClockSystemTime), c.Kind)
	assert.Equal(t, start+7, c.FileTime(start))
	assert.Equal(t, "2020-07-29T00:07:00.6236174Z", c.UTC(start).Format("2006-01-02T15:04:05.0000000Z07:00"))
	// Either side of 1601, where FileTimeToTime leaves its unsigned fast path.
	// FILETIME = raw + 7 with this anchor.
	assert.Equal(t, time.Date(1601, 1, 1, 0, 0, 0, 100, time.UTC), c.UTC(-6))
	assert.Equal(t, time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC), c.UTC(-7))
	assert.Equal(t, time.Date(1600, 12, 31, 23, 59, 59, 999999900, time.UTC), c.UTC(-8))
}

func TestClockCPUCycles(t *testing.T) {
	h := header.LogfileHeader{ReservedFlags: header.ClockCPUCycle, CPUSpeedInMHz: 3000, StartTime: start}
	c := header.NewClock(&h, 0)
	assert.Equal(t, uint32(header.ClockCPUCycle), c.Kind)
	// 3000 cycles = 1 µs = 10 units.
	assert.Equal(t, start+10, c.FileTime(3000))
	assert.Equal(t, start+10_000_000, c.FileTime(3_000_000_000))
	// Without a CPU speed the cycle clock cannot be used: QPC if known.
	h.CPUSpeedInMHz, h.PerfFreq = 0, 10_000_000
	c = header.NewClock(&h, 0)
	assert.Equal(t, uint32(header.ClockQPC), c.Kind)
}

func TestClockTypeZeroFallback(t *testing.T) {
	h := header.LogfileHeader{ReservedFlags: 0, PerfFreq: 2_000_000, StartTime: start}
	c := header.NewClock(&h, 100)
	assert.Equal(t, uint32(header.ClockQPC), c.Kind)
	assert.Equal(t, start+5, c.FileTime(101))
	h.PerfFreq = 0
	c = header.NewClock(&h, 100)
	assert.Equal(t, uint32(header.ClockSystemTime), c.Kind)
	assert.Equal(t, start+1, c.FileTime(101))
}

// TestFineFileTime: the FILETIME part is FileTime's, and the pairs order
// every raw timestamp of a 3 GHz cycle clock and a 24 MHz QPC, within a
// 100 ns unit and across the anchor.
func TestFineFileTime(t *testing.T) {
	for _, h := range []header.LogfileHeader{
		{ReservedFlags: header.ClockCPUCycle, CPUSpeedInMHz: 3000, StartTime: start},
		{ReservedFlags: header.ClockQPC, PerfFreq: 24_000_000, StartTime: start},
		{ReservedFlags: header.ClockQPC, PerfFreq: 10_000_000, StartTime: start},
		{ReservedFlags: header.ClockSystemTime, StartTime: start},
	} {
		c := header.NewClock(&h, 1_000_000)
		prevT, prevF := int64(math.MinInt64), uint32(0)
		for raw := int64(1_000_000 - 700); raw < 1_000_000+700; raw++ {
			ft, f := c.FineFileTime(raw)
			require.Equal(t, c.FileTime(raw), ft, "clock %d raw %d", h.ReservedFlags, raw)
			require.Less(t, f, uint32(1<<31))
			require.True(t, ft > prevT || ft == prevT && f > prevF, "clock %d raw %d: (%d,%d) after (%d,%d)", h.ReservedFlags, raw, ft, f, prevT, prevF)
			prevT, prevF = ft, f
		}
	}
	// 3 GHz: one tick past the anchor is a thirtieth of 100 ns.
	c := header.NewClock(&header.LogfileHeader{ReservedFlags: header.ClockCPUCycle, CPUSpeedInMHz: 3000, StartTime: start}, 0)
	ft, f := c.FineFileTime(1)
	assert.Equal(t, start, ft)
	assert.Equal(t, uint32((1<<31)/300), f)
	ft, f = c.FineFileTime(-1)
	assert.Equal(t, start-1, ft)
	assert.Equal(t, uint32((1<<31)*299/300), f)
}

func TestClockDurationAndTicks(t *testing.T) {
	cyc := header.NewClock(&header.LogfileHeader{ReservedFlags: header.ClockCPUCycle, CPUSpeedInMHz: 3000, StartTime: start}, 0)
	assert.Equal(t, time.Microsecond, cyc.Duration(3000))
	assert.Equal(t, uint64(3000), cyc.Ticks(time.Microsecond))
	qpc := header.NewClock(&header.LogfileHeader{ReservedFlags: header.ClockQPC, PerfFreq: 24_000_000, StartTime: start}, 0)
	assert.Equal(t, time.Second, qpc.Duration(24_000_000))
	assert.Equal(t, uint64(24_000_000), qpc.Ticks(time.Second))
	sys := header.NewClock(&header.LogfileHeader{ReservedFlags: header.ClockSystemTime, StartTime: start}, 0)
	assert.Equal(t, time.Millisecond, sys.Duration(10_000))
	assert.Equal(t, uint64(10_000), sys.Ticks(time.Millisecond))
	assert.Equal(t, time.Duration(1<<63-1), sys.Duration(1<<64-1), "saturates")
	assert.Equal(t, uint64(0), cyc.Ticks(-time.Second))
}
