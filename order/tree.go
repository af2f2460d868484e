package order

import (
	"math"
	"math/bits"
	"slices"
)

// key orders the heads of the streams: the time t (see stampOf), then hi,
// which packs the fraction of 100 ns below t (several sources only), the
// processor number and the source. A record's processor is its buffer's,
// and a source has one stream per processor (or one in all), so keys of
// different streams never compare equal and the merge is deterministic.
type key struct {
	t  int64
	hi uint64
}

// exhausted sorts after every record: a live key's hi stays below 1<<63
// because fractions have 31 bits and are shifted by 32.
var exhausted = key{t: math.MaxInt64, hi: math.MaxUint64}

func makeHi(frac uint32, cpu uint16, src int) uint64 {
	return uint64(frac&(1<<31-1))<<32 | uint64(cpu)<<16 | uint64(uint16(src))
}

func (a *key) less(b *key) bool {
	return a.t < b.t || a.t == b.t && a.hi < b.hi
}

// loserTree is a tournament over the keys of k streams: node 0 holds the
// winner, nodes 1..k-1 the loser of the match played there, and the leaves
// k..2k-1 stand for the streams. Replacing the winner's key and replaying
// its path to the root costs ⌈log2 k⌉ comparisons, against about twice that
// for a binary heap, which matters at one replay per record.
//
// Each node keeps a copy of its loser's key next to the loser's number: only
// the winner's key ever changes between replays, so the copies stay true,
// and a replay compares against them without reaching into the streams'
// keys, touching one array.
//
// With one source (initPacked), the keys of the live streams usually fit
// one 64-bit word: the time since the earliest head at the start, shifted
// left, with the stream's rank by hi (processor, then source) in the low
// bits. A match is then one comparison and two conditional moves, a third
// of the instructions of the 128-bit match. A key that does not fit (a time
// before that start or too far past it, a stream whose hi changed) turns
// the tree back to 128-bit keys for the rest of the merge.
type loserTree struct {
	node []treeNode
	keys []key

	// The packed form: packed says it is in use; pnode[0] is the winner's
	// packed key and pnode[1..k-1] the losers'.
	packed bool
	pnode  []uint64
	his    []uint64 // each live stream's hi when packed
	rank   []uint64 // each stream's rank, the low bits of its packed keys
	byRank []int32  // the stream of each rank
	base   int64    // the time a packed key counts from
	shift  uint     // the bits the rank takes
	limit  uint64   // the packed time of an exhausted stream; live ones are below
}

// treeNode is a loser's key and number. The time is kept with its sign
// bit flipped (see signBit), the form replay compares.
type treeNode struct {
	t  uint64
	hi uint64
	s  int32
}

func (t *loserTree) init(keys []key) {
	k := len(keys)
	t.keys = keys
	if cap(t.node) < k {
		t.node = make([]treeNode, k)
	}
	t.node = t.node[:k]
	if k == 0 {
		return
	}
	// Play the tournament bottom up, keeping the winners of each node in a
	// scratch array of 2k entries.
	win := make([]int32, 2*k)
	for i := 0; i < k; i++ {
		win[k+i] = int32(i)
	}
	for n := k - 1; n >= 1; n-- {
		a, b := win[2*n], win[2*n+1]
		if t.keys[b].less(&t.keys[a]) {
			a, b = b, a
		}
		win[n], t.node[n] = a, treeNode{uint64(t.keys[b].t) ^ signBit, t.keys[b].hi, b}
	}
	if k == 1 {
		t.node[0].s = 0
	} else {
		t.node[0].s = win[1]
	}
}

