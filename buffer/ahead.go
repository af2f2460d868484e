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

// headerAhead reads, on its own goroutine, the headers a HeadersOnly walk
// is about to ask for, so that a scan of a large file makes its read calls
// on two processors instead of one. Those calls, one per buffer, are all a
// scan costs.
//
// Where the next headers are is a guess: every buffer as large as the
// first one, as in any uncompressed file written by one session. The
// reader takes every other predicted position (the odd ones: the walk
// reads the even ones itself), and the walk uses a header from it only
// when the position and the offset are the ones it was about to read, so
// a wrong guess costs a wasted read and never changes what the walk
// returns. At the first offset off the guess, the reader stops.
type headerAhead struct {
	r      io.ReaderAt
	size   int64
	base   int64 // offset of position 0
	stride int64 // guessed buffer size; 0 until the first header is read
	// done is the last position the walk has finished with; the reader
	// never holds a position more than 2*headerRing past it.
	done    atomic.Int64
	stopped atomic.Bool
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

// ReadHeadersAhead starts reading, on another goroutine, the headers this
// HeadersOnly walk will ask for next. The walk returns the same buffers
// and errors with it as without it. stop ends the reading and waits for
// it; call it before the walk is dropped. With one processor, or a walk
// over extents or of whole buffers, it does nothing.
func (w *Walker) ReadHeadersAhead() (stop func()) {
	if !w.HeadersOnly || w.extent != nil || runtime.GOMAXPROCS(0) < 2 || w.ahead != nil {
		return func() {}
	}
	a := &headerAhead{r: w.r, size: w.size, base: w.off}
	a.done.Store(-1)
	w.ahead = a
	return func() {
		a.stopped.Store(true)
		a.wg.Wait()
		w.ahead = nil
	}
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
	if p < 0 {
		if a.stride != 0 {
			a.stopped.Store(true)
		}
		return false
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
	a.wg.Add(1)
	go a.read()
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
