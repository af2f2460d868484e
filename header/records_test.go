package header_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
)

// kernelRecord builds a SYSTEM/COMPACT/PERFINFO record of the given type.
func kernelRecord(t header.Type, version uint16, hook uint16, ext []uint64, payload []byte) []byte {
	fixed := map[header.Type]int{header.TypeSystem64: 0x20, header.TypeCompact64: 0x18, header.TypePerfInfo64: 0x10}[t]
	b := make([]byte, fixed+8*len(ext)+len(payload))
	le := binary.LittleEndian
	le.PutUint16(b, version)
	b[2], b[3] = byte(t), 0xC0
	le.PutUint16(b[4:], uint16(len(b)))
	le.PutUint16(b[6:], hook)
	if t == header.TypePerfInfo64 {
		le.PutUint64(b[8:], 0x1122334455)
	} else {
		le.PutUint32(b[8:], 77)  // tid
		le.PutUint32(b[12:], 88) // pid
		le.PutUint64(b[16:], 0x1122334455)
	}
	if t == header.TypeSystem64 {
		le.PutUint32(b[0x18:], 5)
		le.PutUint32(b[0x1C:], 6)
	}
	for i, v := range ext {
		le.PutUint64(b[fixed+8*i:], v)
	}
	copy(b[fixed+8*len(ext):], payload)
	return b
}

func TestPerfInfoWithPEBSAndPMC(t *testing.T) {
	// PEBS flag and 2 PMC counters on a version-3 payload.
	b := kernelRecord(header.TypePerfInfo64, 0x8000|0x0200|3, 0x0524, []uint64{0xAAAA, 1, 2}, []byte{9, 9})
	p, end, err := header.ParsePrefix(b)
	require.NoError(t, err)
	require.False(t, end)
	assert.Equal(t, header.Prefix{Type: header.TypePerfInfo64, Size: len(b)}, p)
	h, err := header.ParseSystemHeader(b)
	require.NoError(t, err)
	assert.Equal(t, uint16(3), h.Version)
	assert.Equal(t, uint16(0x8203), h.RawVersion)
	assert.True(t, h.HasPEBS)
	assert.Equal(t, uint64(0xAAAA), h.PEBSIndex)
	assert.Equal(t, 2, h.PMCCount)
	assert.Equal(t, 0x18, h.PMCOffset)
	assert.Equal(t, 0x28, h.DataOffset)
	assert.False(t, h.HasIds)
	assert.Equal(t, int64(0x1122334455), h.SystemTime)
	assert.Equal(t, uint8(0x05), h.Group())
	assert.Equal(t, uint8(0x24), h.Opcode())
}

func TestSystemAndCompactHeaders(t *testing.T) {
	b := kernelRecord(header.TypeSystem64, 2, 0x0301, nil, []byte{1, 2, 3})
	h, err := header.ParseSystemHeader(b)
	require.NoError(t, err)
	assert.Equal(t, header.SystemHeader{Version: 2, RawVersion: 2, HeaderType: header.TypeSystem64, Flags: 0xC0, Size: uint16(len(b)),
		HookId: 0x0301, ThreadId: 77, ProcessId: 88, SystemTime: 0x1122334455, KernelTime: 5, UserTime: 6,
		PMCOffset: 0x20, DataOffset: 0x20, HasIds: true, HasCPUTimes: true}, h)
	c := kernelRecord(header.TypeCompact64, 4, 0x0524, nil, []byte{1})
	hc, err := header.ParseSystemHeader(c)
	require.NoError(t, err)
	assert.Equal(t, 0x18, hc.DataOffset)
	assert.Equal(t, uint32(88), hc.ProcessId)
	assert.False(t, hc.HasCPUTimes)
}

