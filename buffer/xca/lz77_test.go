package xca

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The two Plain LZ77 examples given in [MS-XCA] 3.1.
var (
	specAlphabet     = []byte("abcdefghijklmnopqrstuvwxyz")
	specAlphabetLZ77 = append([]byte{0x3f, 0x00, 0x00, 0x00}, specAlphabet...)
	specABC          = bytes.Repeat([]byte("abc"), 100)
	specABCLZ77      = []byte{0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01}
)

// decoder is the signature all three decoders share.
type decoder func(dst, src []byte) (int, error)

// guardByte fills the bytes after dst; a decoder that writes past len(dst)
// changes them, whatever byte it writes.
const guardByte = 0xA5

// decodeGuarded runs decode on src with a size-byte dst followed by a guard
// area, and fails the test when the decoder reports more than size bytes
// or writes into the guard.
func decodeGuarded(tb testing.TB, decode decoder, src []byte, size int) ([]byte, int, error) {
	tb.Helper()
	buf := make([]byte, size+16)
	for i := range buf[size:] {
		buf[size+i] = guardByte
	}
	n, err := decode(buf[:size], src)
	if n < 0 || n > size {
		tb.Fatalf("returned %d for a %d-byte dst", n, size)
	}
	if !bytes.Equal(buf[size:], bytes.Repeat([]byte{guardByte}, 16)) {
		tb.Fatalf("wrote past len(dst)")
	}
	return buf[:size], n, err
}

// decodeExact decodes src, which must give exactly size bytes.
func decodeExact(t *testing.T, decode decoder, src []byte, size int) []byte {
	t.Helper()
	dst, n, err := decodeGuarded(t, decode, src, size)
	require.NoError(t, err)
	require.Equal(t, size, n)
	return dst
}

// requireDecodeError decodes src into a size-byte dst and requires the
// given error, which like every decoding error matches ErrCorrupt.
func requireDecodeError(t *testing.T, decode decoder, src []byte, size int, want error) {
	t.Helper()
	_, _, err := decodeGuarded(t, decode, src, size)
	require.ErrorIs(t, err, want)
	require.ErrorIs(t, err, ErrCorrupt)
}

func decodeLZ77(t *testing.T, src []byte, size int) []byte {
	t.Helper()
	return decodeExact(t, DecompressLZ77, src, size)
}

func TestDecompressLZ77SpecExamples(t *testing.T) {
	require.Equal(t, specAlphabet, decodeLZ77(t, specAlphabetLZ77, len(specAlphabet)))
	require.Equal(t, specABC, decodeLZ77(t, specABCLZ77, len(specABC)))
}

func TestCompressLZ77SpecExamples(t *testing.T) {
	// A greedy longest-match encoder produces exactly the documented bytes.
	require.Equal(t, specAlphabetLZ77, CompressLZ77(nil, specAlphabet))
	require.Equal(t, specABCLZ77, CompressLZ77(nil, specABC))
}

func TestCompressLZ77AppendsToDst(t *testing.T) {
	prefix := []byte("hdr")
	out := CompressLZ77(append([]byte(nil), prefix...), specABC)
	require.Equal(t, prefix, out[:3])
	require.Equal(t, specABCLZ77, out[3:])
}

func TestCompressLZ77Empty(t *testing.T) {
	out := CompressLZ77(nil, nil)
	require.Equal(t, []byte{0xff, 0xff, 0xff, 0xff}, out)
	n, err := DecompressLZ77(nil, out)
	require.NoError(t, err)
	require.Zero(t, n)
}

func roundTripLZ77(t *testing.T, data []byte) []byte {
	t.Helper()
	c := CompressLZ77(nil, data)
	got := decodeExact(t, DecompressLZ77, c, len(data))
	require.True(t, bytes.Equal(data, got), "round trip differs")
	return c
}

