package etl

import (
	"errors"
	"iter"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/record"
)

// Events iterates the trace's records in time order, as ProcessTrace
// delivers them: the logfile-header record and the rest of the header
// buffer first, then the processors' streams merged by time. It is the way
// to read a trace for anything that measures durations or follows causes;
// Records is the raw file order.
//
// The *record.Record and the slices in it are valid until the loop body
// returns (see Record.Clone). Damaged buffers and records yield a nil record
// and a *FormatError in their place, as in Records, and Stats counts them
// the same way; Stats().Order describes the order found.
func (r *Reader) Events() iter.Seq2[*record.Record, error] {
	return r.EventsWith(order.Options{})
}

// EventsWith iterates the records in the mode opts asks for: order.Ordered
// (the zero value, as Events), order.FileOrder or order.Sorted.
func (r *Reader) EventsWith(opts order.Options) iter.Seq2[*record.Record, error] {
	return func(yield func(*record.Record, error) bool) {
		if r.fileOrderParallel(opts, yield) {
			return
		}
		r.newStats()
		m := order.New(opts, r.Source())
		r.stats.Order = m.Stats()
		// Handing yield straight on saves a call per record.
		m.Records()(yield)
		r.stats.counted(&m.Stats().Sources[0])
	}
}

// fileOrderParallel is the file order on two goroutines: the pass of
// Records, with the order's counts kept by an order.Counter. It reports
// false, having done nothing, when Records would run on one goroutine,
// which the order package does as well.
func (r *Reader) fileOrderParallel(opts order.Options, yield func(*record.Record, error) bool) bool {
	if opts.Mode != order.FileOrder || opts.ReadAhead < 0 || !useParallel(r) {
		return false
	}
	// The loop counts each record as it hands it out: a loop body of its
	// own around yield would cost a call per record.
	c := order.NewCounter(r.Source())
	r.newStats()
	// The Counter counts Records and HeaderTypes; counted takes them.
	r.pass(c).Parallel(&r.ring, yield)
	r.stats.Order = c.Stats()
	r.stats.counted(&r.stats.Order.Sources[0])
	return true
}

// Source describes the trace to package order; the iteration keeps this
// reader's Stats.
func (r *Reader) Source() order.Source {
	return order.Source{
		NewWalker: r.newWalker,
		Size:      r.size,
		Clock:     &r.hdr.Clock,
		// RlFs containers have no logfile-header record: every buffer is data.
		HeaderBuffer: r.hdr.RealTimeBackup == nil,
		SingleStream: r.hdr.LogFileMode&header.ModeNoPerProcessorBuffering != 0,
		Observer:     statsObserver{&r.stats},
	}
}

// statsObserver keeps a reader's Stats during an iteration in time order,
// with the same counting file order uses.
type statsObserver struct{ s *Stats }

func (o statsObserver) Scanned(b *buffer.Buffer, span int64, err error) { o.s.scanned(span, err) }
func (o statsObserver) Ended(zeroTail bool)                             { o.s.ZeroTail = zeroTail }
func (o statsObserver) Loaded(b *buffer.Buffer, err error)              { o.s.loaded(b, err) }
func (o statsObserver) RecordError(err error, more bool)                { o.s.recordError(err, more) }

// counted takes the records an iteration in time order counted.
func (s *Stats) counted(c *order.SourceStats) {
	s.Records, s.HeaderTypes = c.Records, c.HeaderTypes
}

// scanned counts a buffer met by the walk; err: it could not be read at all.
func (s *Stats) scanned(span int64, err error) {
	s.Buffers++
	s.Bytes += span
	if err != nil {
		s.BuffersSkipped++
		var fe *FormatError
		if errors.As(err, &fe) {
			s.BytesSkipped += fe.Skipped
			if fe.RecordsKnown {
				s.BuffersCounted++
				s.RecordsLost += fe.Records
			}
		}
		s.addError(err)
	}
}

// loaded counts a buffer read, or one that could not be read or decompressed.
func (s *Stats) loaded(b *buffer.Buffer, err error) {
	if err != nil {
		s.BuffersSkipped++
		s.addError(err)
		return
	}
	if b.Compressed() {
		s.CompressedBuffers++
		s.Compression[b.Compression]++
	}
	if b.BufferFlag&buffer.FlagEventsLost != 0 {
		s.EventsLostBuffers++
	}
	if b.BufferFlag&buffer.FlagBufferLost != 0 {
		s.BufferLostBuffers++
	}
	if b.Truncated {
		s.Truncated = true
		s.addError(buffer.Errorf(b.FileOffset, b.Index, ErrTruncated, "buffer of 0x%x bytes cut short by the end of the file; its complete records are read", b.BufferSize))
	}
}

// recordError counts a record error (more: the buffer goes on).
func (s *Stats) recordError(err error, more bool) {
	s.addError(err)
	if more {
		s.RecordsSkipped++
	} else {
		s.BuffersCut++
	}
}
