package order

import (
	"math"
	"sync"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/record"
)

// The merge on two cores. Choosing the next record costs about as much as
// decoding it, so a goroutine of its own, the merger, runs the merge a
// little ahead of the iterating goroutine: it reads each stream's buffers,
// steps over their records with record.Cursor.Skim, which gives the
// timestamp without decoding, and plays the loser tree. What it decides is
// a list of stream numbers, handed over in batches: "the next outcome of
// stream i" (a record, or the error met in its place) and "stream i moves
// to its next buffer". The iterating goroutine follows the list with a
// cursor of its own per stream, decoding each record once, and keeps every
// count and calls the Observer as the merge on one goroutine does. Skim
// gives the same outcome as Next for every record, so the two cursors
// never part, and the records, errors and Stats are those of the merge on
// one goroutine, in the same order.
//
// A stream's buffers pass from the iterating goroutine (which hands a slot
// back to be read again once it has left it) to the merger through a
// channel as long as the stream's ring, so the merger runs at most the ring
// ahead; it hands over what it has decided before it waits for a slot, so
// the iterating goroutine can always make room.

// pipeRing is the number of slots of each data stream when the merge runs
// on its own goroutine: the buffer the iterating goroutine decodes, the
// one the merger skims, and one being read.
const pipeRing = 2

const (
	// pipeBatch is how many items go over at a time.
	pipeBatch = 2048
	// pipeBatches is how many batches can be on their way.
	pipeBatches = 4
	// itemEnter marks an item that moves its stream to its next buffer.
	itemEnter = 1
)

// merger is the merge's own goroutine.
type merger struct {
	m     *Merge
	st    []skimmer
	keys  []key
	tree  loserTree
	batch []uint32
	out   chan []uint32
	free  chan []uint32
	quit  chan struct{}
	wg    sync.WaitGroup
}

// skimmer is the merger's view of a data stream.
type skimmer struct {
	s      *stream
	cur    *slot
	cursor record.Cursor
	cpu    uint16
	active bool
	done   bool
	taken  int // buffers taken from the stream's channel
	// The time of the record before, for the inversions.
	lastT   int64
	lastF   uint32
	scratch record.Record
}

func newMerger(m *Merge) *merger {
	p := &merger{
		m:    m,
		st:   make([]skimmer, len(m.data)),
		keys: make([]key, len(m.data)),
		out:  make(chan []uint32, pipeBatches),
		free: make(chan []uint32, pipeBatches),
		quit: make(chan struct{}),
	}
	for i, s := range m.data {
		p.st[i].s = s
		p.st[i].lastT = math.MinInt64
	}
	for i := 0; i < pipeBatches; i++ {
		p.free <- make([]uint32, 0, pipeBatch)
	}
	p.batch = <-p.free
	return p
}

func (p *merger) run() {
	defer p.wg.Done()
	defer close(p.out)
	for i := range p.st {
		if !p.step(i) {
			return
		}
	}
	p.tree.init(p.keys)
	for len(p.st) > 0 {
		i := p.tree.winner()
		if p.st[i].done {
			break
		}
		if !p.put(uint32(i)<<1) || !p.step(i) {
			return
		}
		p.tree.replay(i)
	}
	p.flush()
}

// put adds an item to the batch, handing the batch over when full. It
// reports false when the iteration has stopped.
func (p *merger) put(item uint32) bool {
	p.batch = append(p.batch, item)
	if len(p.batch) == cap(p.batch) {
		return p.flush()
	}
	return true
}

func (p *merger) flush() bool {
	if len(p.batch) == 0 {
		return true
	}
	select {
	case p.out <- p.batch:
	case <-p.quit:
		return false
	}
	select {
	case p.batch = <-p.free:
		p.batch = p.batch[:0]
		return true
	case <-p.quit:
		return false
	}
}

// step advances stream i to its next record, putting an item for every
// error met on the way, as the merge on one goroutine delivers them at
// once. It reports false when the iteration has stopped.
func (p *merger) step(i int) bool {
	for {
		isErr, alive := p.advance(i)
		if !alive {
			return false
		}
		if !isErr {
			return true
		}
		if !p.put(uint32(i) << 1) {
			return false
		}
	}
}

