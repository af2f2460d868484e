package printf

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Conv
		ok   bool
	}{
		{"s", Conv{Prec: -1, Verb: 's'}, true},
		{"08lx", Conv{Zero: true, Width: 8, Prec: -1, Wide: true, Verb: 'x'}, true},
		{"-10.3ws", Conv{Minus: true, Width: 10, Prec: 3, Wide: true, Verb: 's'}, true},
		{"+ #I64d", Conv{Plus: true, Space: true, Hash: true, Prec: -1, Verb: 'd'}, true},
		{"hhu", Conv{Prec: -1, Verb: 'u'}, true},
		{".f", Conv{Prec: 0, Verb: 'f'}, true},
		{"", Conv{Prec: -1}, false},
		{"l", Conv{Prec: -1, Wide: true}, false},
		{"dx", Conv{Prec: -1}, false},
		{"q", Conv{Prec: -1, Verb: 'q'}, false},
	} {
		got, ok := Parse(c.in)
		assert.Equal(t, c.ok, ok, c.in)
		if c.ok {
			assert.Equal(t, c.want, got, c.in)
		}
	}
	// A width or precision beyond reason stops growing once it reaches
	// maxDigits rather than overflowing: 9, 99, 999, then 9999 and no more.
	cv, ok := Parse("99999999999999999999999d")
	assert.True(t, ok)
	assert.Equal(t, 9999, cv.Width)
	cv, ok = Parse("1000000000000000000000.99999999999999999999999f")
	assert.True(t, ok)
	assert.Equal(t, 1000, cv.Width)
	assert.Equal(t, 9999, cv.Prec)
}

// render parses spec and renders x as a number of size bytes, padded.
func render(spec string, x uint64, size int, signed bool) string {
	cv, ok := Parse(spec)
	if !ok {
		return "!bad " + spec
	}
	dst := AppendInt([]byte("|"), cv, x, size, signed)
	return string(Pad(dst, 1, cv, true)[1:])
}

func TestAppendInt(t *testing.T) {
	for _, c := range []struct {
		spec   string
		x      uint64
		size   int
		signed bool
		want   string
	}{
		{"d", 0xFFFFFFFB, 4, true, "-5"},
		{"u", 0xFFFFFFFB, 4, false, "4294967291"},
		{"d", 0x1FFFFFFFB, 4, true, "-5"}, // the bytes past the size do not count
		{"+d", 5, 4, true, "+5"},
		{" d", 5, 4, true, " 5"},
		{"x", 255, 1, false, "ff"},
		{"#X", 255, 1, false, "0XFF"},
		{"#x", 0, 4, false, "0"},
		{"08x", 0xBEEF, 4, false, "0000beef"},
		{"#08x", 0xBEEF, 4, false, "0x00beef"},
		{"-6d|", 42, 4, true, "!bad -6d|"},
		{"-6d", 42, 4, true, "42    "},
		{"06d", 0xFFFFFFD6, 4, true, "-00042"},
		{".5d", 42, 4, true, "00042"},
		{"08.3d", 42, 4, true, "     042"}, // a precision stops the zeros
		{".0d", 0, 4, true, ""},
		{"o", 8, 4, false, "10"},
		{"#o", 8, 4, false, "010"},
		{"#.3o", 8, 4, false, "010"}, // # asks for a leading zero, which the precision gives
		{"#o", 0, 4, false, "0"},
		{"#.0o", 0, 4, false, "0"},
		{"I64u", math.MaxUint64, 8, false, "18446744073709551615"},
		{"I64d", 1 << 63, 0, true, "-9223372036854775808"},
		// %p: the pointer's width in upper-case hex, no 0x even under #.
		{"p", 0xBEEF, 4, false, "0000BEEF"},
		{"p", 0x7FF612345678, 8, false, "00007FF612345678"},
		{"p", 0x7FF612345678, 0, false, "00007FF612345678"},
		{"#p", 0xabc, 4, false, "00000ABC"},
		{".2p", 0xabc, 4, false, "ABC"},
		{"12p", 0xabc, 4, false, "    00000ABC"},
	} {
		assert.Equal(t, c.want, render(c.spec, c.x, c.size, c.signed), "%%%s of %#x", c.spec, c.x)
	}
}

