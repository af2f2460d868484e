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
// earliest of 16 streams, replace its key, replay.
func BenchmarkLoserTree(b *testing.B) {
	const k = 16
	rng := rand.New(rand.NewPCG(7, 8))
	steps := make([]int64, 4096)
	for i := range steps {
		steps[i] = int64(1 + rng.IntN(64))
	}
	keys := make([]key, k)
	for i := range keys {
		keys[i] = key{t: int64(rng.IntN(64)), hi: makeHi(0, uint16(i), 0)}
	}
	var tr loserTree
	tr.init(keys)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := tr.winner()
		keys[w].t += steps[i&4095]
		tr.replay(w)
	}
}
