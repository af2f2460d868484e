package textsink

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"time"
	"unsafe"

	"github.com/etlkit/etlkit/internal/digits"
	"github.com/etlkit/etlkit/payload"
)

const hexLower = "0123456789abcdef"

// timeCache remembers the date and time of day of the last second
// rendered: records come in bursts within one second, and then only the
// fraction changes.
type timeCache struct {
	sec    int64
	prefix []byte // "2006-01-02T15:04:05."
}

func (c *timeCache) append(dst []byte, t time.Time) []byte {
	sec := t.Unix()
	if c.prefix == nil || sec != c.sec {
		full := payload.AppendTime(c.prefix[:0], t)
		c.prefix, c.sec = full[:len(full)-8], sec
	}
	dst = append(dst, c.prefix...)
	// Seven digits of 100 ns: one digit, then three pairs.
	frac := uint32(t.Nanosecond() / 100)
	n := len(dst)
	dst = append(dst, "0000000Z"...)
	out := dst[n : n+7]
	for i := 5; i >= 1; i -= 2 {
		r := frac % 100
		frac /= 100
		out[i], out[i+1] = digits.Pairs[2*r], digits.Pairs[2*r+1]
	}
	out[0] = byte('0' + frac)
	return dst
}

// rawCache remembers the digits of a raw timestamp above its last four:
// records come in time order, mostly fewer than ten thousand ticks apart,
// and then only the last four digits change.
type rawCache struct {
	high   int64
	prefix []byte
}

func (c *rawCache) append(dst []byte, v int64) []byte {
	if v < 10000 {
		return digits.AppendInt(dst, v)
	}
	high := v / 10000
	if c.prefix == nil || high != c.high {
		c.prefix, c.high = appendUint(c.prefix[:0], uint64(high)), high
	}
	dst = append(dst, c.prefix...)
	low := v - high*10000
	hi, lo := 2*(low/100), 2*(low%100)
	return append(dst, digits.Pairs[hi], digits.Pairs[hi+1], digits.Pairs[lo], digits.Pairs[lo+1])
}

// appendHex16 appends "0x" and exactly 16 hex digits: keywords are masks,
// and a fixed width lines them up and keeps their bits readable.
func appendHex16(dst []byte, v uint64) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 18)[:n+18]
	out := dst[n : n+18]
	out[0], out[1] = '0', 'x'
	// hex8 writes a word's bytes first byte first; reversing them puts the
	// most significant digits first.
	binary.LittleEndian.PutUint64(out[2:], hex8(bits.ReverseBytes32(uint32(v>>32))))
	binary.LittleEndian.PutUint64(out[10:], hex8(bits.ReverseBytes32(uint32(v))))
	return dst
}

// appendHexShort appends "0x" and the hex digits without leading zeros.
func appendHexShort(dst []byte, v uint64) []byte {
	dst = append(dst, '0', 'x')
	n := 1
	for y := v >> 4; y != 0; y >>= 4 {
		n++
	}
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, hexLower[(v>>(4*uint(i)))&15])
	}
	return dst
}

// appendHexBytes appends b as lowercase hex digits.
//
// Payload hex is the bulk of the JSON and CSV output of kernel traces, so
// four bytes at a time are turned into eight digits with word arithmetic.
func appendHexBytes(dst []byte, b []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 2*len(b))[:n+2*len(b)]
	out := dst[n:]
	// Slicing as we go lets the compiler drop the bounds checks.
	for len(b) >= 4 && len(out) >= 8 {
		binary.LittleEndian.PutUint64(out, hex8(binary.LittleEndian.Uint32(b)))
		b, out = b[4:], out[8:]
	}
	for i, c := range b {
		out[2*i], out[2*i+1] = hexLower[c>>4], hexLower[c&15]
	}
	return dst
}

// hex8 gives the eight lowercase hex digits of the four bytes of w.
func hex8(w uint32) uint64 { return digits.Hex8(w, false) }

// appendUint appends v in decimal. Most header numbers (version, level,
// opcode, processor) are below 100 and skip strconv's general path.
func appendUint(dst []byte, v uint64) []byte {
	// Small enough to inline: most header numbers are one digit.
	if v < 10 {
		return append(dst, byte('0'+v))
	}
	return digits.AppendDecimal(dst, v)
}

// appendID appends a process or thread id of a record's header. The
// header holds them unsigned, but ETW writes 0xFFFFFFFF for "none"
// (KernelTraceControl's ImageID records have thread -1), which TraceEvent
// shows as -1: ids are read as signed 32-bit numbers.
func appendID(dst []byte, v uint32) []byte {
	if v < 10 {
		return append(dst, byte('0'+v))
	}
	return digits.AppendInt(dst, int64(int32(v)))
}

// appendStrings appends key and the readable strings of a payload no
// schema decoded (payload.NextString) as a JSON array, or nothing when it
// holds none.
func appendStrings(dst []byte, key string, userData []byte) []byte {
	if out, ok := payload.AppendStringsJSON(append(dst, key...), userData); ok {
		return out
	}
	return dst
}

// bytesOf views a string's bytes without copying them; the appenders only
// read them.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
