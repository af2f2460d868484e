package header_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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
