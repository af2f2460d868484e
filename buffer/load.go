package buffer

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
	l.w.raw, l.w.data = nil, nil
	l.w.HeadersOnly, l.w.ZeroTail = false, false
	return l
}

// Load reads the buffer that starts at fileOffset and is the index-th in
// file order, as a walk with HeadersOnly reported it, into b. b.Data's
// storage is reused, so buffers kept in a pool allocate nothing once they
// have grown to the largest buffer. Errors are those Walker.Next gives for
// that buffer.
func (l *Loader) Load(fileOffset int64, index int, b *Buffer) error {
	w := &l.w
	w.off, w.index, w.done = fileOffset, index, false
	return w.NextInto(b)
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
