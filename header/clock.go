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
	delta := raw - c.Anchor
	neg := delta < 0
	mag := uint64(delta)
	if neg {
		mag = uint64(-delta)
	}
	hi, lo := bits.Mul64(mag, c.num)
	if hi >= c.den {
		// The result cannot be represented; saturate rather than wrap.
		if neg {
			return c.StartTime - (1<<62 - 1)
		}
		return c.StartTime + (1<<62 - 1)
	}
	q, r := bits.Div64(hi, lo, c.den)
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

// UTC converts a raw timestamp to UTC.
func (c *Clock) UTC(raw int64) time.Time { return FileTimeToTime(c.FileTime(raw)) }
