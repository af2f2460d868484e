package buffer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// A buffer header that cannot be trusted says nothing of where the next
// buffer starts, so the walk looks for it: one session buffer size on,
// then at the next multiple of the session buffer size, then at every
// position after the damaged header (every 8 bytes in an uncompressed
// file, where buffers are multiples of 8 long; every byte
// otherwise, since compressed buffers are any length). A position is taken when the header
// there passes the checks of the walk and a few more that real headers
// always pass (likely), and when the buffer it describes ends where
// another starts (endsWell, stricter there than for a header the walk
// reached by stepping). The scan reads the input from the damaged header
// forward once, so it is linear in the input, and the walk never scans
// the same bytes twice.
//
// What no check catches is a header damaged into one that looks sound in
// every field, its size landing exactly on a later buffer: the buffers it
// spans are read as its own records, or fail to decompress with it.

// resyncChunk is how many bytes the scan reads at a time.
const resyncChunk = 64 << 10

// The bytes the scan decompresses, in and out, to try headers it meets
// are at most trialBudget plus trialRatio times the bytes scanned.
const (
	trialBudget = 256 << 10
	trialRatio  = 4
)

// maxState is the first State value no buffer is written with.
const maxState = 8

// knownFlags are the BufferFlag bits ETW defines.
const knownFlags = FlagFlushMarker | FlagEventsLost | FlagBufferLost | FlagRTBackupCorrupt |
	FlagRTBackup | FlagProcIndex | FlagCompressed

// maxDecompressed is the largest Offset a compressed buffer may claim.
func (w *Walker) maxDecompressed() uint32 {
	limit := w.MaxBufferSize
	if limit == 0 || limit > MaxSessionBufferSize {
		limit = MaxSessionBufferSize
	}
	return limit
}

// headerFault says what makes h impossible as a buffer header, or "".
func (w *Walker) headerFault(h *Header) string {
	switch {
	case h.BufferSize < HeaderSize:
		return fmt.Sprintf("BufferSize 0x%x is smaller than the buffer header", h.BufferSize)
	case h.BufferSize > MaxSessionBufferSize:
		return fmt.Sprintf("BufferSize 0x%x is larger than any buffer ETW writes", h.BufferSize)
	case h.BufferType >= TypeMaximum:
		return fmt.Sprintf("BufferType %d is not a buffer type", uint16(h.BufferType))
	}
	if h.Compressed() {
		if limit := w.maxDecompressed(); h.Offset < HeaderSize || h.Offset > limit {
			return fmt.Sprintf("compressed buffer with Offset 0x%x, outside 0x%x to 0x%x", h.Offset, HeaderSize, limit)
		}
		return ""
	}
	switch {
	case h.BufferSize%8 != 0:
		return fmt.Sprintf("BufferSize 0x%x of an uncompressed buffer is not a multiple of 8", h.BufferSize)
	case h.Offset != 0 && (h.Offset < HeaderSize || h.Offset > h.BufferSize):
		return fmt.Sprintf("Offset 0x%x lies outside the buffer's 0x%x to 0x%x", h.Offset, HeaderSize, h.BufferSize)
	}
	return ""
}

// likely reports whether h, met where no header was expected, looks like
// one ETW wrote: headerFault's checks, and fields that only a damaged or
// foreign header fills otherwise.
func (w *Walker) likely(h *Header) bool {
	return h.State < maxState && h.BufferFlag&^knownFlags == 0 && h.SequenceNumber >= 0 && w.headerFault(h) == ""
}

// sessionSized reports whether h is an uncompressed buffer of the
// session's size, which is every buffer but perhaps the first in an
// uncompressed file.
func (w *Walker) sessionSized(h *Header) bool {
	return !h.Compressed() && w.SessionBufferSize >= HeaderSize && h.BufferSize == w.SessionBufferSize
}