func testInputs() map[string][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 70000)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	// Text-like data: words from a small vocabulary, so matches of many
	// lengths and offsets occur.
	words := []string{"event", "provider", "Microsoft-Windows-", "kernel", " ", "0x", "thread", "\x00\x00", "process", "ETW"}
	var text []byte
	for len(text) < 200000 {
		text = append(text, words[r.IntN(len(words))]...)
	}
	// Low-entropy binary: small values in little-endian u32 fields.
	lowent := make([]byte, 100000)
	for i := 0; i+4 <= len(lowent); i += 4 {
		binary.LittleEndian.PutUint32(lowent[i:], uint32(r.IntN(16)))
	}
	return map[string][]byte{
		"empty":       {},
		"one":         {'x'},
		"two":         {'x', 'y'},
		"three-same":  {'a', 'a', 'a'},
		"four-same":   {'a', 'a', 'a', 'a'},
		"alphabet":    specAlphabet,
		"abc":         specABC,
		"zeros64k":    make([]byte, 65536),
		"zeros-huge":  make([]byte, 300000), // 32-bit length escape
		"random":      random,
		"random-1":    random[:1],
		"random-31":   random[:31],
		"random-32":   random[:32],
		"random-33":   random[:33],
		"random-64k":  random[:65536],
		"text":        text,
		"lowentropy":  lowent,
		"repeat-2":    bytes.Repeat([]byte("ab"), 40000),
		"repeat-9000": bytes.Repeat(random[:9000], 5), // period beyond the window
		"mixed":       append(append(append([]byte{}, random[:5000]...), make([]byte, 70000)...), text[:5000]...),
	}
}

func TestRoundTripLZ77(t *testing.T) {
	for name, data := range testInputs() {
		t.Run(name, func(t *testing.T) {
			c := roundTripLZ77(t, data)
			t.Logf("%d -> %d bytes", len(data), len(c))
		})
	}
}

func TestRoundTripLZ77MatchLengths(t *testing.T) {
	// Every length around the encoding's boundaries: 3..9 fit the token,
	// 10..24 the nibble, 25..279 the byte, then the 16-bit and 32-bit forms.
	r := rand.New(rand.NewPCG(3, 4))
	head := make([]byte, 64)
	for i := range head {
		head[i] = byte(r.Uint32())
	}
	lengths := []int{3, 4, 9, 10, 11, 24, 25, 26, 278, 279, 280, 281, 1000, 65538, 65539, 65540, 70000}
	for _, l := range lengths {
		// head, then a copy of its start of length l (offset 64, no overlap
		// for l <= 64; longer ones become overlapping periodic matches).
		data := append([]byte{}, head...)
		for i := 0; i < l; i++ {
			data = append(data, data[i])
		}
		data = append(data, 0xAB) // a literal after the match
		roundTripLZ77(t, data)
	}
	// Many long matches in a row so the shared nibble byte is used in both halves.
	var data []byte
	for i := 0; i < 40; i++ {
		block := make([]byte, 30)
		for j := range block {
			block[j] = byte(r.Uint32())
		}
		data = append(data, block...)
		data = append(data, block...)
		data = append(data, block[:10+i%15]...)
	}
	roundTripLZ77(t, data)
}

// lz77Builder writes Plain LZ77 streams item by item so tests can state the
// exact tokens they mean.
type lz77Builder struct {
	out     []byte
	flagPos int
	flags   uint32
	nflags  int
	nibble  int
}

func newLZ77Builder() *lz77Builder {
	return &lz77Builder{out: []byte{0, 0, 0, 0}, nibble: -1}
}

func (b *lz77Builder) flag(bit uint32) {
	b.flags = b.flags<<1 | bit
	b.nflags++
	if b.nflags == 32 {
		binary.LittleEndian.PutUint32(b.out[b.flagPos:], b.flags)
		b.flagPos = len(b.out)
		b.out = append(b.out, 0, 0, 0, 0)
		b.flags, b.nflags = 0, 0
	}
}

