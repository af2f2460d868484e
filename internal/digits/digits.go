// Package digits writes numbers as text without going through strconv's
// general path: most numbers of a trace are small, and strconv copies even
// those from a table through a call. The payload renderers, the GUID
// formatter and the text encoders share it.
package digits

import (
	"math/bits"
	"slices"
)

// Pairs holds the two decimal digits of 0 to 99, in order.
const Pairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" + "60616263646566676869" +
	"70717273747576777879" + "80818283848586878889" + "90919293949596979899"

// AppendDecimal appends x in decimal, as strconv.AppendUint does, with the
// digits written in place.
func AppendDecimal(dst []byte, x uint64) []byte {
	if x < 10 {
		return append(dst, byte('0'+x))
	}
	if x < 100 {
		return append(dst, Pairs[2*x], Pairs[2*x+1])
	}
	if x < 10000 {
		hi, lo := 2*(x/100), 2*(x%100)
		if x < 1000 {
			return append(dst, byte('0'+hi/2), Pairs[lo], Pairs[lo+1])
		}
		return append(dst, Pairs[hi], Pairs[hi+1], Pairs[lo], Pairs[lo+1])
	}
	// The digit count from the bit length: 1233/4096 is just above
	// log10(2), so the estimate is the count or one less.
	n := (bits.Len64(x) * 1233) >> 12
	if n < len(powersOf10) && x >= powersOf10[n] {
		n++
	}
	if n == len(powersOf10) && x >= 1e19 {
		n = 20
	}
	l := len(dst)
	dst = slices.Grow(dst, n)[:l+n]
	out := dst[l : l+n]
	i := n
	for x >= 100 {
		q := x / 100
		r := x - q*100
		i -= 2
		out[i], out[i+1] = Pairs[2*r], Pairs[2*r+1]
		x = q
	}
	if x >= 10 {
		out[i-2], out[i-1] = Pairs[2*x], Pairs[2*x+1]
	} else {
		out[i-1] = byte('0' + x)
	}
	return dst
}

// AppendInt appends x in decimal, as strconv.AppendInt does.
func AppendInt(dst []byte, x int64) []byte {
	if x < 0 {
		return AppendDecimal(append(dst, '-'), -uint64(x))
	}
	return AppendDecimal(dst, uint64(x))
}

// powersOf10 are 10^0 to 10^18.
var powersOf10 = func() (p [19]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// Hex8 turns the four bytes of w (little-endian) into their eight hex
// digits, upper- or lower-case, first byte first, as a little-endian word
// to store in one step.
func Hex8(w uint32, upper bool) uint64 {
	s := uint64(w)
	s = (s | s<<16) & 0x0000FFFF0000FFFF
	s = (s | s<<8) & 0x00FF00FF00FF00FF // byte k of w in the low byte of lane k
	n := (s>>4)&0x000F000F000F000F | (s&0x000F000F000F000F)<<8
	// Each byte is now a nibble: add '0', and the distance from '9'+1 to
	// 'A' or 'a' more above 9.
	above9 := ((n + 0x0606060606060606) >> 4) & 0x0101010101010101
	letters := uint64('a' - '0' - 10)
	if upper {
		letters = 'A' - '0' - 10
	}
	return n + 0x3030303030303030 + above9*letters
}

// Counted is a count with its noun: "1 record", "2 records", "0 records".
func Counted[N int | int64 | uint32](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return string(AppendInt(nil, int64(n))) + " " + many
}
