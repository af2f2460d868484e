package etltest_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/buffer/xca"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

var le = binary.LittleEndian

func u16(b []byte, off int) uint16 { return le.Uint16(b[off:]) }
func u32(b []byte, off int) uint32 { return le.Uint32(b[off:]) }
func u64(b []byte, off int) uint64 { return le.Uint64(b[off:]) }

var (
	guidA = uuid.MustParse("68fdd900-4a3e-11d1-84f4-0000f80464e3")
	guidB = uuid.MustParse("01234567-89ab-cdef-0123-456789abcdef")
)

// oneRecord builds a trace with r alone in a data buffer and returns the
// record's bytes (up to the next 0xFF fill) and the whole file.
func oneRecord(t *testing.T, r etltest.Record) ([]byte, []byte) {
	t.Helper()
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		return b.WriteBuffer(etltest.Buffer{SequenceNumber: 1}, r)
	})
	require.NoError(t, err)
	require.Len(t, out, 0x2000)
	data := out[0x1000:]
	end := int(u32(data, 0x30))
	return data[buffer.HeaderSize:end], out
}

func TestLogfileHeader64Layout(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x2000
	s.HeaderVersion = 2
	s.HeaderThreadId, s.HeaderProcessId, s.HeaderTimeStamp = 0x111, 0x222, 0x0123456789
	s.OSMajor, s.OSMinor, s.SubVersion, s.SubMinorVersion = 10, 0, 2, 0
	s.ProviderVersion = 22621
	s.NumberOfProcessors = 16
	s.EndTime = 0x01D9000000000001
	s.TimerResolution = 156250
	s.MaximumFileSize = 512
	s.LogFileMode = etltest.ModeCompressed | etltest.ModeRelog
	s.StartBuffers = 7
	s.EventsLost = 9
	s.CPUSpeedInMHz = 3200
	s.TimerSource, s.PerfCounterSource = 0x0A, 0x07
	s.TimeZone = etltest.TimeZone{Bias: 300, StandardName: "EST", StandardDate: etltest.SystemTime{Month: 11, Day: 1, Hour: 2},
		StandardBias: 0, DaylightName: "EDT", DaylightDate: etltest.SystemTime{Month: 3, Day: 2, Hour: 2}, DaylightBias: -60}
	s.BootTime, s.PerfFreq, s.StartTime = 0x01D9000000000002, 3_117_777, 0x01D9000000000003
	s.ClockType = etltest.ClockCPUCycle
	s.BuffersLost = 4
	s.LoggerName, s.LogFileName = "Relogger", "[multiple files]"

	out, st, err := etltest.Build(s, func(b *etltest.Builder) error {
		if err := b.WriteBuffer(etltest.Buffer{SequenceNumber: 1}); err != nil {
			return err
		}
		return b.WriteBuffer(etltest.Buffer{SequenceNumber: 2})
	})
	require.NoError(t, err)
	require.Len(t, out, 3*0x2000)
	assert.Equal(t, 3, st.Buffers)

	// Header buffer.
	assert.Equal(t, uint32(0x2000), u32(out, 0x00))
	assert.Equal(t, uint64(0), u64(out, 0x18), "sequence")
	assert.Equal(t, uint16(buffer.FlagFlushMarker), u16(out, 0x34))
	assert.Equal(t, uint16(buffer.TypeHeader), u16(out, 0x36))
	assert.Equal(t, uint32(buffer.StateFlush), u32(out, 0x2C))

	r := out[0x48:]
	names := len("Relogger")*2 + 2 + len("[multiple files]")*2 + 2
	size := 0x20 + 0x118 + names
	assert.Equal(t, uint16(2), u16(r, 0))
	assert.Equal(t, byte(0x02), r[2])
	assert.Equal(t, byte(0xC0), r[3])
	assert.Equal(t, uint16(size), u16(r, 4))
	assert.Equal(t, uint16(0), u16(r, 6), "HookId")
	assert.Equal(t, uint32(0x111), u32(r, 8))
	assert.Equal(t, uint32(0x222), u32(r, 0xC))
	assert.Equal(t, uint64(0x0123456789), u64(r, 0x10))
	assert.Equal(t, uint32(0x48+header.Align(size)), u32(out, 0x30), "Offset")
	assert.Equal(t, u32(out, 0x30), u32(out, 0x04), "SavedOffset")

	h := r[0x20:]
	assert.Equal(t, uint32(0x2000), u32(h, 0x00))
	assert.Equal(t, []byte{10, 0, 2, 0}, h[0x04:0x08])
	assert.Equal(t, uint32(22621), u32(h, 0x08))
	assert.Equal(t, uint32(16), u32(h, 0x0C))
	assert.Equal(t, uint64(0x01D9000000000001), u64(h, 0x10))
	assert.Equal(t, uint32(156250), u32(h, 0x18))
	assert.Equal(t, uint32(512), u32(h, 0x1C))
	assert.Equal(t, uint32(etltest.ModeCompressed|etltest.ModeRelog), u32(h, 0x20))
	assert.Equal(t, uint32(3), u32(h, 0x24), "BuffersWritten")
	assert.Equal(t, uint32(3), u32(out, etltest.BuffersWrittenOffset))
	assert.Equal(t, uint32(7), u32(h, 0x28))
	assert.Equal(t, uint32(8), u32(h, 0x2C), "PointerSize")
	assert.Equal(t, uint32(9), u32(h, 0x30))
	assert.Equal(t, uint32(3200), u32(h, 0x34))
	assert.Equal(t, uint64(0x0A), u64(h, 0x38))
	assert.Equal(t, uint64(0x07), u64(h, 0x40))
	tz := h[0x48:]
	assert.Equal(t, uint32(300), u32(tz, 0))
	assert.Equal(t, []byte{'E', 0, 'S', 0, 'T', 0, 0, 0}, tz[4:12])
	assert.Equal(t, uint16(11), u16(tz, 0x44+2), "StandardDate.Month")
	assert.Equal(t, []byte{'E', 0, 'D', 0, 'T', 0, 0, 0}, tz[0x58:0x60])
	assert.Equal(t, uint16(3), u16(tz, 0x98+2), "DaylightDate.Month")
	assert.Equal(t, uint32(0xFFFFFFC4), u32(tz, 0xA8), "DaylightBias -60")
	assert.Equal(t, []byte{0, 0, 0, 0}, h[0xF4:0xF8], "pad after the time zone")
	assert.Equal(t, uint64(0x01D9000000000002), u64(h, 0xF8))
	assert.Equal(t, uint64(3_117_777), u64(h, 0x100))
	assert.Equal(t, uint64(0x01D9000000000003), u64(h, 0x108))
	assert.Equal(t, uint32(3), u32(h, 0x110))
	assert.Equal(t, uint32(4), u32(h, 0x114))
	assert.Equal(t, etltest.UTF16Z("Relogger"), h[0x118:0x118+18])
	assert.Equal(t, etltest.UTF16Z("[multiple files]"), h[0x118+18:0x118+18+34])
}

