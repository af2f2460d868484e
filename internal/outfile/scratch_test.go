package outfile

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScratch: the scratch file holds what is written to it, and is gone
// from its directory once closed; on systems that allow it, at once.
func TestScratch(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := os.TempDir()
	f, done, err := Scratch("scratch-*.bin")
	require.NoError(t, err)
	_, err = f.Write([]byte("kept aside"))
	require.NoError(t, err)
	_, err = f.Seek(0, io.SeekStart)
	require.NoError(t, err)
	back, err := io.ReadAll(f)
	require.NoError(t, err)
	assert.Equal(t, "kept aside", string(back))
	left, err := filepath.Glob(filepath.Join(dir, "scratch-*"))
	require.NoError(t, err)
	if runtime.GOOS != "windows" {
		assert.Empty(t, left, "removed while open")
	}
	require.NoError(t, done())
	left, err = filepath.Glob(filepath.Join(dir, "scratch-*"))
	require.NoError(t, err)
	assert.Empty(t, left)
}