func TestAppendFloat(t *testing.T) {
	for _, c := range []struct {
		spec string
		f    float64
		want string
	}{
		{"f", 1.5, "1.500000"},
		{".2f", -1.005, "-1.00"},
		{"e", 12345.678, "1.234568e+04"},
		{"E", 0.5, "5.000000E-01"},
		{"g", 0.0001, "0.0001"},
		{"g", 100000, "100000"},
		{"g", 1e6, "1e+06"},
		{"#g", 1.5, "1.50000"},
		{"g", 123456789, "1.23457e+08"},
		{"g", 0.00001234, "1.234e-05"},
		{".3g", 999.9, "1e+03"}, // rounding moves the exponent
		{"#.3g", 1, "1.00"},
		{"G", 1e-10, "1E-10"},
		{".0g", 0.5, "0.5"},
		{".10g", 1.0 / 3, "0.3333333333"},
		{"G", math.Inf(1), "INF"},
		{"f", math.NaN(), "nan"},
		{"+f", 1, "+1.000000"},
		{"010.2f", -3.14159, "-000003.14"},
		// A precision stops the zeros of no float conversion, in either case.
		{"010.2E", -3.5, "-03.50E+00"},
		{"010.2e", -3.5, "-03.50e+00"},
		{"010.2F", -3.5, "-000003.50"},
		{"010.2G", -3.5, "-0000003.5"},
		{"010.2g", -3.5, "-0000003.5"},
		{"010.1e", 3.5, "0003.5e+00"},
		// %a writes 13 hex digits unless told otherwise, as Microsoft's
		// runtime does (glibc writes the shortest exact form, 0x1.cp+1),
		// and its binary exponent without leading zeros.
		{"a", 3.5, "0x1.c000000000000p+1"},
		{".2a", 3.5, "0x1.c0p+1"},
		{"A", 0.1, "0X1.999999999999AP-4"},
		{"a", -0.1, "-0x1.999999999999ap-4"},
		{".1a", 0.1, "0x1.ap-4"},
		{"a", 1024, "0x1.0000000000000p+10"},
		{"a", 1e300, "0x1.7e43c8800759cp+996"},
		{"a", 1e-300, "0x1.56e1fc2f8f359p-997"},
		{"a", 0, "0x0.0000000000000p+0"},
		{".3a", 1, "0x1.000p+0"},
		{"012.2a", 3.5, "0x0001.c0p+1"},
		{"012.2A", -3.5, "-0X001.C0P+1"},
	} {
		cv, ok := Parse(c.spec)
		assert.True(t, ok, c.spec)
		got := Pad(AppendFloat(nil, cv, c.f), 0, cv, true)
		assert.Equal(t, c.want, string(got), "%%%s of %v", c.spec, c.f)
	}
}

func TestPadAndCut(t *testing.T) {
	cv, _ := Parse("-5s")
	assert.Equal(t, "é    ", string(Pad([]byte("é"), 0, cv, false)), "widths count characters, not bytes")
	cv, _ = Parse("5s")
	assert.Equal(t, ">   ab", string(Pad([]byte(">ab"), 1, cv, false)), "only what follows mark is padded")
	cv, _ = Parse("05s")
	assert.Equal(t, "   ab", string(Pad([]byte("ab"), 0, cv, false)), "text is never zero-filled")
	assert.Equal(t, "xé", string(CutRunes([]byte("xéèa"), 1, 1)))
	assert.Equal(t, "xab", string(CutRunes([]byte("xab"), 1, 5)))
}

func TestAppendFloatGAllocatesNothing(t *testing.T) {
	buf := make([]byte, 0, 64)
	for _, c := range []struct {
		spec string
		f    float64
		want string
	}{
		{"g", 1e6, "1e+06"}, // zeros trimmed before an exponent
		{"g", 1.5, "1.5"},
		{"G", 1.25e-10, "1.25E-10"},
		{".3g", 999.9, "1e+03"},
	} {
		cv, ok := Parse(c.spec)
		assert.True(t, ok, c.spec)
		allocs := testing.AllocsPerRun(100, func() {
			buf = AppendFloat(buf[:0], cv, c.f)
		})
		assert.Equal(t, c.want, string(buf), "%%%s of %v", c.spec, c.f)
		assert.Zero(t, allocs, "%%%s of %v", c.spec, c.f)
	}
}