func TestLogfileHeader32Layout(t *testing.T) {
	s := etltest.DefaultSession()
	s.Bits32 = true
	s.BufferSize = 0x1000
	s.TimerSource, s.PerfCounterSource = 5, 6
	s.TimeZone.Bias = -120
	s.BootTime, s.PerfFreq, s.StartTime = 11, 22, 33
	s.ClockType, s.BuffersLost = etltest.ClockQPC, 2
	s.LoggerName, s.LogFileName = "a", "b"
	bw := uint32(99)
	s.BuffersWritten = &bw
	out, _, err := etltest.Build(s, func(*etltest.Builder) error { return nil })
	require.NoError(t, err)
	require.Len(t, out, 0x1000)
	r := out[0x48:]
	assert.Equal(t, byte(0x01), r[2], "SYSTEM32")
	assert.Equal(t, uint16(0x20+0x110+4+4), u16(r, 4))
	h := r[0x20:]
	assert.Equal(t, uint32(99), u32(h, 0x24), "BuffersWritten override")
	assert.Equal(t, uint32(4), u32(h, 0x2C), "PointerSize")
	assert.Equal(t, uint32(5), u32(h, 0x38))
	assert.Equal(t, uint32(6), u32(h, 0x3C))
	assert.Equal(t, uint32(0xFFFFFF88), u32(h, 0x40), "Bias")
	assert.Equal(t, []byte{0, 0, 0, 0}, h[0xEC:0xF0])
	assert.Equal(t, uint64(11), u64(h, 0xF0))
	assert.Equal(t, uint64(22), u64(h, 0xF8))
	assert.Equal(t, uint64(33), u64(h, 0x100))
	assert.Equal(t, uint32(1), u32(h, 0x108))
	assert.Equal(t, uint32(2), u32(h, 0x10C))
	assert.Equal(t, []byte{'a', 0, 0, 0, 'b', 0, 0, 0}, h[0x110:0x118])
}

