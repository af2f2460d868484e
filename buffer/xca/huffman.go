package xca

import (
	"encoding/binary"
	"sync"
)

const (
	huffSymbols    = 512
	huffTableBytes = huffSymbols / 2 // 4-bit code length per symbol
	huffMaxBits    = 15
	huffBlockSize  = 1 << 16
)

// HuffmanDecoder decodes LZ77+Huffman streams. Its decoding table is too
// large for a cheap stack frame, so it lives here and is rebuilt in place
// for every block; reuse one HuffmanDecoder (not concurrently) to decode
// without allocating. The zero value is ready to use.
type HuffmanDecoder struct {
	// table maps the next 15 bits of the stream to symbol | length<<9.
	table [1 << huffMaxBits]uint16
}

var huffPool = sync.Pool{New: func() any { return new(HuffmanDecoder) }}

// DecompressLZ77Huffman decodes an LZ77+Huffman ([MS-XCA] 2.1/2.2) stream
// from src into dst and returns the number of bytes written. It borrows a
// HuffmanDecoder from a pool; callers that must never allocate should hold
// their own HuffmanDecoder.
func DecompressLZ77Huffman(dst, src []byte) (int, error) {
	d := huffPool.Get().(*HuffmanDecoder)
	n, err := d.Decompress(dst, src)
	huffPool.Put(d)
	return n, err
}

// Decompress decodes an LZ77+Huffman stream from src into dst and returns
// the number of bytes written.
//
// Decoding stops once dst is full, so the end-of-stream symbol the encoder
// writes after the data is not needed. When src ends at a block boundary
// before dst is full, the short count is returned with a nil error; the
// caller compares it with the size it expected.
func (d *HuffmanDecoder) Decompress(dst, src []byte) (int, error) {
	ip, op := 0, 0
	for op < len(dst) {
		if ip == len(src) {
			return op, nil
		}
		if len(src)-ip < huffTableBytes+4 {
			return op, ErrTruncated
		}
		if err := d.build(src[ip : ip+huffTableBytes]); err != nil {
			return op, err
		}
		ip += huffTableBytes

		// The bit stream is 16-bit little-endian words consumed from the
		// most significant bit. next holds 16+extra valid bits, always at
		// least 16 after a refill, which covers any one code or offset.
		// Length bytes are read from the input position between words, so
		// the word reads must happen exactly when the format says: one
		// word whenever fewer than 16 bits remain.
		next := uint32(binary.LittleEndian.Uint16(src[ip:]))<<16 | uint32(binary.LittleEndian.Uint16(src[ip+2:]))
		ip += 4
		extra := 16
		// Words read past the end of src count as zeros so that a stream
		// without trailing padding still decodes; phantom counts those
		// bits, and using any of them is truncation.
		phantom := 0

		// A match may run past the block end; the next block then starts
		// where it finished.
		blockEnd := op + huffBlockSize
		for op < blockEnd {
			if op >= len(dst) {
				return op, nil
			}
			e := d.table[next>>(32-huffMaxBits)]
			sym := uint(e & (huffSymbols - 1))
			bl := uint(e >> 9)
			next <<= bl
			extra -= int(bl)
			if extra < 0 {
				if len(src)-ip >= 2 {
					next |= uint32(binary.LittleEndian.Uint16(src[ip:])) << uint(-extra)
					ip += 2
				} else {
					phantom += 16
				}
				extra += 16
			}
			if phantom != 0 && phantom > 16+extra {
				return op, ErrTruncated
			}

			if sym < 256 {
				dst[op] = byte(sym)
				op++
				continue
			}

			sym -= 256
			length := uint64(sym & 15)
			obits := sym >> 4
			if length == 15 {
				var err error
				if length, ip, err = wideLength(src, ip, 15); err != nil {
					return op, err
				}
			}
			length += 3

			off := int(next>>(32-obits)) + 1<<obits
			next <<= obits
			extra -= int(obits)
			if extra < 0 {
				if len(src)-ip >= 2 {
					next |= uint32(binary.LittleEndian.Uint16(src[ip:])) << uint(-extra)
					ip += 2
				} else {
					phantom += 16
				}
				extra += 16
			}
			if phantom != 0 && phantom > 16+extra {
				return op, ErrTruncated
			}

			if off > op {
				return op, ErrBadOffset
			}
			if length > uint64(len(dst)-op) {
				return op, ErrOutputOverflow
			}
			n := int(length)
			copyMatch(dst, op, off, n)
			op += n
		}
	}
	return op, nil
}

// build fills the decoding table from a block's 256-byte code-length table
// (symbol 2i in the low nibble of byte i, 2i+1 in the high nibble).
// Canonical order is by length, then symbol; each code of length l covers
// 2^(15-l) consecutive entries. A code that does not fill the table exactly
// would leave bit patterns undecodable or overlap, so it is rejected.
func (d *HuffmanDecoder) build(lengths []byte) error {
	lengths = lengths[:huffTableBytes]
	var count [huffMaxBits + 1]int
	for _, b := range lengths {
		count[b&15]++
		count[b>>4]++
	}
	var next [huffMaxBits + 1]int
	pos := 0
	for l := 1; l <= huffMaxBits; l++ {
		next[l] = pos
		pos += count[l] << (huffMaxBits - l)
	}
	if pos != len(d.table) {
		return ErrCorrupt
	}
	for i, b := range lengths {
		for h := 0; h < 2; h++ {
			l := int(b & 15)
			b >>= 4
			if l == 0 {
				continue
			}
			e := uint16(2*i+h) | uint16(l)<<9
			p := next[l]
			n := 1 << (huffMaxBits - l)
			t := d.table[p : p+n]
			for j := range t {
				t[j] = e
			}
			next[l] = p + n
		}
	}
	return nil
}
