package order_test

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/order"
)

// genRec is one record of a random trace.
type genRec struct {
	tag uint64
	ts  int64 // ticks after the session start, one FILETIME unit each
}

type genStream struct {
	cpu  uint16
	bufs [][]genRec
}

// genTrace is a random trace: streams of buffers, and the order the
// buffers were written in.
type genTrace struct {
	streams []genStream
	data    []byte
	// fileOrder lists the records as they lie in the file.
	fileOrder []uint64
	stream    map[uint64]int // stream of each tag
	ts        map[uint64]int64
	cpu       map[uint64]uint16
}

// generate builds a random trace. With sorted, each stream's timestamps
// never decrease (with many equal ones, as a coarse clock gives); without,
// they are random. With shuffle the buffers lie in the file in any order,
// as a circular file's do; otherwise each stream's buffers lie in sequence
// order, interleaved at random with the other streams'.
func generate(t *testing.T, rng *rand.Rand, sorted, shuffle bool) *genTrace {
	g := &genTrace{stream: map[uint64]int{}, ts: map[uint64]int64{}, cpu: map[uint64]uint16{}}
	cpus := rng.Perm(40)[:1+rng.IntN(6)]
	tag := uint64(1)
	for si, c := range cpus {
		st := genStream{cpu: uint16(c)}
		ts := int64(rng.IntN(30))
		for range 1 + rng.IntN(4) {
			var b []genRec
			for range rng.IntN(9) {
				if sorted {
					ts += int64(rng.IntN(3))
				} else {
					ts = int64(rng.IntN(120))
				}
				b = append(b, genRec{tag, ts})
				g.stream[tag], g.ts[tag], g.cpu[tag] = si, ts, uint16(c)
				tag++
			}
			st.bufs = append(st.bufs, b)
		}
		g.streams = append(g.streams, st)
	}
	// Sequence numbers follow a random interleaving that keeps each
	// stream's order, from a random start and with gaps.
	type placed struct {
		stream, buf int
		seq         int64
	}
	var flush []placed
	next := make([]int, len(g.streams))
	seq := int64(rng.IntN(1000))
	for {
		var open []int
		for i, s := range g.streams {
			if next[i] < len(s.bufs) {
				open = append(open, i)
			}
		}
		if len(open) == 0 {
			break
		}
		i := open[rng.IntN(len(open))]
		flush = append(flush, placed{i, next[i], seq})
		next[i]++
		seq += 1 + int64(rng.IntN(3))
	}
	if shuffle {
		rng.Shuffle(len(flush), func(i, j int) { flush[i], flush[j] = flush[j], flush[i] })
	}
	var bufs []buf
	for _, p := range flush {
		var recs []etltest.Record
		for _, r := range g.streams[p.stream].bufs[p.buf] {
			recs = append(recs, ev(r.tag, base+r.ts))
			g.fileOrder = append(g.fileOrder, r.tag)
		}
		bufs = append(bufs, buf{etltest.Buffer{CPU: g.streams[p.stream].cpu, SequenceNumber: p.seq}, recs})
	}
	g.data = build(t, session(), nil, bufs...)
	return g
}

// streamOrder lists the tags of stream i as its processor wrote them.
func (g *genTrace) streamOrder(i int) []uint64 {
	var out []uint64
	for _, b := range g.streams[i].bufs {
		for _, r := range b {
			out = append(out, r.tag)
		}
	}
	return out
}

// perStream splits delivered tags by stream.
func (g *genTrace) perStream(tags []uint64) [][]uint64 {
	out := make([][]uint64, len(g.streams))
	for _, tg := range tags {
		s := g.stream[tg]
		out[s] = append(out[s], tg)
	}
	return out
}

// largestDrop is how far a record of one stream is earlier than a record
// before it in the same stream, at most: the window Sorted needs.
func (g *genTrace) largestDrop() int64 {
	var drop int64
	for i := range g.streams {
		first := true
		var top int64
		for _, tg := range g.streamOrder(i) {
			ts := g.ts[tg]
			if first || ts > top {
				top, first = ts, false
			}
			drop = max(drop, top-ts)
		}
	}
	return drop
}

func isSortedByTime(g *genTrace, tags []uint64) bool {
	return slices.IsSortedFunc(tags, func(a, b uint64) int { return cmp.Compare(g.ts[a], g.ts[b]) })
}

