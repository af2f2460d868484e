package rawfile

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/etlkit/etlkit/buffer"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRawFileReadsAsOSFile compares the page-cache reads of a plain file
// with os.File's: the same bytes, counts and io.EOF for ranges inside,
// across and past the end, and a refusal once the file is closed.
func TestRawFileReadsAsOSFile(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	data, raw, ref := randomFile(t, rng, 3*65536+123)

	ranges := [][2]int{{0, 72}, {0, len(data)}, {65536, 65536}, {len(data) - 10, 72}, {len(data), 8}, {len(data) + 100, 8}, {5, 0}}
	for i := 0; i < 200; i++ {
		ranges = append(ranges, [2]int{rng.Intn(len(data) + 50), rng.Intn(70000)})
	}
	for _, r := range ranges {
		got := make([]byte, r[1])
		want := make([]byte, r[1])
		n, err := raw.ReadAt(got, int64(r[0]))
		wn, werr := ref.ReadAt(want, int64(r[0]))
		require.Equal(t, wn, n, "read of %d at %d", r[1], r[0])
		require.Equal(t, want[:wn], got[:n], "read of %d at %d", r[1], r[0])
		require.Equal(t, werr == io.EOF, err == io.EOF, "read of %d at %d: %v, os.File %v", r[1], r[0], err, werr)
		require.Equal(t, werr == nil, err == nil, "read of %d at %d: %v, os.File %v", r[1], r[0], err, werr)
	}

	require.NoError(t, raw.Close())
	_, err := raw.ReadAt(make([]byte, 8), 0)
	assert.True(t, errors.Is(err, os.ErrClosed), "read after Close: %v", err)
}

// TestRawFileReadsInBatches holds ReadAtBatch to os.File's ReadAt: the
// same bytes wherever a read is marked done, and every read marked done
// that ReadAt makes in full, over more reads than one batch takes, with
// reads across and past the end and of nothing; once the file is closed,
// batches are refused.
func TestRawFileReadsInBatches(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	data, raw, ref := randomFile(t, rng, 5*65536+77)
	br, isBatch := raw.(buffer.BatchReaderAt)
	if !isBatch || !br.BatchReads() {
		raw.Close()
		t.Skip("no batched reads here (io_uring is Linux-only and may be refused)")
	}

	const reads = 3*BatchEntries + 17
	p := make([][]byte, reads)
	off := make([]int64, reads)
	for i := range p {
		p[i], off[i] = make([]byte, rng.Intn(200)), int64(rng.Intn(len(data)+300))
	}
	p[0], off[0] = make([]byte, 72), int64(len(data)-10) // across the end
	p[1], off[1] = nil, 5                                // nothing to read
	ok := make([]bool, reads)
	require.True(t, br.ReadAtBatch(p, off, ok))
	done := 0
	for i := range p {
		want := make([]byte, len(p[i]))
		n, _ := ref.ReadAt(want, off[i])
		require.Equal(t, n == len(want), ok[i], "read %d: %d bytes at %d", i, len(p[i]), off[i])
		if ok[i] {
			require.True(t, bytes.Equal(want, p[i]), "read %d: bytes differ", i)
			done++
		}
	}
	assert.False(t, ok[0])
	assert.True(t, ok[1])
	assert.Greater(t, done, reads/2)

	require.NoError(t, raw.Close())
	assert.False(t, br.ReadAtBatch(p[:4], off[:4], ok[:4]), "a batch after Close")

	// A batch of which no read succeeds, as on a kernel whose ring cannot
	// read, turns batches off for the file.
	_, raw, _ = randomFile(t, rng, 1000)
	br = raw.(buffer.BatchReaderAt)
	defer raw.Close()
	require.True(t, br.BatchReads())
	past := [][]byte{make([]byte, 8), make([]byte, 8)}
	require.True(t, br.ReadAtBatch(past, []int64{2000, 3000}, ok[:2]))
	assert.Equal(t, []bool{false, false}, ok[:2])
	assert.False(t, br.BatchReads())
	assert.False(t, br.ReadAtBatch(p[:2], off[:2], ok[:2]))
}

// randomFile writes size random bytes to a file and opens it twice: as the
// Reader reads a file, and as a plain os.File to compare with.
func randomFile(t *testing.T, rng *rand.Rand, size int) (data []byte, raw File, ref *os.File) {
	data = make([]byte, size)
	rng.Read(data)
	path := filepath.Join(t.TempDir(), "plain.bin")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	fh, err := os.Open(path)
	require.NoError(t, err)
	ref, err = os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { ref.Close() })
	return data, New(fh), ref
}
