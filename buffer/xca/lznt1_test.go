package xca

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"
)

// encodeLZNT1 is a test encoder: greedy matches within each 4 KiB chunk,
// limited by the offset/length split at each position; a chunk that does
// not shrink is stored uncompressed.
func encodeLZNT1(data []byte) []byte {
	var out []byte
	for start := 0; start < len(data); start += lznt1ChunkSize {
		chunk := data[start:min(start+lznt1ChunkSize, len(data))]
		var body []byte
		for p := 0; p < len(chunk); {
			flagAt := len(body)
			body = append(body, 0)
			for i := 0; i < 8 && p < len(chunk); i++ {
				best, bestOff := 0, 0
				if p > 0 {
					ob := max(4, bits.Len(uint(p-1)))
					maxLen := min(1<<(16-ob)+2, len(chunk)-p)
					for off := 1; off <= p; off++ {
						l := 0
						for l < maxLen && chunk[p-off+l] == chunk[p+l] {
							l++
						}
						if l > best {
							best, bestOff = l, off
						}
					}
					if best >= 3 {
						tok := uint16(bestOff-1)<<(16-ob) | uint16(best-3)
						body = binary.LittleEndian.AppendUint16(body, tok)
						body[flagAt] |= 1 << i
						p += best
						continue
					}
				}
				body = append(body, chunk[p])
				p++
			}
		}
		if len(body) < len(chunk) {
			out = binary.LittleEndian.AppendUint16(out, 0xB000|uint16(len(body)-1))
			out = append(out, body...)
		} else {
			out = binary.LittleEndian.AppendUint16(out, 0x3000|uint16(len(chunk)-1))
			out = append(out, chunk...)
		}
	}
	return out
}

func decodeLZNT1(t *testing.T, src []byte, size int) []byte {
	t.Helper()
	return decodeExact(t, DecompressLZNT1, src, size)
}

func TestDecompressLZNT1HandVectors(t *testing.T) {
	// One compressed chunk: header 0xB005 (data length 6), flag byte 0x08
	// (three literals then a copy token), token 0x200C at position 3:
	// 4 offset bits hold 3-1, 12 length bits hold 15-3.
	src := []byte{0x05, 0xB0, 0x08, 'a', 'b', 'c', 0x0C, 0x20}
	require.Equal(t, bytes.Repeat([]byte("abc"), 6), decodeLZNT1(t, src, 18))
	require.Equal(t, src, encodeLZNT1(bytes.Repeat([]byte("abc"), 6)))

	// A zero header ends the stream; what follows is ignored.
	n, err := DecompressLZNT1(make([]byte, 18), append(append([]byte{}, src...), 0, 0, 0xff))
	require.NoError(t, err)
	require.Equal(t, 18, n)

	// An uncompressed chunk followed by a compressed one: matches stay in
	// their chunk, so the second chunk repeats its own bytes only.
	src = []byte{0x02, 0x30, 'x', 'y', 'z', 0x03, 0xB0, 0x02, 'q', 0x02, 0x00}
	require.Equal(t, []byte("xyzqqqqqq"), decodeLZNT1(t, src, 9))

	// At position 17 the offset takes 5 bits and the length 11: token
	// (17-1)<<11 | (20-3) copies 20 bytes from the chunk start.
	data := []byte("0123456789abcdefg")
	body := []byte{0x00}
	body = append(body, data[:8]...)
	body = append(body, 0x00)
	body = append(body, data[8:16]...)
	body = append(body, 0x02, data[16])
	body = binary.LittleEndian.AppendUint16(body, 16<<11|17)
	src = binary.LittleEndian.AppendUint16(nil, 0xB000|uint16(len(body)-1))
	src = append(src, body...)
	want := append(append([]byte{}, data...), data[:17]...)
	want = append(want, data[:3]...)
	require.Equal(t, want, decodeLZNT1(t, src, 37))
}

func TestRoundTripLZNT1(t *testing.T) {
	for name, data := range testInputs() {
		if len(data) > 33000 {
			data = data[:33000] // the test encoder is quadratic per chunk
		}
		t.Run(name, func(t *testing.T) {
			src := encodeLZNT1(data)
			require.Equal(t, data, decodeLZNT1(t, src, len(data)))
		})
	}
}

func TestDecompressLZNT1Errors(t *testing.T) {
	good := encodeLZNT1(specABC)
	cases := []struct {
		name string
		src  []byte
		size int
		want error
	}{
		{"copy at chunk start", []byte{0x02, 0xB0, 0x01, 0x00, 0x00}, 10, ErrBadOffset},
		{"offset before chunk start", []byte{0x03, 0xB0, 0x02, 'a', 0x00, 0x10}, 10, ErrBadOffset},
		{"offset into previous chunk", []byte{0x00, 0x30, 'a', 0x02, 0xB0, 0x01, 0x00, 0x00}, 10, ErrBadOffset},
		{"truncated header", []byte{0x05}, 10, ErrTruncated},
		{"truncated chunk", good[:len(good)-1], len(specABC), ErrTruncated},
		{"truncated token", []byte{0x02, 0xB0, 0x02, 'a', 0x00}, 10, ErrTruncated},
		{"overflow", good, len(specABC) - 1, ErrOutputOverflow},
		{"overflow uncompressed", []byte{0x02, 0x30, 'x', 'y', 'z'}, 2, ErrOutputOverflow},
		{"chunk beyond 4 KiB", []byte{0x03, 0xB0, 0x02, 'a', 0xff, 0x0f, 0x04, 0xB0, 0x02, 'a', 0x00, 0x00}, 9000, ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireDecodeError(t, DecompressLZNT1, c.src, c.size, c.want)
		})
	}
}