// TestTimeZoneNames checks the fixed 32-unit name fields: a longer name is
// cut, one of exactly 32 units fills the field without a terminator.
func TestTimeZoneNames(t *testing.T) {
	long := strings.Repeat("L", 40)
	exact := strings.Repeat("X", 31) + "é"
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	s.TimeZone.StandardName, s.TimeZone.DaylightName = long, exact
	out, _, err := etltest.Build(s, func(*etltest.Builder) error { return nil })
	require.NoError(t, err)
	tz := out[0x48+0x20+0x48:]
	assert.Equal(t, etltest.UTF16Z(exact)[:64], tz[0x58:0x98], "DaylightName fills its field")
	h, err := header.ParseLogfileHeader(out[0x48+0x20:], true)
	require.NoError(t, err)
	assert.Equal(t, long[:32], h.TimeZone.StandardName)
	assert.Equal(t, exact, h.TimeZone.DaylightName)
	assert.Equal(t, s.TimeZone.StandardDate, h.TimeZone.StandardDate)
	assert.Equal(t, s.TimeZone.DaylightBias, h.TimeZone.DaylightBias)
}

func TestBufferHeaderFields(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x400
	st := buffer.StateCompressed
	rt := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	rec := etltest.Raw{0x01, 0x02, 0x03} // 3 bytes: the next record starts at 8
	out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		if err := b.WriteBuffer(etltest.Buffer{
			CPU: 0x123, ProcIndex: true, LoggerId: 0x21, SequenceNumber: 0x77, TimeStamp: -5,
			Flags: buffer.FlagEventsLost | buffer.FlagBufferLost, Type: buffer.TypeRundown, State: &st,
			ClockInfo: 0xFFFF800012345678, ReferenceTime: rt, SavedOffsetRecords: 1,
			CurrentOffset: etltest.Ptr(uint32(0x999)),
		}, rec, rec); err != nil {
			return err
		}
		return b.WriteBuffer(etltest.Buffer{CPU: 3, Alignment: 0x08, Size: 0x200, SequenceNumber: 2,
			SavedOffset: etltest.Ptr(uint32(0)), Offset: etltest.Ptr(uint32(0x300))}, rec)
	})
	require.NoError(t, err)
	require.Len(t, out, 0x400+0x400+0x200)
	b := out[0x400:]
	assert.Equal(t, uint32(0x400), u32(b, 0x00))
	assert.Equal(t, uint32(0x50), u32(b, 0x04), "SavedOffset after the first record")
	assert.Equal(t, uint32(0x999), u32(b, 0x08))
	assert.Equal(t, uint32(0), u32(b, 0x0C))
	assert.Equal(t, uint64(0xFFFFFFFFFFFFFFFB), u64(b, 0x10))
	assert.Equal(t, uint64(0x77), u64(b, 0x18))
	assert.Equal(t, uint64(0xFFFF800012345678), u64(b, 0x20))
	assert.Equal(t, uint16(0x123), u16(b, 0x28))
	assert.Equal(t, uint16(0x21), u16(b, 0x2A))
	assert.Equal(t, uint32(5), u32(b, 0x2C))
	assert.Equal(t, uint32(0x58), u32(b, 0x30), "Offset: two aligned 3-byte records")
	assert.Equal(t, uint16(buffer.FlagEventsLost|buffer.FlagBufferLost|buffer.FlagProcIndex), u16(b, 0x34))
	assert.Equal(t, uint16(buffer.TypeRundown), u16(b, 0x36))
	assert.Equal(t, rt[:], b[0x38:0x48])
	assert.Equal(t, []byte{1, 2, 3, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 0}, b[0x48:0x58], "records on 8-byte boundaries, zero padding")
	assert.Equal(t, bytes.Repeat([]byte{0xFF}, 0x400-0x58), b[0x58:0x400], "0xFF fill")

	hb, ok := buffer.ParseHeader(b)
	require.True(t, ok)
	assert.Equal(t, uint16(0x123), hb.ProcessorNumber())

	c := out[0x800:]
	assert.Equal(t, uint32(0x200), u32(c, 0x00))
	assert.Equal(t, uint32(0), u32(c, 0x04))
	assert.Equal(t, uint32(0x300), u32(c, 0x30), "Offset override")
	assert.Equal(t, []byte{3, 8}, c[0x28:0x2A], "ProcessorNumber and Alignment")
	assert.Equal(t, uint16(0), u16(c, 0x34))
	assert.Equal(t, uint64(2), u64(c, 0x18), "SequenceNumber as given")
	hc, _ := buffer.ParseHeader(c)
	assert.Equal(t, uint16(3), hc.ProcessorNumber())
}

