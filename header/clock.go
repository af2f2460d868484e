package header

import (
	"math/bits"
	"time"
)

// Clock converts raw session-clock timestamps to UTC. It is anchored on the
// logfile-header record: its raw timestamp is the session's StartTime.
type Clock struct {
	Kind      uint32 // the effective clock type after the fallback for 0
	Anchor    int64  // raw timestamp of the logfile-header record
	StartTime int64  // FILETIME of the session start
	// ProcessorTime is set for a private logger's file (LogFileMode
	// PRIVATE_LOGGER_MODE or PRIVATE_IN_PROC): its EVENT_TRACE_HEADER and
	// EVENT_HEADER records hold one 64-bit ProcessorTime where other files
	// hold KernelTime and UserTime. It lives here because the Clock is what
	// every record shares with its file, and it tells how the record
	// header's other time field reads.
	ProcessorTime bool
	// FILETIME units per raw tick = num / den.
	num, den uint64
}

// NewClock builds the conversion for a logfile header whose record carried
// the raw timestamp anchor.
//
// Clock type 0 (and an unknown type) means QPC when PerfFreq is set, system
// time otherwise; a CPU-cycle clock without a CPU speed falls back the same way.
func NewClock(h *LogfileHeader, anchor int64) Clock {
	c := Clock{Kind: h.ReservedFlags, Anchor: anchor, StartTime: h.StartTime,
		ProcessorTime: h.LogFileMode&(ModePrivateLogger|ModePrivateInProc) != 0}
	qpcOrSystem := func() {
		if h.PerfFreq > 0 {
			c.Kind, c.num, c.den = ClockQPC, 10_000_000, uint64(h.PerfFreq)
		} else {
			c.Kind, c.num, c.den = ClockSystemTime, 1, 1
		}
	}
	switch h.ReservedFlags {
	case ClockQPC:
		qpcOrSystem()
	case ClockSystemTime:
		c.num, c.den = 1, 1
	case ClockCPUCycle:
		if h.CPUSpeedInMHz > 0 {
			c.num, c.den = 10, uint64(h.CPUSpeedInMHz)
		} else {
			qpcOrSystem()
		}
	default:
		qpcOrSystem()
	}
	if c.num == c.den {
		c.num, c.den = 1, 1
	}
	return c
}

// FileTime converts a raw timestamp to a FILETIME with integer arithmetic:
// StartTime + (raw − Anchor) × num / den, rounded down, exact for any delta.
func (c *Clock) FileTime(raw int64) int64 {
	if c.den == 0 {
		return raw
	}
	if c.num == 1 && c.den == 1 {
		return c.StartTime + (raw - c.Anchor)
	}
	q, r, neg, ok := c.scaled(raw)
	if !ok {
		// The result cannot be represented; saturate rather than wrap.
		if neg {
			return c.StartTime - (1<<62 - 1)
		}
		return c.StartTime + (1<<62 - 1)
	}
	if q > 1<<62 {
		q, r = 1<<62, 0
	}
	if neg {
		s := -int64(q)
		if r != 0 {
			s-- // floor, so that the mapping stays monotonic across the anchor
		}
		return c.StartTime + s
	}
	return c.StartTime + int64(q)
}

// scaled is |raw − Anchor| × num / den, quotient and remainder, and whether
// raw is before the anchor; ok is false when the quotient does not fit in
// 64 bits.
func (c *Clock) scaled(raw int64) (q, r uint64, neg, ok bool) {
	delta := raw - c.Anchor
	neg = delta < 0
	mag := uint64(delta)
	if neg {
		mag = uint64(-delta)
	}
	hi, lo := bits.Mul64(mag, c.num)
	if hi >= c.den {
		return 0, 0, neg, false
	}
	q, r = bits.Div64(hi, lo, c.den)
	return q, r, neg, true
}

// UTC converts a raw timestamp to UTC.
func (c *Clock) UTC(raw int64) time.Time { return FileTimeToTime(c.FileTime(raw)) }

// FineFileTime is FileTime with what the division drops: frac is how far
// past the returned FILETIME the raw timestamp lies, in units of 2^-31 of
// 100 ns. Two raw timestamps of one clock that differ give pairs that
// differ (for clocks up to 2×10^16 Hz), so that timestamps from several
// clocks can be ordered below 100 ns where the clocks resolve it.
func (c *Clock) FineFileTime(raw int64) (ft int64, frac uint32) {
	ft = c.FileTime(raw)
	if c.den == 0 || c.num == 1 && c.den == 1 {
		return ft, 0
	}
	q, r, neg, ok := c.scaled(raw)
	if !ok || q > 1<<62 {
		return ft, 0 // saturated
	}
	if neg && r != 0 {
		// FileTime rounds down: the fraction is what lies above.
		r = c.den - r
	}
	// r < den, so r × 2^31 / den < 2^31.
	fh, fl := bits.Mul64(r, 1<<31)
	f, _ := bits.Div64(fh, fl, c.den)
	return ft, uint32(f)
}

// Duration is how long n raw ticks of the clock last, rounded down to
// 100 ns and saturating.
func (c *Clock) Duration(n uint64) time.Duration {
	ft := n
	if c.den != 0 && !(c.num == 1 && c.den == 1) {
		hi, lo := bits.Mul64(n, c.num)
		if hi >= c.den {
			return 1<<63 - 1
		}
		ft, _ = bits.Div64(hi, lo, c.den)
	}
	return FileTimeDuration(ft)
}

// Ticks is how many raw ticks of the clock d spans, rounded down and
// saturating; d below 0 gives 0.
func (c *Clock) Ticks(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	ft := uint64(d / 100)
	if c.den == 0 || c.num == 1 && c.den == 1 {
		return ft
	}
	hi, lo := bits.Mul64(ft, c.den)
	if hi >= c.num {
		return 1<<64 - 1
	}
	n, _ := bits.Div64(hi, lo, c.num)
	return n
}
