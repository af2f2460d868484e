package etl_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ulikunitz/xz"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
)

// stream hides everything but Read, as a pipe would.
type stream struct{ r io.Reader }

func (s stream) Read(p []byte) (int, error) { return s.r.Read(p) }

// eventsDigest summarises the records in time order.
func eventsDigest(t *testing.T, f *etl.File) string {
	h := sha256.New()
	n := 0
	for r, err := range f.Events() {
		require.NoError(t, err)
		fmt.Fprintf(h, "%d|%d|%x|", r.RawTimeStamp, r.ProcessorNumber, r.Raw)
		n++
	}
	return fmt.Sprintf("%d:%x", n, h.Sum(nil))
}

func wrapped(t *testing.T, plain []byte) map[etl.Wrapper][]byte {
	out := map[etl.Wrapper][]byte{etl.WrapperNone: plain}
	for w, open := range map[etl.Wrapper]func(io.Writer) (io.WriteCloser, error){
		etl.WrapperGzip: func(b io.Writer) (io.WriteCloser, error) { return gzip.NewWriter(b), nil },
		etl.WrapperZstd: func(b io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(b) },
		etl.WrapperXz:   func(b io.Writer) (io.WriteCloser, error) { return xz.NewWriter(b) },
		etl.WrapperZip: func(b io.Writer) (io.WriteCloser, error) {
			zw := zip.NewWriter(b)
			m, err := zw.Create("trace.etl")
			return zipMember{m, zw}, err
		},
	} {
		var b bytes.Buffer
		wc, err := open(&b)
		require.NoError(t, err)
		_, err = wc.Write(plain)
		require.NoError(t, err)
		require.NoError(t, wc.Close())
		out[w] = b.Bytes()
	}
	return out
}

// zipMember writes one member and closes the archive.
type zipMember struct {
	io.Writer
	zw *zip.Writer
}

func (z zipMember) Close() error { return z.zw.Close() }

// TestOpenStreamStreams reads a trace from a stream, plain and in every
// wrapper, in memory and spilled to a temporary file, and finds the records
// of the file in both orders; Close removes the temporary file.
func TestOpenStreamStreams(t *testing.T) {
	const path = "../testdata/etl/kernel64.etl"
	plain, err := os.ReadFile(path)
	require.NoError(t, err)
	ref, err := etl.Open(path)
	require.NoError(t, err)
	defer ref.Close()
	wantFile, wantTime := digest(t, ref), eventsDigest(t, ref)

	for _, spill := range []bool{false, true} {
		for w, data := range wrapped(t, plain) {
			t.Run(fmt.Sprintf("%s/spill=%v", w, spill), func(t *testing.T) {
				dir := t.TempDir()
				t.Setenv("TMPDIR", dir)
				var opts *etl.Options
				if spill {
					opts = &etl.Options{SpillThreshold: 4096}
				}
				f, err := etl.OpenStream(stream{bytes.NewReader(data)}, "-", opts)
				require.NoError(t, err)
				assert.Equal(t, "-", f.Name)
				assert.Equal(t, w, f.Wrapper)
				assert.Equal(t, int64(len(plain)), f.Size())
				assert.Equal(t, wantFile, digest(t, f))
				assert.Equal(t, wantTime, eventsDigest(t, f))
				// A zip archive always goes to a file, then its member
				// to memory or another file.
				want := 0
				if spill {
					want++
				}
				if w == etl.WrapperZip {
					want++
				}
				if seesOpenFiles() {
					assert.Equal(t, want, tempFilesIn(t, dir), "temporary files while open")
				}
				require.NoError(t, f.Close())
				assert.Zero(t, tempFilesIn(t, dir), "temporary files after Close")
			})
		}
	}
}

