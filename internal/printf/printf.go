// Package printf parses and renders the printf conversions of
// FormatMessage inserts (the "08x" of %1!08x!), as Microsoft's C runtime
// prints them. Manifest and EventSource messages (package schema) and WPP
// format strings (package wpp) both use it.
package printf

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Conv is one printf conversion: flags, width, precision, whether the size
// prefix asks for wide characters (l, w), and the conversion letter.
type Conv struct {
	Minus, Plus, Space, Hash, Zero bool
	Width                          int
	Prec                           int // -1 when not given
	Wide                           bool
	Verb                           byte
}

// Default is the conversion of an insert that gives none: %s.
var Default = Conv{Prec: -1, Verb: 's'}

// maxDigits stops a width or precision from growing further: a format
// asking for more than this is kept at this order of size, not trusted.
const maxDigits = 1000

// Parse reads a conversion without its %: flags, width, precision, size
// prefix (h, hh, l, ll, L, w, z, j, t, I, I32, I64) and a conversion
// letter, with nothing after it. ok is false for anything else.
func Parse(s string) (cv Conv, ok bool) {
	cv.Prec = -1
	i := 0
flags:
	for ; i < len(s); i++ {
		switch s[i] {
		case '-':
			cv.Minus = true
		case '+':
			cv.Plus = true
		case ' ':
			cv.Space = true
		case '#':
			cv.Hash = true
		case '0':
			cv.Zero = true
		default:
			break flags
		}
	}
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if cv.Width < maxDigits {
			cv.Width = cv.Width*10 + int(s[i]-'0')
		}
	}
	if i < len(s) && s[i] == '.' {
		i++
		cv.Prec = 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if cv.Prec < maxDigits {
				cv.Prec = cv.Prec*10 + int(s[i]-'0')
			}
		}
	}
	switch {
	case strings.HasPrefix(s[i:], "I64"), strings.HasPrefix(s[i:], "I32"):
		i += 3
	case strings.HasPrefix(s[i:], "hh"), strings.HasPrefix(s[i:], "ll"):
		i += 2
	case i < len(s) && strings.IndexByte("hlLwzjtI", s[i]) >= 0:
		cv.Wide = s[i] == 'l' || s[i] == 'w'
		i++
	}
	if i != len(s)-1 {
		return cv, false
	}
	cv.Verb = s[i]
	switch cv.Verb {
	case 'd', 'i', 'u', 'x', 'X', 'o', 'c', 'C', 's', 'S', 'p', 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A', 'Z':
		return cv, true
	}
	return cv, false
}

// AppendInt renders the low size bytes of x (all 8 when size is 0 or
// more than 8): in hex for x and X (with 0x or 0X under #), in octal for
// o (a leading 0 under #), for p in upper-case hex of the size's width
// without 0x (as Microsoft's runtime prints pointers), else in decimal; signed reads them as a signed
// number, whose sign + and space also print for d and i. The precision is
// the least number of digits; a precision of 0 prints no digit for zero.
func AppendInt(dst []byte, cv Conv, x uint64, size int, signed bool) []byte {
	if size > 0 && size < 8 {
		x &= 1<<(8*uint(size)) - 1
	}
	mag := x
	neg := false
	if signed {
		if s := SignExtend(x, size); s < 0 {
			neg = true
			mag = uint64(-s)
		}
	}
	switch {
	case neg:
		dst = append(dst, '-')
	case cv.Plus && (cv.Verb == 'd' || cv.Verb == 'i'):
		dst = append(dst, '+')
	case cv.Space && (cv.Verb == 'd' || cv.Verb == 'i'):
		dst = append(dst, ' ')
	}
	base := 10
	switch cv.Verb {
	case 'x', 'X':
		base = 16
		if cv.Hash && mag != 0 {
			dst = append(dst, '0', cv.Verb)
		}
	case 'p':
		base = 16
		if cv.Prec < 0 {
			cv.Prec = 16
			if size > 0 && size < 8 {
				cv.Prec = 2 * size
			}
		}
	case 'o':
		base = 8
	}
	var tmp [64]byte
	digits := strconv.AppendUint(tmp[:0], mag, base)
	if cv.Prec == 0 && mag == 0 {
		digits = digits[:0]
	}
	if cv.Verb == 'X' || cv.Verb == 'p' {
		for i, c := range digits {
			if c >= 'a' && c <= 'f' {
				digits[i] = c - 'a' + 'A'
			}
		}
	}
	// # with o makes the first digit a zero, raising the precision when
	// it gives none.
	if cv.Verb == 'o' && cv.Hash && cv.Prec <= len(digits) && (len(digits) == 0 || digits[0] != '0') {
		dst = append(dst, '0')
	}
	for k := len(digits); k < cv.Prec; k++ {
		dst = append(dst, '0')
	}
	return append(dst, digits...)
}

// SignExtend reads the low size bytes of x as a signed number (all 8 when
// size is 0 or more than 7).
func SignExtend(x uint64, size int) int64 {
	if size <= 0 || size >= 8 {
		return int64(x)
	}
	shift := uint(64 - 8*size)
	return int64(x<<shift) >> shift
}

