package buffer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/internal/samples"
)

// refTime is the FILETIME at 0x10 of all three sample files:
// 2016-04-20 16:37:10.6476284 UTC.
const refTime = 0x01d19b22e2c910fc

type rlfsRecord struct {
	headerType byte
	size       int
	timestamp  int64
	provider   [16]byte
	id         uint16
}

type rlfsBuffer struct {
	extent   Extent
	sequence int64
	logger   uint16
	flags    Flag
	records  []rlfsRecord
}

// guidBytes turns "aabbccdd-eeff-..." into the on-disk mixed-endian GUID.
func guidBytes(t *testing.T, s string) [16]byte {
	t.Helper()
	var g [16]byte
	h := bytes.ReplaceAll([]byte(s), []byte("-"), nil)
	require.Len(t, h, 32)
	var raw [16]byte
	for i := range raw {
		var v byte
		for _, c := range h[2*i : 2*i+2] {
			v <<= 4
			switch {
			case c >= '0' && c <= '9':
				v |= c - '0'
			case c >= 'a' && c <= 'f':
				v |= c - 'a' + 10
			default:
				t.Fatalf("bad GUID %q", s)
			}
		}
		raw[i] = v
	}
	g[0], g[1], g[2], g[3] = raw[3], raw[2], raw[1], raw[0]
	g[4], g[5] = raw[5], raw[4]
	g[6], g[7] = raw[7], raw[6]
	copy(g[8:], raw[8:])
	return g
}

// walkEventRecords reads EVENT_HEADER records of one stored buffer, the way a
// buffer walker would: from 0x48 to the buffer's Offset field.
func walkEventRecords(t *testing.T, b []byte) []rlfsRecord {
	t.Helper()
	le := binary.LittleEndian
	bh, ok := ParseHeader(b)
	require.True(t, ok)
	end := int(bh.Offset)
	require.LessOrEqual(t, end, len(b))
	var out []rlfsRecord
	for p := HeaderSize; p+4 <= end; {
		if le.Uint32(b[p:]) == EndMarker {
			break
		}
		r := b[p:end]
		require.GreaterOrEqual(t, len(r), 0x50)
		require.Equal(t, byte(0xC0), r[3])
		rec := rlfsRecord{
			headerType: r[2],
			size:       int(le.Uint16(r)),
			timestamp:  int64(le.Uint64(r[0x10:])),
			id:         le.Uint16(r[0x28:]),
		}
		copy(rec.provider[:], r[0x18:0x28])
		require.LessOrEqual(t, rec.size, len(r))
		out = append(out, rec)
		p += (rec.size + 7) &^ 7
	}
	return out
}

