package order

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSeqSetIsASet holds seqSet to a map on dense, gapped, descending,
// far-flung and repeated numbers, across resets.
func TestSeqSetIsASet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		var s seqSet
		want := map[int64]struct{}{}
		start := rng.Int64N(1<<40) - 1<<39
		peak := 0 // the most numbers the set has held: reset keeps the storage
		for i := 0; i < 3000; i++ {
			var seq int64
			switch rng.IntN(6) {
			case 0: // far away, either side
				seq = rng.Int64()
				if rng.IntN(2) == 0 {
					seq = -seq
				}
			case 1: // an extreme
				seq = []int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.IntN(4)]
			case 2: // just below the first
				seq = start - 1 - rng.Int64N(100)
			default: // near the first, dense
				seq = start + rng.Int64N(int64(4*i+100))
			}
			_, had := want[seq]
			require.Equal(t, had, s.add(seq), "trial %d step %d: add(%d)", trial, i, seq)
			want[seq] = struct{}{}
			require.Equal(t, len(want), s.n)
			peak = max(peak, s.n)
			if rng.IntN(500) == 0 {
				s.reset()
				clear(want)
			}
		}
		require.LessOrEqual(t, len(s.bits), 2*peak+64, "the bitmap stays in proportion to the numbers added")
	}
}

// TestSeqSetDense: a session's numbering 1…n lands in the bitmap alone.
func TestSeqSetDense(t *testing.T) {
	var s seqSet
	for seq := int64(1); seq <= 16384; seq++ {
		require.False(t, s.add(seq))
	}
	require.True(t, s.add(1))
	require.True(t, s.add(16384))
	require.Empty(t, s.far)
	require.Equal(t, 16384/64, len(s.bits))
}
