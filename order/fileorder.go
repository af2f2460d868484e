package order

import (
	"io"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/record"
)

// fileOrder delivers the records of each source as they lie in the file,
// the sources one after another.
func (m *Merge) fileOrder(yield func(*record.Record, error) bool) {
	var (
		b   buffer.Buffer
		cur record.Cursor
		rec record.Record
	)
	m.stats.Sources = make([]SourceStats, len(m.sources))
	defer finishSources(m.stats.Sources)
	for si := range m.sources {
		src := &m.sources[si]
		obs := src.Observer
		w := src.NewWalker()
		for {
			start := w.Offset()
			err := w.Next(&b)
			if err == io.EOF {
				if obs != nil {
					obs.Ended(w.ZeroTail)
				}
				break
			}
			if obs != nil {
				obs.Scanned(&b, w.Span(start), err)
				if err == nil {
					obs.Loaded(&b, nil)
				}
			}
			if err != nil {
				if !yield(nil, err) {
					return
				}
				continue
			}
			sid := fileStream(si, b.ProcessorNumber())
			cur.Reset(&b, src.Clock)
			for {
				ok, err := cur.Next(&rec)
				if err != nil {
					if obs != nil {
						obs.RecordError(err, ok)
					}
					if !yield(nil, err) {
						return
					}
					continue
				}
				if !ok {
					break
				}
				t, f := stampOf(src.Clock, rec.RawTimeStamp, m.fine)
				if !m.emit(&rec, t, f, sid, si, yield) {
					return
				}
			}
		}
	}
}

// fileStream tells streams apart by source and processor, for the ties of
// the file order.
func fileStream(src int, cpu uint16) int { return src<<16 | int(cpu) }

// Counter keeps the Stats of an iteration in file order for a caller that
// reads the records itself, as package etl does on two goroutines: Add
// every record delivered, in order, then read Stats. The counts are those
// Merge keeps in FileOrder mode, but for what its Observer sees.
type Counter struct {
	m Merge
	// types counts the header types of the last record's source, and
	// fastSID is its stream, or -1 when AddNext may not count the next.
	types   *[256]int
	fastSID int
}

// NewCounter starts the counts of a file-order pass over sources.
func NewCounter(sources ...Source) *Counter {
	c := &Counter{m: Merge{sources: sources, opts: Options{Mode: FileOrder}}}
	c.m.reset()
	c.m.stats.Sources = make([]SourceStats, len(sources))
	c.fastSID = -1
	return c
}

// AddNext counts rec, delivered from the source of index src, when it is
// later than the record before it and of the same stream, as most records
// are, and reports whether it did; Add counts the others. Unlike Add it
// is small enough to be inlined into the caller's loop.
func (c *Counter) AddNext(rec *record.Record, src int) bool {
	if t := rec.RawTimeStamp; t > c.m.lastT && fileStream(src, rec.ProcessorNumber) == c.fastSID {
		c.m.lastT = t
		c.m.stats.Records++
		c.types[rec.HeaderType]++
		return true
	}
	return false
}

// Add counts rec, delivered from the source of index src.
func (c *Counter) Add(rec *record.Record, src int) {
	m := &c.m
	t, f := stampOf(m.sources[src].Clock, rec.RawTimeStamp, m.fine)
	// emit's counts, without a loop body to call.
	sid := fileStream(src, rec.ProcessorNumber)
	if t <= m.lastT {
		m.stepped(t, f, sid)
	}
	m.lastT, m.lastF, m.lastSID, m.lastSrc = t, f, sid, src
	m.stats.Records++
	c.types = &m.stats.Sources[src].HeaderTypes
	c.types[rec.HeaderType]++
	// With several sources the timeline is not the raw timestamps.
	c.fastSID = sid
	if m.fine {
		c.fastSID = -1
	}
}

// Stats returns the counts so far.
func (c *Counter) Stats() *Stats {
	finishSources(c.m.stats.Sources)
	return &c.m.stats
}