func TestRTBackupSamples(t *testing.T) {
	kernelPower := guidBytes(t, "331c3b3a-2005-44c2-ac5e-77220c37d6b4")
	tests := []struct {
		name    string
		size    int64
		header  RTBackupHeader
		buffers []rlfsBuffer
	}{
		{
			name: "rtbackup-rlfs-application.etl",
			size: 248,
			header: RTBackupHeader{
				Magic: [4]byte{'R', 'l', 'F', 's'}, Version: 1, Unknown0C: 1,
				ReferenceTime: refTime, ReferenceClock: refTime,
				BufferCount: 1, BufferSize: 0x10000,
				FirstBufferOffset: 0x48, EndOffset: 0xF8, FileSize: 0xF8, DataSize: 0xB0,
			},
			buffers: []rlfsBuffer{{
				extent: Extent{Offset: 0x48, Length: 0xB0}, sequence: 219, logger: 10,
				records: []rlfsRecord{
					{0x13, 0x68, 0x01d19b265aaf24ba, guidBytes(t, "67d07935-283a-4791-8f8d-fa9117f3e6f2"), 10004},
				},
			}},
		},
		{
			name: "rtbackup-rlfs-diaglog.etl",
			size: 376,
			header: RTBackupHeader{
				Magic: [4]byte{'R', 'l', 'F', 's'}, Version: 1, Unknown0C: 1,
				ReferenceTime: refTime, ReferenceClock: 0x12ab581,
				BufferCount: 2, BufferSize: 0x4000,
				FirstBufferOffset: 0x48, EndOffset: 0x178, FileSize: 0x178, DataSize: 0x130,
			},
			buffers: []rlfsBuffer{
				{
					extent: Extent{Offset: 0x48, Length: 0x98}, sequence: 75, logger: 9,
					records: []rlfsRecord{
						{0x13, 0x50, 0x25c221fe8, guidBytes(t, "4cb314df-c11f-47d7-9c04-65fb0051561b"), 108},
					},
				},
				{
					extent: Extent{Offset: 0xE0, Length: 0x98}, sequence: 76, logger: 9,
					records: []rlfsRecord{
						{0x13, 0x50, 0x25f3f3c4e, kernelPower, 48},
					},
				},
			},
		},
		{
			name: "rtbackup-rlfs-system.etl",
			size: 608,
			header: RTBackupHeader{
				Magic: [4]byte{'R', 'l', 'F', 's'}, Version: 1, Unknown0C: 1,
				ReferenceTime: refTime, ReferenceClock: refTime,
				BufferCount: 2, BufferSize: 0x10000,
				FirstBufferOffset: 0x48, EndOffset: 0x260, FileSize: 0x260, DataSize: 0x218,
			},
			buffers: []rlfsBuffer{
				{
					extent: Extent{Offset: 0x48, Length: 0x178}, sequence: 59, logger: 11,
					records: []rlfsRecord{
						{0x13, 0x6C, 0x01d19b265c5f1b44, guidBytes(t, "11cd958a-c507-4ef3-b3f2-5fd9dfbd2c78"), 101},
						{0x13, 0x5C, 0x01d19b265c60376f, kernelPower, 109},
						{0x13, 0x5C, 0x01d19b265c603778, kernelPower, 109},
					},
				},
				{
					extent: Extent{Offset: 0x1C0, Length: 0xA0}, sequence: 60, logger: 11,
					records: []rlfsRecord{
						{0x13, 0x58, 0x01d19b265d18eda0, guidBytes(t, "a68ca8b7-004f-d7b6-a698-07e2de0f1f5d"), 13},
					},
				},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(samples.Path(t, tc.name))
			require.NoError(t, err)
			require.Equal(t, tc.size, int64(len(data)))
			require.True(t, IsRTBackup(data))

			h, err := ParseRTBackupHeader(data)
			require.NoError(t, err)
			require.Equal(t, tc.header, h)

			h2, extents, err := RTBackupExtents(bytes.NewReader(data), int64(len(data)))
			require.NoError(t, err)
			require.Equal(t, tc.header, h2)
			require.Len(t, extents, len(tc.buffers))
			for i, want := range tc.buffers {
				require.Equal(t, want.extent, extents[i], "extent %d", i)
				b := data[extents[i].Offset : extents[i].Offset+extents[i].Length]
				bh, ok := ParseHeader(b)
				require.True(t, ok)
				require.Equal(t, tc.header.BufferSize, bh.BufferSize)
				require.Equal(t, uint32(want.extent.Length), bh.SavedOffset)
				require.Equal(t, want.sequence, bh.SequenceNumber)
				require.Equal(t, want.logger, bh.LoggerId)
				require.Equal(t, FlagFlushMarker|FlagProcIndex, bh.BufferFlag)
				require.Equal(t, TypeGeneric, bh.BufferType)
				require.Equal(t, StateFlush, bh.State)
				require.Equal(t, uint16(0), bh.ProcessorNumber())
				require.Equal(t, want.records, walkEventRecords(t, b), "records of buffer %d", i)
			}
		})
	}
}