func TestSystemCompactPerfInfoLayout(t *testing.T) {
	r, _ := oneRecord(t, &etltest.System{Version: 3, HookId: 0x0524, ThreadId: 7, ProcessId: 8, TimeStamp: 0x1122,
		KernelTime: 9, UserTime: 10, HasPEBS: true, PEBSIndex: 0xAA, PMC: []uint64{0xB1, 0xB2}, Payload: []byte{0xEE}})
	require.Len(t, r, header.Align(0x20+8+16+1))
	assert.Equal(t, uint16(0x8203), u16(r, 0), "Version with PEBS and 2 PMC")
	assert.Equal(t, []byte{0x02, 0xC0}, r[2:4])
	assert.Equal(t, uint16(0x20+8+16+1), u16(r, 4))
	assert.Equal(t, uint16(0x0524), u16(r, 6))
	assert.Equal(t, uint32(7), u32(r, 8))
	assert.Equal(t, uint32(8), u32(r, 0xC))
	assert.Equal(t, uint64(0x1122), u64(r, 0x10))
	assert.Equal(t, uint32(9), u32(r, 0x18))
	assert.Equal(t, uint32(10), u32(r, 0x1C))
	assert.Equal(t, uint64(0xAA), u64(r, 0x20))
	assert.Equal(t, uint64(0xB1), u64(r, 0x28))
	assert.Equal(t, uint64(0xB2), u64(r, 0x30))
	assert.Equal(t, byte(0xEE), r[0x38])

	r, _ = oneRecord(t, &etltest.Compact{Bits32: true, Version: 2, HookId: 0x0A0B, ThreadId: 1, ProcessId: 2, TimeStamp: 3, Payload: []byte{4, 5}})
	assert.Equal(t, uint16(2), u16(r, 0))
	assert.Equal(t, []byte{0x03, 0xC0}, r[2:4])
	assert.Equal(t, uint16(0x1A), u16(r, 4))
	assert.Equal(t, uint16(0x0A0B), u16(r, 6))
	assert.Equal(t, uint64(3), u64(r, 0x10))
	assert.Equal(t, []byte{4, 5}, r[0x18:0x1A])

	r, _ = oneRecord(t, &etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: 0x55, PMC: []uint64{1, 2, 3}, Payload: []byte{9}})
	assert.Equal(t, uint16(0x0302), u16(r, 0))
	assert.Equal(t, []byte{0x11, 0xC0}, r[2:4])
	assert.Equal(t, uint16(0x10+24+1), u16(r, 4))
	assert.Equal(t, uint16(0x0F2E), u16(r, 6))
	assert.Equal(t, uint64(0x55), u64(r, 8))
	assert.Equal(t, uint64(1), u64(r, 0x10))
	assert.Equal(t, uint64(3), u64(r, 0x20))
	assert.Equal(t, byte(9), r[0x28])

	r, _ = oneRecord(t, &etltest.PerfInfo{Bits32: true, HookId: 0x0524, HasPEBS: true, PEBSIndex: 0x77})
	assert.Equal(t, uint16(0x8000), u16(r, 0))
	assert.Equal(t, byte(0x10), r[2])
	assert.Equal(t, uint16(0x18), u16(r, 4))
	assert.Equal(t, uint64(0x77), u64(r, 0x10))

}

func TestClassicLayout(t *testing.T) {
	f := etltest.Full{Type: 0x0A, Level: 4, Version: 0x0102, ThreadId: 0x33, ProcessId: 0x44, TimeStamp: 0x99,
		Guid: guidA, KernelTime: 5, UserTime: 6, Payload: []byte{0xAB, 0xCD}}
	r, _ := oneRecord(t, &f)
	assert.Equal(t, uint16(0x32), u16(r, 0))
	assert.Equal(t, []byte{0x14, 0xC0, 0x0A, 4}, r[2:6])
	assert.Equal(t, uint16(0x0102), u16(r, 6))
	assert.Equal(t, uint32(0x33), u32(r, 8))
	assert.Equal(t, uint32(0x44), u32(r, 0xC))
	assert.Equal(t, uint64(0x99), u64(r, 0x10))
	assert.Equal(t, guidA, guid.FromWindows(r[0x18:]))
	assert.Equal(t, uint32(5), u32(r, 0x28))
	assert.Equal(t, uint32(6), u32(r, 0x2C))
	assert.Equal(t, []byte{0xAB, 0xCD}, r[0x30:0x32])

	f.Bits32 = true
	r, _ = oneRecord(t, &etltest.Instance{Full: f, InstanceId: 0x10, ParentInstanceId: 0x20, ParentGuid: guidB})
	assert.Equal(t, uint16(0x4A), u16(r, 0))
	assert.Equal(t, byte(0x0B), r[2])
	assert.Equal(t, uint32(0x10), u32(r, 0x30))
	assert.Equal(t, uint32(0x20), u32(r, 0x34))
	assert.Equal(t, guidB, guid.FromWindows(r[0x38:]))
	assert.Equal(t, []byte{0xAB, 0xCD}, r[0x48:0x4A])
}

