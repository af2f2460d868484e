package xca

import (
	"encoding/binary"
	"math/bits"
)

// DecompressLZ77 decodes a Plain LZ77 ([MS-XCA] 2.4) stream from src into
// dst and returns the number of bytes written.
//
// The stream ends where the input ends, provided that happens where the
// format expects the next item: at a flag-word boundary, at a literal, or at
// a match flag (encoders mark the end by padding the last flag word with
// one bits and writing no token for them). n may then be less than
// len(dst); the caller compares it with the size it expected. Input ending
// inside a flag word or a token is ErrTruncated.
func DecompressLZ77(dst, src []byte) (int, error) {
	var (
		ip, op int
		flags  uint32 // next flag is the most significant bit
		nflags uint   // flags still unread in flags
		nibble = -1   // input index of a length byte whose high nibble is unused
	)
	for {
		if nflags == 0 {
			if len(src)-ip < 4 {
				if ip == len(src) {
					return op, nil
				}
				return op, ErrTruncated
			}
			flags = binary.LittleEndian.Uint32(src[ip:])
			ip += 4
			nflags = 32
		}

		if int32(flags) >= 0 {
			// Literals come in runs between matches; moving a whole run
			// with one copy is the main speed win over a per-bit loop.
			run := uint(bits.LeadingZeros32(flags))
			if run > nflags {
				run = nflags
			}
			k := len(src) - ip
			if uint(k) > run {
				k = int(run)
			}
			if k > len(dst)-op {
				return op, ErrOutputOverflow
			}
			if k <= 16 && len(src)-ip >= 16 && len(dst)-op >= 16 {
				// Short runs dominate; two fixed 8-byte moves are cheaper
				// than a memmove call. Bytes past k are overwritten later.
				d := dst[op : op+16 : op+16]
				s := src[ip : ip+16 : ip+16]
				binary.LittleEndian.PutUint64(d, binary.LittleEndian.Uint64(s))
				binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(s[8:]))
			} else {
				copy(dst[op:op+k], src[ip:ip+k])
			}
			op += k
			ip += k
			if uint(k) < run {
				return op, nil
			}
			flags <<= run
			nflags -= run
			continue
		}

		flags <<= 1
		nflags--
		if ip == len(src) {
			return op, nil
		}
		if len(src)-ip < 2 {
			return op, ErrTruncated
		}
		tok := uint(binary.LittleEndian.Uint16(src[ip:]))
		ip += 2
		off := int(tok>>3) + 1
		length := uint64(tok & 7)
		if length == 7 {
			// Two consecutive long matches share one byte: the first takes
			// the low nibble, the second the high nibble.
			if nibble < 0 {
				if ip >= len(src) {
					return op, ErrTruncated
				}
				length = uint64(src[ip] & 0x0f)
				nibble = ip
				ip++
			} else {
				length = uint64(src[nibble] >> 4)
				nibble = -1
			}
			if length == 15 {
				var err error
				if length, ip, err = wideLength(src, ip, 15+7); err != nil {
					return op, err
				}
			} else {
				length += 7
			}
		}
		length += 3
		if off > op {
			return op, ErrBadOffset
		}
		if length > uint64(len(dst)-op) {
			return op, ErrOutputOverflow
		}
		n := int(length)
		if off >= 8 && n <= 32 && len(dst)-op >= 32 {
			// Short match with room to spare: 8-byte moves, each reading
			// only bytes already final since off >= 8. Bytes written past
			// n are overwritten by later output.
			d := dst[op : op+32 : op+32]
			s := dst[op-off : op-off+32 : op-off+32]
			binary.LittleEndian.PutUint64(d, binary.LittleEndian.Uint64(s))
			if n > 8 {
				binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(s[8:]))
				if n > 16 {
					binary.LittleEndian.PutUint64(d[16:], binary.LittleEndian.Uint64(s[16:]))
					if n > 24 {
						binary.LittleEndian.PutUint64(d[24:], binary.LittleEndian.Uint64(s[24:]))
					}
				}
			}
		} else {
			copyMatch(dst, op, off, n)
		}
		op += n
	}
}

// wideLength reads the escape that follows a length field at its largest
// value; held is the length the fields read so far stand for. One more byte
// adds to it, unless it is 255: then a u16, or when that is 0 a u32, holds
// the whole length instead. A whole length below held could have used a
// shorter form and is corrupt. Plain LZ77 and LZ77+Huffman share the
// scheme; the result leaves out the minimum match length of 3.
func wideLength(src []byte, ip int, held uint64) (uint64, int, error) {
	if ip >= len(src) {
		return 0, ip, ErrTruncated
	}
	b := src[ip]
	ip++
	if b != 255 {
		return held + uint64(b), ip, nil
	}
	if len(src)-ip < 2 {
		return 0, ip, ErrTruncated
	}
	length := uint64(binary.LittleEndian.Uint16(src[ip:]))
	ip += 2
	if length == 0 {
		if len(src)-ip < 4 {
			return 0, ip, ErrTruncated
		}
		length = uint64(binary.LittleEndian.Uint32(src[ip:]))
		ip += 4
	}
	if length < held {
		return 0, ip, ErrCorrupt
	}
	return length, ip, nil
}
