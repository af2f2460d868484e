package fileorder

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/internal/prefault"
	"github.com/etlkit/etlkit/record"
)

// File order on two cores. The iterating goroutine walks the buffer headers
// a few buffers ahead into a ring of slots; each slot is then read and
// decoded by whichever side claims it first. The iterating side takes slots
// from the front, in file order, and decodes them in place as the one-core
// loop does. A second goroutine claims the newest pending slot, at the far
// end of the ring, and decodes it into an array of records that the
// iterating side then only has to hand out. Working from opposite ends, the
// two seldom wait for each other, and the share each decodes adjusts to how
// much work the loop body does. The records, errors and counts are those of
// the one-core loop, in the same order.

// Slot states.
const (
	slotPending  int32 = iota // located, not yet claimed
	slotIterator              // owned by the iterating side
	slotDecoding              // claimed by the second goroutine; ready says when it is done
)

const (
	// Slots is the ring's length: enough buffers ahead that the
	// second goroutine stays clear of the front, few enough that the
	// decoded records stay in cache.
	Slots = 8
	// MaxPredecoded bounds the records decoded ahead in one slot; the
	// iterating side decodes the rest of a larger buffer itself. Memory
	// stays in proportion to the ring whatever the buffer holds, and a
	// 64 KiB buffer of ~500 records is shared between the two sides, whose
	// arrays then stay small enough for the cache (PERFORMANCE.md has the
	// sizes tried).
	MaxPredecoded = 256
	// minParallelBuffers: below this many session buffers in the file, the
	// goroutine costs more than it saves.
	minParallelBuffers = 16
	// maxParallelBufferSize keeps the ring's buffers within a few MiB:
	// sessions with larger buffers are read on one goroutine.
	maxParallelBufferSize = 1 << 20
)

type readSlot struct {
	state atomic.Int32
	seq   atomic.Int64  // position in file order, for "newest"
	ready chan struct{} // the second goroutine finished this slot

	b        buffer.Buffer
	span     int64 // bytes of input the buffer covers
	err      error // the walk could not locate the buffer
	end      bool  // the walk is over
	zeroTail bool  // with end: the walk ended at a zero-filled tail

	// Set by the second goroutine when it claimed the slot: the buffer's
	// load error, the outcome of each step of the cursor, and the cursor
	// itself, to go on where it stopped.
	loadErr error
	cur     record.Cursor
	recs    []record.Record
	steps   int         // calls of Cursor.Next made; step i decoded recs[i] unless it failed
	failed  []stepError // the steps that gave an error, in order
	more    bool        // the cursor stopped at MaxPredecoded with records left
}

// stepError is a call of Cursor.Next that gave an error. Errors are rare, so
// only they are written down: the records need no list of outcomes, which
// would be one more thing per record to hand from one core to the other.
type stepError struct {
	step int
	err  error
	ok   bool // Next's first result: the record was skipped, the buffer goes on
}

// Worthwhile reports whether a file of size bytes in buffers of
// bufferSize bytes is better read by Parallel than by Serial.
func Worthwhile(size int64, bufferSize uint32) bool {
	if runtime.GOMAXPROCS(0) < 2 || bufferSize > maxParallelBufferSize {
		return false
	}
	bufSize := int64(max(bufferSize, 4096))
	return size/bufSize >= minParallelBuffers
}

// Ring holds the slots of the two-goroutine pass, with the record arrays
// grown in them, from one pass to the next, so that a pass allocates only
// its goroutine and channels. The zero Ring is ready to use; a Ring serves
// one pass at a time.
type Ring struct {
	slots atomic.Pointer[[Slots]readSlot]
}

