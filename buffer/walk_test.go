package buffer_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/buffer/xca"
)

// rawBuffer builds a buffer of size bytes whose records area holds recs.
func rawBuffer(size int, seq int64, cpu uint16, flags buffer.Flag, recs []byte) []byte {
	b := bytes.Repeat([]byte{0xFF}, size)
	clear(b[:buffer.HeaderSize])
	le := binary.LittleEndian
	le.PutUint32(b[0x00:], uint32(size))
	le.PutUint32(b[0x04:], uint32(buffer.HeaderSize+len(recs)))
	le.PutUint64(b[0x10:], 1000)
	le.PutUint64(b[0x18:], uint64(seq))
	le.PutUint16(b[0x28:], cpu)
	le.PutUint32(b[0x2C:], uint32(buffer.StateFlush))
	le.PutUint32(b[0x30:], uint32(buffer.HeaderSize+len(recs)))
	le.PutUint16(b[0x34:], uint16(flags))
	copy(b[buffer.HeaderSize:], recs)
	return b
}

func walkBytes(t *testing.T, in []byte, session uint32) (bufs []buffer.Buffer, errs []error, w *buffer.Walker) {
	w = buffer.NewWalker(bytes.NewReader(in), int64(len(in)))
	w.SessionBufferSize = session
	for {
		var b buffer.Buffer
		err := w.Next(&b)
		if err == io.EOF {
			return
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		b.Data = append([]byte(nil), b.Data...)
		bufs = append(bufs, b)
	}
}

func TestWalkStepsByEachBufferSize(t *testing.T) {
	in := append(rawBuffer(0x200, 0, 0, buffer.FlagFlushMarker, []byte("header..")), rawBuffer(0x1000, 7, 0x0803, 0, []byte("records!records!"))...)
	in = append(in, rawBuffer(0x80, 9, 0x0105, buffer.FlagProcIndex, nil)...)
	bufs, errs, w := walkBytes(t, in, 0)
	require.Empty(t, errs)
	require.Len(t, bufs, 3)
	assert.Equal(t, []int64{0, 0x200, 0x1200}, []int64{bufs[0].FileOffset, bufs[1].FileOffset, bufs[2].FileOffset})
	// Records end at Offset; the 0xFF fill after it is not read.
	assert.Equal(t, "records!records!", string(bufs[1].Records()))
	// 0x0803 without PROC_INDEX: processor 3, the high byte is alignment.
	assert.Equal(t, uint16(3), bufs[1].ProcessorNumber())
	// 0x0105 with PROC_INDEX: the 11-bit index.
	assert.Equal(t, uint16(0x105), bufs[2].ProcessorNumber())
	assert.Equal(t, int64(7), bufs[1].SequenceNumber)
	assert.False(t, w.ZeroTail)
}

func TestWalkZeroTailAndTruncation(t *testing.T) {
	in := append(rawBuffer(0x100, 0, 0, 0, []byte("abcdefgh")), make([]byte, 0x300)...)
	bufs, errs, w := walkBytes(t, in, 0)
	require.Empty(t, errs)
	require.Len(t, bufs, 1)
	assert.True(t, w.ZeroTail)

	// A last buffer cut short keeps its complete part.
	full := rawBuffer(0x100, 1, 0, 0, bytes.Repeat([]byte("x"), 0x80))
	in = append(rawBuffer(0x100, 0, 0, 0, nil), full[:0xA0]...)
	bufs, errs, _ = walkBytes(t, in, 0)
	require.Empty(t, errs)
	require.Len(t, bufs, 2)
	assert.True(t, bufs[1].Truncated)
	assert.Len(t, bufs[1].Records(), 0xA0-buffer.HeaderSize)
}

func TestWalkDamagedSizeStepsBySessionSize(t *testing.T) {
	bad := rawBuffer(0x100, 1, 0, 0, nil)
	binary.LittleEndian.PutUint32(bad, 0x10) // smaller than a header
	in := append(append(rawBuffer(0x100, 0, 0, 0, nil), bad...), rawBuffer(0x100, 2, 1, 0, []byte("survivor"))...)
	bufs, errs, _ := walkBytes(t, in, 0x100)
	require.Len(t, errs, 1)
	var fe *buffer.FormatError
	require.ErrorAs(t, errs[0], &fe)
	assert.Equal(t, int64(0x100), fe.Offset)
	assert.Equal(t, 1, fe.Buffer)
	assert.ErrorIs(t, errs[0], buffer.ErrMalformed)
	require.Len(t, bufs, 2)
	assert.Equal(t, "survivor", string(bufs[1].Records()))

	assert.Equal(t, int64(0x100), fe.Skipped)

	// Without a session size, the walk finds the next buffer by its scan.
	bufs, errs, _ = walkBytes(t, in, 0)
	require.Len(t, errs, 1)
	require.ErrorAs(t, errs[0], &fe)
	assert.Equal(t, int64(0x100), fe.Skipped)
	require.Len(t, bufs, 2)
	assert.Equal(t, "survivor", string(bufs[1].Records()))
}

func compressedBuffer(payload []byte, compressed []byte) []byte {
	b := rawBuffer(buffer.HeaderSize, 1, 0, buffer.FlagCompressed, nil)
	b = append(b[:buffer.HeaderSize], compressed...)
	binary.LittleEndian.PutUint32(b[0x00:], uint32(len(b)))
	binary.LittleEndian.PutUint32(b[0x30:], uint32(buffer.HeaderSize+len(payload)))
	return b
}

func TestWalkDecompressesAndIsolatesBadBuffers(t *testing.T) {
	payload := bytes.Repeat([]byte("0123456789abcdef"), 100)
	good := compressedBuffer(payload, xca.CompressLZ77(nil, payload))
	bad := compressedBuffer(payload, []byte{0xFF, 0xFF, 0xFF, 0xFF, 1, 2})
	in := append(append(append([]byte(nil), good...), bad...), good...)
	bufs, errs, _ := walkBytes(t, in, 0)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], buffer.ErrDecompress)
	var fe *buffer.FormatError
	require.ErrorAs(t, errs[0], &fe)
	assert.Equal(t, int64(len(good)), fe.Offset)
	require.Len(t, bufs, 2)
	for _, b := range bufs {
		assert.Equal(t, buffer.CompressionLZ77, b.Compression)
		assert.Equal(t, payload, b.Records())
	}
}

func TestDecompressFallsBackToLZNT1(t *testing.T) {
	// One LZNT1 chunk stored uncompressed: header 0x3000 | (size-1).
	src := []byte{0x04, 0x30, 'h', 'e', 'l', 'l', 'o'}
	dst := make([]byte, 5)
	c, err := buffer.Decompress(dst, src)
	require.NoError(t, err)
	assert.Equal(t, buffer.CompressionLZNT1, c)
	assert.Equal(t, "hello", string(dst))

	_, err = buffer.Decompress(make([]byte, 100), []byte{1, 2, 3})
	assert.Error(t, err)
}