// randomReading picks a read-ahead setting, to show the output does not
// depend on it.
func randomReading(rng *rand.Rand, mode order.Mode) order.Options {
	o := readModes[rng.IntN(len(readModes))].opts
	o.Mode = mode
	return o
}

// TestPropertySortedStreams: when every stream is in time order, Ordered
// delivers a stable sort of all records by (time, processor, position),
// and every mode keeps each stream's order.
func TestPropertySortedStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 300; iter++ {
		g := generate(t, rng, true, false)
		src := source(g.data, session())

		got, st := collect(t, randomReading(rng, order.Ordered), src)
		require.Equal(t, 0, got[0].buffer, "iteration %d: the logfile header first", iter)
		want := slices.Clone(got[1:])
		slices.SortStableFunc(want, func(a, b out) int {
			return cmp.Or(cmp.Compare(a.ft, b.ft), cmp.Compare(a.cpu, b.cpu), cmp.Compare(a.buffer, b.buffer), cmp.Compare(a.offset, b.offset))
		})
		require.Equal(t, tags(want), tags(got), "iteration %d", iter)
		require.Equal(t, len(g.fileOrder), len(tags(got)))
		require.Zero(t, st.Inversions, "iteration %d", iter)
		require.Zero(t, st.BackwardSteps, "iteration %d", iter)

		for _, mode := range []order.Mode{order.Ordered, order.FileOrder, order.Sorted} {
			got, _ := collect(t, randomReading(rng, mode), src)
			split := g.perStream(tags(got))
			for i := range g.streams {
				require.Equal(t, g.streamOrder(i), split[i], "iteration %d, %v, stream %d", iter, mode, i)
			}
		}
		sorted, _ := collect(t, randomReading(rng, order.Sorted), src)
		require.Equal(t, tags(got), tags(sorted), "iteration %d: nothing for Sorted to repair", iter)
	}
}

// TestPropertyAnyStreams: with streams in any order and buffers anywhere
// in the file, Ordered keeps each stream's order and every backward step
// it takes is an inversion of the stream it stays in; FileOrder is the
// file; Sorted with a window wider than any inversion is fully sorted and
// keeps each stream's records in a stable time order.
func TestPropertyAnyStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 300; iter++ {
		g := generate(t, rng, rng.IntN(2) == 0, true)
		src := source(g.data, session())

		got, st := collect(t, randomReading(rng, order.Ordered), src)
		gt := tags(got)
		split := g.perStream(gt)
		for i := range g.streams {
			require.Equal(t, g.streamOrder(i), split[i], "iteration %d, stream %d", iter, i)
		}
		steps := 0
		for j := 1; j < len(gt); j++ {
			if g.ts[gt[j]] < g.ts[gt[j-1]] {
				steps++
				require.Equal(t, g.stream[gt[j-1]], g.stream[gt[j]], "iteration %d: backward step across streams at %d", iter, j)
			}
		}
		require.Equal(t, steps, st.BackwardSteps, "iteration %d", iter)
		require.LessOrEqual(t, steps, st.Inversions, "iteration %d", iter)

		file, _ := collect(t, randomReading(rng, order.FileOrder), src)
		require.Equal(t, g.fileOrder, tags(file), "iteration %d", iter)

		window := time.Duration(g.largestDrop()+1) * 100
		sorted, sst := collect(t, order.Options{Mode: order.Sorted, Window: window, ReadAhead: -1}, src)
		sgt := tags(sorted)
		require.Zero(t, sst.Late, "iteration %d", iter)
		require.True(t, isSortedByTime(g, sgt), "iteration %d: %v", iter, sgt)
		sp := g.perStream(sgt)
		for i := range g.streams {
			want := g.streamOrder(i)
			slices.SortStableFunc(want, func(a, b uint64) int { return cmp.Compare(g.ts[a], g.ts[b]) })
			require.Equal(t, want, sp[i], "iteration %d, stream %d", iter, i)
		}

		// Any window: the same records, and out of order only where late.
		o := order.Options{Mode: order.Sorted, WindowRecords: 1 + rng.IntN(8)}
		if rng.IntN(2) == 0 {
			o.Window = time.Duration(rng.IntN(40)) * 100
		}
		small, smst := collect(t, o, src)
		require.ElementsMatch(t, gt, tags(small), "iteration %d", iter)
		require.LessOrEqual(t, smst.BackwardSteps, smst.Late, "iteration %d", iter)
		require.LessOrEqual(t, smst.MaxHeld, o.WindowRecords, "iteration %d", iter)
	}
}