// Parallel delivers the records on the calling goroutine and a second one
// (see the comment above), with ring's slots.
func (p *Pass) Parallel(ring *Ring, yield func(*record.Record, error) bool) {
	slots := ring.slots.Swap(nil)
	if slots == nil {
		slots = new([Slots]readSlot)
		for i := range slots {
			// Arrays at their full size from the start: grown on demand,
			// they would allocate in whichever later pass first gives a
			// slot a fuller buffer.
			slots[i].ready = make(chan struct{}, 1)
			slots[i].recs = make([]record.Record, MaxPredecoded)
			prefault.Slice(slots[i].recs)
		}
	}
	defer ring.slots.Store(slots)
	for i := range slots {
		// A pass stopped early may leave a token for a slot it never took.
		select {
		case <-slots[i].ready:
		default:
		}
	}
	wake := make(chan struct{}, 1)
	stop := make(chan struct{})
	scan := p.NewWalker()
	scan.HeadersOnly = true
	loader := scan.Loader()
	// Headers in batches, where the file can.
	scan.ReadHeadersAhead()
	walkOver := false
	// locate walks to the next buffer header into s, as the seq-th slot.
	locate := func(s *readSlot, seq int64) {
		s.state.Store(slotIterator)
		s.seq.Store(seq)
		if walkOver {
			s.end = true
			return
		}
		start := scan.Offset()
		err := scan.Next(&s.b)
		if err == io.EOF {
			s.end, s.zeroTail, walkOver = true, scan.ZeroTail, true
			return
		}
		s.end, s.err, s.span = false, err, scan.Span(start)
		if err == nil {
			s.state.Store(slotPending)
		}
	}
	for i := range slots {
		locate(&slots[i], int64(i))
	}
	// The second goroutine's loader is a copy of the walk's settings, made
	// here before the walk moves on.
	ahead := scan.Loader()
	var done sync.WaitGroup
	done.Add(1)
	go func() {
		defer done.Done()
		p.decodeAhead(slots, ahead, wake, stop)
	}()
	defer func() {
		close(stop)
		done.Wait()
	}()
	wake <- struct{}{}

	var (
		cur record.Cursor
		rec record.Record
	)
	for seq := int64(0); ; seq++ {
		s := &slots[seq%Slots]
		if s.end {
			p.Observer.Ended(s.zeroTail)
			return
		}
		if !p.yieldSlot(s, loader, &cur, &rec, yield) {
			return
		}
		locate(s, seq+Slots)
		if s.state.Load() == slotPending {
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}
}

// yieldSlot hands out the records of one slot, decoding them itself unless
// the second goroutine has claimed the slot. It reports false when the
// loop body stopped the iteration.
func (p *Pass) yieldSlot(s *readSlot, loader *buffer.Loader, cur *record.Cursor, rec *record.Record, yield func(*record.Record, error) bool) bool {
	p.Observer.Scanned(&s.b, s.span, s.err)
	if s.err != nil {
		return yield(nil, s.err)
	}
	if s.state.CompareAndSwap(slotPending, slotIterator) {
		err := loader.LoadLocated(&s.b)
		p.Observer.Loaded(&s.b, err)
		if err != nil {
			return yield(nil, err)
		}
		cur.Reset(&s.b, p.Clock)
	} else {
		<-s.ready
		s.state.Store(slotIterator)
		p.Observer.Loaded(&s.b, s.loadErr)
		if s.loadErr != nil {
			return yield(nil, s.loadErr)
		}
		failed := s.failed
		for i := range s.steps {
			if len(failed) > 0 && failed[0].step == i {
				f := failed[0]
				failed = failed[1:]
				p.Observer.RecordError(f.err, f.ok)
				if !yield(nil, f.err) {
					return false
				}
				continue
			}
			p.delivered(&s.recs[i])
			if !yield(&s.recs[i], nil) {
				return false
			}
		}
		if !s.more {
			return true
		}
		*cur = s.cur
	}
	return p.yieldRecords(cur, rec, yield)
}

// decodeAhead is the second goroutine: it claims the newest pending slot,
// reads and decodes it, and sleeps when there is none until woken.
func (p *Pass) decodeAhead(slots *[Slots]readSlot, loader *buffer.Loader, wake, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-wake:
		}
		for {
			s := newestPending(slots)
			if s == nil {
				break
			}
			if !s.state.CompareAndSwap(slotPending, slotDecoding) {
				continue
			}
			p.decodeSlot(s, loader)
			s.ready <- struct{}{}
			select {
			case <-stop:
				return
			default:
			}
		}
	}
}

// decodeSlot reads and decodes a claimed slot.
func (p *Pass) decodeSlot(s *readSlot, loader *buffer.Loader) {
	s.steps, s.failed, s.more = 0, s.failed[:0], false
	if s.loadErr = loader.LoadLocated(&s.b); s.loadErr == nil {
		p.predecode(s)
	}
}

func newestPending(slots *[Slots]readSlot) *readSlot {
	var newest *readSlot
	var seq int64 = -1
	for i := range slots {
		s := &slots[i]
		if s.state.Load() != slotPending {
			continue
		}
		if q := s.seq.Load(); q > seq {
			newest, seq = s, q
		}
	}
	return newest
}

// predecode runs the cursor over the slot's buffer into its record array.
func (p *Pass) predecode(s *readSlot) {
	s.cur.Reset(&s.b, p.Clock)
	for {
		if s.steps == MaxPredecoded {
			s.more = true
			return
		}
		ok, err := s.cur.Next(&s.recs[s.steps])
		if err == nil && !ok {
			return
		}
		if err != nil {
			s.failed = append(s.failed, stepError{step: s.steps, err: err, ok: ok})
		}
		s.steps++
		if !ok {
			return
		}
	}
}
