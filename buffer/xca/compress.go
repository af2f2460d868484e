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

	hashBits = 14
	// skipShift sets how fast the search steps over bytes that find no
	// match: one byte more per 2^skipShift bytes since the last match, so
	// that data that does not compress costs little to find out.
	skipShift = 5
)

// matcher is the match finder's table: for a hash of four bytes, the two
// latest positions that had it, the latest first. Positions are stored plus base, which each
// call raises past the positions of the one before, so that a reused table
// needs no clearing: an entry below base is from an earlier input. The
// table is pooled, as the writers of traces compress many buffers.
type matcher struct {
	table [1 << hashBits][2]int32
	base  int32
}

var matcherPool = sync.Pool{New: func() any { return new(matcher) }}

func hash4(v uint32) uint32 {
	return (v * 0x9E3779B1) >> (32 - hashBits)
}

// CompressLZ77 encodes src as a Plain LZ77 ([MS-XCA] 2.3) stream, appends
// it to dst and returns the extended slice. The output decodes with
// DecompressLZ77 and with the Windows XPRESS decompressor.
//
// The search is greedy and tries two earlier positions per position, those
// whose next four bytes hashed alike last: ETW buffers come out about the
// size Windows writes them, at a fraction of the cost of a deeper search.
//
// Inputs of 1 GiB or more are not supported (positions are kept in 32 bits).
func CompressLZ77(dst, src []byte) []byte {
	m := matcherPool.Get().(*matcher)
	defer matcherPool.Put(m)
	return m.compress(dst, src)
}

func (m *matcher) compress(dst, src []byte) []byte {
	if int64(m.base)+int64(len(src))+lz77MaxOffset >= 1<<31-1 {
		clear(m.table[:])
		m.base = 0
	}
	base := int(m.base) + lz77MaxOffset + 1
	m.base = int32(base + len(src))

	// Worst case is all literals: 4 flag bytes per 32 input bytes.
	dst = slices.Grow(dst, len(src)+len(src)/32+8)
	e := lz77Encoder{dst: dst, flagPos: len(dst), nibble: -1}
	e.dst = append(e.dst, 0, 0, 0, 0)

	n := len(src)
	anchor := 0 // first byte not yet written
	for i := 0; i+4 <= n; {
		v := binary.LittleEndian.Uint32(src[i:])
		h := hash4(v)
		slot := &m.table[h]
		c0, c1 := int(slot[0])-base, int(slot[1])-base
		slot[1], slot[0] = slot[0], int32(i+base)
		limit := min(n-i-4, lz77MaxMatch-4)
		l, cand := 0, 0
		// A candidate is an earlier position, at most lz77MaxOffset back.
		if c0 >= 0 && uint(i-c0-1) < lz77MaxOffset && binary.LittleEndian.Uint32(src[c0:]) == v {
			l, cand = 4+matchLen(src[c0+4:], src[i+4:], limit), c0
		}
		if c1 >= 0 && uint(i-c1-1) < lz77MaxOffset && binary.LittleEndian.Uint32(src[c1:]) == v && l < 4+limit {
			if l1 := 4 + matchLen(src[c1+4:], src[i+4:], limit); l1 > l {
				l, cand = l1, c1
			}
		}
		if l == 0 {
			i += 1 + (i-anchor)>>skipShift
			continue
		}
		e.literals(src[anchor:i])
		e.match(i-cand, l)
		i += l
		anchor = i
		// The position just before the end of the match is where the next
		// repetition of what follows it most often starts.
		if p := i - 2; p+4 <= n {
			slot := &m.table[hash4(binary.LittleEndian.Uint32(src[p:]))]
			slot[1], slot[0] = slot[0], int32(p+base)
		}
	}
	e.literals(src[anchor:])
	return e.finish()
}

// lz77Encoder writes Plain LZ77 items: a flag word of 32 bits (a one per
// match, most significant first) before the items it describes.
type lz77Encoder struct {
	dst     []byte
	flagPos int // where the current flag word goes
	flags   uint32
	nflags  int
	nibble  int // index of a length byte whose high nibble is free, or -1
}

// literals writes lit, a flag word at a time.
func (e *lz77Encoder) literals(lit []byte) {
	for len(lit) > 0 {
		k := min(len(lit), 32-e.nflags)
		e.dst = append(e.dst, lit[:k]...)
		lit = lit[k:]
		e.flags <<= k
		e.nflags += k
		if e.nflags == 32 {
			e.flush()
		}
	}
}

func (e *lz77Encoder) match(off, length int) {
	e.dst, e.nibble = appendMatch(e.dst, e.nibble, off, length)
	e.flags = e.flags<<1 | 1
	e.nflags++
	if e.nflags == 32 {
		e.flush()
	}
}

// flush stores the full flag word and makes room for the next.
func (e *lz77Encoder) flush() {
	binary.LittleEndian.PutUint32(e.dst[e.flagPos:], e.flags)
	e.flagPos = len(e.dst)
	e.dst = append(e.dst, 0, 0, 0, 0)
	e.flags, e.nflags = 0, 0
}

// finish stores the last flag word. The decoder stops at the first match
// flag that has no token left in the input, so its unused bits are ones.
func (e *lz77Encoder) finish() []byte {
	rest := uint(32 - e.nflags)
	flags := e.flags<<rest | uint32(uint64(1)<<rest-1)
	binary.LittleEndian.PutUint32(e.dst[e.flagPos:], flags)
	return e.dst
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
