package order

import (
	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// held is a record kept in the reorder window: its bytes, copied into the
// window's arena because the buffer they live in moves on, and what the
// record inherits from that buffer. It is decoded again when it leaves the
// window; that costs a second decode, but the window holds no pointers for
// the collector to scan and allocates nothing once it has grown.
type held struct {
	rawOff   int
	rawLen   int32
	off      int32 // position in its buffer
	sid      int32
	cpu      uint16
	procIdx  bool
	compr    bool
	bufIndex int
	bufTS    int64
	bufOff   int64
}

// entry is a held record's place in the window, with its key, so that
// ordering touches one contiguous array.
type entry struct {
	t int64
	// tie packs the processor number above the arrival count: ties keep
	// the merge's order.
	tie  uint64
	slot int32
	f    uint32 // below t, as in key
}

func (a *entry) less(b *entry) bool {
	return a.t < b.t || a.t == b.t && (a.f < b.f || a.f == b.f && a.tie < b.tie)
}

// window is Sorted's reorder window. Its input is the merge's output,
// nearly in order: a record that is not earlier than the last one kept
// joins a FIFO, which therefore stays sorted and costs O(1) a record; only
// the records that arrive out of order go to a binary heap. The earliest
// record held is the earlier of the two fronts. Record bytes live in an
// arena, compacted into a spare one when it fills, at twice the live bytes,
// so copying costs O(1) per byte held.
type window struct {
	span     uint64 // in units of the timeline; 0: count only
	limit    int
	slots    []held
	free     []int32
	fifo     []entry // a ring of len(fifo), a power of two
	head, n  int
	heap     []entry
	arena    []byte
	spare    []byte
	live     int // bytes of the arena still held
	arrivals uint64
	lastT    int64 // time of the last record released
	lastF    uint32
	released bool
	out      record.Record
}

// reset empties the window; span is Options.Window on the merge's timeline.
func (w *window) reset(o *Options, span uint64) {
	w.span = span
	w.limit = o.WindowRecords
	if w.limit <= 0 {
		w.limit = DefaultWindowRecords
	}
	w.heap = w.heap[:0]
	w.head, w.n = 0, 0
	w.free = w.free[:0]
	for i := range w.slots {
		w.free = append(w.free, int32(i))
	}
	w.arena, w.live = w.arena[:0], 0
	w.arrivals, w.lastT, w.lastF, w.released = 0, 0, 0, false
}

func (w *window) len() int { return w.n + len(w.heap) }

// push adds e to the FIFO when it is not earlier than the FIFO's last
// entry, to the heap otherwise.
func (w *window) push(e entry) {
	if w.n > 0 && e.less(&w.fifo[(w.head+w.n-1)&(len(w.fifo)-1)]) {
		w.heap = append(w.heap, e)
		w.up(len(w.heap) - 1)
		return
	}
	if w.n == len(w.fifo) {
		grown := make([]entry, max(2*len(w.fifo), 1024))
		for i := 0; i < w.n; i++ {
			grown[i] = w.fifo[(w.head+i)&(len(w.fifo)-1)]
		}
		w.fifo, w.head = grown, 0
	}
	w.fifo[(w.head+w.n)&(len(w.fifo)-1)] = e
	w.n++
}

// first returns the earliest entry held; the window must not be empty.
func (w *window) first() *entry {
	if w.n == 0 {
		return &w.heap[0]
	}
	f := &w.fifo[w.head]
	if len(w.heap) > 0 && w.heap[0].less(f) {
		return &w.heap[0]
	}
	return f
}

// pop removes and returns the earliest entry held.
func (w *window) pop() entry {
	if w.n > 0 && (len(w.heap) == 0 || !w.heap[0].less(&w.fifo[w.head])) {
		e := w.fifo[w.head]
		w.head = (w.head + 1) & (len(w.fifo) - 1)
		w.n--
		return e
	}
	e := w.heap[0]
	last := len(w.heap) - 1
	w.heap[0] = w.heap[last]
	w.heap = w.heap[:last]
	if last > 0 {
		w.down(0)
	}
	return e
}

func (w *window) up(j int) {
	h := w.heap
	x := h[j]
	for j > 0 {
		p := (j - 1) / 2
		if !x.less(&h[p]) {
			break
		}
		h[j] = h[p]
		j = p
	}
	h[j] = x
}

func (w *window) down(j int) {
	h := w.heap
	n := len(h)
	x := h[j]
	for {
		c := 2*j + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r].less(&h[c]) {
			c = r
		}
		if !h[c].less(&x) {
			break
		}
		h[j] = h[c]
		j = c
	}
	h[j] = x
}

