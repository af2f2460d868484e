package xca

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/etlkit/etlkit/internal/samples"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Sample traces that hold compressed buffers.
var compressedSamples = []string{
	"net452-x64-merged-compressed.etl",
	"selfdescribing-compressed.etl",
	"small-32bit-compressed.etl",
}

const (
	bufHeaderSize     = 0x48
	bufFlagCompressed = 0x40
)

// compressedBuffer is one compressed buffer of a trace: its Plain LZ77
// payload and the length the payload must decompress to.
type compressedBuffer struct {
	at   int64 // file offset of the buffer
	data []byte
	size int
}

// compressedBuffers walks the buffers of an ETL file, which lie back to back
// with their on-disk size in the first u32 of each header, and returns the
// compressed ones.
func compressedBuffers(tb testing.TB, raw []byte) []compressedBuffer {
	tb.Helper()
	var out []compressedBuffer
	for off := 0; off+bufHeaderSize <= len(raw); {
		size := int(binary.LittleEndian.Uint32(raw[off:]))
		if size == 0 {
			break
		}
		require.GreaterOrEqual(tb, size, bufHeaderSize, "buffer at 0x%x", off)
		require.LessOrEqual(tb, off+size, len(raw), "buffer at 0x%x runs past the file", off)
		flags := binary.LittleEndian.Uint16(raw[off+0x34:])
		if flags&bufFlagCompressed != 0 {
			used := int(binary.LittleEndian.Uint32(raw[off+0x30:]))
			require.Greater(tb, used, bufHeaderSize, "buffer at 0x%x", off)
			out = append(out, compressedBuffer{
				at:   int64(off),
				data: raw[off+bufHeaderSize : off+size],
				size: used - bufHeaderSize,
			})
		}
		off += size
	}
	return out
}

func readSample(tb testing.TB, name string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(samples.Path(tb, name))
	require.NoError(tb, err)
	return raw
}

// sampleBuffersIfPresent is for fuzz seeding, where an absent samples
// folder must not skip the target.
func sampleBuffersIfPresent(tb testing.TB) []compressedBuffer {
	dir := samples.Dir()
	if dir == "" {
		return nil
	}
	var out []compressedBuffer
	for _, name := range compressedSamples {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		out = append(out, compressedBuffers(tb, raw)...)
	}
	return out
}

func TestDecompressLZ77Samples(t *testing.T) {
	total := 0
	for _, name := range compressedSamples {
		t.Run(name, func(t *testing.T) {
			bufs := compressedBuffers(t, readSample(t, name))
			require.NotEmpty(t, bufs)
			in, out := 0, 0
			for _, b := range bufs {
				dst := make([]byte, b.size)
				n, err := DecompressLZ77(dst, b.data)
				require.NoError(t, err, "buffer at 0x%x", b.at)
				require.Equal(t, b.size, n, "buffer at 0x%x", b.at)
				// The first record of a buffer starts with a header whose
				// high byte marks its kind: 0xC0 system/perfinfo/trace
				// headers, 0x80 or 0x90 event headers.
				require.GreaterOrEqual(t, n, 4)
				kind := dst[3]
				require.Contains(t, []byte{0xC0, 0x80, 0x90}, kind, "buffer at 0x%x: first record 0x%08x", b.at, binary.LittleEndian.Uint32(dst))
				in += len(b.data)
				out += n
			}
			total += len(bufs)
			t.Logf("%d compressed buffers, %d -> %d bytes", len(bufs), in, out)
		})
	}
	t.Logf("%d compressed buffers checked", total)
}

// The other two formats must reject Plain LZ77 data without panicking or
// writing past dst; producing the expected length by chance would be
// suspicious, so that is checked too.
func TestOtherDecodersOnLZ77Samples(t *testing.T) {
	var d HuffmanDecoder
	for _, name := range compressedSamples {
		t.Run(name, func(t *testing.T) {
			bufs := compressedBuffers(t, readSample(t, name))
			huffErrs, lzntErrs := 0, 0
			for _, b := range bufs {
				dst := make([]byte, b.size+1)
				guard := dst[b.size:]
				guard[0] = 0x5A
				n, err := d.Decompress(dst[:b.size], b.data)
				require.True(t, err != nil || n != b.size, "Huffman decoded LZ77 buffer at 0x%x", b.at)
				require.LessOrEqual(t, n, b.size)
				if err != nil {
					require.ErrorIs(t, err, ErrCorrupt)
					huffErrs++
				}
				n, err = DecompressLZNT1(dst[:b.size], b.data)
				require.True(t, err != nil || n != b.size, "LZNT1 decoded LZ77 buffer at 0x%x", b.at)
				require.LessOrEqual(t, n, b.size)
				if err != nil {
					require.ErrorIs(t, err, ErrCorrupt)
					lzntErrs++
				}
				require.Equal(t, byte(0x5A), guard[0], "wrote past dst")
			}
			t.Logf("%d buffers: Huffman errors %d, LZNT1 errors %d (others returned a wrong length)", len(bufs), huffErrs, lzntErrs)
		})
	}
}

func TestCompressLZ77Samples(t *testing.T) {
	raw := readSample(t, "net452-x64-merged-compressed.etl")
	in, out, windows := 0, 0, 0
	for _, b := range compressedBuffers(t, raw) {
		plain := make([]byte, b.size)
		_, err := DecompressLZ77(plain, b.data)
		require.NoError(t, err)
		c := roundTripLZ77(t, plain)
		in += len(plain)
		out += len(c)
		windows += len(b.data)
	}
	require.NotZero(t, in, "no compressed buffer in the sample")
	t.Logf("re-compressed %d -> %d bytes (ratio %.2f; Windows wrote %d)", in, out, float64(in)/float64(out), windows)
	// Ours need not match the Windows compressor, but must compress about
	// as well: a compressor that emits literals only would pass the round
	// trip. It writes 3% less than Windows did.
	assert.Less(t, out, windows*11/10, "compressed size against what Windows wrote")
}
