package order

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// TestRecordTimeEqualsTimeStamp pins the shortcut the merge key takes: the
// clock's FILETIME of the raw timestamp is exactly the record's TimeStamp,
// for every clock kind and across the anchor, far values included.
func TestRecordTimeEqualsTimeStamp(t *testing.T) {
	headers := []header.LogfileHeader{
		{ReservedFlags: header.ClockQPC, PerfFreq: 10_000_000, StartTime: 133_500_000_000_000_000},
		{ReservedFlags: header.ClockQPC, PerfFreq: 3_579_545, StartTime: 133_500_000_000_000_000},
		{ReservedFlags: header.ClockSystemTime, StartTime: 133_500_000_000_000_000},
		{ReservedFlags: header.ClockCPUCycle, CPUSpeedInMHz: 2394, StartTime: 133_500_000_000_000_000},
	}
	raws := []int64{0, 1, -1, 999_999, 1_000_000, 1_000_001, 1 << 40, -(1 << 40), 1 << 55, -(1 << 55)}
	for _, h := range headers {
		c := header.NewClock(&h, 1_000_000)
		for _, raw := range raws {
			r := record.Record{RawTimeStamp: raw, Clock: &c}
			require.Equal(t, header.TimeToFileTime(r.TimeStamp()), recordTime(&c, &r), "clock %d raw %d", h.ReservedFlags, raw)
		}
	}
}
