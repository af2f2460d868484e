package order

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestLoserTreeMerges merges random sorted runs of every count from 1 to
// 40 and compares with a sort of all keys.
func TestLoserTreeMerges(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for k := 1; k <= 40; k++ {
		runs := make([][]key, k)
		var all []key
		for i := range runs {
			t0 := int64(rng.IntN(50))
			for j := range rng.IntN(30) {
				t0 += int64(rng.IntN(4))
				kk := key{t: t0, hi: uint64(i)<<32 | uint64(j)}
				runs[i] = append(runs[i], kk)
				all = append(all, kk)
			}
		}
		slices.SortFunc(all, func(a, b key) int {
			if a.less(&b) {
				return -1
			}
			if b.less(&a) {
				return 1
			}
			return 0
		})
		keys := make([]key, k)
		pos := make([]int, k)
		head := func(i int) key {
			if pos[i] < len(runs[i]) {
				return runs[i][pos[i]]
			}
			return exhausted
		}
		for i := range keys {
			keys[i] = head(i)
		}
		var tr loserTree
		tr.init(keys)
		var got []key
		for {
			w := tr.winner()
			if keys[w] == exhausted {
				break
			}
			got = append(got, keys[w])
			pos[w]++
			keys[w] = head(w)
			tr.replay(w)
		}
		if !slices.Equal(all, got) {
			t.Fatalf("k=%d: merge differs from sort\n got %v\nwant %v", k, got, all)
		}
	}
}

// TestIndexEntrySize pins the cost of the index the header scan keeps:
// one entry per buffer, whatever the file's size.
func TestIndexEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(loc{}); n != 24 {
		t.Fatalf("an index entry takes %d bytes, the package documents 24", n)
	}
}

func TestKeyPacking(t *testing.T) {
	// The largest live key, at the largest time, still sorts before an
	// exhausted stream.
	top := makeHi(1<<31-1, 0xFFFF, 0xFFFF)
	if top >= 1<<63 {
		t.Fatalf("the largest live hi %#x reaches bit 63", top)
	}
	if a := (key{t: math.MaxInt64, hi: top}); !a.less(&exhausted) {
		t.Fatal("the largest live key must sort before an exhausted stream")
	}
	// Fraction first, then processor, then source; each field's largest
	// value stays below the next field's smallest step.
	for _, c := range []struct{ lo, hi uint64 }{
		{makeHi(1, 9, 9), makeHi(2, 0, 0)},
		{makeHi(1, 1, 9), makeHi(1, 2, 0)},
		{makeHi(1, 1, 1), makeHi(1, 1, 2)},
		{makeHi(0, 0xFFFF, 0xFFFF), makeHi(1, 0, 0)},
		{makeHi(0, 0, 0xFFFF), makeHi(0, 1, 0)},
	} {
		if c.lo >= c.hi {
			t.Fatalf("%x should sort before %x", c.lo, c.hi)
		}
	}
}

// BenchmarkLoserTree is the merge's own cost per record: choose the
// earliest of 16 streams, replace its key, replay; with 128-bit keys
// (several inputs) and packed ones (one input).
func BenchmarkLoserTree(b *testing.B) {
	for _, packed := range []bool{false, true} {
		name := map[bool]string{false: "wide", true: "packed"}[packed]
		b.Run(name, func(b *testing.B) {
			const k = 16
			rng := rand.New(rand.NewPCG(7, 8))
			steps := make([]int64, 4096)
			for i := range steps {
				steps[i] = int64(1 + rng.IntN(64))
			}
			keys := make([]key, k)
			his := make([]uint64, k)
			for i := range keys {
				his[i] = makeHi(0, uint16(i), 0)
				keys[i] = key{t: int64(rng.IntN(64)), hi: his[i]}
			}
			var tr loserTree
			if packed {
				tr.initPacked(keys)
			} else {
				tr.init(keys)
			}
			if tr.packed != packed {
				b.Fatalf("packed %v, want %v", tr.packed, packed)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w := tr.winner()
				keys[w].t += steps[i&4095]
				tr.replay(w)
			}
		})
	}
}

// TestPackedTreeFollowsWideTree replays the same streams of keys through
// the packed tree and the 128-bit one and requires the same winner at
// every step: keys that go backward, ties in time, times that leave the
// packed range below and above, a stream whose hi changes, and streams
// exhausted from the start. The cases that cannot stay packed must have
// left the packed form.
func TestPackedTreeFollowsWideTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		name       string
		far        int64 // a step this far past the start, once
		before     bool  // a step before the start, once
		hiChange   bool
		sameHi     bool
		wantPacked bool
	}{
		{name: "plain", wantPacked: true},
		{name: "near limit", far: 1 << 57, wantPacked: true},
		{name: "past limit", far: math.MaxInt64 / 2},
		{name: "before start", before: true},
		{name: "hi changes", hiChange: true},
		{name: "same hi", sameHi: true},
	} {
		for k := 1; k <= 40; k++ {
			var wide, packed loserTree
			wk, pk := make([]key, k), make([]key, k)
			his := make([]uint64, k)
			left := make([]int, k)
			for i := range wk {
				his[i] = makeHi(0, uint16(k-i), 0) // ranks reverse the stream numbers
				if c.sameHi && i == k-1 && k > 1 {
					his[i] = his[0]
				}
				left[i] = rng.IntN(40)
				wk[i] = key{t: 1000 + int64(rng.IntN(50)), hi: his[i]}
				if left[i] == 0 {
					wk[i] = exhausted
				}
			}
			copy(pk, wk)
			// The earliest time at the start: the packed form counts from it.
			start := int64(math.MaxInt64)
			for i := range wk {
				start = min(start, wk[i].t)
			}
			wide.init(wk)
			packed.initPacked(pk)
			far, before, hiChange := c.far, c.before, c.hiChange
			// The same hi matters only when both streams are live.
			sameLive := c.sameHi && k > 1 && left[0] > 0 && left[k-1] > 0
			for step := 0; ; step++ {
				w := wide.winner()
				if p := packed.winner(); p != w && !(wk[w] == exhausted && pk[p] == exhausted) {
					t.Fatalf("%s k=%d step %d: packed winner %d (%v), wide %d (%v)", c.name, k, step, p, pk[p], w, wk[w])
				}
				if wk[w] == exhausted {
					break
				}
				// Backward steps, but none before the start unless asked.
				nk := key{t: max(start, wk[w].t+int64(rng.IntN(5))-1), hi: wk[w].hi}
				switch left[w]--; {
				case left[w] <= 0:
					nk = exhausted
				case far != 0 && step > 20:
					nk.t, far = 1000+far, 0
				case before && step > 20:
					nk.t, before = -5, false
				case hiChange && step > 20:
					nk.hi, hiChange = nk.hi+1<<16*100, false
				}
				wk[w], pk[w] = nk, nk
				wide.replay(w)
				packed.replay(w)
			}
			// A case that could not stay packed must have left the packed
			// form once it happened (the merge may end before it does).
			happened := c.far > 1<<60 && far == 0 || c.before && !before || c.hiChange && !hiChange || sameLive
			if c.wantPacked && !packed.packed || happened && packed.packed {
				t.Errorf("%s k=%d: packed %v at the end (happened %v)", c.name, k, packed.packed, happened)
			}
		}
	}
}
