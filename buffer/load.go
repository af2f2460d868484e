package buffer

import (
	"errors"
	"io"
)

// Loader reads single buffers at places a walk found, in any order, so that
// a reader can visit buffers in sequence order rather than file order. Each
// read goes through the same code as Walker.Next, so a buffer read by a
// Loader is byte for byte, and error for error, what the walk gives.
//
// A Loader keeps scratch space for compressed bytes; use one per goroutine.
type Loader struct {
	w Walker
}

// Loader returns a Loader over the walker's input with the walker's
// settings (extents, session buffer size, decompression bound).
func (w *Walker) Loader() *Loader {
	// Copying the whole walker keeps every setting, present and future; the
	// walk state and the storage must not be shared.
	l := &Loader{w: *w}
	l.w.raw, l.w.data, l.w.ahead, l.w.scan, l.w.trial, l.w.held = nil, nil, nil, nil, nil, nil
	l.w.HeadersOnly, l.w.ZeroTail = false, false
	l.w.peekAt, l.w.trusted = 0, true
	return l
}

// Load reads the buffer that starts at fileOffset and is the index-th in
// file order, as a walk with HeadersOnly reported it, into b. b.Data's
// storage is reused, so buffers kept in a pool allocate nothing once they
// have grown to the largest buffer. Errors are those Walker.Next gives for
// that buffer; the checks of its header that the walk made (see
// resync.go) are not made again.
func (l *Loader) Load(fileOffset int64, index int, b *Buffer) error {
	w := &l.w
	w.off, w.index, w.done = fileOffset, index, false
	return w.NextInto(b)
}

// LoadSized is Load for a buffer whose records are expected to end at
// size bytes from its start (its header's Offset, as a HeadersOnly walk
// read it): header and records then come in one read call instead of two.
// The buffer is read and checked as Load reads and checks it, whatever
// size says; a wrong size costs a second read or bytes read for nothing.
func (l *Loader) LoadSized(fileOffset int64, index int, size uint32, b *Buffer) error {
	l.w.sized = int64(size)
	return l.Load(fileOffset, index, b)
}

// NextInto is Next reading into b's own storage rather than the walker's,
// so that buffers read by earlier calls into other Buffers stay intact: a
// reader can then keep several buffers at once, each reused from pass to
// pass.
func (w *Walker) NextInto(b *Buffer) error {
	// Next decodes into the walker's storage; lend it b's for the call.
	w.data = b.Data[:0]
	err := w.Next(b)
	w.data = nil
	return err
}

// LoadLocated reads the buffer that a HeadersOnly walk located into b,
// which holds what the walk set (Header, Index, FileOffset). An
// uncompressed buffer then costs one read, header and records together,
// instead of Load's two; the header read must equal the located one.
// Anything else (compressed, truncated or damaged buffers, extents, a
// header that changed) goes through Load, so the result is always what
// Load gives.
func (l *Loader) LoadLocated(b *Buffer) error {
	w := &l.w
	h := b.Header
	end := int64(h.Offset)
	if end == 0 {
		end = HeaderSize
	}
	if w.extent != nil || b.Truncated || h.Compressed() || h.BufferSize < HeaderSize ||
		end < HeaderSize || end > int64(h.BufferSize) || b.FileOffset+end > w.size {
		return l.Load(b.FileOffset, b.Index, b)
	}
	b.Data = grow(b.Data, int(end))
	if _, err := w.r.ReadAt(b.Data, b.FileOffset); err != nil && !errors.Is(err, io.EOF) {
		return l.Load(b.FileOffset, b.Index, b)
	}
	if got, _ := ParseHeader(b.Data); got != h {
		return l.Load(b.FileOffset, b.Index, b)
	}
	b.Compression = CompressionNone
	return nil
}
