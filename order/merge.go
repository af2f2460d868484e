package order

import (
	"iter"
	"math"
	"runtime"
	"time"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// Merge iterates the records of one or more sources in the order its
// Options ask for. A Merge can be iterated more than once, but not from two
// goroutines at a time.
type Merge struct {
	sources []Source
	opts    Options
	stats   Stats

	streams  []*stream // header streams first, then data streams
	data     []*stream // the data streams, by leaf of the tree
	keys     []key     // the data streams' keys, by leaf
	tree     loserTree
	rd       *reader
	piped    bool              // the merge runs on a goroutine of its own (pipeline.go)
	errs     []map[int32]error // scan errors by source and buffer index
	trailing []error
	noKey    key // where header streams write their keys

	// fine: several sources, whose records are placed by FILETIME and
	// fraction; with one, by raw timestamp, read with clock (see stampOf).
	fine  bool
	clock *header.Clock

	// The last record delivered, for the output counts.
	lastT   int64
	lastF   uint32
	lastSID int
	lastSrc int

	win window
}

// New prepares an iteration over sources, in the order given: their header
// buffers are delivered in that order, and FileOrder reads them one after
// another.
func New(opts Options, sources ...Source) *Merge {
	return &Merge{sources: sources, opts: opts}
}

// Stats returns the counts of the last iteration, complete or not.
func (m *Merge) Stats() *Stats { return &m.stats }

// Source is the index, among the sources given to New, of the source of the
// record just delivered; it is meant for the body of the loop.
func (m *Merge) Source() int { return m.lastSrc }

// Records iterates the records. The *record.Record and every slice in it
// are valid until the loop body returns: the storage is reused for the next
// record (see Record.Clone). A damaged buffer or record yields a nil record
// and a *buffer.FormatError in its place, and the iteration goes on; a
// damaged buffer costs that buffer only.
func (m *Merge) Records() iter.Seq2[*record.Record, error] {
	return func(yield func(*record.Record, error) bool) {
		m.reset()
		switch m.opts.Mode {
		case FileOrder:
			m.fileOrder(yield)
		default:
			m.merge(yield)
		}
	}
}

// reset starts the counts and the timeline of an iteration.
func (m *Merge) reset() {
	m.stats = Stats{Mode: m.opts.Mode}
	m.lastT, m.lastF, m.lastSID = math.MinInt64, 0, -1
	m.fine, m.clock = len(m.sources) > 1, nil
	if len(m.sources) == 1 {
		m.clock = m.sources[0].Clock
	}
}

// stream is the buffers of one processor of one source, or a source's
// header buffer, with the one record the merge looks at.
type stream struct {
	// The fields the merge touches for every record come first, to share
	// a cache line or two.
	recp *record.Record // the stream's current record
	// t and f are the time of recp (see stampOf); until the stream's
	// first record, t is the smallest time, for the inversions.
	t       int64
	f       uint32
	k       *key
	hi      uint64 // the key's hi for cur's records, but for the fraction
	cur     *slot
	i       int  // next of cur's records decoded ahead
	active  bool // the merge takes records from cur
	done    bool
	records int
	// id is the stream's place in Merge.streams; during the header scan,
	// its place among the source's streams in the order met.
	id    int
	src   int
	types *[256]int // the source's count of records by header type
	obs   Observer
	st    *StreamStats // filled in by finish, but for the inversions

	header bool
	cpu    uint16
	locs   []loc
	next   int // next loc to read
	clock  *header.Clock

	// ring holds the slots read or being read, in stream order.
	ring    []*slot
	head, n int
	rec     record.Record // a record of cur decoded when reached

	// When the merge runs on its own goroutine: the slots handed to it, in
	// stream order, and the iterating goroutine's cursor over cur, with
	// cur's error still to deliver.
	wch        chan *slot
	cursor     record.Cursor
	errPending bool
}

// setup scans every source's buffer headers, forms the streams, sizes the
// read-ahead to the memory budget and queues the first reads.
func (m *Merge) setup() {
	m.streams, m.data, m.keys, m.trailing = nil, nil, nil, nil
	m.errs = make([]map[int32]error, len(m.sources))
	largest, compressed := 0, 0
	var headers, data []*stream
	runs := make([]int, len(m.sources))
	for si := range m.sources {
		src := &m.sources[si]
		sc := scan(si, src)
		m.errs[si] = sc.errs
		runs[si] = sc.runs
		m.trailing = append(m.trailing, sc.trailing...)
		largest = max(largest, sc.largest)
		compressed += sc.compressed
		for _, s := range sc.streams {
			s.clock, s.obs = src.Clock, src.Observer
			if s.header {
				headers = append(headers, s)
			} else {
				data = append(data, s)
			}
		}
	}
	m.streams = append(headers, data...)
	m.data = data
	m.keys = make([]key, len(data))
	m.stats.Streams = make([]StreamStats, len(m.streams))
	m.stats.Sources = make([]SourceStats, len(m.sources))
	for si, n := range runs {
		m.stats.Sources[si].SequenceRuns = n
	}
	for i, s := range m.streams {
		s.id = i
		s.st = &m.stats.Streams[i]
		s.t = math.MinInt64
		s.types = &m.stats.Sources[s.src].HeaderTypes
		*s.st = StreamStats{Source: s.src, Processor: s.cpu, Header: s.header, Buffers: len(s.locs)}
		if len(s.locs) > 0 {
			s.st.FirstSequence, s.st.LastSequence = s.locs[0].seq, s.locs[len(s.locs)-1].seq
		}
		s.k = &m.noKey
	}
	for i, s := range data {
		s.k = &m.keys[i]
	}

	depth := m.opts.ReadAhead
	if depth == 0 && (compressed > 0 || runtime.GOMAXPROCS(0) >= 2) {
		depth = DefaultReadAhead
	}
	depth = max(depth, 0)
	if len(m.streams) == 0 {
		// Nothing to read ahead (an input with no buffer left to read).
		depth = 0
	}
	// Half the budget for the buffers read ahead, half for the records
	// decoded ahead of the merge.
	for depth > 0 && len(m.streams)*(1+depth)*largest > ReadAheadBudget/2 {
		depth--
	}
	workers := m.opts.Workers
	if workers <= 0 {
		workers = 1
		if compressed > 0 {
			workers = runtime.GOMAXPROCS(0)
		}
	}
	// The merge runs on a goroutine of its own when asked, there is a core
	// for it and a merge to run, unless read-ahead is off or records are to
	// be decoded ahead.
	m.piped = m.opts.MergeAhead && m.opts.ReadAhead >= 0 && m.opts.DecodeAhead <= 0 && runtime.GOMAXPROCS(0) >= 2 && len(data) >= 2 &&
		len(m.streams)*max(pipeRing, 1+depth)*largest <= ReadAheadBudget
	limit := 0
	if depth == 0 {
		workers = 0
	} else {
		limit = min(max(m.opts.DecodeAhead, 0), ReadAheadBudget/2/(len(m.streams)*(1+depth)*entrySize))
	}
	m.stats.ReadAhead, m.stats.Workers, m.stats.DecodeAhead, m.stats.Pipelined = depth, workers, limit, m.piped

	slots, ring := 0, depth+1
	for _, s := range m.streams {
		n := min(depth+1, len(s.locs))
		if m.piped && !s.header {
			n = min(max(depth+1, pipeRing), len(s.locs))
			ring = max(ring, n)
			s.wch = make(chan *slot, max(n, 1))
			// The merger keeps the keys; the streams' own go nowhere.
			s.k = &m.noKey
		}
		s.ring = make([]*slot, max(n, 1))
		slots += n
	}
	m.rd = newReader(m.sources, workers, slots, limit)
	// Queue the first buffer of every stream before the second of any, so
	// that the merge can start as soon as possible.
	for d := 0; d < ring; d++ {
		for _, s := range m.streams {
			if d < len(s.ring) && s.next < len(s.locs) {
				sl := &slot{}
				if workers > 0 {
					sl.done = make(chan struct{}, 1)
				}
				m.submit(s, sl)
			}
		}
	}
}

// submit puts the stream's next buffer into sl and asks for it to be read.
func (m *Merge) submit(s *stream, sl *slot) {
	l := s.locs[s.next]
	s.next++
	sl.src, sl.off, sl.index, sl.size, sl.clock, sl.fine = s.src, l.off, int(l.index), l.size, s.clock, m.fine
	sl.scanErr, sl.err = l.bad(), nil
	if l.bad() {
		sl.err = m.errs[s.src][l.index]
	}
	s.ring[(s.head+s.n)%len(s.ring)] = sl
	s.n++
	m.rd.submit(sl)
	if s.wch != nil {
		s.wch <- sl // never blocks: the channel holds the whole ring
	}
}

// nextBuffer moves s to its next buffer, handing the current one back to
// be read again with a later buffer. It returns false at the stream's end.
func (m *Merge) nextBuffer(s *stream) bool {
	if s.cur != nil {
		// The caller has finished with every record of cur.
		cur := s.cur
		s.cur = nil
		if s.next < len(s.locs) {
			m.submit(s, cur)
		}
	}
	if s.n == 0 {
		return false
	}
	sl := s.ring[s.head]
	s.ring[s.head] = nil
	s.head = (s.head + 1) % len(s.ring)
	s.n--
	m.rd.await(sl)
	s.cur = sl
	// Every record of a buffer has the buffer's processor number.
	s.hi = makeHi(0, sl.buf.ProcessorNumber(), s.src)
	if sl.scanErr {
		return true
	}
	if s.obs != nil {
		if sl.err != nil {
			s.obs.Loaded(nil, sl.err)
		} else {
			s.obs.Loaded(&sl.buf, nil)
		}
	}
	return true
}

// advance moves s to its next record and sets its key; at the stream's end
// the key becomes exhausted. An error is returned for the caller to deliver
// in the record's place, after which the caller calls advance again.
func (m *Merge) advance(s *stream) error {
	for {
		if s.active {
			sl := s.cur
			if s.i < len(sl.recs) {
				d := &sl.recs[s.i]
				s.i++
				if d.err != nil {
					if s.obs != nil {
						s.obs.RecordError(d.err, d.more)
					}
					return d.err
				}
				m.took(s, &d.rec, d.t, d.f)
				return nil
			}
			if sl.rest {
				ok, err := sl.cursor.Next(&s.rec)
				if err != nil {
					// The cursor goes on with the next record when it can,
					// and otherwise reports the end of the buffer next time.
					if s.obs != nil {
						s.obs.RecordError(err, ok)
					}
					return err
				}
				if ok {
					m.tookRec(s)
					prefetch(sl.upcoming())
					return nil
				}
			}
			s.active = false
		}
		if !m.nextBuffer(s) {
			s.done = true
			*s.k = exhausted
			return nil
		}
		if s.cur.err != nil {
			return s.cur.err
		}
		s.active, s.i = true, 0
	}
}

// upcoming is where the next record of sl starts, or nil after the last,
// for prefetch: the first bytes of a stream's next record are then on their
// way to the cache while other streams are served. With many streams, a
// stream's next record has left the cache by its turn, and decoding it
// would wait for memory. A prefetch, not a load: a load that misses holds
// back everything after it, and took half the merge loop's time (perf, 1
// GiB etlgen trace), as much as the decoding it spared. A prefetch never
// faults, past the end of the data or at nil. The call is written out
// where it is made: a function around it would cost more than the
// inliner allows.
func (sl *slot) upcoming() *byte {
	if data, p := sl.buf.Data, sl.cursor.Position(); uint(p) < uint(len(data)) {
		return &data[p]
	}
	return nil
}

// tookRec makes s.rec, just decoded by the cursor, the current record of s.
func (m *Merge) tookRec(s *stream) {
	t, f := s.rec.RawTimeStamp, uint32(0)
	if m.fine {
		t, f = stampOf(s.clock, t, true)
	}
	m.took(s, &s.rec, t, f)
}

// took makes rec, whose time is t and f, the current record of s, sets its
// key and counts inversions.
func (m *Merge) took(s *stream, rec *record.Record, t int64, f uint32) {
	if t < s.t || t == s.t && f < s.f {
		m.inversion(s, uint64(s.t)-uint64(t))
	}
	s.recp, s.t, s.f = rec, t, f
	*s.k = key{t: t, hi: s.hi | uint64(f&(1<<31-1))<<32}
	s.records++
}

// inversion counts a record of s earlier than the one before it, by d.
func (m *Merge) inversion(s *stream, d uint64) {
	dur := m.duration(d)
	s.st.Inversions++
	s.st.LargestInversion = max(s.st.LargestInversion, dur)
	m.stats.Inversions++
	m.stats.LargestInversion = max(m.stats.LargestInversion, dur)
}

// stampOf places a record on the merge's timeline. With one source that is
// its raw timestamp: within a file, raw timestamps are exact, and the
// clock's conversion keeps their order but may round several into one
// 100 ns unit (a 3 GHz cycle counter, a 24 MHz QPC). With several sources
// (fine) it is the FILETIME and the fraction of 100 ns past it, which
// keeps the order below 100 ns wherever both clocks resolve it. Either
// way two records tie only when their timestamps are equal.
func stampOf(c *header.Clock, raw int64, fine bool) (int64, uint32) {
	if !fine || c == nil {
		return raw, 0
	}
	return c.FineFileTime(raw)
}

// duration is how long a difference of two times of the timeline is.
func (m *Merge) duration(d uint64) time.Duration {
	if m.fine || m.clock == nil {
		return header.FileTimeDuration(d)
	}
	return m.clock.Duration(d)
}

// span is d in units of the timeline.
func (m *Merge) span(d time.Duration) uint64 {
	if m.fine || m.clock == nil {
		return uint64(max(d, 0) / 100)
	}
	return m.clock.Ticks(d)
}

// finish completes Stats with what the streams counted as they went.
func (m *Merge) finish() {
	for _, s := range m.streams {
		s.st.Records = s.records
	}
	finishSources(m.stats.Sources)
}

// finishSources adds up the records of each source from its header types.
func finishSources(src []SourceStats) {
	for i := range src {
		n := 0
		for _, c := range src[i].HeaderTypes {
			n += c
		}
		src[i].Records = n
	}
}

// merge delivers the header streams, then merges the data streams.
func (m *Merge) merge(yield func(*record.Record, error) bool) {
	m.setup()
	defer m.rd.close()
	defer m.finish()
	if m.opts.Mode == Sorted {
		m.win.reset(&m.opts, m.span(m.opts.Window))
	}
	// step advances s past errors, delivering them; false: stop.
	step := func(s *stream) bool {
		for {
			err := m.advance(s)
			if err == nil {
				return true
			}
			if !yield(nil, err) {
				return false
			}
		}
	}
	for _, s := range m.streams {
		if !s.header {
			break
		}
		for {
			if !step(s) {
				return
			}
			if s.done {
				break
			}
			if !m.deliver(s, yield) {
				return
			}
		}
	}
	if m.piped {
		if !m.mergePiped(yield) {
			return
		}
	} else if !m.mergeHere(yield, step) {
		return
	}
	if m.opts.Mode == Sorted {
		for m.win.len() > 0 {
			if !m.release(yield) {
				return
			}
		}
	}
	for _, err := range m.trailing {
		if !yield(nil, err) {
			return
		}
	}
}

// mergeHere merges the data streams on the iterating goroutine. It
// reports false when the loop body stopped the iteration.
func (m *Merge) mergeHere(yield func(*record.Record, error) bool, step func(*stream) bool) bool {
	for _, s := range m.data {
		if !step(s) {
			return false
		}
	}
	// With several sources hi holds each record's fraction of 100 ns.
	if m.fine {
		m.tree.init(m.keys)
	} else {
		m.tree.initPacked(m.keys)
	}
	sorted := m.opts.Mode == Sorted
	for len(m.data) > 0 {
		i := m.tree.winner()
		s := m.data[i]
		if s.done {
			break
		}
		var ok bool
		if sorted {
			ok = m.hold(s, yield)
		} else {
			// emit, written out: the call costs more than its work.
			if s.t <= m.lastT {
				m.stepped(s.t, s.f, s.id)
			}
			m.lastT, m.lastF, m.lastSID, m.lastSrc = s.t, s.f, s.id, s.src
			m.stats.Records++
			s.types[s.recp.HeaderType]++
			ok = yield(s.recp, nil)
		}
		if !ok {
			return false
		}
		// Most records come straight from the cursor of the current buffer.
		if sl := s.cur; s.active && s.i == len(sl.recs) && sl.rest {
			if ok, err := sl.cursor.Next(&s.rec); ok && err == nil {
				if t := s.rec.RawTimeStamp; !m.fine && t > s.t {
					// took, for one source and a record later than
					// the one before: no fraction, no inversion.
					s.recp, s.t = &s.rec, t
					*s.k = key{t: t, hi: s.hi}
					s.records++
					if tr := &m.tree; tr.packed {
						if w, ok := tr.packedAfter(i, t); ok {
							prefetch(sl.upcoming())
							tr.replayPacked(i, w)
							continue
						}
					}
				} else {
					m.tookRec(s)
				}
				prefetch(sl.upcoming())
				m.tree.replay(i)
				continue
			} else if err != nil {
				if s.obs != nil {
					s.obs.RecordError(err, ok)
				}
				if !yield(nil, err) || !step(s) {
					return false
				}
				m.tree.replay(i)
				continue
			}
			s.active = false
		}
		if err := m.advance(s); err != nil {
			if !yield(nil, err) || !step(s) {
				return false
			}
		}
		m.tree.replay(i)
	}
	return true
}

// deliver hands the current record of s to the caller, or to the window.
func (m *Merge) deliver(s *stream, yield func(*record.Record, error) bool) bool {
	if m.opts.Mode == Sorted {
		return m.hold(s, yield)
	}
	return m.emit(s.recp, s.t, s.f, s.id, s.src, yield)
}

// stepped counts a record delivered at t and f, from stream sid, that is
// not later than the record before it: a backward step or a tie.
func (m *Merge) stepped(t int64, f uint32, sid int) {
	if t < m.lastT || f < m.lastF {
		m.stats.BackwardSteps++
		m.stats.LargestBackwardStep = max(m.stats.LargestBackwardStep, m.duration(uint64(m.lastT)-uint64(t)))
	} else if f == m.lastF && sid != m.lastSID {
		m.stats.Ties++
	}
}

// emit delivers a record and keeps the output counts.
func (m *Merge) emit(rec *record.Record, t int64, f uint32, sid, src int, yield func(*record.Record, error) bool) bool {
	// lastT starts at the smallest time, so the first record needs no test.
	if t <= m.lastT {
		m.stepped(t, f, sid)
	}
	m.lastT, m.lastF, m.lastSID, m.lastSrc = t, f, sid, src
	m.stats.Records++
	m.stats.Sources[src].HeaderTypes[rec.HeaderType]++
	return yield(rec, nil)
}
