package header

import (
	"math"
	"time"
)

// A FILETIME counts 100 ns units since 1601-01-01 UTC: the time of every
// record once its clock is applied (Clock.FileTime), of the logfile
// header's StartTime, EndTime and BootTime, and of FILETIME payload fields.
// This file holds the conversions every package uses.

// FileTimeEpochDelta is 1970-01-01 as a FILETIME: the number of 100 ns
// units between 1601-01-01 and 1970-01-01.
const FileTimeEpochDelta = 116444736000000000

// FileTimeToTime converts a FILETIME to a UTC time.Time, exactly. A
// negative value, which a clock gives for a time before 1601, is read as
// such.
func FileTimeToTime(ft int64) time.Time {
	if ft >= 0 {
		return time.Unix(unixSeconds(uint64(ft))).UTC()
	}
	// Split before scaling so that no value overflows int64 nanoseconds;
	// time.Unix brings the negative remainder into range.
	return time.Unix(ft/10_000_000-FileTimeEpochDelta/10_000_000, ft%10_000_000*100).UTC()
}

// UnsignedFileTimeToTime is FileTimeToTime for a FILETIME as a payload
// holds it, an unsigned 64-bit count: values from 2^63 on lie after the
// year 30000 rather than before 1601.
func UnsignedFileTimeToTime(ft uint64) time.Time {
	return time.Unix(unixSeconds(ft)).UTC()
}

// unixSeconds splits a FILETIME into seconds and nanoseconds since 1970.
// Unsigned division by a constant is a multiply and a shift, with no sign
// correction.
func unixSeconds(ft uint64) (sec, nsec int64) {
	return int64(ft/10_000_000) - FileTimeEpochDelta/10_000_000, int64(ft%10_000_000) * 100
}

// TimeToFileTime converts a time to a FILETIME, truncating below 100 ns.
func TimeToFileTime(t time.Time) int64 {
	sec := t.Unix() + FileTimeEpochDelta/10_000_000
	return sec*10_000_000 + int64(t.Nanosecond())/100
}

// FileTimeToUnixNano converts a FILETIME to nanoseconds since 1970, and
// false when the time lies outside the years 1677 to 2262 that int64
// nanoseconds hold.
func FileTimeToUnixNano(ft int64) (int64, bool) {
	if ft < math.MinInt64+FileTimeEpochDelta {
		return 0, false
	}
	t := ft - FileTimeEpochDelta
	if t > math.MaxInt64/100 || t < math.MinInt64/100 {
		return 0, false
	}
	return t * 100, true
}

// FileTimeDuration converts a difference of FILETIMEs, in 100 ns units, to
// a Duration, saturating: a forged timestamp can be centuries away.
func FileTimeDuration(d uint64) time.Duration {
	const most = uint64(math.MaxInt64) / 100
	if d > most {
		return math.MaxInt64
	}
	return time.Duration(d * 100)
}
