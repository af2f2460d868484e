package order

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPresize: the lists are sized for a file of same-size buffers, and a
// first buffer smaller than any session writes buys no large allocation.
func TestPresize(t *testing.T) {
	all, of := presize(1<<30, 64<<10)
	require.Equal(t, 1<<14+1, cap(all))
	require.Equal(t, 1<<14+1, cap(of))
	require.Empty(t, all)
	for _, tiny := range []uint32{0, 72, 4095} {
		all, of = presize(1<<30, tiny)
		require.LessOrEqual(t, cap(all), 16, "BufferSize %d", tiny)
		require.LessOrEqual(t, cap(of), 16)
	}
	all, _ = presize(0, 64<<10)
	require.LessOrEqual(t, cap(all), 16)
}

// TestDistribute: each stream gets its own buffers in walk order, with no
// room to grow into a neighbour's.
func TestDistribute(t *testing.T) {
	made := []*stream{{cpu: 3}, {cpu: 0}, {cpu: 1}}
	var all []loc
	var of []int32
	for i, k := range []int32{0, 1, 1, 2, 0, 0, 2, 1} {
		all = append(all, loc{off: int64(i) << 16, index: int32(i), seq: int64(10 - i)})
		of = append(of, k)
	}
	distribute(made, all, of)
	want := [][]int32{{0, 4, 5}, {1, 2, 7}, {3, 6}}
	for k, s := range made {
		var got []int32
		for _, l := range s.locs {
			got = append(got, l.index)
			require.Equal(t, all[l.index], l)
		}
		require.Equal(t, want[k], got, "stream %d", k)
		require.Equal(t, len(s.locs), cap(s.locs))
	}
}
