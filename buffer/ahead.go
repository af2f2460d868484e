package buffer

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// headerRing is how many headers the reader of ReadHeadersAhead may hold
// at once.
const headerRing = 256

// headerAhead reads the headers a HeadersOnly walk is about to ask for, so
// that a scan of a large file does not pay a system call per buffer on
// the goroutine that waits for it: those calls are all a scan costs. It
// reads them a batch at a time in one call when the input can
// (BatchReaderAt), or else on a goroutine of its own, which takes every
// other position (the odd ones; the walk reads the even ones itself).
//
// Where the next headers are is a guess: every buffer as large as the
// first one, as in any uncompressed file written by one session. The walk
// uses a header read ahead only when the position and the offset are the
// ones it was about to read, so a wrong guess costs wasted reads and never
// changes what the walk returns. At the first offset off the guess, the
// reading stops.
type headerAhead struct {
	r      io.ReaderAt
	size   int64
	base   int64 // offset of position 0
	stride int64 // guessed buffer size; 0 until the first header is read
	// done is the last position the walk has finished with; the reader
	// never holds a position more than 2*headerRing past it.
	done    atomic.Int64
	stopped atomic.Bool
	// batch, when set, reads headers in batches on the walk's goroutine
	// instead of the reading goroutine.
	batch *headerBatch
	// served counts the headers the walk took from the reader.
	served atomic.Int64
	wg     sync.WaitGroup
	slots  [headerRing]aheadSlot
}

type aheadSlot struct {
	// pos is the position held, +1; 0 while the slot is being filled or
	// holds nothing.
	pos atomic.Int64
	ok  bool
	hdr [HeaderSize]byte
}

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

// ReadHeadersAhead makes this HeadersOnly walk read the headers it will ask
// for next ahead of it: a batch at a time in one system call when the
// input is a BatchReaderAt, or else, when spare is true and there are two
// processors, on a goroutine of its own. The walk returns the same buffers
// and errors with it as without it. stop ends the reading (and waits for
// the goroutine); call it before the walk is dropped. Over extents, or in
// a walk of whole buffers, it does nothing.
func (w *Walker) ReadHeadersAhead(spare bool) (stop func()) {
	if !w.HeadersOnly || w.extent != nil || w.ahead != nil {
		return func() {}
	}
	a := &headerAhead{r: w.r, size: w.size, base: w.off}
	if br, ok := w.r.(BatchReaderAt); ok && br.BatchReads() {
		a.batch = &headerBatch{r: br}
	} else if !spare || runtime.GOMAXPROCS(0) < 2 {
		return func() {}
	}
	a.done.Store(-1)
	w.ahead = a
	return func() {
		a.stopped.Store(true)
		a.wg.Wait()
		w.ahead = nil
	}
}

// headerBatch is headerAhead's batch mode: headerRing headers, the guess's
// positions first to first+n, read in one call.
type headerBatch struct {
	r     BatchReaderAt
	first int64
	n     int
	hdrs  [headerRing][HeaderSize]byte
	ok    [headerRing]bool
	p     [headerRing][]byte
	off   [headerRing]int64
}

// header is headerAhead.header for the batch mode: position p, at off, is
// read with the headerRing positions after it when it is not in hand.
func (a *headerAhead) batchHeader(hdr *[HeaderSize]byte, p int64) bool {
	b := a.batch
	if p < b.first || p >= b.first+int64(b.n) {
		n := 0
		for ; n < headerRing; n++ {
			off := a.base + (p+int64(n))*a.stride
			if off+HeaderSize > a.size {
				break
			}
			b.p[n], b.off[n] = b.hdrs[n][:], off
		}
		b.first, b.n = p, 0
		if n == 0 || !b.r.ReadAtBatch(b.p[:n], b.off[:n], b.ok[:n]) {
			a.stopped.Store(true)
			return false
		}
		b.n = n
	}
	i := p - b.first
	if !b.ok[i] {
		return false
	}
	*hdr = b.hdrs[i]
	a.served.Add(1)
	return true
}

// position is the position of off in the guess, or -1.
func (a *headerAhead) position(off int64) int64 {
	if a.stride == 0 || off < a.base || (off-a.base)%a.stride != 0 {
		return -1
	}
	return (off - a.base) / a.stride
}

// header copies into hdr the header at off, when the reader has it, and
// reports whether it did; the walk reads it itself otherwise.
func (a *headerAhead) header(hdr *[HeaderSize]byte, off int64) (ok bool) {
	p := a.position(off)
	if p < 0 || a.stopped.Load() {
		if a.stride != 0 {
			a.stopped.Store(true)
		}
		return false
	}
	if a.batch != nil {
		return a.batchHeader(hdr, p)
	}
	defer a.done.Store(p)
	if p&1 == 0 {
		return false
	}
	s := &a.slots[(p>>1)%headerRing]
	if s.pos.Load() != p+1 || !s.ok {
		return false
	}
	*hdr = s.hdr
	a.served.Add(1)
	return true
}

// start is told the size of the buffer at position 0, the guess's stride,
// and starts the reader.
func (a *headerAhead) start(bufferSize uint32) {
	if a.stride != 0 || bufferSize < HeaderSize {
		return
	}
	a.stride = int64(bufferSize)
	if a.batch == nil {
		a.wg.Add(1)
		go a.read()
	}
}

func (a *headerAhead) read() {
	defer a.wg.Done()
	for p := int64(1); !a.stopped.Load(); p += 2 {
		// Positions the walk has passed are of no use.
		if d := a.done.Load(); p <= d {
			p = d + 1 | 1
		}
		for p > a.done.Load()+2*headerRing {
			if a.stopped.Load() {
				return
			}
			runtime.Gosched()
		}
		off := a.base + p*a.stride
		if off+HeaderSize > a.size {
			return
		}
		s := &a.slots[(p>>1)%headerRing]
		s.pos.Store(0)
		_, err := a.r.ReadAt(s.hdr[:], off)
		s.ok = err == nil
		s.pos.Store(p + 1)
	}
}
