package order

import (
	"cmp"
	"io"
	"slices"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/internal/prefault"
)

// loc is one buffer of a stream, as the header scan found it.
type loc struct {
	off   int64
	seq   int64
	index int32
	// size is where the buffer's records end, as its header says, when it
	// is uncompressed: reading it then takes one call (Loader.LoadSized).
	// locBad marks a buffer the walk could not go through; its error is
	// kept in the source's scan errors under index.
	size uint32
}

// locBad is loc.size of a buffer the walk could not go through: no buffer
// is that large (buffer.MaxSessionBufferSize).
const locBad = ^uint32(0)

func (l loc) bad() bool { return l.size == locBad }

// scanned is what the header scan of one source gives.
type scanned struct {
	streams []*stream
	errs    map[int32]error // scan errors by buffer index
	// trailing holds errors met where no buffer header could be read (the
	// end of the input) or trusted (the walk cleared it and looked for the
	// next buffer), which places the buffer in no stream; they are
	// delivered after everything else.
	trailing []error
	// largest is the largest buffer, decompressed, in bytes.
	largest int
	// compressed counts the compressed buffers.
	compressed int
	// runs counts the runs of sequence numbering (1 when they never restart).
	runs int
}

// scan walks the headers of src and groups its buffers into streams.
func scan(si int, src *Source) scanned {
	var out scanned
	w := src.NewWalker()
	w.HeadersOnly = true
	w.ReadHeadersAhead()
	byCPU := map[uint16]*stream{}
	var hdr *stream
	var b buffer.Buffer
	// A sequence number met twice means the numbering started again: an
	// appended session, or a relogged or merged file. Each run of
	// numbering is ordered on its own, and the runs by file position, so
	// that a stream never interleaves the buffers of two runs.
	var restarts []int32 // walk positions where a run begins
	var seen seqSet
	// Every buffer's loc, in walk order, and the stream it belongs to
	// (its id: its place in made, the streams in the order met). They go
	// into the streams' own slices, one array between them, at the end:
	// slices grown by appending fault in fresh memory page by page, serial
	// before the merge.
	var (
		made []*stream
		all  []loc
		of   []int32
	)
	newStream := func(cpu uint16, header bool) *stream {
		s := &stream{src: si, cpu: cpu, header: header, id: len(made)}
		made = append(made, s)
		return s
	}
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
			// No header was read or trusted, so the buffer belongs to no
			// stream.
			out.trailing = append(out.trailing, err)
			continue
		}
		if all == nil {
			all, of = presize(src.Size, b.BufferSize)
		}
		// A damaged header can claim anything; the walk never decompresses
		// beyond the session maximum.
		out.largest = max(out.largest, min(max(int(b.BufferSize), int(b.Offset)), buffer.MaxSessionBufferSize))
		if b.Compressed() {
			out.compressed++
		}
		l := loc{off: b.FileOffset, seq: b.SequenceNumber, index: int32(b.Index)}
		if !b.Compressed() && b.Offset <= b.BufferSize && b.Offset <= buffer.MaxSessionBufferSize {
			// A hint only: the read checks the header as always.
			l.size = b.Offset
		}
		if err != nil {
			l.size = locBad
			if out.errs == nil {
				out.errs = map[int32]error{}
			}
			out.errs[l.index] = err
		}
		var s *stream
		switch {
		case b.Index == 0 && src.HeaderBuffer:
			hdr = newStream(b.ProcessorNumber(), true)
			s = hdr
		case src.SingleStream:
			s = byCPU[0]
			if s == nil {
				s = newStream(b.ProcessorNumber(), false)
				byCPU[0] = s
			}
		default:
			cpu := b.ProcessorNumber()
			s = byCPU[cpu]
			if s == nil {
				s = newStream(cpu, false)
				byCPU[cpu] = s
			}
		}
		if !s.header && !l.bad() {
			if seen.add(l.seq) {
				restarts = append(restarts, l.index)
				seen.reset()
				seen.add(l.seq)
			}
		}
		all = append(all, l)
		of = append(of, int32(s.id))
	}
	distribute(made, all, of)
	out.runs = len(restarts) + 1
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
		sortRuns(s.locs, restarts)
	}
	return out
}

// presize makes the scan's lists for the buffers of a file of size bytes
// whose first buffer is bufferSize bytes, as many as it holds when every
// buffer is that size, with their pages mapped in. A first buffer smaller
// than any session writes says nothing, and the lists then grow as found.
func presize(size int64, bufferSize uint32) ([]loc, []int32) {
	const minBuffer = 4 << 10
	if bufferSize < minBuffer || size <= 0 {
		return make([]loc, 0, 16), make([]int32, 0, 16)
	}
	n := size/int64(bufferSize) + 1
	all, of := make([]loc, 0, n), make([]int32, 0, n)
	prefault.Slice(all)
	prefault.Slice(of)
	return all, of
}

// distribute gives each stream of made its locs from all, which of says
// the stream of, in walk order, in one array.
func distribute(made []*stream, all []loc, of []int32) {
	counts := make([]int, len(made))
	for _, k := range of {
		counts[k]++
	}
	locs := make([]loc, len(all))
	prefault.Slice(locs)
	start := 0
	for k, s := range made {
		s.locs = locs[start : start : start+counts[k]]
		start += counts[k]
	}
	for i, l := range all {
		s := made[of[i]]
		s.locs = append(s.locs, l) // within the capacity set above
	}
}

// sortRuns puts a stream's buffers, given in walk order, into flush order:
// by sequence number within each run of numbering (restarts lists the walk
// positions where runs begin), the runs in walk order. Buffers with equal
// numbers within a run keep walk order.
func sortRuns(locs []loc, restarts []int32) {
	for len(locs) > 0 {
		n := len(locs)
		for len(restarts) > 0 && restarts[0] <= locs[0].index {
			restarts = restarts[1:]
		}
		if len(restarts) > 0 {
			n, _ = slices.BinarySearchFunc(locs, restarts[0], func(l loc, at int32) int { return cmp.Compare(l.index, at) })
		}
		slices.SortStableFunc(locs[:n], func(a, b loc) int { return cmp.Compare(a.seq, b.seq) })
		locs = locs[n:]
	}
}
