package header_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/etlkit/etlkit/header"
)

func TestUnsignedFileTime(t *testing.T) {
	assert.Equal(t, header.FileTimeToTime(start), header.UnsignedFileTimeToTime(uint64(start)))
	// Past 2^63 an unsigned FILETIME goes on counting forward.
	top := header.UnsignedFileTimeToTime(math.MaxUint64)
	assert.Equal(t, 60056, top.Year())
	assert.True(t, top.After(header.UnsignedFileTimeToTime(1<<63)))
	assert.Equal(t, time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC), header.UnsignedFileTimeToTime(0))
}

func TestFileTimeToUnixNano(t *testing.T) {
	for _, c := range []struct {
		ft   int64
		ns   int64
		want bool
	}{
		{header.FileTimeEpochDelta, 0, true},
		{header.FileTimeEpochDelta + 1, 100, true},
		{header.FileTimeEpochDelta - 1, -100, true},
		{start, header.FileTimeToTime(start).UnixNano(), true},
		{0, 0, false}, // 1601: before what int64 nanoseconds reach
		{header.FileTimeEpochDelta + math.MaxInt64/100 + 1, 0, false}, // after 2262
		{math.MinInt64, 0, false},
	} {
		ns, ok := header.FileTimeToUnixNano(c.ft)
		assert.Equal(t, c.want, ok, "FILETIME %d", c.ft)
		if c.want {
			assert.Equal(t, c.ns, ns, "FILETIME %d", c.ft)
		}
	}
}

func TestFileTimeDuration(t *testing.T) {
	assert.Equal(t, time.Duration(0), header.FileTimeDuration(0))
	assert.Equal(t, 1500*time.Millisecond, header.FileTimeDuration(15_000_000))
	assert.Equal(t, time.Duration(math.MaxInt64/100*100), header.FileTimeDuration(math.MaxInt64/100))
	assert.Equal(t, time.Duration(math.MaxInt64), header.FileTimeDuration(math.MaxInt64/100+1))
	assert.Equal(t, time.Duration(math.MaxInt64), header.FileTimeDuration(math.MaxUint64))
}
