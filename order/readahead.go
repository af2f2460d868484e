package order

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// slot holds one buffer of a stream: read (or being read) ahead, or the one
// the merge is taking records from. Slots cycle through their stream's
// ring, so a buffer's storage and its decoded records are reused once they
// have grown, and the steady state allocates nothing.
type slot struct {
	src   int
	off   int64
	index int
	size  uint32 // loc.size
	clock *header.Clock
	fine  bool // stampOf's: the merge has several sources
	buf   buffer.Buffer
	err   error
	// scanErr: the walk already reported this buffer as unreadable; err is
	// that error and nothing is read.
	scanErr bool
	// cursor walks the buffer's records; recs holds the first of them,
	// decoded ahead with their keys, and rest says the cursor may have more.
	cursor record.Cursor
	recs   []decoded
	rest   bool
	// state says who reads the slot; done receives one token when a worker
	// has read it.
	state atomic.Int32
	done  chan struct{}
}

// decoded is a record decoded ahead of the merge, or the error met in its
// place (more: the buffer goes on after it).
type decoded struct {
	rec  record.Record
	t    int64 // rec's time: its key (see stampOf)
	f    uint32
	more bool
	err  error
}

// entrySize is what one record decoded ahead costs.
const entrySize = int(unsafe.Sizeof(decoded{}))

// prepare decodes up to limit records of a buffer just read, so that the
// merge only has to pick them; the records after the limit are decoded
// when the merge reaches them.
func (s *slot) prepare(limit int) {
	s.recs = s.recs[:0]
	s.rest = false
	if s.err != nil || s.scanErr {
		return
	}
	s.cursor.Reset(&s.buf, s.clock)
	if cap(s.recs) < limit {
		// Once, at the full size: the pages are touched only as far as
		// records fill them.
		s.recs = make([]decoded, 0, limit)
	}
	for len(s.recs) < limit {
		n := len(s.recs)
		s.recs = s.recs[:n+1] // within the capacity made above
		d := &s.recs[n]
		ok, err := s.cursor.Next(&d.rec)
		d.err, d.more = err, ok
		if err != nil {
			if !ok {
				return
			}
			continue
		}
		if !ok {
			s.recs = s.recs[:n]
			return
		}
		d.t, d.f = stampOf(s.clock, d.rec.RawTimeStamp, s.fine)
	}
	s.rest = true
}

// reader reads slots, ahead of the merge on worker goroutines, or on the
// iterating goroutine when read-ahead is off.
type reader struct {
	sources []Source
	async   bool
	// limit is how many records of each buffer workers decode ahead.
	limit int
	jobs  chan *slot
	stop  atomic.Bool
	wg    sync.WaitGroup
	// loaders of the iterating goroutine, per source.
	loaders []*buffer.Loader
}

// A slot's read is queued, then taken by a worker or by the iterating
// goroutine, whichever comes first.
const (
	slotIdle int32 = iota
	slotQueued
	slotTaken
)

func newReader(sources []Source, workers, slots, limit int) *reader {
	r := &reader{sources: sources, async: workers > 0, limit: limit}
	r.loaders = make([]*buffer.Loader, len(sources))
	if !r.async {
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
		if !s.state.CompareAndSwap(slotQueued, slotTaken) {
			continue // the iterating goroutine read it itself
		}
		if !r.stop.Load() {
			if !s.scanErr {
				s.err = r.loader(loaders, s.src).LoadSized(s.off, s.index, s.size, &s.buf)
			}
			s.prepare(r.limit)
		}
		s.done <- struct{}{}
	}
}

// submit asks for s to be read.
func (r *reader) submit(s *slot) {
	if r.async {
		s.state.Store(slotQueued)
		r.jobs <- s
	}
}

// await returns once s is read. A read no worker has started yet is done
// here: waiting for a worker that does not get a core, on a busy machine,
// would be slower than reading on the iterating goroutine.
func (r *reader) await(s *slot) {
	if r.async && !s.state.CompareAndSwap(slotQueued, slotTaken) {
		<-s.done
		return
	}
	if !s.scanErr {
		s.err = r.loader(r.loaders, s.src).LoadSized(s.off, s.index, s.size, &s.buf)
	}
	// Decoding on the iterating goroutine gains nothing by going ahead.
	s.prepare(0)
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
