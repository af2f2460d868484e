package etl_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zip"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ulikunitz/xz"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/order"
)

// bufferRecords reads a sound trace and gives each buffer's end and record
// count, in file order.
func bufferRecords(t *testing.T, data []byte) (ends []int64, counts []int) {
	t.Helper()
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	for b, err := range r.Buffers() {
		require.NoError(t, err)
		ends = append(ends, b.FileOffset+int64(b.BufferSize))
		counts = append(counts, 0)
	}
	for rec, err := range r.Records() {
		require.NoError(t, err)
		counts[rec.BufferIndex]++
	}
	return ends, counts
}

// wholeBufferRecords counts the records of the buffers that lie wholly in
// the first n bytes.
func wholeBufferRecords(ends []int64, counts []int, n int64) int {
	sum := 0
	for i, end := range ends {
		if end <= n {
			sum += counts[i]
		}
	}
	return sum
}

// wrapWith wraps plain in a format, with Go's encoders where there is one
// (xz in blocks of 64 KiB, as xz -T writes them) and bzip2's command
// otherwise.
func wrapWith(t *testing.T, format string, plain []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	switch format {
	case "gz":
		w := gzip.NewWriter(&out)
		_, err := w.Write(plain)
		require.NoError(t, err)
		require.NoError(t, w.Close())
	case "zst":
		w, err := zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1))
		require.NoError(t, err)
		_, err = w.Write(plain)
		require.NoError(t, err)
		require.NoError(t, w.Close())
	case "xz":
		w, err := xz.WriterConfig{BlockSize: xzBlock}.NewWriter(&out)
		require.NoError(t, err)
		_, err = w.Write(plain)
		require.NoError(t, err)
		require.NoError(t, w.Close())
	case "bz2":
		cmd := exec.Command("bzip2", "-1", "-c")
		cmd.Stdin = bytes.NewReader(plain)
		cmd.Stdout = &out
		require.NoError(t, cmd.Run())
	case "zip":
		w := zip.NewWriter(&out)
		m, err := w.Create("trace.etl")
		require.NoError(t, err)
		_, err = m.Write(plain)
		require.NoError(t, err)
		require.NoError(t, w.Close())
	}
	return out.Bytes()
}

// xzBlock is the block size of the xz inputs the tests make.
const xzBlock = 64 << 10

// referenceDecoder is the command that decompresses each format to
// standard output, writing what it could decode before a break.
var referenceDecoder = map[string]string{"gz": "gzip", "zst": "zstd", "xz": "xz", "bz2": "bzip2"}

// TestTruncatedWrapperReadsWhatDecompressed cuts wrapped copies of a real
// trace short: every whole buffer in what the format's own command
// decompresses from the cut file is read, the cut is reported as a
// truncation at its place in the content, and the records are those of
// the trace, in order.
func TestTruncatedWrapperReadsWhatDecompressed(t *testing.T) {
	// 71 buffers of 8 KiB.
	plain, err := os.ReadFile(samples.Path(t, "win10-explorer-startup.etl"))
	require.NoError(t, err)
	ends, counts := bufferRecords(t, plain)
	whole, _, _ := readPlaces(t, plain, order.Options{Mode: order.FileOrder})
	dir := t.TempDir()
	for _, format := range []string{"gz", "zst", "xz", "bz2", "zip"} {
		t.Run(format, func(t *testing.T) {
			if format == "bz2" {
				if _, err := exec.LookPath("bzip2"); err != nil {
					t.Skip("bzip2 is not installed: no bzip2 encoder to make the input with")
				}
			}
			wrappedData := wrapWith(t, format, plain)
			for _, frac := range []int{30, 60, 95} {
				cut := wrappedData[:len(wrappedData)*frac/100]
				path := filepath.Join(dir, fmt.Sprintf("cut%d.etl.%s", frac, format))
				require.NoError(t, os.WriteFile(path, cut, 0o644))
				name := fmt.Sprintf("%s cut at %d%%", format, frac)

				// At least what the format's own decoder gets out of it,
				// and never nothing.
				want := wholeBufferRecords(ends, counts, int64(len(plain)*(frac-10)/100))
				if cmd, ok := referenceDecoder[format]; ok {
					if _, err := exec.LookPath(cmd); err != nil {
						t.Logf("%s is not installed: %s compared with a bound instead of its output", cmd, name)
					} else {
						out, _ := exec.Command(cmd, "-d", "-c", path).Output()
						n := int64(len(out))
						if format == "xz" {
							// Go's decoder hands out a block once it has
							// decoded it whole; xz writes what it decoded.
							n -= n % xzBlock
						}
						want = wholeBufferRecords(ends, counts, n)
					}
				}

				f, err := etl.Open(path)
				require.NoError(t, err, name)
				var got []sampleRecord
				for rec, err := range f.Records() {
					if err != nil {
						// The record the end of the content cuts.
						var fe *etl.FormatError
						require.ErrorAs(t, err, &fe, name)
						assert.ErrorIs(t, err, etl.ErrTruncated, name)
						assert.Equal(t, f.Stats().Buffers-1, fe.Buffer, name)
						continue
					}
					got = append(got, sampleRecord{rec.BufferIndex, rec.BufferOffset})
				}
				st := f.Stats()
				assert.GreaterOrEqual(t, len(got), max(want, 1), name)
				assert.Equal(t, whole[:len(got)], got, "%s: the trace's first records", name)
				assert.True(t, st.Truncated, name)
				require.NotNil(t, st.Unwrap, name)
				assert.ErrorIs(t, st.Unwrap, etl.ErrTruncated, name)
				assert.Equal(t, f.Size(), st.Unwrap.Offset, "%s: the break is at the end of the content read", name)
				assert.Less(t, f.Size(), int64(len(plain)), name)
				assert.Contains(t, st.Unwrap.Error(), fmt.Sprintf("offset 0x%x: ", f.Size()), name)
				assert.True(t, st.Damaged(), name)
				assert.Contains(t, st.Errors, st.Unwrap, name)

				// The time order reads the same records.
				n := 0
				for rec := range f.Events() {
					if rec != nil {
						n++
					}
				}
				assert.Equal(t, len(got), n, name)
				assert.Same(t, st.Unwrap, f.Stats().Unwrap, name)
				require.NoError(t, f.Close())
			}
		})
	}
}