func TestPrefixRejectsBadRecords(t *testing.T) {
	// Size smaller than the fixed header.
	b := kernelRecord(header.TypeSystem64, 2, 0, nil, nil)
	binary.LittleEndian.PutUint16(b[4:], 0x10)
	_, _, err := header.ParsePrefix(b)
	assert.ErrorIs(t, err, buffer.ErrMalformed)
	// Extension bytes announced but absent.
	b = kernelRecord(header.TypePerfInfo64, 0x0700, 0, nil, nil)
	_, _, err = header.ParsePrefix(b)
	assert.ErrorIs(t, err, buffer.ErrMalformed)
	// Size past the buffer.
	b = kernelRecord(header.TypeSystem64, 2, 0, nil, nil)
	_, _, err = header.ParsePrefix(b[:0x1F])
	assert.ErrorIs(t, err, buffer.ErrTruncated)
	// Not a trace header.
	_, _, err = header.ParsePrefix([]byte{0x10, 0, 0x13, 0x40, 0, 0, 0, 0})
	assert.ErrorIs(t, err, buffer.ErrUnknownHeaderType)
	// Unknown type with the 0xC0 marker.
	_, _, err = header.ParsePrefix([]byte{0x10, 0, 0x30, 0xC0, 0, 0, 0, 0})
	assert.ErrorIs(t, err, buffer.ErrUnknownHeaderType)
	// The message type under the 0xC0 marker: only the 0x90 flags mark a message.
	_, _, err = header.ParsePrefix([]byte{0x10, 0, 0x0F, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	assert.ErrorIs(t, err, buffer.ErrUnknownHeaderType)
	p, _, err := header.ParsePrefix([]byte{0x10, 0, 0, 0x90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	require.NoError(t, err)
	assert.Equal(t, header.Prefix{Type: header.TypeMessage, Size: 0x10}, p)
	// The fill marker and a short tail end the buffer.
	_, end, err := header.ParsePrefix([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0})
	assert.True(t, end)
	assert.NoError(t, err)
	_, end, _ = header.ParsePrefix([]byte{1, 2, 3})
	assert.True(t, end)
}

func TestMessageOptionalItems(t *testing.T) {
	le := binary.LittleEndian
	build := func(flags uint16, items ...[]byte) []byte {
		b := make([]byte, 8)
		b[3] = 0x90
		le.PutUint16(b[4:], 42)
		le.PutUint16(b[6:], flags)
		for _, it := range items {
			b = append(b, it...)
		}
		b = append(b, 0xAB)
		le.PutUint16(b, uint16(len(b)))
		return b
	}
	u32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	u64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	guid := []byte{0x78, 0x56, 0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 1, 2, 3, 4, 5, 6, 7, 8}

	// Every item: sequence, component id (wins over GUID, which is then absent), timestamp, system info.
	b := build(header.MessageSequence|header.MessageGUID|header.MessageComponentID|header.MessageTimestamp|header.MessageSystemInfo|header.MessagePointer64,
		u32(7), u32(99), u64(123456), u32(11), u32(22))
	p, _, err := header.ParsePrefix(b)
	require.NoError(t, err)
	assert.Equal(t, header.TypeMessage, p.Type)
	m, err := header.ParseMessage(b)
	require.NoError(t, err)
	assert.Equal(t, uint16(42), m.MessageNumber)
	assert.Equal(t, uint32(7), m.Sequence)
	assert.True(t, m.HasComponentID())
	assert.False(t, m.HasGUID())
	assert.Equal(t, uint32(99), m.ComponentId)
	assert.Equal(t, int64(123456), m.TimeStamp)
	assert.Equal(t, uint32(11), m.ThreadId)
	assert.Equal(t, uint32(22), m.ProcessId)
	assert.Equal(t, 8+4+4+8+8, m.DataOffset)
	assert.Equal(t, 8, m.PointerSize())

	// GUID form; the performance-timestamp bit reserves 8 bytes but writes no value.
	b = build(header.MessageGUID|header.MessagePerformanceTimestamp|header.MessagePointer32, guid, u64(555))
	m, err = header.ParseMessage(b)
	require.NoError(t, err)
	assert.Equal(t, "12345678-1234-1234-0102-030405060708", m.Guid.String())
	assert.False(t, m.HasTimeStamp())
	assert.Equal(t, int64(0), m.TimeStamp)
	assert.Equal(t, 8+16+8, m.DataOffset)
	assert.Equal(t, 4, m.PointerSize())

	// Items announced but cut short.
	b = build(header.MessageSystemInfo)
	_, err = header.ParseMessage(b[:10])
	assert.ErrorIs(t, err, buffer.ErrTruncated)
}

func TestDescriptorAsOnDisk(t *testing.T) {
	desc := []byte{0x34, 0x12, 2, 16, 4, 11, 0x78, 0x56, 1, 2, 3, 4, 5, 6, 7, 0x80}
	wantDesc := header.EventDescriptor{Id: 0x1234, Version: 2, Channel: 16, Level: 4, Opcode: 11, Task: 0x5678, Keyword: 0x8007060504030201}
	assert.Equal(t, wantDesc, header.ParseEventDescriptor(desc))
	d := header.EventDescriptor{Id: 9, Version: 9, Channel: 9, Level: 9, Opcode: 9, Task: 9, Keyword: 9}
	header.ReadEventDescriptor(&d, desc)
	assert.Equal(t, wantDesc, d)
}

// wnodeBuffer is a buffer of records of the given sizes (WNODE records,
// which are skipped by size), then the 0xFF fill to size bytes.
func wnodeBuffer(size int, records ...int) (buf []byte, end int) {
	buf = make([]byte, buffer.HeaderSize, size)
	for _, n := range records {
		rec := make([]byte, header.Align(n))
		binary.LittleEndian.PutUint16(rec, uint16(n))
		rec[2], rec[3] = byte(header.TypeWnode), header.MarkerTraceHeader|header.MarkerEventTrace
		buf = append(buf, rec...)
	}
	end = len(buf)
	for len(buf) < size {
		buf = append(buf, 0xFF)
	}
	return buf, end
}

func TestCountRecords(t *testing.T) {
	buf, end := wnodeBuffer(0x200, 8, 12, 16, 0x20)
	for _, c := range []struct {
		name string
		end  int
		n    int
		ok   bool
	}{
		{"to the Offset", end, 4, true},
		{"to the fill", 0, 4, true},
		{"an Offset past the fill", end + 8, 4, false},
		{"an Offset inside the last record", end - 8, 0, false},
		{"an Offset on an earlier record, where no fill starts", end - 0x20, 0, false},
	} {
		n, ok := header.CountRecords(buf, c.end)
		assert.Equal(t, c.ok, ok, c.name)
		if c.ok {
			assert.Equal(t, c.n, n, c.name)
		}
	}
	// Records that lead to the very end, with no fill.
	full, _ := wnodeBuffer(buffer.HeaderSize+0x20, 0x10, 0x10)
	n, ok := header.CountRecords(full, 0)
	assert.True(t, ok)
	assert.Equal(t, 2, n)
	// Bytes that are not records.
	garbage := append(make([]byte, buffer.HeaderSize), 1, 2, 3, 4, 5, 6, 7, 8)
	_, ok = header.CountRecords(garbage, 0)
	assert.False(t, ok)
	_, ok = header.CountRecords(make([]byte, 0x100), 0)
	assert.False(t, ok, "zeros are not records")
	n, ok = header.CountRecords(make([]byte, buffer.HeaderSize), 0)
	assert.True(t, ok, "a buffer of no records")
	assert.Zero(t, n)
}