// store copies raw into the arena and returns where it went.
func (w *window) store(raw []byte) int {
	if len(w.arena)+len(raw) > cap(w.arena) {
		need := w.live + len(raw)
		dst := w.spare[:0]
		if cap(dst) < 2*need {
			dst = make([]byte, 0, max(2*need, 64<<10))
		}
		move := func(e *entry) {
			h := &w.slots[e.slot]
			at := len(dst)
			dst = append(dst, w.arena[h.rawOff:h.rawOff+int(h.rawLen)]...)
			h.rawOff = at
		}
		for i := 0; i < w.n; i++ {
			move(&w.fifo[(w.head+i)&(len(w.fifo)-1)])
		}
		for i := range w.heap {
			move(&w.heap[i])
		}
		w.arena, w.spare = dst, w.arena[:0]
	}
	at := len(w.arena)
	w.arena = append(w.arena, raw...)
	w.live += len(raw)
	return at
}

// expired reports whether the earliest record held is more than the span
// before t, the time of the record that just arrived.
func (w *window) expired(t int64) bool {
	if w.span == 0 || w.len() == 0 {
		return false
	}
	first := w.first().t
	// The difference is taken unsigned: forged timestamps can be 2^63 apart.
	return t > first && uint64(t)-uint64(first) > w.span
}

// hold puts the current record of s into the window, delivering at once a
// record that the window has already moved past, and releases what the
// window no longer covers.
func (m *Merge) hold(s *stream, yield func(*record.Record, error) bool) bool {
	w := &m.win
	t, f := s.t, s.f
	rec := s.recp
	if w.released && (t < w.lastT || t == w.lastT && f < w.lastF) {
		d := m.duration(uint64(w.lastT) - uint64(t))
		m.stats.Late++
		m.stats.LargestLateness = max(m.stats.LargestLateness, d)
		s.st.Late++
		return m.emit(rec, t, f, s.id, s.src, yield)
	}
	if w.len() >= w.limit {
		// The window is full: the earliest of what it holds and the new
		// record leaves now, so that it never holds more than its limit.
		e := entry{t: t, f: f, tie: uint64(rec.ProcessorNumber)<<48 | w.arrivals}
		if e.less(w.first()) {
			w.arrivals++
			w.lastT, w.lastF, w.released = t, f, true
			return m.emit(rec, t, f, s.id, s.src, yield)
		}
		if !m.release(yield) {
			return false
		}
	}
	var i int32
	if n := len(w.free); n > 0 {
		i = w.free[n-1]
		w.free = w.free[:n-1]
	} else {
		w.slots = append(w.slots, held{})
		i = int32(len(w.slots) - 1)
	}
	b := &s.cur.buf
	at := w.store(rec.Raw)
	w.slots[i] = held{
		rawOff:   at,
		rawLen:   int32(len(rec.Raw)),
		off:      int32(rec.BufferOffset),
		sid:      int32(s.id),
		cpu:      rec.ProcessorNumber,
		procIdx:  b.BufferFlag&buffer.FlagProcIndex != 0,
		compr:    b.Compressed(),
		bufIndex: b.Index,
		bufTS:    b.TimeStamp,
		bufOff:   b.FileOffset,
	}
	w.push(entry{t: t, f: f, tie: uint64(rec.ProcessorNumber)<<48 | w.arrivals, slot: i})
	w.arrivals++
	m.stats.MaxHeld = max(m.stats.MaxHeld, w.len())
	for w.expired(t) {
		if !m.release(yield) {
			return false
		}
	}
	return true
}

// release delivers the earliest record held.
func (m *Merge) release(yield func(*record.Record, error) bool) bool {
	w := &m.win
	top := w.pop()
	h := w.slots[top.slot]
	w.free = append(w.free, top.slot)
	w.live -= int(h.rawLen)
	w.lastT, w.lastF, w.released = top.t, top.f, true
	s := m.streams[h.sid]
	// What Cursor.Reset gives the records of a buffer.
	ctx := record.Context{
		Clock:            s.clock,
		ProcessorNumber:  h.cpu,
		ProcessorIndex:   h.procIdx,
		BufferTimeStamp:  h.bufTS,
		BufferIndex:      h.bufIndex,
		BufferFileOffset: h.bufOff,
		Compressed:       h.compr,
	}
	// The arena keeps these bytes until the next store, which comes after
	// the caller is done with the record.
	raw := w.arena[h.rawOff : h.rawOff+int(h.rawLen)]
	p, end, err := header.ParsePrefix(raw)
	if err == nil && !end {
		err = record.Decode(&w.out, raw, p, int(h.off), &ctx)
	}
	// The record decoded when it entered the window, from the same bytes, so
	// neither can fail; were it to, the error is delivered in its place.
	if err != nil {
		return yield(nil, err)
	}
	return m.emit(&w.out, top.t, top.f, int(h.sid), s.src, yield)
}