// TestRTBackupSystemClock pins the evidence that the EventLog sessions stamp
// records with FILETIMEs: Kernel-General event 13 carries the shutdown time
// as a FILETIME payload, 29 units (2.9 us) before its own timestamp.
func TestRTBackupSystemClock(t *testing.T) {
	data, err := os.ReadFile(samples.Path(t, "rtbackup-rlfs-system.etl"))
	require.NoError(t, err)
	_, extents, err := RTBackupExtents(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	require.Len(t, extents, 2)
	rec := data[extents[1].Offset+HeaderSize:]
	require.Equal(t, uint16(0x58), binary.LittleEndian.Uint16(rec))
	ts := int64(binary.LittleEndian.Uint64(rec[0x10:]))
	stop := int64(binary.LittleEndian.Uint64(rec[0x50:]))
	require.Equal(t, int64(0x01d19b265d18ed83), stop)
	require.Equal(t, int64(29), ts-stop)
	// 1493.7 s after the header's reference FILETIME.
	require.Equal(t, int64(14936956068), ts-refTime)
}

// buildRlFs makes a well-formed RlFs file whose buffers store the given
// lengths (each at least HeaderSize, multiples of 8).
func buildRlFs(bufSize uint32, lengths ...int) []byte {
	le := binary.LittleEndian
	total := RTBackupHeaderSize
	for _, n := range lengths {
		total += n
	}
	b := make([]byte, total)
	copy(b, RTBackupMagic)
	le.PutUint32(b[0x08:], 1)
	le.PutUint32(b[0x0C:], 1)
	le.PutUint64(b[0x10:], refTime)
	le.PutUint64(b[0x18:], refTime)
	le.PutUint32(b[0x20:], uint32(len(lengths)))
	le.PutUint32(b[0x24:], bufSize)
	le.PutUint64(b[0x28:], RTBackupHeaderSize)
	le.PutUint64(b[0x30:], uint64(total))
	le.PutUint64(b[0x38:], uint64(total))
	le.PutUint64(b[0x40:], uint64(total-RTBackupHeaderSize))
	pos := RTBackupHeaderSize
	for i, n := range lengths {
		h := b[pos:]
		le.PutUint32(h[0x00:], bufSize)
		le.PutUint32(h[0x04:], uint32(n))
		le.PutUint64(h[0x18:], uint64(i))
		le.PutUint32(h[0x2C:], uint32(StateFlush))
		le.PutUint32(h[0x30:], uint32(n))
		le.PutUint16(h[0x34:], uint16(FlagFlushMarker|FlagProcIndex))
		for j := HeaderSize; j < n; j++ {
			h[j] = 0xFF
		}
		pos += n
	}
	return b
}

func TestRTBackupSynthetic(t *testing.T) {
	b := buildRlFs(0x1000, 0x48, 0x60, 0x50)
	h, extents, err := RTBackupExtents(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	require.Equal(t, uint32(3), h.BufferCount)
	require.Equal(t, []Extent{{0x48, 0x48}, {0x90, 0x60}, {0xF0, 0x50}}, extents)

	empty := buildRlFs(0x1000)
	h, extents, err = RTBackupExtents(bytes.NewReader(empty), int64(len(empty)))
	require.NoError(t, err)
	require.Equal(t, uint64(0x48), h.EndOffset)
	require.Empty(t, extents)

	// Bytes beyond FileSize are ignored.
	long := append(buildRlFs(0x1000, 0x58), make([]byte, 0x20)...)
	_, extents, err = RTBackupExtents(bytes.NewReader(long), int64(len(long)))
	require.NoError(t, err)
	require.Equal(t, []Extent{{0x48, 0x58}}, extents)

	require.False(t, IsRTBackup([]byte("RlF")))
	require.False(t, IsRTBackup([]byte{0x00, 0x10, 0x00, 0x00}))
}

type failingReader struct{ err error }

func (f failingReader) ReadAt([]byte, int64) (int, error) { return 0, f.err }

func TestRTBackupHostile(t *testing.T) {
	le := binary.LittleEndian
	valid := func() []byte { return buildRlFs(0x1000, 0x58, 0x60) } // buffers at 0x48 and 0xA0, end 0x100
	put32 := func(off int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { le.PutUint32(b[off:], v); return b }
	}
	put64 := func(off int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { le.PutUint64(b[off:], v); return b }
	}
	tests := []struct {
		name     string
		mutate   func([]byte) []byte
		size     int64 // 0: len of the mutated data
		sentinel error
		offset   int64
		buffer   int
	}{
		{"empty", func([]byte) []byte { return nil }, 0, ErrTruncated, 0, -1},
		{"short header", func(b []byte) []byte { return b[:0x30] }, 0, ErrTruncated, 0x30, -1},
		{"negative size", nil, -5, ErrTruncated, 0, -1},
		{"bad magic", func(b []byte) []byte { b[3] = 'S'; return b }, 0, ErrMalformed, 0, -1},
		{"first offset inside header", put64(0x28, 0x10), 0, ErrMalformed, 0x28, -1},
		{"end before first", put64(0x30, 0x40), 0, ErrRealTimeBackup, 0x30, -1},
		{"file size below end", put64(0x38, 0xF8), 0, ErrMalformed, 0x38, -1},
		{"data size mismatch", put64(0x40, 0xB0), 0, ErrMalformed, 0x40, -1},
		{"huge count", put32(0x20, 0xFFFFFFFF), 0, ErrMalformed, 0x20, -1},
		{"zero count with data", put32(0x20, 0), 0, ErrMalformed, 0x20, -1},
		{"tiny buffer size", put32(0x24, 0x20), 0, ErrMalformed, 0x24, -1},
		{"huge offsets", func(b []byte) []byte {
			le.PutUint64(b[0x28:], 1<<63)
			le.PutUint64(b[0x30:], 1<<63+0x100)
			le.PutUint64(b[0x38:], 1<<63+0x100)
			le.PutUint64(b[0x40:], 0x100)
			return b
		}, 0, ErrTruncated, 0x100, -1},
		{"file cut short", func(b []byte) []byte { return b[:0xF0] }, 0, ErrTruncated, 0xF0, -1},
		{"size below header", nil, 0x40, ErrTruncated, 0x40, -1},
		{"reader shorter than size", func(b []byte) []byte { return b[:0xA8] }, 0x100, ErrTruncated, 0xA8, 1},
		{"count too high", func([]byte) []byte {
			b := buildRlFs(0x1000, 0x90, 0x48) // room for three headers, two buffers
			le.PutUint32(b[0x20:], 3)
			return b
		}, 0, ErrMalformed, 0x120, 2},
		{"count too low", put32(0x20, 1), 0, ErrMalformed, 0xA0, -1},
		{"buffer size differs", put32(0xA0, 0x2000), 0, ErrMalformed, 0xA0, 1},
		{"buffer offset below header", put32(0x48+0x30, 0x20), 0, ErrMalformed, 0x78, 0},
		{"buffer offset above buffer size", put32(0xA0+0x30, 0x1008), 0, ErrMalformed, 0xD0, 1},
		{"buffer offset past end", put32(0x48+0x30, 0xC0), 0, ErrMalformed, 0x78, 0},
		{"buffer offset short of next", put32(0x48+0x30, 0x50), 0, ErrMalformed, 0x98, 1},
		{"compressed buffer", put32(0xA0+0x34, uint32(FlagCompressed)), 0, ErrRealTimeBackup, 0xD4, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := valid()
			if tc.mutate != nil {
				b = tc.mutate(b)
			}
			size := tc.size
			if size == 0 {
				size = int64(len(b))
			}
			_, _, err := RTBackupExtents(bytes.NewReader(b), size)
			require.Error(t, err)
			require.ErrorIs(t, err, tc.sentinel)
			var fe *FormatError
			require.True(t, errors.As(err, &fe), "error %v is not a *FormatError", err)
			require.Equal(t, tc.offset, fe.Offset, "error: %v", err)
			require.Equal(t, tc.buffer, fe.Buffer, "error: %v", err)
		})
	}

	t.Run("header parse errors", func(t *testing.T) {
		_, err := ParseRTBackupHeader([]byte("RlFs"))
		require.ErrorIs(t, err, ErrTruncated)
		var fe *FormatError
		require.True(t, errors.As(err, &fe))
		require.Equal(t, int64(4), fe.Offset)

		b := valid()
		le.PutUint32(b[0x20:], 0xFFFFFFFF)
		_, err = ParseRTBackupHeader(b)
		require.ErrorIs(t, err, ErrMalformed)
		require.True(t, errors.As(err, &fe))
		require.Equal(t, int64(0x20), fe.Offset)
	})

	t.Run("reader error", func(t *testing.T) {
		boom := errors.New("disk on fire")
		_, _, err := RTBackupExtents(failingReader{boom}, 0x100)
		require.ErrorIs(t, err, boom)
		require.Contains(t, err.Error(), "offset 0x0")
	})
}

func FuzzRTBackup(f *testing.F) {
	if d := samples.Dir(); d != "" {
		for _, name := range []string{"rtbackup-rlfs-application.etl", "rtbackup-rlfs-diaglog.etl", "rtbackup-rlfs-system.etl"} {
			if b, err := os.ReadFile(filepath.Join(d, name)); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add(buildRlFs(0x1000, 0x58, 0x60))
	f.Add(buildRlFs(0x1000))
	f.Add([]byte(RTBackupMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		h1, perr := ParseRTBackupHeader(data)
		h, extents, err := RTBackupExtents(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *FormatError: %v", err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(data)) {
				t.Fatalf("error offset outside the file of 0x%x bytes: %v", len(data), err)
			}
			return
		}
		if perr != nil {
			t.Fatalf("header parse failed (%v) but extents succeeded", perr)
		}
		if h != h1 {
			t.Fatalf("headers differ: %+v vs %+v", h, h1)
		}
		if uint64(len(extents)) != uint64(h.BufferCount) {
			t.Fatalf("%d extents for count %d", len(extents), h.BufferCount)
		}
		pos := int64(h.FirstBufferOffset)
		for i, e := range extents {
			if e.Offset != pos || e.Length < HeaderSize || e.Length > int64(h.BufferSize) {
				t.Fatalf("extent %d = %+v, expected at 0x%x", i, e, pos)
			}
			pos += e.Length
		}
		if pos != int64(h.EndOffset) || pos > int64(len(data)) {
			t.Fatalf("extents end at 0x%x, header end 0x%x, file 0x%x", pos, h.EndOffset, len(data))
		}
	})
}
