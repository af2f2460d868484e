package order

import (
	"cmp"
	"io"
	"slices"

	"github.com/etlkit/etlkit/buffer"
)

// loc is one buffer of a stream, as the header scan found it.
type loc struct {
	off   int64
	seq   int64
	index int32
	// bad: the walk could not go through the buffer; its error is kept in
	// the source's scan errors under index.
	bad bool
}

// scanned is what the header scan of one source gives.
type scanned struct {
	streams []*stream
	errs    map[int32]error // scan errors by buffer index
	// trailing holds errors met where no buffer header could be read (the
	// end of the input); they are delivered after everything else.
	trailing []error
	// largest is the largest buffer, decompressed, in bytes.
	largest int
	// compressed counts the compressed buffers.
	compressed int
}

// scan walks the headers of src and groups its buffers into streams.
func scan(si int, src *Source) scanned {
	var out scanned
	w := src.NewWalker()
	w.HeadersOnly = true
	byCPU := map[uint16]*stream{}
	var hdr *stream
	var b buffer.Buffer
	for {
		start := w.Offset()
		err := w.Next(&b)
		if err == io.EOF {
			if src.Observer != nil {
				src.Observer.Ended(w.ZeroTail)
			}
			break
		}
		if src.Observer != nil {
			src.Observer.Scanned(&b, w.Span(start), err)
		}
		if err != nil && b.BufferSize == 0 {
			// No header was read, so the buffer belongs to no stream.
			out.trailing = append(out.trailing, err)
			continue
		}
		// A damaged header can claim anything; the walk never decompresses
		// beyond the session maximum.
		out.largest = max(out.largest, min(max(int(b.BufferSize), int(b.Offset)), buffer.MaxSessionBufferSize))
		if b.Compressed() {
			out.compressed++
		}
		l := loc{off: b.FileOffset, seq: b.SequenceNumber, index: int32(b.Index)}
		if err != nil {
			l.bad = true
			if out.errs == nil {
				out.errs = map[int32]error{}
			}
			out.errs[l.index] = err
		}
		var s *stream
		switch {
		case b.Index == 0 && src.HeaderBuffer:
			hdr = &stream{src: si, header: true, cpu: b.ProcessorNumber()}
			s = hdr
		case src.SingleStream:
			s = byCPU[0]
			if s == nil {
				s = &stream{src: si, cpu: b.ProcessorNumber()}
				byCPU[0] = s
			}
		default:
			cpu := b.ProcessorNumber()
			s = byCPU[cpu]
			if s == nil {
				s = &stream{src: si, cpu: cpu}
				byCPU[cpu] = s
			}
		}
		s.locs = append(s.locs, l)
	}
	if hdr != nil {
		out.streams = append(out.streams, hdr)
	}
	data := make([]*stream, 0, len(byCPU))
	for _, s := range byCPU {
		data = append(data, s)
	}
	slices.SortFunc(data, func(a, b *stream) int { return cmp.Compare(a.cpu, b.cpu) })
	out.streams = append(out.streams, data...)
	for _, s := range out.streams {
		// Sequence numbers give the flush order of a processor's buffers;
		// equal ones (appended sessions restart them) keep file order.
		slices.SortFunc(s.locs, func(a, b loc) int {
			if c := cmp.Compare(a.seq, b.seq); c != 0 {
				return c
			}
			return cmp.Compare(a.off, b.off)
		})
		s.locs = slices.Clip(s.locs)
	}
	return out
}
