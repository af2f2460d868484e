package xca

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"
)

const (
	lz77MaxOffset = 1 << 13 // 13-bit offset field stores offset-1
	lz77MinMatch  = 3
	// Longer matches would not fit the 32-bit length escape; capping far
	// below that keeps the arithmetic within int on 32-bit platforms too.
	lz77MaxMatch = 1<<31 - 1

	hashBits   = 15
	chainDepth = 32
)

// matcher holds the hash-chain match finder's tables. They are pooled
// because clearing a reused table is far cheaper than allocating one per
// call, and the trace builder compresses many small buffers.
type matcher struct {
	head [1 << hashBits]int32 // most recent position+1 for a hash, 0 = none
	prev [lz77MaxOffset]int32 // previous position+1 with the same hash, by pos mod window
}

var matcherPool = sync.Pool{New: func() any { return new(matcher) }}

func hash3(b []byte) uint32 {
	v := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
	return (v * 0x9E3779B1) >> (32 - hashBits)
}

// CompressLZ77 encodes src as a Plain LZ77 ([MS-XCA] 2.3) stream, appends
// it to dst and returns the extended slice. The output decodes with
// DecompressLZ77 and with the Windows XPRESS decompressor.
//
// Inputs of 2 GiB or more are not supported (positions are kept in 32 bits).
func CompressLZ77(dst, src []byte) []byte {
	m := matcherPool.Get().(*matcher)
	defer matcherPool.Put(m)
	clear(m.head[:])

	// Worst case is all literals: 4 flag bytes per 32 input bytes.
	dst = slices.Grow(dst, len(src)+len(src)/32+8)

	flagPos := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	var flags uint32
	nflags := 0
	nibble := -1

	n := len(src)
	insert := func(p int) {
		h := hash3(src[p:])
		m.prev[p&(lz77MaxOffset-1)] = m.head[h]
		m.head[h] = int32(p + 1)
	}

	for i := 0; i < n; {
		bestLen, bestOff := 0, 0
		if i+lz77MinMatch <= n {
			h := hash3(src[i:])
			cand := int(m.head[h]) - 1
			limit := n - i
			if limit > lz77MaxMatch {
				limit = lz77MaxMatch
			}
			for depth := 0; cand >= 0 && i-cand <= lz77MaxOffset && depth < chainDepth; depth++ {
				// Checking the byte that would extend the best match first
				// skips most candidates without a full comparison.
				if src[cand+bestLen] == src[i+bestLen] {
					l := matchLen(src[cand:], src[i:], limit)
					if l > bestLen {
						bestLen, bestOff = l, i-cand
						if l == limit {
							break
						}
					}
				}
				next := int(m.prev[cand&(lz77MaxOffset-1)]) - 1
				// A slot reused by a newer position links forward; stop
				// rather than follow it, which also rules out cycles.
				if next >= cand {
					break
				}
				cand = next
			}
			insert(i)
		}

		if bestLen >= lz77MinMatch {
			dst, nibble = appendMatch(dst, nibble, bestOff, bestLen)
			flags = flags<<1 | 1
			end := i + bestLen
			for p := i + 1; p < end && p+lz77MinMatch <= n; p++ {
				insert(p)
			}
			i = end
		} else {
			dst = append(dst, src[i])
			flags <<= 1
			i++
		}
		nflags++
		if nflags == 32 {
			binary.LittleEndian.PutUint32(dst[flagPos:], flags)
			flagPos = len(dst)
			dst = append(dst, 0, 0, 0, 0)
			flags, nflags = 0, 0
		}
	}

	// The decoder stops at the first match flag that has no token left in
	// the input, so the unused flag bits are set to one.
	rest := uint(32 - nflags)
	flags = flags<<rest | uint32(uint64(1)<<rest-1)
	binary.LittleEndian.PutUint32(dst[flagPos:], flags)
	return dst
}

// matchLen returns the length of the common prefix of a and b, at most
// limit; both hold at least limit bytes.
func matchLen(a, b []byte, limit int) int {
	a, b = a[:limit], b[:limit]
	l := 0
	for len(a)-l >= 8 {
		x := binary.LittleEndian.Uint64(a[l:]) ^ binary.LittleEndian.Uint64(b[l:])
		if x != 0 {
			return l + bits.TrailingZeros64(x)/8
		}
		l += 8
	}
	for l < len(a) && a[l] == b[l] {
		l++
	}
	return l
}

// appendMatch writes one match token and its length extension, returning
// the new output and the index of a half-used length byte (-1 if none).
func appendMatch(dst []byte, nibble, off, length int) ([]byte, int) {
	tok := uint16(off-1) << 3
	l := length - lz77MinMatch
	if l < 7 {
		tok |= uint16(l)
		return append(dst, byte(tok), byte(tok>>8)), nibble
	}
	tok |= 7
	dst = append(dst, byte(tok), byte(tok>>8))
	l -= 7
	nib := byte(15)
	if l < 15 {
		nib = byte(l)
	}
	if nibble < 0 {
		nibble = len(dst)
		dst = append(dst, nib)
	} else {
		dst[nibble] |= nib << 4
		nibble = -1
	}
	if l < 15 {
		return dst, nibble
	}
	l -= 15
	if l < 255 {
		return append(dst, byte(l)), nibble
	}
	dst = append(dst, 255)
	full := uint32(length - lz77MinMatch)
	if full < 1<<16 {
		return append(dst, byte(full), byte(full>>8)), nibble
	}
	dst = append(dst, 0, 0)
	return binary.LittleEndian.AppendUint32(dst, full), nibble
}
