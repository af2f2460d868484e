package order

import (
	"sync"
	"sync/atomic"

	"github.com/etlkit/etlkit/buffer"
)

// slot holds one buffer of a stream: read (or being read) ahead, or the one
// the stream's cursor is on. Slots cycle through their stream's ring, so a
// buffer's storage is reused once it has grown, and the steady state
// allocates nothing.
type slot struct {
	src   int
	off   int64
	index int
	buf   buffer.Buffer
	err   error
	// scanErr: the walk already reported this buffer as unreadable; err is
	// that error and nothing is read.
	scanErr bool
	// done receives one token when the read finished (read-ahead only).
	done chan struct{}
}

// reader reads slots, ahead of the merge on worker goroutines, or on the
// iterating goroutine when read-ahead is off.
type reader struct {
	sources []Source
	async   bool
	jobs    chan *slot
	stop    atomic.Bool
	wg      sync.WaitGroup
	// loaders of the iterating goroutine, per source, when not async.
	loaders []*buffer.Loader
}

func newReader(sources []Source, workers, slots int) *reader {
	r := &reader{sources: sources, async: workers > 0}
	if !r.async {
		r.loaders = make([]*buffer.Loader, len(sources))
		return r
	}
	// Every slot has at most one read outstanding, so sends never block.
	r.jobs = make(chan *slot, slots)
	r.wg.Add(workers)
	for i := 0; i < workers; i++ {
		go r.work()
	}
	return r
}

func (r *reader) loader(loaders []*buffer.Loader, src int) *buffer.Loader {
	if loaders[src] == nil {
		loaders[src] = r.sources[src].NewWalker().Loader()
	}
	return loaders[src]
}

func (r *reader) work() {
	defer r.wg.Done()
	loaders := make([]*buffer.Loader, len(r.sources))
	for s := range r.jobs {
		if !r.stop.Load() {
			s.err = r.loader(loaders, s.src).Load(s.off, s.index, &s.buf)
		}
		s.done <- struct{}{}
	}
}

// submit asks for s to be read.
func (r *reader) submit(s *slot) {
	if s.scanErr {
		if r.async {
			s.done <- struct{}{}
		}
		return
	}
	if r.async {
		r.jobs <- s
	}
}

// await returns once s is read.
func (r *reader) await(s *slot) {
	if r.async {
		<-s.done
		return
	}
	if !s.scanErr {
		s.err = r.loader(r.loaders, s.src).Load(s.off, s.index, &s.buf)
	}
}

// close stops the workers and waits for them, so that no goroutine touches
// a buffer once the iteration has returned.
func (r *reader) close() {
	if !r.async {
		return
	}
	r.stop.Store(true)
	close(r.jobs)
	r.wg.Wait()
}
