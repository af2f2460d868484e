package buffer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/etlkit/etlkit/internal/digits"
)

// RTBackupMagic starts every real-time backup file.
const RTBackupMagic = "RlFs"

// RTBackupHeaderSize is the size of the RlFs file header.
const RTBackupHeaderSize = 0x48

// RTBackupHeader mirrors the header of a real-time backup file ("RlFs").
//
// Windows keeps the undelivered events of a real-time session (an event log
// channel session such as EventLog-System, or an autologger such as DiagLog)
// in EtwRT*.etl files under LogFiles\WMI\RtBackup. Such a file does not start
// with a WMI_BUFFER_HEADER but with a 0x48-byte file header of its own:
//
//	Off  Size Field              Meaning
//	0x00 4    Magic              ASCII "RlFs"
//	0x04 u32  Reserved04         0 in every sample
//	0x08 u32  Version            1 in every sample; a format version (guess)
//	0x0C u32  Unknown0C          1 in every sample; meaning unknown
//	0x10 i64  ReferenceTime      FILETIME (UTC) of a reference instant
//	0x18 i64  ReferenceClock     the same instant in the session clock
//	0x20 u32  BufferCount        number of WMI buffers stored
//	0x24 u32  BufferSize         session buffer size (BufferSize of every buffer)
//	0x28 u64  FirstBufferOffset  file offset of the first buffer (0x48)
//	0x30 u64  EndOffset          file offset where the last buffer ends
//	0x38 u64  FileSize           equal to EndOffset and to the file size
//	0x40 u64  DataSize           EndOffset - FirstBufferOffset
//
// Known from three real files (one to two buffers each): the magic; that
// BufferCount is the number of buffers found by the chain below; that
// BufferSize equals the BufferSize field of every embedded buffer; that
// FirstBufferOffset, EndOffset, FileSize and DataSize relate to the file size
// as stated; that ReferenceTime is a FILETIME and that ReferenceClock equals
// it in files whose events carry FILETIME timestamps but is a small
// performance-counter value in a file whose events carry QPC timestamps.
//
// The embedded buffers are ordinary WMI_BUFFER_HEADERs with ordinary records
// (EVENT_HEADER records in the samples), but each is stored only up to its
// Offset field (0x30), the end of its valid records, rather than up to its
// BufferSize: the next buffer begins right there. In the samples Offset
// equals SavedOffset and is a multiple of 8.
//
// Timestamps: there is no logfile-header event in these files. Where
// ReferenceClock equals ReferenceTime the session clock is system time and
// record timestamps are already FILETIMEs (a Kernel-General shutdown event in
// one sample carries its stop time as a FILETIME payload 2.9 us before its own
// timestamp). Otherwise the clock is QPC, and UTC = ReferenceTime +
// (timestamp - ReferenceClock) * 10^7 / frequency; the frequency is not in the
// file, and 10 MHz (the fixed QPC rate of current Windows) fits the sample.
//
// Inferred, not proven: the names and roles of the fields at 0x04-0x0C; that
// ReferenceTime/ReferenceClock form an anchor pair for converting session
// clock values to UTC (in the samples ReferenceTime is shared by the files of
// three different sessions, so it is a system-wide instant and not a session
// start); and which of EndOffset and FileSize is a write position and which a
// size, since they never differ in the samples. The header holds no clock type
// and no counter frequency. Layouts the samples do not show (an EndOffset
// before FirstBufferOffset, as a wrapped ring might have; compressed
// buffers) are rejected with ErrRealTimeBackup.
type RTBackupHeader struct {
	Magic             [4]byte // 0x00: "RlFs"
	Reserved04        uint32  // 0x04: 0 in the samples
	Version           uint32  // 0x08: 1 in the samples (assumed to be a version)
	Unknown0C         uint32  // 0x0C: 1 in the samples
	ReferenceTime     int64   // 0x10: FILETIME, UTC
	ReferenceClock    int64   // 0x18: ReferenceTime in the session clock
	BufferCount       uint32  // 0x20: number of embedded WMI buffers
	BufferSize        uint32  // 0x24: session buffer size
	FirstBufferOffset uint64  // 0x28: offset of the first embedded buffer
	EndOffset         uint64  // 0x30: end of the last embedded buffer
	FileSize          uint64  // 0x38: file size (equals EndOffset in the samples)
	DataSize          uint64  // 0x40: bytes of buffer data, EndOffset - FirstBufferOffset
}

