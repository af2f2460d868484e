package kernel_test

import (
	"encoding/binary"
	"testing"
	"unicode/utf16"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/kernel"
)

// pb builds a payload field by field: little-endian integers,
// pointer-sized values of the size it was made for, and strings with
// their terminators.
type pb struct {
	b  []byte
	ps int
}

func newPB(ps int) *pb { return &pb{ps: ps} }

func (p *pb) u8(v uint8) *pb   { p.b = append(p.b, v); return p }
func (p *pb) u16(v uint16) *pb { p.b = binary.LittleEndian.AppendUint16(p.b, v); return p }
func (p *pb) be16(v uint16) *pb {
	p.b = binary.BigEndian.AppendUint16(p.b, v)
	return p
}
func (p *pb) u32(v uint32) *pb { p.b = binary.LittleEndian.AppendUint32(p.b, v); return p }
func (p *pb) u64(v uint64) *pb { p.b = binary.LittleEndian.AppendUint64(p.b, v); return p }

// ptr writes a pointer-sized value, cut to 32 bits in a 4-byte payload.
func (p *pb) ptr(v uint64) *pb {
	if p.ps == 4 {
		return p.u32(uint32(v))
	}
	return p.u64(v)
}

// w writes a NUL-terminated UTF-16 string; wn one in a fixed array of n
// characters; a a NUL-terminated 8-bit one.
func (p *pb) w(s string) *pb { return p.wn(s, len(utf16.Encode([]rune(s)))+1) }
func (p *pb) wn(s string, n int) *pb {
	u := utf16.Encode([]rune(s))
	for i := 0; i < n; i++ {
		var c uint16
		if i < len(u) {
			c = u[i]
		}
		p.u16(c)
	}
	return p
}
func (p *pb) a(s string) *pb { p.b = append(append(p.b, s...), 0); return p }

func (p *pb) ip4(a, b, c, d byte) *pb { p.b = append(p.b, a, b, c, d); return p }
func (p *pb) raw(b ...byte) *pb       { p.b = append(p.b, b...); return p }
func (p *pb) guid(s string) *pb {
	g := uuid.MustParse(s)
	p.u32(binary.BigEndian.Uint32(g[0:])).u16(binary.BigEndian.Uint16(g[4:])).u16(binary.BigEndian.Uint16(g[6:]))
	p.b = append(p.b, g[8:]...)
	return p
}

// testClock counts 10 MHz ticks from the trace start.
var testClock = header.NewClock(&header.LogfileHeader{PerfFreq: 10_000_000, ReservedFlags: header.ClockQPC,
	StartTime: 132404176000000000}, 0)

// kernelRecordV is a PERFINFO record of the pointer size ps, with the
// given HookId, version, raw time stamp and payload, read with testClock.
func kernelRecordV(t testing.TB, hook uint16, version uint8, ps int, raw int64, data []byte) *record.Record {
	t.Helper()
	b := make([]byte, 0x10)
	b[0] = version
	b[2], b[3] = byte(header.TypePerfInfo64), 0xC0
	if ps == 4 {
		b[2] = byte(header.TypePerfInfo32)
	}
	binary.LittleEndian.PutUint16(b[6:], hook)
	binary.LittleEndian.PutUint64(b[8:], uint64(raw))
	b = append(b, data...)
	binary.LittleEndian.PutUint16(b[4:], uint16(len(b)))
	p, end, err := header.ParsePrefix(b)
	require.NoError(t, err)
	require.False(t, end)
	var r record.Record
	require.NoError(t, record.Decode(&r, b, p, 0, &record.Context{Clock: &testClock}))
	require.Equal(t, ps, r.PointerSize())
	return &r
}

// fieldCase is one payload and what its event says of it.
type fieldCase struct {
	hook    uint16
	version uint8
	ps      int
	raw     int64 // the record's time stamp, for fields computed from it
	data    []byte
	event   string
	want    string // every field, computed ones last, as AppendTextFields shows them
}

// checkFields decodes each case with the class of its record and compares
// every field, the computed ones included.
func checkFields(t *testing.T, cases []fieldCase) {
	t.Helper()
	var vals []payload.Value
	for _, c := range cases {
		r := kernelRecordV(t, c.hook, c.version, c.ps, c.raw, c.data)
		e, _, ok := kernel.LookupRecord(r)
		if !assert.True(t, ok, "hook %#04x v%d", c.hook, c.version) || !assert.NotNil(t, e.Payload, c.event) {
			continue
		}
		assert.Equal(t, c.event, e.Name, "hook %#04x v%d", c.hook, c.version)
		var err error
		vals, err = e.Payload.Decode(r.UserData, r.PointerSize(), vals[:0])
		if !assert.NoError(t, err, "%s v%d ps%d", c.event, c.version, c.ps) {
			continue
		}
		if e.Computed != nil {
			vals = e.Computed(r, vals)
		}
		assert.Equal(t, c.want, string(payload.AppendTextFields(nil, vals, " ")), "%s v%d ps%d", c.event, c.version, c.ps)
	}
}

// classicRecord is a FULL_HEADER record of the pointer size ps with the
// class GUID, type and version given.
func classicRecord(t testing.TB, class string, typ uint8, version uint16, ps int, data []byte) *record.Record {
	t.Helper()
	b := make([]byte, header.EventTraceHeaderSize)
	b[2], b[3] = byte(header.TypeFull64), 0xC0
	if ps == 4 {
		b[2] = byte(header.TypeFull32)
	}
	b[4] = typ
	binary.LittleEndian.PutUint16(b[6:], version)
	copy(b[0x18:], newPB(ps).guid(class).b)
	b = append(b, data...)
	binary.LittleEndian.PutUint16(b, uint16(len(b)))
	p, end, err := header.ParsePrefix(b)
	require.NoError(t, err)
	require.False(t, end)
	var r record.Record
	require.NoError(t, record.Decode(&r, b, p, 0, &record.Context{Clock: &testClock}))
	return &r
}

// classicCase is a classic record of the kernel session found by class
// GUID, and what its event says of it.
type classicCase struct {
	class string
	op    uint8
	data  []byte
	event string
	want  string
}

// checkClassic decodes each case with the event of its class and opcode.
func checkClassic(t *testing.T, cases []classicCase) {
	t.Helper()
	var vals []payload.Value
	for _, c := range cases {
		r := classicRecord(t, c.class, c.op, 0, 8, c.data)
		e, _, ok := kernel.LookupRecord(r)
		require.True(t, ok, c.event)
		assert.Equal(t, kernel.ProviderName, e.Provider)
		assert.Equal(t, c.event, e.Name)
		var err error
		vals, err = e.Payload.Decode(r.UserData, r.PointerSize(), vals[:0])
		require.NoError(t, err, c.event)
		assert.Equal(t, c.want, string(payload.AppendTextFields(nil, vals, " ")), c.event)
	}
}
