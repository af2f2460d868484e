package order

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// TestStampOf pins the keys the merge takes: with one source the raw
// timestamp; with several, the clock's FILETIME of it, exactly the record's
// TimeStamp, with a fraction that orders the stamps as the raw timestamps,
// for every clock kind and across the anchor, far values included.
func TestStampOf(t *testing.T) {
	headers := []header.LogfileHeader{
		{ReservedFlags: header.ClockQPC, PerfFreq: 10_000_000, StartTime: 133_500_000_000_000_000},
		{ReservedFlags: header.ClockQPC, PerfFreq: 3_579_545, StartTime: 133_500_000_000_000_000},
		{ReservedFlags: header.ClockSystemTime, StartTime: 133_500_000_000_000_000},
		{ReservedFlags: header.ClockCPUCycle, CPUSpeedInMHz: 2394, StartTime: 133_500_000_000_000_000},
	}
	raws := []int64{0, 1, -1, 999_999, 1_000_000, 1_000_001, 1 << 40, -(1 << 40), 1 << 55, -(1 << 55)}
	for _, h := range headers {
		c := header.NewClock(&h, 1_000_000)
		sorted := slices.Sorted(slices.Values(raws))
		var prevT int64
		var prevF uint32
		for i, raw := range sorted {
			r := record.Record{RawTimeStamp: raw, Clock: &c}
			ft, f := stampOf(&c, raw, true)
			require.Equal(t, header.TimeToFileTime(r.TimeStamp()), ft, "clock %d raw %d", h.ReservedFlags, raw)
			if i > 0 {
				require.True(t, ft > prevT || ft == prevT && f > prevF, "clock %d raw %d", h.ReservedFlags, raw)
			}
			prevT, prevF = ft, f
			rt, rf := stampOf(&c, raw, false)
			require.Equal(t, raw, rt)
			require.Zero(t, rf)
		}
	}
}