// Extent is the place of one embedded WMI buffer in an RlFs file: its file
// offset and the number of bytes stored for it, header included. Records run
// from Offset+HeaderSize to Offset+Length.
type Extent struct {
	Offset int64
	Length int64
}

// IsRTBackup reports whether b starts with the RlFs magic.
func IsRTBackup(b []byte) bool {
	return len(b) >= len(RTBackupMagic) && string(b[:len(RTBackupMagic)]) == RTBackupMagic
}

// ParseRTBackupHeader decodes the RlFs file header from the first
// RTBackupHeaderSize bytes of b and checks that its fields agree with each
// other. It does not know the file size; RTBackupExtents checks that too.
func ParseRTBackupHeader(b []byte) (RTBackupHeader, error) {
	if len(b) < RTBackupHeaderSize {
		return RTBackupHeader{}, Errorf(int64(len(b)), -1, ErrTruncated,
			"RlFs header needs 0x%x bytes, have 0x%x", RTBackupHeaderSize, len(b))
	}
	if !IsRTBackup(b) {
		return RTBackupHeader{}, Errorf(0, -1, ErrMalformed, "magic %q is not %q", b[:4], RTBackupMagic)
	}
	le := binary.LittleEndian
	var h RTBackupHeader
	copy(h.Magic[:], b[0x00:0x04])
	h.Reserved04 = le.Uint32(b[0x04:])
	h.Version = le.Uint32(b[0x08:])
	h.Unknown0C = le.Uint32(b[0x0C:])
	h.ReferenceTime = int64(le.Uint64(b[0x10:]))
	h.ReferenceClock = int64(le.Uint64(b[0x18:]))
	h.BufferCount = le.Uint32(b[0x20:])
	h.BufferSize = le.Uint32(b[0x24:])
	h.FirstBufferOffset = le.Uint64(b[0x28:])
	h.EndOffset = le.Uint64(b[0x30:])
	h.FileSize = le.Uint64(b[0x38:])
	h.DataSize = le.Uint64(b[0x40:])

	switch {
	case h.FirstBufferOffset < RTBackupHeaderSize:
		return h, Errorf(0x28, -1, ErrMalformed,
			"first buffer offset 0x%x lies inside the 0x%x-byte RlFs header", h.FirstBufferOffset, RTBackupHeaderSize)
	case h.EndOffset < h.FirstBufferOffset:
		return h, Errorf(0x30, -1, ErrRealTimeBackup,
			"end offset 0x%x is before first buffer offset 0x%x (wrapped layout not supported)", h.EndOffset, h.FirstBufferOffset)
	case h.FileSize < h.EndOffset:
		return h, Errorf(0x38, -1, ErrMalformed,
			"file size field 0x%x is below end offset 0x%x", h.FileSize, h.EndOffset)
	case h.DataSize != h.EndOffset-h.FirstBufferOffset:
		return h, Errorf(0x40, -1, ErrMalformed,
			"data size 0x%x does not equal end offset 0x%x minus first buffer offset 0x%x",
			h.DataSize, h.EndOffset, h.FirstBufferOffset)
	case h.DataSize == 0 && h.BufferCount != 0:
		return h, Errorf(0x20, -1, ErrMalformed, "%s announced but no buffer data", digits.Counted(h.BufferCount, "buffer", "buffers"))
	case h.DataSize != 0 && h.BufferCount == 0:
		return h, Errorf(0x20, -1, ErrMalformed, "no buffers announced but 0x%x bytes of buffer data", h.DataSize)
	case uint64(h.BufferCount) > h.DataSize/HeaderSize:
		return h, Errorf(0x20, -1, ErrMalformed,
			"%d buffers cannot fit in 0x%x bytes of buffer data", h.BufferCount, h.DataSize)
	case h.BufferCount != 0 && h.BufferSize < HeaderSize:
		return h, Errorf(0x24, -1, ErrMalformed, "buffer size 0x%x is below the buffer header size", h.BufferSize)
	}
	return h, nil
}