func TestEventHeaderLayout(t *testing.T) {
	ev := &etltest.Event{
		Flags: header.FlagStringOnly, EventProperty: header.PropertyXML, ThreadId: 1, ProcessId: 2, TimeStamp: 3,
		ProviderId: guidA,
		Descriptor: header.EventDescriptor{Id: 0x1234, Version: 5, Channel: 6, Level: 7, Opcode: 8, Task: 0x99AA, Keyword: 0x8000000000000001},
		KernelTime: 0x11, UserTime: 0x22, ActivityId: guidB,
		Ext: []etltest.ExtItem{
			etltest.ExtTerminalSessionID(3),                           // 4 bytes -> item 0x10
			etltest.ExtSID(etltest.SID(1, 5, 21, 1000)),               // 16 bytes -> 0x18
			{Type: record.ExtEventSchemaTL, Data: make([]byte, 0x0B)}, // 0x18 as observed
		},
		UserData: []byte{'h', 0, 0, 0},
	}
	r, _ := oneRecord(t, ev)
	size := 0x50 + 0x10 + 0x18 + 0x18 + 4
	assert.Equal(t, uint16(size), u16(r, 0))
	assert.Equal(t, []byte{0x13, 0xC0}, r[2:4])
	assert.Equal(t, uint16(header.FlagStringOnly|header.FlagExtendedInfo), u16(r, 4), "EXTENDED_INFO set by the builder")
	assert.Equal(t, uint16(1), u16(r, 6))
	assert.Equal(t, uint64(3), u64(r, 0x10))
	assert.Equal(t, guidA, guid.FromWindows(r[0x18:]))
	assert.Equal(t, []byte{0x34, 0x12, 5, 6, 7, 8, 0xAA, 0x99}, r[0x28:0x30])
	assert.Equal(t, uint64(0x8000000000000001), u64(r, 0x30))
	assert.Equal(t, uint32(0x11), u32(r, 0x38))
	assert.Equal(t, uint32(0x22), u32(r, 0x3C))
	assert.Equal(t, guidB, guid.FromWindows(r[0x40:]))

	it := r[0x50:]
	assert.Equal(t, []uint16{0x10, 0x03, 1, 4}, []uint16{u16(it, 0), u16(it, 2), u16(it, 4), u16(it, 6)})
	assert.Equal(t, uint32(3), u32(it, 8))
	it = it[0x10:]
	assert.Equal(t, []uint16{0x18, 0x02, 1, 16}, []uint16{u16(it, 0), u16(it, 2), u16(it, 4), u16(it, 6)})
	assert.Equal(t, []byte{1, 2, 0, 0, 0, 0, 0, 5}, it[8:16], "SID revision, count, big-endian authority")
	it = it[0x18:]
	assert.Equal(t, []uint16{0x18, 0x0B, 0, 0x0B}, []uint16{u16(it, 0), u16(it, 2), u16(it, 4), u16(it, 6)}, "last item: no linkage")
	assert.Equal(t, []byte{'h', 0, 0, 0}, it[0x18:0x1C])

	r, _ = oneRecord(t, &etltest.Event{Bits32: true, UserData: []byte{1}})
	assert.Equal(t, uint16(0x51), u16(r, 0))
	assert.Equal(t, byte(0x12), r[2])
	assert.Equal(t, uint16(0), u16(r, 4), "no items, no EXTENDED_INFO")
}