// TestOpenStreamSample: the bzip2 sample read as a stream is the plain one.
func TestOpenStreamSample(t *testing.T) {
	plain, err := etl.Open(samples.Path(t, "win11-waasmedic.etl"))
	require.NoError(t, err)
	defer plain.Close()
	data, err := os.ReadFile(samples.Path(t, "win11-waasmedic.etl.bz2"))
	require.NoError(t, err)
	f, err := etl.OpenStream(stream{bytes.NewReader(data)}, "-", nil)
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, etl.WrapperBzip2, f.Wrapper)
	assert.Equal(t, digest(t, plain), digest(t, f))
}

// TestOpenStreamRegularFile: a regular file given as the stream (standard
// input redirected from a file) is read in place and left open.
func TestOpenStreamRegularFile(t *testing.T) {
	fh, err := os.Open("../testdata/etl/kernel64.etl")
	require.NoError(t, err)
	defer fh.Close()
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	f, err := etl.OpenStream(fh, "-", &etl.Options{SpillThreshold: -1})
	require.NoError(t, err)
	ref, err := etl.Open("../testdata/etl/kernel64.etl")
	require.NoError(t, err)
	defer ref.Close()
	assert.Equal(t, digest(t, ref), digest(t, f))
	left, _ := os.ReadDir(dir)
	assert.Empty(t, left, "no copy made")
	require.NoError(t, f.Close())
	_, err = fh.Seek(0, io.SeekStart)
	assert.NoError(t, err, "the caller's file stays open")
}

// TestOpenStreamNotETL: a stream that is no trace gives ErrNotETL, and a
// broken wrapper names it.
func TestOpenStreamNotETL(t *testing.T) {
	_, err := etl.OpenStream(stream{bytes.NewReader([]byte("hello, world"))}, "-", nil)
	assert.ErrorIs(t, err, etl.ErrNotETL)
	_, err = etl.OpenStream(stream{bytes.NewReader([]byte{0x1f, 0x8b, 8, 0, 0, 0})}, "-", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unwrapping gzip")
}

// TestOpenWithSpillThreshold: a wrapped file over the threshold is
// unwrapped into a temporary file, which Close removes; under it, into
// memory.
func TestOpenWithSpillThreshold(t *testing.T) {
	plain, err := os.ReadFile("../testdata/etl/kernel64.etl")
	require.NoError(t, err)
	ref, err := etl.Open("../testdata/etl/kernel64.etl")
	require.NoError(t, err)
	defer ref.Close()
	want := digest(t, ref)
	for w, data := range wrapped(t, plain) {
		if w == etl.WrapperZip || w == etl.WrapperNone {
			// A plain file is read in place; a zip member is unwrapped as
			// any other stream, which TestOpenStreamStreams covers.
			continue
		}
		path := filepath.Join(t.TempDir(), "trace")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		for _, c := range []struct {
			opts  *etl.Options
			files int
		}{{nil, 0}, {&etl.Options{SpillThreshold: int64(len(plain))}, 0}, {&etl.Options{SpillThreshold: 4096}, 1}, {&etl.Options{SpillThreshold: -1}, 1}} {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir)
			f, err := etl.OpenWith(path, c.opts)
			require.NoError(t, err)
			assert.Equal(t, w, f.Wrapper)
			assert.Equal(t, want, digest(t, f), "%s %+v", w, c.opts)
			if seesOpenFiles() {
				assert.Equal(t, c.files, tempFilesIn(t, dir), "%s %+v: temporary files while open", w, c.opts)
			}
			require.NoError(t, f.Close())
			assert.Zero(t, tempFilesIn(t, dir), "%s %+v: temporary files after Close", w, c.opts)
		}
	}
}

// seesOpenFiles reports whether tempFilesIn can count the temporary
// files still open: through /proc/self/fd once they are unlinked, or on
// Windows, where they stay until closed.
func seesOpenFiles() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil || runtime.GOOS == "windows"
}

// tempFilesIn counts the files of dir the process has open or that lie
// there: a spill file is removed from its directory as soon as it is
// made where the system allows it (outfile.Scratch), and is found then
// among the process's open files (Linux's /proc/self/fd).
func tempFilesIn(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
			if err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) && strings.HasSuffix(target, " (deleted)") {
				n++
			}
		}
	}
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	return n + len(left)
}
