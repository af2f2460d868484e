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
			// Streams are told apart by source and processor for the ties.
			sid := si<<16 | int(b.ProcessorNumber())
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