func TestMessageLayout(t *testing.T) {
	m := &etltest.Message{MessageNumber: 0x0A, Sequence: 0x51, ComponentId: 0x61, Guid: guidA, TimeStamp: 0x71,
		ThreadId: 0x81, ProcessId: 0x91, Args: []byte{0xA1}}
	m.OptionFlags = 0x3F // every item; the component id wins over the GUID
	r, _ := oneRecord(t, m)
	assert.Equal(t, uint16(8+4+4+8+8+1), u16(r, 0))
	assert.Equal(t, []byte{0x00, 0x90}, r[2:4])
	assert.Equal(t, uint16(0x0A), u16(r, 4))
	assert.Equal(t, uint16(0x3F), u16(r, 6))
	assert.Equal(t, uint32(0x51), u32(r, 8))
	assert.Equal(t, uint32(0x61), u32(r, 0xC))
	assert.Equal(t, uint64(0x71), u64(r, 0x10))
	assert.Equal(t, uint32(0x81), u32(r, 0x18))
	assert.Equal(t, uint32(0x91), u32(r, 0x1C))
	assert.Equal(t, byte(0xA1), r[0x20])

	m.OptionFlags = header.MessageGUID | header.MessagePerformanceTimestamp
	r, _ = oneRecord(t, m)
	assert.Equal(t, uint16(8+16+8+1), u16(r, 0))
	assert.Equal(t, guidA, guid.FromWindows(r[8:]))
	assert.Equal(t, uint64(0), u64(r, 0x18), "space reserved, no value without TIMESTAMP")
	assert.Equal(t, byte(0xA1), r[0x20])

	m.OptionFlags = 0
	r, _ = oneRecord(t, m)
	assert.Equal(t, uint16(9), u16(r, 0))
	assert.Equal(t, byte(0xA1), r[8])
}

func TestErrorRecordLayout(t *testing.T) {
	r, _ := oneRecord(t, &etltest.ErrorRecord{Body: make([]byte, 0x4C)})
	assert.Equal(t, uint16(0x50), u16(r, 0))
	assert.Equal(t, []byte{0x0D, 0xC0}, r[2:4])
	p, end, err := header.ParsePrefix(r)
	require.NoError(t, err)
	assert.False(t, end)
	assert.Equal(t, header.TypeError, p.Type)
	assert.Equal(t, 0x50, p.Size)
}

func TestTraceLoggingMetadata(t *testing.T) {
	// The event of a real self-describing sample: struct "a" of two strings.
	ev := etltest.TLEvent{Name: "TestEvent", Fields: []etltest.TLField{{Name: "a", InType: etltest.TLStruct, Members: []etltest.TLField{
		{Name: "b", InType: etltest.TLUnicodeString}, {Name: "c", InType: etltest.TLUnicodeString}}}}}
	want := append([]byte{0x17, 0x00, 0x00}, "TestEvent\x00a\x00\x98\x02b\x00\x01c\x00\x01"...)
	assert.Equal(t, want, ev.MustMetadata())

	ev = etltest.TLEvent{Name: "E", Tags: 0x0FE00000, Fields: []etltest.TLField{
		{Name: "x", InType: etltest.TLUInt32, OutType: etltest.TLOutHex, Tags: 1},
		{Name: "y", InType: etltest.TLUInt8, Arity: etltest.TLFixed, Count: 3},
		{Name: "z", InType: etltest.TLInt16, Arity: etltest.TLVariable},
		{Name: "w", InType: etltest.TLBinary, Arity: etltest.TLCustom, Schema: []byte{0xDE, 0xAD}},
	}}
	want = []byte{0, 0, 0x7F, 'E', 0,
		'x', 0, 0x88, 0x84, 0x80, 0x80, 0x80, 0x01,
		'y', 0, 0x24, 3, 0,
		'z', 0, 0x45,
		'w', 0, 0x6E, 2, 0, 0xDE, 0xAD}
	want[0] = byte(len(want))
	assert.Equal(t, want, ev.MustMetadata())

	_, err := (&etltest.TLEvent{Name: "E", Tags: 1 << 28}).Metadata()
	assert.Error(t, err)

	assert.Equal(t, append([]byte{0x0B, 0x00}, "MySource\x00"...), etltest.ProviderTraits("MySource"))
	tr := etltest.ProviderTraits("P", etltest.GroupTrait(guidA), etltest.Trait{Type: 9, Data: []byte{7}})
	assert.Equal(t, uint16(len(tr)), u16(tr, 0))
	assert.Equal(t, []byte{'P', 0, 0x13, 0x00, 0x01}, tr[2:7])
	assert.Equal(t, guidA, guid.FromWindows(tr[7:]))
	assert.Equal(t, []byte{0x04, 0x00, 9, 7}, tr[23:])
}

