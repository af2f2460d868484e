package order

import (
	"math"
	"math/bits"
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
type loserTree struct {
	node []treeNode
	keys []key
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

// winner is the stream whose key is smallest.
func (t *loserTree) winner() int { return int(t.node[0].s) }

// replay restores the tree after the key of stream s (the winner) changed.
// The matches are played without branches: which of two keys wins depends
// on the data and is no better than a coin toss for the processor's
// branch predictor, so a branch per match would cost a misprediction every
// other match. The comparison of (t, hi) is a 128-bit subtraction whose
// borrow says "less", and the borrow, made a mask, selects loser and winner.
func (t *loserTree) replay(s int) {
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