// RTBackupExtents reads the RlFs header of the size-byte file r and follows
// the chain of embedded WMI buffers: each starts where the previous one's
// stored bytes end, and stores exactly its Offset field's worth of bytes. It
// returns one Extent per buffer, in file order. Any disagreement between the
// header, the buffers and the file size is a *FormatError naming the offset.
func RTBackupExtents(r io.ReaderAt, size int64) (RTBackupHeader, []Extent, error) {
	if size < RTBackupHeaderSize {
		return RTBackupHeader{}, nil, Errorf(max(size, 0), -1, ErrTruncated,
			"file of 0x%x bytes is too short for the 0x%x-byte RlFs header", max(size, 0), RTBackupHeaderSize)
	}
	var hb [RTBackupHeaderSize]byte
	if err := readFull(r, hb[:], 0, -1); err != nil {
		return RTBackupHeader{}, nil, err
	}
	h, err := ParseRTBackupHeader(hb[:])
	if err != nil {
		return h, nil, err
	}
	if h.FileSize > uint64(size) {
		return h, nil, Errorf(size, -1, ErrTruncated,
			"header gives file size 0x%x, file has 0x%x bytes", h.FileSize, size)
	}
	// From here on every offset is at most h.FileSize <= size, so int64 is safe.
	end := int64(h.EndOffset)
	pos := int64(h.FirstBufferOffset)
	n := int64(h.BufferCount)
	extents := make([]Extent, 0, min(n, 1024))
	var bb [HeaderSize]byte
	for i := 0; int64(i) < n; i++ {
		if end-pos < HeaderSize {
			return h, extents, Errorf(pos, i, ErrMalformed,
				"buffer %d of %d: header does not fit before end offset 0x%x", i, n, end)
		}
		if err := readFull(r, bb[:], pos, i); err != nil {
			return h, extents, err
		}
		bh, _ := ParseHeader(bb[:])
		stored := int64(bh.Offset)
		switch {
		case bh.BufferSize != h.BufferSize:
			return h, extents, Errorf(pos, i, ErrMalformed,
				"buffer size 0x%x differs from the RlFs header's 0x%x", bh.BufferSize, h.BufferSize)
		case bh.Compressed():
			return h, extents, Errorf(pos+0x34, i, ErrRealTimeBackup, "compressed buffer in an RlFs file is not supported")
		case stored < HeaderSize:
			return h, extents, Errorf(pos+0x30, i, ErrMalformed, "buffer offset field 0x%x is below the header size", stored)
		case stored > int64(bh.BufferSize):
			return h, extents, Errorf(pos+0x30, i, ErrMalformed,
				"buffer offset field 0x%x exceeds buffer size 0x%x", stored, bh.BufferSize)
		case stored > end-pos:
			return h, extents, Errorf(pos+0x30, i, ErrMalformed,
				"buffer stores 0x%x bytes but only 0x%x remain before end offset 0x%x", stored, end-pos, end)
		}
		extents = append(extents, Extent{Offset: pos, Length: stored})
		pos += stored
	}
	if pos != end {
		return h, extents, Errorf(pos, -1, ErrMalformed,
			"0x%x bytes between the last of %d buffers and end offset 0x%x", end-pos, n, end)
	}
	return h, extents, nil
}

// readFull fills b from r at off, turning a short read into ErrTruncated.
func readFull(r io.ReaderAt, b []byte, off int64, bufferIndex int) error {
	k, err := r.ReadAt(b, off)
	if k == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return Errorf(off+int64(k), bufferIndex, ErrTruncated, "read 0x%x of 0x%x bytes", k, len(b))
	}
	return fmt.Errorf("offset 0x%x: %w", off, err)
}