func TestPayloadHelpers(t *testing.T) {
	p := new(etltest.Payload).U8(1).U16(2).U32(3).U64(4).I32(-1).F32(1).Bool32(true).Ptr(4, 5).Ptr(8, 6).
		UTF16Z("é").AnsiZ("a").CountedUTF16("b").Counted([]byte{9}).GUID(guidA)
	want := []byte{1, 2, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0x80, 0x3F, 1, 0, 0, 0,
		5, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0xE9, 0, 0, 0, 'a', 0, 2, 0, 'b', 0, 1, 0, 9}
	want = append(want, guid.AppendWindows(nil, guidA)...)
	assert.Equal(t, want, p.Bytes())
	assert.Equal(t, []byte{1, 3, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}, etltest.SID(1, 5, 21, 2, 3))
}

func TestStreamsFlushAutomatically(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x200
	s.DataBuffer.ProcIndex = true
	// Each System record with a 0x40-byte payload takes 0x60 bytes: four fit
	// after the 0x48-byte buffer header.
	rec := func(ts int64) etltest.Record {
		return &etltest.System{HookId: 0x0501, TimeStamp: ts, Payload: make([]byte, 0x40)}
	}
	out, st, err := etltest.Build(s, func(b *etltest.Builder) error {
		for i := 0; i < 10; i++ {
			b.CPU(i % 2).Add(rec(int64(100 + i)))
		}
		return b.Err()
	})
	require.NoError(t, err)
	// CPU 0 gets 5 records (4 + 1), CPU 1 too: 2 full buffers flushed when
	// the fifth arrived, 2 partial ones at Close, in processor order.
	require.Equal(t, 5, st.Buffers)
	require.Len(t, out, 5*0x200)
	assert.Equal(t, map[string]int{"SYSTEM64": 11}, st.Records)
	assert.Equal(t, uint32(5), u32(out, etltest.BuffersWrittenOffset))
	type bh struct {
		seq, ts int64
		cpu     uint16
		offset  uint32
	}
	var got []bh
	for off := 0x200; off < len(out); off += 0x200 {
		h, _ := buffer.ParseHeader(out[off:])
		got = append(got, bh{h.SequenceNumber, h.TimeStamp, h.ProcessorNumber(), h.Offset})
	}
	assert.Equal(t, []bh{{1, 106, 0, 0x1C8}, {2, 107, 1, 0x1C8}, {3, 108, 0, 0xA8}, {4, 109, 1, 0xA8}}, got)
}

func TestBuffersWrittenThroughSeek(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.etl")
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = f.Write([]byte("prefix"))
	require.NoError(t, err)
	s := etltest.DefaultSession()
	s.BufferSize = 0x400
	b, err := etltest.NewBuilder(f, s)
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		require.NoError(t, b.WriteBuffer(etltest.Buffer{SequenceNumber: int64(i + 1)}))
	}
	require.NoError(t, b.Close())
	require.NoError(t, f.Close())
	out, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Len(t, out, 6+4*0x400)
	assert.Equal(t, uint32(4), u32(out[6:], etltest.BuffersWrittenOffset))
}

func TestCompressedBuffer(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	s.LogFileMode |= etltest.ModeCompressed
	var recs []etltest.Record
	for i := 0; i < 20; i++ {
		recs = append(recs, &etltest.Event{TimeStamp: int64(i), ProviderId: guidA, UserData: etltest.UTF16Z("compressible text")})
	}
	out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		if err := b.WriteBuffer(etltest.Buffer{SequenceNumber: 1, CPU: 2, Compress: true}, recs...); err != nil {
			return err
		}
		return b.WriteBuffer(etltest.Buffer{SequenceNumber: 2}, recs...)
	})
	require.NoError(t, err)
	c := out[0x1000:]
	size := int(u32(c, 0))
	offset := int(u32(c, 0x30))
	assert.Less(t, size, 0x1000)
	assert.Equal(t, offset, int(u32(c, 4)), "SavedOffset = Offset")
	assert.Equal(t, uint16(buffer.FlagCompressed), u16(c, 0x34))
	plain := out[0x1000+size:]
	assert.Equal(t, u32(plain, 0x30), uint32(offset), "same records, same Offset")
	dst := make([]byte, offset-0x48)
	n, err := xca.DecompressLZ77(dst, c[0x48:size])
	require.NoError(t, err)
	assert.Equal(t, offset-0x48, n)
	assert.Equal(t, plain[0x48:offset], dst)
	assert.Len(t, out, 0x1000+size+0x1000)
}