// advance is Merge.advance without decoding: it moves stream i to its next
// record and sets its key, or reports an error in the record's place.
func (p *merger) advance(i int) (isErr, alive bool) {
	w := &p.st[i]
	for {
		if w.active {
			raw, ok, err := w.cursor.Skim(&w.scratch)
			if err != nil {
				return true, true
			}
			if ok {
				t, f := raw, uint32(0)
				if p.m.fine {
					t, f = stampOf(w.s.clock, raw, true)
				}
				p.keys[i] = key{t: t, hi: makeHi(f, w.cpu, w.s.src)}
				if t < w.lastT || t == w.lastT && f < w.lastF {
					p.m.inversion(w.s, uint64(w.lastT)-uint64(t))
				}
				w.lastT, w.lastF = t, f
				return false, true
			}
			w.active = false
		}
		sl, alive := p.nextBuffer(i)
		if !alive {
			return false, false
		}
		if sl == nil {
			w.done = true
			p.keys[i] = exhausted
			return false, true
		}
		if !p.put(uint32(i)<<1 | itemEnter) {
			return false, false
		}
		if sl.err != nil {
			return true, true
		}
		w.cursor.Reset(&sl.buf, w.s.clock)
		w.cpu = sl.buf.ProcessorNumber()
		w.active = true
	}
}

// nextBuffer takes the stream's next slot, once the iterating goroutine has
// handed it over, and waits until it is read. It returns nil at the
// stream's end, and false when the iteration has stopped.
func (p *merger) nextBuffer(i int) (*slot, bool) {
	w := &p.st[i]
	if w.taken == len(w.s.locs) {
		return nil, true
	}
	var sl *slot
	select {
	case sl = <-w.s.wch:
	default:
		// The iterating goroutine hands the slot back once it has the
		// items that take it past the buffer the slot held.
		if !p.flush() {
			return nil, false
		}
		select {
		case sl = <-w.s.wch:
		case <-p.quit:
			return nil, false
		}
	}
	w.taken++
	p.m.rd.await(sl)
	w.cur = sl
	return sl, true
}

// mergePiped runs the merger and follows what it decides, delivering the
// records of the data streams. It reports false when the loop body stopped
// the iteration.
func (m *Merge) mergePiped(yield func(*record.Record, error) bool) bool {
	p := newMerger(m)
	p.wg.Add(1)
	go p.run()
	defer func() {
		close(p.quit)
		p.wg.Wait()
	}()
	for batch := range p.out {
		for _, item := range batch {
			s := m.data[item>>1]
			if item&itemEnter != 0 {
				m.enter(s)
				continue
			}
			if err := m.outcome(s); err != nil {
				if !yield(nil, err) {
					return false
				}
				continue
			}
			if !m.deliver(s, yield) {
				return false
			}
		}
		p.free <- batch
	}
	return true
}

// enter moves s to its next buffer, handing the one it leaves back to be
// read again, as nextBuffer does.
func (m *Merge) enter(s *stream) {
	if cur := s.cur; cur != nil {
		s.cur = nil
		if s.next < len(s.locs) {
			m.submit(s, cur)
		}
	}
	sl := s.ring[s.head]
	s.ring[s.head] = nil
	s.head = (s.head + 1) % len(s.ring)
	s.n--
	s.cur = sl
	s.errPending = sl.err != nil
	if sl.scanErr {
		return
	}
	if s.obs != nil {
		if sl.err != nil {
			s.obs.Loaded(nil, sl.err)
		} else {
			s.obs.Loaded(&sl.buf, nil)
		}
	}
	if sl.err == nil {
		s.cursor.Reset(&sl.buf, s.clock)
	}
}

// outcome decodes the next record of s, or gives the error met in its
// place, as advance does. The merger has counted the inversions.
func (m *Merge) outcome(s *stream) error {
	if s.errPending {
		s.errPending = false
		return s.cur.err
	}
	ok, err := s.cursor.Next(&s.rec)
	if err != nil {
		if s.obs != nil {
			s.obs.RecordError(err, ok)
		}
		return err
	}
	if !ok {
		// Skim and Next part ways: not possible, since Skim gives Next's
		// outcome; said rather than hidden were it to happen.
		return &buffer.FormatError{Offset: s.cur.off, Buffer: s.cur.index, Reason: "the merge lost its place in the buffer's records"}
	}
	s.recp, s.t, s.f = &s.rec, s.rec.RawTimeStamp, 0
	if m.fine {
		s.t, s.f = stampOf(s.clock, s.t, true)
	}
	s.records++
	return nil
}
