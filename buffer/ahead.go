package buffer

import "io"

// aheadBatch is how many headers ReadHeadersAhead reads in one call.
const aheadBatch = 256

// BatchReaderAt is an io.ReaderAt that can make many small reads in one
// system call (etl's files on Linux, with io_uring). A HeadersOnly walk
// over one reads its headers a batch at a time (ReadHeadersAhead).
type BatchReaderAt interface {
	io.ReaderAt
	// BatchReads reports whether ReadAtBatch reads in batches.
	BatchReads() bool
	// ReadAtBatch reads len(p[i]) bytes at off[i] into p[i] for every i
	// and sets ok[i] when p[i] was filled; the others are for ReadAt,
	// which says why they could not be. false: nothing was read.
	ReadAtBatch(p [][]byte, off []int64, ok []bool) bool
}

// headerAhead reads the headers a HeadersOnly walk is about to ask for,
// aheadBatch of them in one system call: a walk over a large file is
// otherwise a read call per buffer and nothing else.
//
// Where the next headers are is a guess: every buffer as large as the
// first one, as in any uncompressed file written by one session. The walk
// uses a header read ahead only when the position and the offset are the
// ones it was about to read, and reads it itself otherwise, so a wrong
// guess costs wasted reads and never changes what the walk returns. At the
// first offset off the guess, the reading stops.
type headerAhead struct {
	r       BatchReaderAt
	size    int64
	base    int64 // offset of position 0
	stride  int64 // guessed buffer size; 0 until the first header is read
	stopped bool
	served  int // headers the walk took from a batch, for tests

	// The batch in hand: positions first to first+n.
	first int64
	n     int
	hdrs  [aheadBatch][HeaderSize]byte
	ok    [aheadBatch]bool
	p     [aheadBatch][]byte
	off   [aheadBatch]int64
}

// ReadHeadersAhead makes this HeadersOnly walk read the headers it will ask
// for next ahead of it, a batch at a time in one system call, when its
// input is a BatchReaderAt that can. The walk returns the same buffers and
// errors with it as without it. Over extents, or in a walk of whole
// buffers, it does nothing.
func (w *Walker) ReadHeadersAhead() {
	if !w.HeadersOnly || w.extent != nil || w.ahead != nil {
		return
	}
	if br, ok := w.r.(BatchReaderAt); ok && br.BatchReads() {
		w.ahead = &headerAhead{r: br, size: w.size, base: w.off}
	}
}

// start is told the size of the buffer at position 0: the guess's stride.
func (a *headerAhead) start(bufferSize uint32) {
	if a.stride == 0 && bufferSize >= HeaderSize {
		a.stride = int64(bufferSize)
	}
}

// header copies into hdr the header at off, when a batch has it, and
// reports whether it did; the walk reads it itself otherwise.
func (a *headerAhead) header(hdr *[HeaderSize]byte, off int64) bool {
	if a.stopped || a.stride == 0 {
		return false
	}
	if off < a.base || (off-a.base)%a.stride != 0 {
		a.stopped = true
		return false
	}
	p := (off - a.base) / a.stride
	if p < a.first || p >= a.first+int64(a.n) {
		if !a.read(p) {
			a.stopped = true
			return false
		}
	}
	i := p - a.first
	if !a.ok[i] {
		return false
	}
	*hdr = a.hdrs[i]
	a.served++
	return true
}

// read reads the headers of positions p to p+aheadBatch, as far as the
// input goes.
func (a *headerAhead) read(p int64) bool {
	n := 0
	for ; n < aheadBatch; n++ {
		off := a.base + (p+int64(n))*a.stride
		if off+HeaderSize > a.size {
			break
		}
		a.p[n], a.off[n] = a.hdrs[n][:], off
	}
	a.first, a.n = p, 0
	if n == 0 || !a.r.ReadAtBatch(a.p[:n], a.off[:n], a.ok[:n]) {
		return false
	}
	a.n = n
	return true
}