func (b *lz77Builder) lit(s string) *lz77Builder {
	for i := 0; i < len(s); i++ {
		b.out = append(b.out, s[i])
		b.flag(0)
	}
	return b
}

func (b *lz77Builder) match(off, length int) *lz77Builder {
	b.out, b.nibble = appendMatch(b.out, b.nibble, off, length)
	b.flag(1)
	return b
}

// raw appends bytes with a match flag, for hand-made malformed tokens.
func (b *lz77Builder) raw(p ...byte) *lz77Builder {
	b.out = append(b.out, p...)
	b.flag(1)
	return b
}

func (b *lz77Builder) bytes() []byte {
	rest := uint(32 - b.nflags)
	f := b.flags<<rest | uint32(uint64(1)<<rest-1)
	out := append([]byte{}, b.out...)
	binary.LittleEndian.PutUint32(out[b.flagPos:], f)
	return out
}

func TestDecompressLZ77Tokens(t *testing.T) {
	// Overlapping match with offset 1 (run-length) and offset 2.
	src := newLZ77Builder().lit("x").match(1, 20).lit("ab").match(2, 9).bytes()
	require.Equal(t, []byte(strings.Repeat("x", 21)+"abababababa"), decodeLZ77(t, src, 32))

	// The 16-bit length escape written by hand: token offset 1 length 7,
	// nibble 15, byte 255, u16 = length-3.
	src = newLZ77Builder().lit("z").raw(0x07, 0x00, 0x0f, 0xff, 0xe8, 0x03).bytes()
	require.Equal(t, bytes.Repeat([]byte("z"), 1+1003), decodeLZ77(t, src, 1004))

	// The 32-bit escape: u16 0 then u32 length-3.
	src = newLZ77Builder().lit("q").raw(0x07, 0x00, 0x0f, 0xff, 0x00, 0x00, 0xa0, 0x86, 0x01, 0x00).bytes()
	require.Equal(t, bytes.Repeat([]byte("q"), 1+100003), decodeLZ77(t, src, 100004))

	// Two long matches sharing one nibble byte: low nibble 2 (length 12),
	// high nibble 5 (length 15).
	src = newLZ77Builder().lit("abcd").raw(0x1f, 0x00, 0x52).raw(0x07, 0x00).bytes()
	want := []byte("abcd")
	for i := 0; i < 12; i++ {
		want = append(want, want[len(want)-4])
	}
	for i := 0; i < 15; i++ {
		want = append(want, want[len(want)-1])
	}
	require.Equal(t, want, decodeLZ77(t, src, len(want)))

	// Maximum offset 8192.
	data := make([]byte, 8192+10)
	for i := range data[:8192] {
		data[i] = byte(i*7 + i>>8)
	}
	copy(data[8192:], data[:10])
	src = newLZ77Builder().lit(string(data[:8192])).match(8192, 10).bytes()
	require.Equal(t, data, decodeLZ77(t, src, len(data)))
}

func TestDecompressLZ77EndOfInput(t *testing.T) {
	// Input that stops at a literal position (no all-ones padding): the
	// stream just ends, with the shorter count returned.
	src := append([]byte{0, 0, 0, 0}, "hello"...)
	dst := make([]byte, 10)
	n, err := DecompressLZ77(dst, src)
	require.NoError(t, err)
	require.Equal(t, 5, n)
	require.Equal(t, []byte("hello"), dst[:n])

	// Input that stops exactly at a flag-word boundary.
	src = append([]byte{0, 0, 0, 0}, bytes.Repeat([]byte("y"), 32)...)
	n, err = DecompressLZ77(make([]byte, 32), src)
	require.NoError(t, err)
	require.Equal(t, 32, n)

	// A larger dst than needed: the caller sees the short count.
	dst = make([]byte, 500)
	n, err = DecompressLZ77(dst, specABCLZ77)
	require.NoError(t, err)
	require.Equal(t, 300, n)
	require.Equal(t, specABC, dst[:n])
}

