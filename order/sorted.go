package order

import (
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// held is a record kept in the reorder window. The record's bytes are
// copied, because the buffer they live in moves on, and decoded again when
// the record leaves the window: that costs a second decode but no
// allocation once the window's storage has grown.
type held struct {
	t       int64
	cpu     uint16
	arrival uint64 // place in the merge's output: ties keep the merge's order
	sid     int
	off     int
	ctx     record.Context
	raw     []byte
}

func (a *held) less(b *held) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.cpu != b.cpu {
		return a.cpu < b.cpu
	}
	return a.arrival < b.arrival
}

// window is Sorted's reorder window: a binary heap of held records.
type window struct {
	span     uint64 // in 100 ns units; 0: count only
	limit    int
	slots    []held
	free     []int32
	heap     []int32
	arrivals uint64
	lastT    int64 // time of the last record released
	released bool
	out      record.Record
}

func (w *window) reset(o *Options) {
	w.span = 0
	if o.Window > 0 {
		w.span = uint64(o.Window / 100)
	}
	w.limit = o.WindowRecords
	if w.limit <= 0 {
		w.limit = DefaultWindowRecords
	}
	w.heap = w.heap[:0]
	w.free = w.free[:0]
	for i := range w.slots {
		w.free = append(w.free, int32(i))
	}
	w.arrivals, w.lastT, w.released = 0, 0, false
}

func (w *window) len() int { return len(w.heap) }

func (w *window) up(j int) {
	h := w.heap
	for j > 0 {
		p := (j - 1) / 2
		if !w.slots[h[j]].less(&w.slots[h[p]]) {
			return
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
}

func (w *window) down(j int) {
	h := w.heap
	n := len(h)
	for {
		c := 2*j + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && w.slots[h[r]].less(&w.slots[h[c]]) {
			c = r
		}
		if !w.slots[h[c]].less(&w.slots[h[j]]) {
			return
		}
		h[j], h[c] = h[c], h[j]
		j = c
	}
}

// expired reports whether the earliest record held is more than the span
// before t, the time of the record that just arrived.
func (w *window) expired(t int64) bool {
	if w.span == 0 || len(w.heap) == 0 {
		return false
	}
	first := w.slots[w.heap[0]].t
	// The difference is taken unsigned: forged timestamps can be 2^63 apart.
	return t > first && uint64(t)-uint64(first) > w.span
}

// hold puts the current record of s into the window, delivering at once a
// record that the window has already moved past, and releases what the
// window no longer covers.
func (m *Merge) hold(s *stream, yield func(*record.Record, error) bool) bool {
	w := &m.win
	t := s.t
	if w.released && t < w.lastT {
		d := fileTimeDuration(uint64(w.lastT) - uint64(t))
		m.stats.Late++
		m.stats.LargestLateness = max(m.stats.LargestLateness, d)
		s.st.Late++
		return m.emit(&s.rec, t, s.id, s.src, yield)
	}
	var i int32
	if n := len(w.free); n > 0 {
		i = w.free[n-1]
		w.free = w.free[:n-1]
	} else {
		w.slots = append(w.slots, held{})
		i = int32(len(w.slots) - 1)
	}
	h := &w.slots[i]
	h.t, h.cpu, h.arrival, h.sid, h.off = t, s.rec.ProcessorNumber, w.arrivals, s.id, s.rec.BufferOffset
	h.ctx = s.ctx
	h.raw = append(h.raw[:0], s.rec.Raw...)
	w.arrivals++
	w.heap = append(w.heap, i)
	w.up(len(w.heap) - 1)
	m.stats.MaxHeld = max(m.stats.MaxHeld, len(w.heap))
	for len(w.heap) > w.limit || w.expired(t) {
		if !m.release(yield) {
			return false
		}
	}
	return true
}

// release delivers the earliest record held.
func (m *Merge) release(yield func(*record.Record, error) bool) bool {
	w := &m.win
	i := w.heap[0]
	last := len(w.heap) - 1
	w.heap[0] = w.heap[last]
	w.heap = w.heap[:last]
	if last > 0 {
		w.down(0)
	}
	h := &w.slots[i]
	w.lastT, w.released = h.t, true
	ok := true
	p, end, err := header.ParsePrefix(h.raw)
	if err == nil && !end {
		err = record.Decode(&w.out, h.raw, p, h.off, &h.ctx)
	}
	// The record decoded when it entered the window, from the same bytes, so
	// neither can fail; were it to, the error is delivered in its place.
	if err != nil {
		ok = yield(nil, err)
	} else {
		ok = m.emit(&w.out, h.t, h.sid, m.streams[h.sid].src, yield)
	}
	w.free = append(w.free, i)
	return ok
}