// endsWell reports whether the buffer at off, whose header h passed
// headerFault, ends where another buffer starts; index is its place in
// the walk, or -1 for a header met by the resync scan, which must prove
// more. In an uncompressed file every buffer is the session's size but
// perhaps the first, which can be smaller: a buffer of the session's size
// is taken as it is (cut short when the input ends inside it); a smaller
// one when it is the first, or when a buffer header, a zero-filled tail or
// the end of the input follows it; a larger one as a smaller one but the
// first, and only when its records need the room. A compressed
// buffer, of any size, when one of them follows it or it decompresses to
// the size its header gives. Without a session size (a compressed file),
// an uncompressed buffer that the walk reached is taken when it ends
// inside the input.
func (w *Walker) endsWell(h *Header, off int64, index int) bool {
	end := off + int64(h.BufferSize)
	if !h.Compressed() {
		if s := w.SessionBufferSize; s >= HeaderSize {
			switch {
			case h.BufferSize == s:
				return true
			case h.BufferSize > s && h.Offset <= s:
				// A buffer is larger than the session's to hold more
				// records than fit in one; this one does not, and a
				// flipped bit in a size gives such a header.
				return false
			case index == 0:
				return end <= w.size
			}
		} else if index == 0 {
			return end <= w.size
		} else if index > 0 {
			// Among compressed buffers: taken when a buffer follows
			// it, or its records lead from its header to their end (a
			// damaged size that lands inside a later buffer leads to
			// neither).
			return end <= w.size && (!w.compressedSeen || w.followed(end) || w.recordsLead(h, off))
		}
	}
	if end > w.size {
		return false
	}
	return w.followed(end) || h.Compressed() && w.decompresses(off, h)
}

// check says why the header h of the buffer at off cannot be trusted, or
// "". When the buffer runs past the end of the input, a buffer header
// found after it says its size is wrong, and check returns where; when
// none is, the buffer is taken as a last buffer cut short. next is -1
// when check did not look.
func (w *Walker) check(h *Header, off int64, index int) (why string, next int64) {
	if fault := w.headerFault(h); fault != "" {
		return fault, -1
	}
	if w.endsWell(h, off, index) {
		return "", -1
	}
	if s := w.SessionBufferSize; !h.Compressed() && s >= HeaderSize && h.BufferSize > s && h.Offset <= s {
		return fmt.Sprintf("BufferSize 0x%x is larger than the session's 0x%x, for records that fit in that", h.BufferSize, s), -1
	}
	if off+int64(h.BufferSize) > w.size {
		if next := w.find(off); next >= 0 {
			return fmt.Sprintf("BufferSize 0x%x runs past the end of the input, and a buffer header follows", h.BufferSize), next
		}
		return "", -1
	}
	return fmt.Sprintf("no buffer starts where BufferSize 0x%x ends", h.BufferSize), -1
}

// followed reports whether a buffer ending at end is followed by the end
// of the input, a zero-filled tail, or a likely buffer header of a buffer
// that fits in the input. A header it
// reads is kept for Next, which is usually about to read it.
func (w *Walker) followed(end int64) bool {
	if end >= w.size {
		return end == w.size
	}
	var hdr [HeaderSize]byte
	n := min(int64(HeaderSize), w.size-end)
	if _, err := w.r.ReadAt(hdr[:n], end); err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	if isZero(hdr[:n]) {
		return true
	}
	if n < HeaderSize {
		return false
	}
	w.peek, w.peekAt = hdr, end+1
	h, _ := ParseHeader(hdr[:])
	// The buffer after it must fit in the input too, but for a last
	// buffer of the session's size cut short.
	return w.likely(&h) && (end+int64(h.BufferSize) <= w.size || w.sessionSized(&h))
}

// candidate reports whether the walk can go on at p, where hdr, the bytes
// at p, holds a likely header.
func (w *Walker) candidate(p int64, hdr []byte) bool {
	h, _ := ParseHeader(hdr)
	return w.likely(&h) && w.endsWell(&h, p, -1)
}

