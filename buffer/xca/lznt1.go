package xca

import (
	"encoding/binary"
	"math/bits"
)

const lznt1ChunkSize = 4096

// DecompressLZNT1 decodes an LZNT1 ([MS-XCA] 2.5) stream from src into dst
// and returns the number of bytes written.
//
// The stream ends at a zero chunk header or where the input ends between
// chunks; n may then be less than len(dst) and the caller compares it with
// the size it expected. The 3-bit signature in chunk headers is not checked:
// only the size and the compressed flag affect decoding, and other decoders
// accept any value there.
func DecompressLZNT1(dst, src []byte) (int, error) {
	ip, op := 0, 0
	for ip < len(src) {
		if len(src)-ip < 2 {
			return op, ErrTruncated
		}
		hdr := binary.LittleEndian.Uint16(src[ip:])
		if hdr == 0 {
			return op, nil
		}
		ip += 2
		size := int(hdr&0x0fff) + 1
		if size > len(src)-ip {
			return op, ErrTruncated
		}
		chunk := src[ip : ip+size]
		ip += size

		if hdr&0x8000 == 0 {
			if size > len(dst)-op {
				return op, ErrOutputOverflow
			}
			op += copy(dst[op:], chunk)
			continue
		}
		n, err := lznt1Chunk(dst[op:], chunk)
		op += n
		if err != nil {
			return op, err
		}
	}
	return op, nil
}

// lznt1Chunk decodes one compressed chunk into the start of dst. Offsets
// never reach into earlier chunks, so dst starts at the chunk's output.
func lznt1Chunk(dst, chunk []byte) (int, error) {
	// A chunk stands for at most 4096 bytes of output; more means the copy
	// token split below no longer follows the format.
	if len(dst) > lznt1ChunkSize {
		dst = dst[:lznt1ChunkSize]
	}
	ip, op := 0, 0
	for ip < len(chunk) {
		flags := chunk[ip]
		ip++
		for i := 0; i < 8 && ip < len(chunk); i++ {
			if flags&1 == 0 {
				if op >= len(dst) {
					return op, lznt1Overflow(op + 1)
				}
				dst[op] = chunk[ip]
				op++
				ip++
			} else {
				if len(chunk)-ip < 2 {
					return op, ErrTruncated
				}
				tok := uint(binary.LittleEndian.Uint16(chunk[ip:]))
				ip += 2
				if op == 0 {
					return op, ErrBadOffset
				}
				// The offset field is just wide enough to reach the chunk
				// start from here (at least 4 bits); the length gets the
				// remaining bits.
				obits := uint(bits.Len(uint(op - 1)))
				if obits < 4 {
					obits = 4
				}
				lbits := 16 - obits
				off := int(tok>>lbits) + 1
				n := int(tok&(1<<lbits-1)) + 3
				if off > op {
					return op, ErrBadOffset
				}
				if n > len(dst)-op {
					return op, lznt1Overflow(op + n)
				}
				copyMatch(dst, op, off, n)
				op += n
			}
			flags >>= 1
		}
	}
	return op, nil
}

// lznt1Overflow tells a chunk that outgrows 4096 bytes (corrupt) from one
// that outgrows the caller's buffer; end is where the failing item ends.
func lznt1Overflow(end int) error {
	if end > lznt1ChunkSize {
		return ErrCorrupt
	}
	return ErrOutputOverflow
}
