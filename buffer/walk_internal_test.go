package buffer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGrowToPowerOfTwo: storage reused for buffers filled to different
// lengths is made once for all of a 64 KiB session's, and never more than
// twice the length asked for.
func TestGrowToPowerOfTwo(t *testing.T) {
	b := grow(nil, 40000)
	require.Len(t, b, 40000)
	require.Equal(t, 1<<16, cap(b))
	first := &b[0]
	for _, n := range []int{HeaderSize, 65000, 1 << 16, 12345} {
		b = grow(b, n)
		require.Len(t, b, n)
		require.Same(t, first, &b[0], "length %d: the storage is reused", n)
	}
	b = grow(b, 1<<16)
	b[0], b[1<<16-1] = 7, 9
	b = grow(b, 1<<16+1)
	require.Equal(t, 1<<17, cap(b))
	require.NotSame(t, first, &b[0])
	require.Equal(t, []byte{7, 9, 0}, []byte{b[0], b[1<<16-1], b[1<<16]}, "what the storage held is kept")
	for _, n := range []int{1, 2, 3, 4096, 4097, MaxSessionBufferSize} {
		c := cap(grow(nil, n))
		require.GreaterOrEqual(t, c, n)
		require.Less(t, c, 2*n+1, "length %d", n)
	}
}