// find returns where the walk can go on after the untrusted header at off,
// or -1 when nothing after it looks like a buffer.
func (w *Walker) find(off int64) int64 {
	var hdr [HeaderSize]byte
	at := func(p int64) bool {
		if p+HeaderSize > w.size {
			return false
		}
		if _, err := w.r.ReadAt(hdr[:], p); err != nil && !errors.Is(err, io.EOF) {
			return false
		}
		return w.candidate(p, hdr[:])
	}
	w.scanning, w.tried, w.budget = true, 0, trialBudget
	defer func() { w.scanning = false }()
	step := int64(1)
	if s := int64(w.SessionBufferSize); s >= HeaderSize {
		if at(off + s) {
			return off + s
		}
		if p := (off/s + 1) * s; p != off+s && at(p) {
			return p
		}
		step = 8
	}
	// From the next position on: off may not be where a buffer starts
	// (a damaged size before it led the walk there), so the next buffer
	// may start inside what looked like a header.
	p := off + 1
	if step == 8 {
		p = (off + 8) &^ 7
	}
	w.scan = grow(w.scan, resyncChunk+HeaderSize)
	le := binary.LittleEndian
	for p+HeaderSize <= w.size {
		n := min(int64(len(w.scan)), w.size-p)
		chunk := w.scan[:n]
		if got, err := w.r.ReadAt(chunk, p); err != nil && !errors.Is(err, io.EOF) || int64(got) < n {
			return -1
		}
		i := int64(0)
		for ; i+HeaderSize <= n; i += step {
			// The cheap tests first: most positions fail the size.
			size := le.Uint32(chunk[i:])
			if size < HeaderSize || size > MaxSessionBufferSize || step == 8 && size%8 != 0 ||
				le.Uint16(chunk[i+0x36:]) >= uint16(TypeMaximum) || le.Uint32(chunk[i+0x2C:]) >= maxState {
				continue
			}
			w.budget = trialBudget + trialRatio*(p+i-off)
			if w.candidate(p+i, chunk[i:i+HeaderSize]) {
				return p + i
			}
		}
		p += i
	}
	return -1
}

// resync reports the buffer at off, whose header cannot be trusted for
// why, and moves the walk to the next buffer found (next, or where find
// finds it when next is -1), or to the end of the input. b's header is
// cleared: nothing in it is known to be true.
func (w *Walker) resync(b *Buffer, off int64, index int, why string, next int64) error {
	if next < 0 {
		next = w.find(off)
	}
	if next < 0 {
		next = w.size
	}
	w.off = next
	fe := &FormatError{Offset: off, Buffer: index, Reason: "buffer header not plausible: " + why, Err: ErrMalformed, Skipped: next - off}
	fe.Records, fe.RecordsKnown = w.countSkipped(&b.Header, off, next)
	b.Header = Header{}
	return fe
}

// recordsLead reports whether the records of the uncompressed buffer at
// off, whose header is h, lead from its header to their end, by
// CountRecords; true when there is no CountRecords to ask.
func (w *Walker) recordsLead(h *Header, off int64) bool {
	if w.CountRecords == nil {
		return true
	}
	_, ok := w.countRecords(h, off, int64(h.BufferSize))
	return ok
}

// countSkipped counts the records of the bytes from off to next, passed
// over after the untrusted header h, where they can be known: they are
// one uncompressed buffer of the session's size, and CountRecords follows
// its records from the header to their end.
func (w *Walker) countSkipped(h *Header, off, next int64) (int, bool) {
	size := int64(w.SessionBufferSize)
	if w.CountRecords == nil || size < HeaderSize || next-off != size || h.Compressed() {
		return 0, false
	}
	return w.countRecords(h, off, size)
}

// countRecords reads the size bytes at off, a buffer whose header is h,
// and counts its records to the header's Offset where that lies inside
// them, else to their fill.
func (w *Walker) countRecords(h *Header, off, size int64) (int, bool) {
	w.held = grow(w.held, int(size))
	if _, err := w.r.ReadAt(w.held[:size], off); err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	end := 0
	if h.Offset >= HeaderSize && int64(h.Offset) <= size {
		end = int(h.Offset)
	}
	return w.CountRecords(w.held[:size], end)
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// decompresses reports whether the compressed buffer at p, whose header is
// h, decompresses to the length its header gives: a check that needs no
// other buffer, for a buffer followed by damage.
func (w *Walker) decompresses(p int64, h *Header) bool {
	n := int(h.BufferSize) - HeaderSize
	want := int(h.Offset) - HeaderSize
	if n <= 0 || want > MaxCompressionRatio*n+4096 {
		return false
	}
	if w.scanning {
		// Headers the scan meets are tried within a budget in proportion
		// to the bytes scanned, so that a file made of likely headers
		// does not cost a decompression for each.
		cost := int64(n + want)
		if w.tried+cost > w.budget {
			return false
		}
		w.tried += cost
	}
	w.raw = grow(w.raw, n)
	if _, err := w.r.ReadAt(w.raw, p+HeaderSize); err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	w.trial = grow(w.trial, want)
	_, err := Decompress(w.trial, w.raw)
	return err == nil
}
