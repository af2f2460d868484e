// Package fileorder reads a trace's records in file order, buffer by
// buffer and inside a buffer as written, on the calling goroutine or, on a
// large file, on two (see Pass.Parallel). It is the engine under
// etl.Reader.Records; the records, errors and counts are the same either
// way.
package fileorder

import (
	"io"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/record"
)

// Pass is one iteration in file order over one trace.
type Pass struct {
	// NewWalker returns a walker over the file's buffers, configured for
	// the file (extents, session buffer size, decompression bound).
	NewWalker func() *buffer.Walker
	// Clock converts the records' timestamps.
	Clock *header.Clock
	// Observer sees every buffer and record error, on the iterating
	// goroutine, as order.Observer says.
	Observer order.Observer
	// Counter, when set, counts each record delivered, with the order's
	// counts; otherwise Records and HeaderTypes do, which costs less.
	Counter     *order.Counter
	Records     *int
	HeaderTypes *[256]int
}

// Buffers iterates the file's buffers. The *buffer.Buffer is reused from
// one step to the next. A buffer that cannot be read yields a nil buffer
// and its error, and the walk goes on where it can.
func (p *Pass) Buffers(yield func(*buffer.Buffer, error) bool) {
	w := p.NewWalker()
	var b buffer.Buffer
	for {
		start := w.Offset()
		err := w.Next(&b)
		if err == io.EOF {
			p.Observer.Ended(w.ZeroTail)
			return
		}
		// A buffer the walk could not read is counted once, as skipped.
		p.Observer.Scanned(&b, w.Span(start), err)
		if err != nil {
			if !yield(nil, err) {
				return
			}
			continue
		}
		p.Observer.Loaded(&b, nil)
		if !yield(&b, nil) {
			return
		}
	}
}

// Serial delivers the records on the calling goroutine.
func (p *Pass) Serial(yield func(*record.Record, error) bool) {
	var (
		cur record.Cursor
		rec record.Record
	)
	for b, err := range p.Buffers {
		if err != nil {
			if !yield(nil, err) {
				return
			}
			continue
		}
		cur.Reset(b, p.Clock)
		if !p.yieldRecords(&cur, &rec, yield) {
			return
		}
	}
}

// yieldRecords hands out what is left of the cursor's buffer, decoding each
// record into rec, and counts it. It reports false when the loop body
// stopped the iteration.
func (p *Pass) yieldRecords(cur *record.Cursor, rec *record.Record, yield func(*record.Record, error) bool) bool {
	for {
		ok, err := cur.Next(rec)
		if err != nil {
			p.Observer.RecordError(err, ok)
			if !yield(nil, err) {
				return false
			}
			if ok {
				continue
			}
		}
		if !ok {
			return true
		}
		p.delivered(rec)
		if !yield(rec, nil) {
			return false
		}
	}
}

// delivered counts a record handed out; small enough to inline in the
// per-record loops.
func (p *Pass) delivered(rec *record.Record) {
	if c := p.Counter; c != nil {
		if !c.AddNext(rec, 0) {
			c.Add(rec, 0)
		}
		return
	}
	*p.Records++
	p.HeaderTypes[rec.HeaderType]++
}
