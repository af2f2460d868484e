package etl

import (
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRawFileReadsAsOSFile compares the page-cache reads of a plain file
// with os.File's: the same bytes, counts and io.EOF for ranges inside,
// across and past the end, and a refusal once the file is closed.
func TestRawFileReadsAsOSFile(t *testing.T) {
	data := make([]byte, 3*65536+123)
	rng := rand.New(rand.NewSource(7))
	rng.Read(data)
	path := filepath.Join(t.TempDir(), "plain.bin")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	fh, err := os.Open(path)
	require.NoError(t, err)
	ref, err := os.Open(path)
	require.NoError(t, err)
	defer ref.Close()
	raw := newRawFile(fh)

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
	_, err = raw.ReadAt(make([]byte, 8), 0)
	assert.True(t, errors.Is(err, os.ErrClosed), "read after Close: %v", err)
}