func TestDamageHelpers(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x200
	rec := &etltest.System{HookId: 0x0501, Payload: make([]byte, 8)}
	out, st, err := etltest.Build(s, func(b *etltest.Builder) error {
		if err := b.WriteBuffer(etltest.Buffer{SequenceNumber: 1, BadCompression: true}, rec); err != nil {
			return err
		}
		if err := b.WriteBuffer(etltest.Buffer{SequenceNumber: 2}, rec, etltest.Raw{0x12, 0x34, 0x56, 0x78}, rec); err != nil {
			return err
		}
		if err := b.WriteBuffer(etltest.Buffer{SequenceNumber: 3, Truncate: 0x80}, rec); err != nil {
			return err
		}
		return b.WriteZeros(0x100)
	})
	require.NoError(t, err)
	bad := out[0x200:]
	size := int(u32(bad, 0))
	assert.Equal(t, uint16(buffer.FlagCompressed), u16(bad, 0x34))
	assert.Equal(t, uint32(0x48+0x28), u32(bad, 0x30))
	dst := make([]byte, 0x28)
	_, err = buffer.Decompress(dst, bad[0x48:size])
	assert.Error(t, err, "no algorithm decompresses it")

	assert.Len(t, out, 0x200+size+0x200+0x80+0x100)
	assert.Equal(t, uint32(4), u32(out, etltest.BuffersWrittenOffset), "the cut buffer counts, the zeros do not")
	assert.Equal(t, map[string]int{"SYSTEM64": 5, "RAW": 1}, st.Records)
	assert.Equal(t, map[string]int{"SYSTEM64": 3, "RAW": 1}, st.Damaged)
}

// TestBuilderErrors checks that what the builder cannot write is an error
// that names the problem, not a malformed trace.
func TestBuilderErrors(t *testing.T) {
	small := etltest.DefaultSession()
	small.BufferSize = 0x200
	cutHeader := etltest.DefaultSession()
	cutHeader.HeaderBuffer = &etltest.Buffer{Compress: true}
	for _, tc := range []struct {
		name    string
		session etltest.Session
		build   func(b *etltest.Builder) error
		want    string
	}{
		{"eight PMC counters", small, func(b *etltest.Builder) error {
			return b.WriteBuffer(etltest.Buffer{}, &etltest.PerfInfo{PMC: make([]uint64, 8)})
		}, "8 PMC counters"},
		{"record over 0xFFFF bytes", etltest.DefaultSession(), func(b *etltest.Builder) error {
			return b.WriteBuffer(etltest.Buffer{}, &etltest.System{Payload: make([]byte, 0x10000)})
		}, "exceeds the 0xFFFF maximum"},
		{"extended item too large", etltest.DefaultSession(), func(b *etltest.Builder) error {
			return b.WriteBuffer(etltest.Buffer{}, &etltest.Event{Ext: []etltest.ExtItem{{Type: 1, Data: make([]byte, 0xFFF8)}}})
		}, "extended item"},
		{"records beyond the buffer", small, func(b *etltest.Builder) error {
			return b.WriteBuffer(etltest.Buffer{}, &etltest.System{Payload: make([]byte, 0x100)}, &etltest.System{Payload: make([]byte, 0x100)})
		}, "does not fit"},
		{"record larger than a stream's buffer", small, func(b *etltest.Builder) error {
			b.CPU(0).Add(&etltest.System{Payload: make([]byte, 0x200)})
			return b.Err()
		}, "does not fit"},
		{"processor above 255 without PROC_INDEX", small, func(b *etltest.Builder) error {
			return b.WriteBuffer(etltest.Buffer{CPU: 256})
		}, "needs ProcIndex"},
		{"header record after the header buffer", small, func(b *etltest.Builder) error {
			if err := b.WriteBuffer(etltest.Buffer{}); err != nil {
				return err
			}
			return b.AddToHeader(&etltest.System{})
		}, "already written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := etltest.Build(tc.session, tc.build)
			assert.ErrorContains(t, err, tc.want)
		})
	}

	_, err := etltest.NewBuilder(io.Discard, cutHeader)
	assert.ErrorContains(t, err, "needs an explicit Session.BuffersWritten")
	small.BufferSize = 0x60
	_, err = etltest.NewBuilder(io.Discard, small)
	assert.ErrorContains(t, err, "too small")
}
