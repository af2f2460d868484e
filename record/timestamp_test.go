package record_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

func TestTimeStampAndFileTimeFromClock(t *testing.T) {
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	startFT := header.TimeToFileTime(start)
	qpc := header.NewClock(&header.LogfileHeader{ReservedFlags: header.ClockQPC, PerfFreq: 3_579_545, StartTime: startFT}, 1_000_000)
	system := header.NewClock(&header.LogfileHeader{ReservedFlags: header.ClockSystemTime, StartTime: startFT}, 500)

	// 3,579,545 ticks after the anchor is exactly one second; one tick more
	// is 2.79 of the 100 ns units, rounded down.
	r := record.Record{RawTimeStamp: 1_000_000 + 3_579_545 + 1, Clock: &qpc}
	assert.Equal(t, start.Add(time.Second+200*time.Nanosecond), r.TimeStamp())
	ft, ok := r.FileTime()
	assert.True(t, ok)
	assert.Equal(t, startFT+10_000_002, ft)

	r = record.Record{RawTimeStamp: 500 - 7, Clock: &system}
	assert.Equal(t, start.Add(-700*time.Nanosecond), r.TimeStamp())
	ft, ok = r.FileTime()
	assert.True(t, ok)
	assert.Equal(t, startFT-7, ft)

	// A record without a clock has no time, whatever its raw timestamp.
	r = record.Record{RawTimeStamp: 123}
	assert.True(t, r.TimeStamp().IsZero())
	ft, ok = r.FileTime()
	assert.False(t, ok)
	assert.Zero(t, ft)
}