func TestDecompressLZ77Errors(t *testing.T) {
	cases := []struct {
		name string
		src  []byte
		size int
		want error
	}{
		{"offset before start", newLZ77Builder().lit("ab").match(3, 3).bytes(), 10, ErrBadOffset},
		{"match at start", newLZ77Builder().match(1, 3).bytes(), 10, ErrBadOffset},
		{"truncated flags", []byte{0, 0, 0}, 10, ErrTruncated},
		{"truncated flags after data", append(make([]byte, 4+32), 1, 2), 100, ErrTruncated},
		{"truncated token", []byte{0x00, 0x00, 0x00, 0x40, 'a', 0x00}, 10, ErrTruncated},
		{"truncated nibble", []byte{0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00}, 100, ErrTruncated},
		{"truncated length byte", []byte{0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00, 0x0f}, 1000, ErrTruncated},
		{"truncated u16", []byte{0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00, 0x0f, 0xff, 0x01}, 1000, ErrTruncated},
		{"truncated u32", []byte{0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00, 0x0f, 0xff, 0x00, 0x00, 0x01, 0x02}, 1000, ErrTruncated},
		{"u16 below minimum", newLZ77Builder().lit("a").raw(0x07, 0x00, 0x0f, 0xff, 0x15, 0x00).bytes(), 1000, ErrCorrupt},
		{"u32 below minimum", newLZ77Builder().lit("a").raw(0x07, 0x00, 0x0f, 0xff, 0, 0, 0x15, 0, 0, 0).bytes(), 1000, ErrCorrupt},
		{"match overflows dst", specABCLZ77, 299, ErrOutputOverflow},
		{"literal overflows dst", specAlphabetLZ77, 25, ErrOutputOverflow},
		{"huge u32 length", newLZ77Builder().lit("a").raw(0x07, 0x00, 0x0f, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff).bytes(), 1 << 20, ErrOutputOverflow},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireDecodeError(t, DecompressLZ77, c.src, c.size, c.want)
		})
	}
}

func TestDecompressLZ77ShortCopies(t *testing.T) {
	// Every short offset/length pair, once with dst ending right after the
	// match and once with room to spare, so both the fixed-width fast
	// paths and the exact copies are used; a byte loop gives the expected
	// output.
	prefix := []byte("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh")
	for off := 1; off <= 40; off++ {
		for n := 3; n <= 40; n++ {
			want := append([]byte{}, prefix...)
			for i := 0; i < n; i++ {
				want = append(want, want[len(want)-off])
			}
			for _, tail := range []string{"", "+-"} {
				w := append(append([]byte{}, want...), tail...)
				src := newLZ77Builder().lit(string(prefix)).match(off, n).lit(tail).bytes()
				for _, spare := range []int{0, 40} {
					dst := make([]byte, len(w)+spare)
					got, err := DecompressLZ77(dst, src)
					require.NoError(t, err)
					require.Equal(t, len(w), got)
					require.Equal(t, w, dst[:got], "off %d len %d tail %q spare %d", off, n, tail, spare)
				}
			}
		}
	}
}

// The match finder's table outlives its inputs: positions of earlier
// inputs, the base that tells them apart about to overflow and the table
// cleared, none of them gives a wrong match.
func TestCompressLZ77ReusedTable(t *testing.T) {
	m := new(matcher)
	inputs := testInputs()
	text := inputs["text"][:20000]
	for _, base := range []int32{0, 1<<31 - 1 - 30000, 1<<31 - 1 - 20000 - lz77MaxOffset, 1<<31 - 1} {
		m.base = base
		for _, in := range [][]byte{text, text[5:], inputs["random-33"], text} {
			c := m.compress(nil, in)
			got := decodeExact(t, DecompressLZ77, c, len(in))
			require.True(t, bytes.Equal(in, got), "base %d", base)
		}
	}
}