// initPacked plays the tournament as init does, in the packed form when
// every live key fits it. The keys' hi (see makeHi) must then stay as they
// are now, as they do with one source, where hi is the processor's; live
// streams with the same hi keep the 128-bit form, whose order among equal
// keys the ranks could not follow.
func (t *loserTree) initPacked(keys []key) {
	k := len(keys)
	t.packed = false
	if k == 0 || k > 1<<16 {
		t.init(keys)
		return
	}
	base, live := int64(math.MaxInt64), 0
	his := make([]uint64, k)
	for i := range keys {
		if keys[i] == exhausted {
			continue
		}
		his[i] = keys[i].hi
		base = min(base, keys[i].t)
		live++
	}
	if live == 0 {
		t.init(keys)
		return
	}
	// Ranks: the live streams by hi, then the exhausted ones, which never
	// run again, by number.
	order := make([]int32, k)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		ea, eb := keys[a] == exhausted, keys[b] == exhausted
		switch {
		case ea != eb:
			if ea {
				return 1
			}
			return -1
		case ea || his[a] == his[b]:
			return int(a - b)
		case his[a] < his[b]:
			return -1
		}
		return 1
	})
	for r := 1; r < live; r++ {
		if his[order[r]] == his[order[r-1]] {
			t.init(keys)
			return
		}
	}
	t.shift = uint(max(1, bits.Len(uint(k-1))))
	t.limit = 1<<(64-t.shift) - 1
	t.base, t.keys, t.his = base, keys, his
	t.rank, t.byRank = make([]uint64, k), order
	for r, i := range order {
		t.rank[i] = uint64(r)
	}
	win := make([]uint64, 2*k)
	for i := range keys {
		p, ok := t.pack(i)
		if !ok {
			t.init(keys)
			return
		}
		win[k+i] = p
	}
	// A power of two long, so that replayPacked's indexing needs no
	// bounds check; nodes from k on are never used.
	t.pnode = make([]uint64, 1<<bits.Len(uint(k-1)))
	for n := k - 1; n >= 1; n-- {
		a, b := win[2*n], win[2*n+1]
		win[n], t.pnode[n] = min(a, b), max(a, b)
	}
	t.pnode[0] = win[1]
	t.packed = true
}

// pack gives the packed key of stream i, or false when it does not fit.
func (t *loserTree) pack(i int) (uint64, bool) {
	k := &t.keys[i]
	if d := uint64(k.t) - uint64(t.base); k.t >= t.base && d < t.limit && k.hi == t.his[i] {
		return d<<(t.shift&63) | t.rank[i], true
	}
	if *k == exhausted {
		return t.limit<<(t.shift&63) | t.rank[i], true
	}
	return 0, false
}

// packedAfter is the packed key of stream i at time tm, when the tree is
// packed, tm is later than the stream's last key and its hi unchanged (the
// merge's step within a buffer); false when tm is past the packed range.
func (t *loserTree) packedAfter(i int, tm int64) (uint64, bool) {
	d := uint64(tm) - uint64(t.base)
	return d<<(t.shift&63) | t.rank[i], d < t.limit
}

// replayPacked is replay in the packed form, with w the new packed key of
// stream s. A match is a comparison and two conditional moves.
func (t *loserTree) replayPacked(s int, w uint64) {
	node := t.pnode
	// n stays below the number of streams, which the array's length,
	// a power of two, is not below: the mask changes nothing but lets
	// the compiler drop the bounds check.
	mask := uint(len(node) - 1)
	_ = node[mask]
	for n := uint(s+len(t.keys)) >> 1; n > 0; n >>= 1 {
		l := &node[n&mask]
		*l, w = max(*l, w), min(*l, w)
	}
	node[0] = w // within the length, shown above
}

// winner is the stream whose key is smallest.
func (t *loserTree) winner() int {
	if t.packed {
		return int(t.byRank[t.pnode[0]&(1<<(t.shift&63)-1)])
	}
	return int(t.node[0].s)
}

// replay restores the tree after the key of stream s (the winner) changed.
// The matches are played without branches: which of two keys wins depends
// on the data and is no better than a coin toss for the processor's
// branch predictor, so a branch per match would cost a misprediction every
// other match. The comparison of (t, hi) is a 128-bit subtraction whose
// borrow says "less", and the borrow, made a mask, selects loser and winner.
func (t *loserTree) replay(s int) {
	if t.packed {
		if w, ok := t.pack(s); ok {
			t.replayPacked(s, w)
			return
		}
		// A key past the packed range: every key is still in keys, and
		// the 128-bit tournament is played again from them.
		t.packed = false
		t.init(t.keys)
		return
	}
	node := t.node
	k := &t.keys[s]
	wt, whi, ws := uint64(k.t)^signBit, k.hi, uint32(s)
	for n := uint(s+len(node)) >> 1; n > 0 && n < uint(len(node)); n >>= 1 {
		l := &node[n]
		lt, lhi := l.t, l.hi
		_, b := bits.Sub64(lhi, whi, 0)
		_, b = bits.Sub64(lt, wt, b)
		// b is 1 when the loser kept here is earlier: it goes on, w stays.
		m := -b
		dt, dhi := (lt^wt)&m, (lhi^whi)&m
		l.t, l.hi = lt^dt, lhi^dhi
		wt, whi = wt^dt, whi^dhi
		ls := uint32(l.s)
		ds := (ls ^ ws) & uint32(m)
		l.s, ws = int32(ls^ds), ws^ds
	}
	node[0].s = int32(ws)
}

// signBit flips the order of int64 into that of uint64.
const signBit = 1 << 63