// TestUnwrapLimit: content past MaxUnwrapped is not unwrapped; the trace
// is read up to the limit and the rest reported as such.
func TestUnwrapLimit(t *testing.T) {
	plain, err := os.ReadFile(samples.Path(t, "shutdown-kernel.etl"))
	require.NoError(t, err)
	ends, counts := bufferRecords(t, plain)
	path := filepath.Join(t.TempDir(), "trace.etl.gz")
	require.NoError(t, os.WriteFile(path, wrapWith(t, "gz", plain), 0o644))

	const limit = 1 << 20
	f, err := etl.OpenWith(path, &etl.Options{MaxUnwrapped: limit})
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, int64(limit), f.Size())
	n := 0
	for _, err := range f.Records() {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, wholeBufferRecords(ends, counts, limit), n, "the buffers before the limit, which falls between two")
	st := f.Stats()
	require.NotNil(t, st.Unwrap)
	assert.ErrorIs(t, st.Unwrap, etl.ErrUnwrapLimit)
	assert.Equal(t, int64(limit), st.Unwrap.Offset)
	assert.Contains(t, st.Unwrap.Error(), "limit of 1 MiB")
	assert.Contains(t, st.Unwrap.Error(), "decompression bomb")

	// A limit the content fits in, exactly or with room, is no damage.
	for _, max := range []int64{int64(len(plain)), -1, 0} {
		f, err := etl.OpenWith(path, &etl.Options{MaxUnwrapped: max})
		require.NoError(t, err)
		for _, err := range f.Records() {
			require.NoError(t, err)
		}
		assert.False(t, f.Stats().Damaged(), "limit %d", max)
		assert.Nil(t, f.Stats().Unwrap)
		f.Close()
	}
}

// TestWrappedNonTraceStopsEarly: a wrapper whose content does not start a
// trace is refused from its first bytes, whatever it would unwrap to, and
// the message says what was found: never "empty file".
func TestWrappedNonTraceStopsEarly(t *testing.T) {
	// 2 GiB of zero bytes, as 2048 gzip members of 1 MiB.
	var member bytes.Buffer
	w := gzip.NewWriter(&member)
	_, err := w.Write(make([]byte, 1<<20))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	counted := &countingReader{r: io.MultiReader(slicesRepeat(member.Bytes(), 2048)...)}
	f, err := etl.OpenStream(counted, "zeros.gz", nil)
	require.Error(t, err)
	assert.Nil(t, f)
	assert.ErrorIs(t, err, etl.ErrNotETL)
	assert.Contains(t, err.Error(), "gzip content is not a trace")
	assert.Contains(t, err.Error(), "zero bytes")
	assert.NotContains(t, err.Error(), "empty")
	assert.Less(t, counted.n, int64(64*member.Len()), "a few members read, not the whole stream")

	// A stream that breaks off before any content cannot be read at all:
	// the break is told.
	path := filepath.Join(t.TempDir(), "short.gz")
	require.NoError(t, os.WriteFile(path, member.Bytes()[:20], 0o644))
	_, err = etl.Open(path)
	require.Error(t, err)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, "unwrapping gzip: unexpected EOF", err.Error())
}

func slicesRepeat(b []byte, n int) []io.Reader {
	rs := make([]io.Reader, n)
	for i := range rs {
		rs[i] = bytes.NewReader(b)
	}
	return rs
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestXzDictionaryBound: an xz stream whose first block asks for a
// dictionary larger than xz -9's is refused before the decoder allocates
// it, with a message saying so; one of xz -9's size is read whole.
func TestXzDictionaryBound(t *testing.T) {
	plain, err := os.ReadFile(samples.Path(t, "win11-waasmedic.etl"))
	require.NoError(t, err)
	r, err := etl.NewReader(bytes.NewReader(plain), int64(len(plain)))
	require.NoError(t, err)
	want := countRecords(t, r.Records())
	packed := wrapWith(t, "xz", plain)
	// The block header follows the 12-byte stream header: LZMA2's filter
	// flags (ID 0x21, one byte of properties) hold the dictionary size, and
	// the header's last four bytes are the CRC32 of the bytes before them.
	const blockAt = 12
	size := (int(packed[blockAt]) + 1) * 4
	i := bytes.Index(packed[blockAt:blockAt+size], []byte{0x21, 0x01})
	require.GreaterOrEqual(t, i, 0)
	at := blockAt + i + 2
	for code, refused := range map[byte]bool{28: false, 29: true, 40: true} {
		data := bytes.Clone(packed)
		data[at] = code
		crc := crc32.ChecksumIEEE(data[blockAt : blockAt+size-4])
		binary.LittleEndian.PutUint32(data[blockAt+size-4:], crc)
		f, err := etl.OpenStream(bytes.NewReader(data), "dict.etl.xz", nil)
		if refused {
			require.Error(t, err, "code %d", code)
			assert.Contains(t, err.Error(), "more than the 64 MiB of xz -9", "code %d", code)
			continue
		}
		require.NoError(t, err, "code %d", code)
		assert.Equal(t, want, countRecords(t, f.Records()), "code %d: the records of the trace", code)
		require.NoError(t, f.Close())
	}
}