// AppendFloat renders a double by %e %f %g %a as C does (precision 6 by
// default, 13 hex digits for %a; %g without trailing zeros; %a's exponent
// without leading zeros); infinities and NaN
// as inf and nan.
func AppendFloat(dst []byte, cv Conv, f float64) []byte {
	upper := cv.Verb == 'E' || cv.Verb == 'F' || cv.Verb == 'G' || cv.Verb == 'A'
	switch {
	case math.Signbit(f) && !math.IsNaN(f):
		dst = append(dst, '-')
		f = -f
	case cv.Plus:
		dst = append(dst, '+')
	case cv.Space:
		dst = append(dst, ' ')
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		switch {
		case math.IsNaN(f) && upper:
			return append(dst, "NAN"...)
		case math.IsNaN(f):
			return append(dst, "nan"...)
		case upper:
			return append(dst, "INF"...)
		}
		return append(dst, "inf"...)
	}
	prec := cv.Prec
	if prec < 0 {
		prec = 6
	}
	var fmtByte byte
	switch cv.Verb {
	case 'e', 'E':
		fmtByte = 'e'
	case 'f', 'F':
		fmtByte = 'f'
	case 'a', 'A':
		// Microsoft's runtime prints 13 hex digits by default, the whole
		// mantissa of a double.
		fmtByte = 'x'
		if cv.Prec < 0 {
			prec = 13
		}
	default:
		// %g is %e or %f by the exponent X that %e would print with P
		// significant digits: %f with P-1-X decimals when P > X >= -4.
		// Unlike strconv's 'g', it keeps trailing zeros under #.
		if prec == 0 {
			prec = 1
		}
		mark := len(dst)
		dst = strconv.AppendFloat(dst, f, 'e', prec-1, 64)
		if x := exponent(dst[mark:]); prec > x && x >= -4 {
			dst = strconv.AppendFloat(dst[:mark], f, 'f', prec-1-x, 64)
		}
		if !cv.Hash {
			dst = trimFloatZeros(dst, mark)
		}
		return upperFloat(dst, mark, upper)
	}
	mark := len(dst)
	dst = strconv.AppendFloat(dst, f, fmtByte, prec, 64)
	if fmtByte == 'x' {
		dst = trimExponentZeros(dst, mark)
	}
	return upperFloat(dst, mark, upper)
}

// trimExponentZeros drops the leading zeros of the binary exponent of a
// number strconv printed in 'x' form: it writes at least two exponent
// digits (0x1.cp+01), C as many as the value needs (0x1.cp+1).
func trimExponentZeros(dst []byte, mark int) []byte {
	p := bytes.LastIndexByte(dst[mark:], 'p')
	if p < 0 {
		return dst
	}
	digits := mark + p + 2 // past the p and the exponent's sign
	z := digits
	for z < len(dst)-1 && dst[z] == '0' {
		z++
	}
	n := copy(dst[digits:], dst[z:])
	return dst[:digits+n]
}

// exponent reads the exponent of a number strconv printed in 'e' form
// (1.5e+06, 2e-05).
func exponent(e []byte) int {
	k := bytes.LastIndexByte(e, 'e')
	if k < 0 || k+2 >= len(e) {
		return 0
	}
	x := 0
	for _, c := range e[k+2:] {
		x = x*10 + int(c-'0')
	}
	if e[k+1] == '-' {
		return -x
	}
	return x
}

// upperFloat turns the letters of a number appended since mark to upper
// case for the upper-case conversions.
func upperFloat(dst []byte, mark int, upper bool) []byte {
	if upper {
		for i := mark; i < len(dst); i++ {
			if c := dst[i]; c >= 'a' && c <= 'z' {
				dst[i] = c - 32
			}
		}
	}
	return dst
}

// trimFloatZeros drops the trailing zeros of a %g mantissa, and its point
// when nothing follows it.
func trimFloatZeros(dst []byte, mark int) []byte {
	s := dst[mark:]
	exp := len(s)
	for i, c := range s {
		if c == 'e' {
			exp = i
			break
		}
	}
	mant := s[:exp]
	dot := false
	for _, c := range mant {
		if c == '.' {
			dot = true
		}
	}
	if !dot {
		return dst
	}
	end := len(mant)
	for end > 0 && mant[end-1] == '0' {
		end--
	}
	if end > 0 && mant[end-1] == '.' {
		end--
	}
	// Move the exponent down over the dropped zeros in place: a %g into a
	// buffer with room allocates nothing.
	n := copy(dst[mark+end:], s[exp:])
	return dst[:mark+end+n]
}

// CutRunes keeps at most n characters of what was appended since mark.
func CutRunes(dst []byte, mark, n int) []byte {
	i := mark
	for k := 0; k < n && i < len(dst); k++ {
		_, w := utf8.DecodeRune(dst[i:])
		i += w
	}
	return dst[:i]
}

// Pad widens what was appended since mark to the conversion's width:
// spaces before it, or after with "-", or zeros after the sign and any
// 0x for a number (numeric) with the "0" flag and no precision (a float's
// precision, %e %f %g %a in either case, does not stop the zeros).
func Pad(dst []byte, mark int, cv Conv, numeric bool) []byte {
	if cv.Width == 0 {
		return dst
	}
	n := utf8.RuneCount(dst[mark:])
	if cv.Width <= n {
		return dst
	}
	k := cv.Width - n
	if cv.Minus {
		for ; k > 0; k-- {
			dst = append(dst, ' ')
		}
		return dst
	}
	at := mark
	fill := byte(' ')
	if cv.Zero && numeric && (cv.Prec < 0 || isFloatVerb(cv.Verb)) {
		fill = '0'
		if at < len(dst) && (dst[at] == '-' || dst[at] == '+' || dst[at] == ' ') {
			at++
		}
		if at+1 < len(dst) && dst[at] == '0' && (dst[at+1] == 'x' || dst[at+1] == 'X') {
			at += 2
		}
	}
	old := len(dst)
	for i := 0; i < k; i++ {
		dst = append(dst, 0)
	}
	copy(dst[at+k:], dst[at:old])
	for i := at; i < at+k; i++ {
		dst[i] = fill
	}
	return dst
}

// isFloatVerb tells the floating-point conversions, whose precision counts
// decimals or significant digits rather than stopping the "0" flag.
func isFloatVerb(verb byte) bool {
	switch verb {
	case 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A':
		return true
	}
	return false
}
