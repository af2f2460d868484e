// Package xca decodes the compression formats of [MS-XCA] (Xpress
// Compression Algorithm): Plain LZ77, LZ77+Huffman and LZNT1, and encodes
// Plain LZ77. ETW writes compressed trace buffers as Plain LZ77.
//
// All decoders share one contract. dst's length is the output capacity and
// the caller passes exactly the decompressed size it expects; the decoder
// returns how many bytes it wrote. None of the formats carries its own
// decompressed length, so a stream that ends cleanly before dst is full is
// not an error here: the decoder returns the short count and nil, and the
// caller compares n with the size it expected. Damage inside the stream
// (bad offset, a token cut short, more output than dst can hold) is always
// an error. Decoders never write past len(dst), never allocate, and finish in
// time bounded by len(src)+len(dst). Bytes of dst beyond the returned count
// may have been overwritten: fixed-width copies are faster than exact ones.
package xca

import (
	"errors"
	"fmt"
)

// ErrCorrupt is matched (with errors.Is) by every decoding failure, so a
// caller that only needs "did it decode" can test for this one.
var ErrCorrupt = errors.New("xca: corrupt input")

// ErrTruncated: the input ends inside a token, a flag word or a chunk.
var ErrTruncated = fmt.Errorf("%w: truncated", ErrCorrupt)

// ErrOutputOverflow: the stream produces more bytes than dst can hold.
var ErrOutputOverflow = fmt.Errorf("%w: output overflow", ErrCorrupt)

// ErrBadOffset: a match refers to bytes before the start of the output
// (or, for LZNT1, before the start of its chunk).
var ErrBadOffset = fmt.Errorf("%w: match offset out of range", ErrCorrupt)

// copyMatch appends a back-reference of n bytes at distance off ending at
// dst[op+n]. The caller has checked that off <= op and op+n <= len(dst).
func copyMatch(dst []byte, op, off, n int) {
	if off >= n {
		copy(dst[op:op+n], dst[op-off:op-off+n])
		return
	}
	if n <= 16 {
		// Short overlapping copies: a byte loop beats several copy calls.
		s := dst[op-off : op+n]
		d := dst[op : op+n]
		for i := range d {
			d[i] = s[i]
		}
		return
	}
	// An overlapping match repeats the last off bytes. Copying whole periods
	// from the match start doubles the copied span every round, which gives
	// the same bytes as a byte loop with O(log n) copy calls.
	end := op + n
	src := op - off
	for op < end {
		op += copy(dst[op:end], dst[src:op])
	}
}
