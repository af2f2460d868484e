package manifest_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/manifest"
)

var testGUID = uuid.MustParse("6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d01")

const testManifest = "testdata/etlkit-test.man"

func loadTest(t *testing.T) *manifest.Provider {
	t.Helper()
	data, err := os.ReadFile(testManifest)
	require.NoError(t, err)
	provs, err := manifest.Parse(data, testManifest)
	require.NoError(t, err)
	require.Len(t, provs, 1)
	return provs[0]
}

func event(t *testing.T, p *manifest.Provider, id uint16, version uint8) *schema.Event {
	t.Helper()
	for _, e := range p.Events {
		if e.ID == id && e.Version == version {
			return e.Schema
		}
	}
	t.Fatalf("no event %d version %d", id, version)
	return nil
}

// payload builders
type buf struct{ b []byte }

func (w *buf) u8(v uint8) *buf   { w.b = append(w.b, v); return w }
func (w *buf) u16(v uint16) *buf { w.b = binary.LittleEndian.AppendUint16(w.b, v); return w }
func (w *buf) u32(v uint32) *buf { w.b = binary.LittleEndian.AppendUint32(w.b, v); return w }
func (w *buf) u64(v uint64) *buf { w.b = binary.LittleEndian.AppendUint64(w.b, v); return w }
func (w *buf) raw(b ...byte) *buf {
	w.b = append(w.b, b...)
	return w
}
func (w *buf) wide(s string) *buf { // UTF-16LE, no terminator
	for _, c := range utf16.Encode([]rune(s)) {
		w.u16(c)
	}
	return w
}
func (w *buf) wideZ(s string) *buf { return w.wide(s).u16(0) }
func (w *buf) ansiZ(s string) *buf { return w.raw(append([]byte(s), 0)...) }

func decodeJSON(t *testing.T, e *schema.Event, data []byte) string {
	t.Helper()
	vals, err := e.Payload.Decode(data, 8, nil)
	require.NoError(t, err)
	return string(payload.AppendJSONObject(nil, vals))
}

func TestNames(t *testing.T) {
	p := loadTest(t)
	assert.Equal(t, "Etlkit-Test", p.Name)
	assert.Equal(t, testGUID, p.GUID)
	assert.Equal(t, "ETLKIT_TEST", p.Symbol)
	assert.Equal(t, "etlkit test provider", p.DisplayName)
	require.Len(t, p.Events, 8)

	type names struct {
		Name, Task, Opcode, Level, Channel string
		Keywords                           []string
		Message                            string
	}
	got := func(id uint16, v uint8) names {
		e := event(t, p, id, v)
		assert.Equal(t, "Etlkit-Test", e.Provider)
		return names{e.Name, e.Task, e.Opcode, e.Level, e.Channel, e.Keywords, e.Message}
	}
	// The en-US strings win over the de-DE ones listed first; the task's
	// own Flush opcode over the provider's.
	assert.Equal(t, names{"IO/FlushIO", "IO", "FlushIO", "Information", "Operations", []string{"Disk access", "Wire"},
		`U=%1 A=%2%nI8=%3!d! U32=%8!08X! 100%% done%t"%0 not shown`}, got(1, 0))
	// A task without a message is shown by name; without a local Flush
	// the provider's is taken; an imported channel by its name.
	assert.Equal(t, names{"Net/FlushAny", "Net", "FlushAny", "Chatty level", "System", nil, ""}, got(2, 0))
	// Without a task the symbol stands for it.
	assert.Equal(t, names{"Refs/Retry", "", "Retry", "", "Etlkit-Test/Analytic", []string{"Response Time"},
		"N=%1 Name=[%3!-6s!] Points=%10 missing=[%30]"}, got(3, 0))
	assert.Equal(t, names{"BigTask/Start", "BigTask", "Start", "Verbose", "", nil, ""}, got(4, 0))
	// Opcode 0 (Info) adds nothing to the name.
	assert.Equal(t, names{"IO", "IO", "Info", "", "", nil, ""}, got(5, 0))
	assert.Equal(t, names{"Net", "Net", "", "", "", nil, ""}, got(6, 0))
	assert.Equal(t, names{"Net", "Net", "", "", "", nil, "A=%1, B=%2"}, got(6, 1))
	assert.Equal(t, names{"OnlySymbol", "", "", "20", "", nil, "literal text, not a reference"}, got(7, 0))

	s := &schema.Set{}
	p.AddTo(s)
	assert.Equal(t, 8, s.Len())
	name, ok := s.ProviderName(testGUID)
	assert.True(t, ok)
	assert.Equal(t, "Etlkit-Test", name)
	e, exact := s.Lookup(schema.Key{Provider: testGUID, ID: 3})
	assert.True(t, exact)
	assert.Equal(t, "Refs/Retry", e.Name)
}

func TestEveryInType(t *testing.T) {
	p := loadTest(t)
	e := event(t, p, 1, 0)
	guid := []byte{0x1e, 0x9a, 0x2c, 0x6d, 0x4f, 0x1b, 0x3a, 0x4c, 0x9e, 0x0d, 0x2f, 0x5b, 0x7a, 0x8c, 0x9d, 0x01}
	sid := []byte{1, 4, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}
	var b buf
	b.wideZ("héllo").ansiZ("abc").u8(0xFB).u8(200).u16(uint16(0x10000 - 300)).u16(60000)
	i64 := int64(-5000000000000)
	b.u32(uint32(0x100000000 - 70000)).u32(4000000000).u64(uint64(i64)).u64(18000000000000000000)
	b.u32(math.Float32bits(1.5)).u64(math.Float64bits(-2.25)).u32(1)
	b.u16(3).raw(0xDE, 0xAD, 0xBE).raw(guid...).u64(0x7FF612345678).u64(133500000000000000)
	b.u16(2024).u16(1).u16(3).u16(17).u16(21).u16(20).u16(5).u16(123)
	b.raw(sid...).u32(0xBEEF).u64(0x1234567890)
	b.u16(4).wide("hi").u16(3).raw('x', 'y', 'z').u16(2).raw(1, 2)
	assert.Equal(t, `{"U":"héllo","A":"abc","I8":-5,"U8":200,"I16":-300,"U16":60000,"I32":-70000,"U32":4000000000,`+
		`"I64":-5000000000000,"U64":18000000000000000000,"F":1.5,"D":-2.25,"B":true,"BinLen":3,"Bin":"0xDEADBE",`+
		`"G":"6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d01","P":"0x7FF612345678","FT":"2024-01-17T21:20:00.0000000Z",`+
		`"ST":"2024-01-17T21:20:05.1230000Z","S":"S-1-5-21-1-2-3","H32":"0xBEEF","H64":"0x1234567890",`+
		`"CU":"hi","CA":"xyz","CB":"0x0102"}`, decodeJSON(t, e, b.b))
	for i, want := range []payload.InType{payload.InUnicodeString, payload.InAnsiString, payload.InInt8, payload.InUInt8,
		payload.InInt16, payload.InUInt16, payload.InInt32, payload.InUInt32, payload.InInt64, payload.InUInt64,
		payload.InFloat, payload.InDouble, payload.InBoolean, payload.InUInt16, payload.InBinary, payload.InGUID,
		payload.InPointer, payload.InFileTime, payload.InSystemTime, payload.InSID, payload.InHexInt32, payload.InHexInt64,
		payload.InCountedString, payload.InCountedAnsiString, payload.InCountedBinary} {
		assert.Equal(t, want, e.Payload.Fields[i].InType, e.Payload.Fields[i].Name)
	}

	// A 32-bit record's pointers take 4 bytes.
	b32 := append(append([]byte{}, b.b[:bytes.Index(b.b, guid)+16]...), 0x78, 0x56, 0x34, 0x12)
	b32 = append(b32, b.b[bytes.Index(b.b, guid)+24:]...)
	vals, err := e.Payload.Decode(b32, 4, nil)
	require.NoError(t, err)
	p32, _ := payload.Lookup(vals, "P")
	assert.Equal(t, uint64(0x12345678), p32.Uint())

	var w strings.Builder
	w.Write(schema.AppendMessage(nil, e.Message, vals))
	assert.Equal(t, "U=héllo A=abc\nI8=-5 U32=EE6B2800 100% done\t\"", w.String())
}

func TestOutTypesAndMaps(t *testing.T) {
	p := loadTest(t)
	e := event(t, p, 2, 0)
	var b buf
	b.u8('Q').u8(1).raw(0x1F, 0x90).raw(192, 168, 1, 2)
	b.raw(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)
	b.raw(2, 0, 0, 80, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0)
	b.u32(0xCAFE).u32(1234).u32(0xC0000005).u32(0x80004005).u64(133500000000000000)
	b.wideZ("<a/>").ansiZ(`{"k":1}`).ansiZ("ünï").u32(0xFFFFFFFF).u32(7)
	b.u32(0x10).u32(5).u32(0xB)
	assert.Equal(t, `{"Char":"Q","Bool8":true,"Port":8080,"Ip4":"192.168.1.2","Ip6":"::1","Sock":"10.0.0.1:80",`+
		`"Hex":"0xCAFE","Pid":1234,"Status":"0xC0000005","HR":"0x80004005","When":"2024-01-17T21:20:00.0000000Z",`+
		`"Xml":"<a/>","Json":{"k":1},"Utf8":"ünï","Signed":-1,"Unknown":7,"Color":16,"ColorName":"Blue",`+
		`"Perm":5,"PermName":"Read, Execute","PermHex":"0xB","PermHexName":"Read, Write, 0x8"}`, decodeJSON(t, e, b.b))
	f := e.Payload.Fields
	assert.Equal(t, payload.OutDefault, f[15].OutType, "an unknown out-type leaves the default")
	assert.Equal(t, payload.OutPort, f[2].OutType)
	assert.False(t, f[16].Map.Bits)
	assert.True(t, f[17].Map.Bits)
	assert.Same(t, f[17].Map, f[18].Map, "fields share their map")
	// The trailing space of a map string is trimmed.
	name, ok := f[16].Map.Lookup(0)
	assert.True(t, ok)
	assert.Equal(t, "Red", name)
}

// TestEventSourceMaps: the manifest of an EventSource names bits as
// TraceEvent shows them, joined with "|", by single bits even where an
// entry of several bits is the value.
func TestEventSourceMaps(t *testing.T) {
	p := loadTest(t)
	p.UseEventSourceMaps()
	e := event(t, p, 2, 0)
	f := e.Payload.Fields
	m := f[17].Map
	assert.Equal(t, "|", m.Separator)
	assert.True(t, m.SingleBits)
	assert.Empty(t, f[16].Map.Separator, "value maps are left alone")
	both := payload.NewMap("Both", true, append(m.Entries, payload.MapEntry{Value: 3, Name: "ReadWrite"}))
	both.Separator, both.SingleBits = m.Separator, m.SingleBits
	for v, want := range map[uint64]string{5: "Read|Execute", 3: "Read|Write", 0xB: "Read|Write|0x8", 2: "Write"} {
		got, ok := both.AppendName(nil, v)
		assert.True(t, ok)
		assert.Equal(t, want, string(got), "%#x", v)
	}
	// A map as the other sources make it names the value by the entry.
	both.Separator, both.SingleBits = "", false
	got, _ := both.AppendName(nil, 3)
	assert.Equal(t, "ReadWrite", string(got))
	got, _ = both.AppendName(nil, 0xB)
	assert.Equal(t, "Read, Write, 0x8", string(got))
}

func TestLengthsCountsAndStructs(t *testing.T) {
	p := loadTest(t)
	e := event(t, p, 3, 0)
	var b buf
	b.u16(2).wide("ab").u16(0).u16(0).wide("xy").u32(7).u32(8).u16(1).u16(2).u8(9).u8(5)
	b.ansiZ("p").ansiZ("q").raw(1, 2, 3, 4, 5, 6)
	b.u32(1).u32(uint32(0x100000000 - 1)).u32(2).u32(uint32(0x100000000 - 2))
	b.u8(3).raw('t', 'a', 'g')
	b.u8(1).u16(100).u8(2).u16(200).u16(300)
	assert.Equal(t, `{"N":2,"Fixed":"ab","Name":"xy","Items":[7,8],"Pair":[1,2],"One":[9],"Zero":5,`+
		`"Names":["p","q"],"Blobs":["0x010203","0x040506"],"Points":[{"X":1,"Y":-1},{"X":2,"Y":-2}],`+
		`"Hdr":{"Len":3,"Tag":"tag"},"Entries":[{"K":1,"V":[100]},{"K":2,"V":[200,300]}]}`, decodeJSON(t, e, b.b))

	f := e.Payload.Fields
	assert.Equal(t, payload.Field{Name: "Fixed", InType: payload.InUnicodeString, Length: 4, FixedLength: true}, withoutSlots(f[1]))
	assert.Equal(t, "N", f[2].LengthField)
	assert.Equal(t, payload.CountFromField, f[3].Arity)
	assert.Equal(t, "N", f[3].CountField)
	assert.Equal(t, payload.FixedCount, f[4].Arity)
	assert.Equal(t, uint16(2), f[4].Count)
	assert.Equal(t, payload.FixedCount, f[5].Arity, "count=\"1\" is a one-element array")
	assert.Equal(t, payload.Scalar, f[6].Arity, "count=\"0\" is a scalar")
	assert.Equal(t, payload.InStruct, f[9].InType)

	vals, err := e.Payload.Decode(b.b, 8, nil)
	require.NoError(t, err)
	assert.Equal(t, `N=2 Name=[xy    ] Points=[{"X":1,"Y":-1},{"X":2,"Y":-2}] missing=[]`,
		string(schema.AppendMessage(nil, e.Message, vals)))

	// A count that the payload cannot hold is a decode error naming the
	// field.
	_, err = e.Payload.Decode(b.b[:20], 8, nil)
	var de *payload.DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "Items[1]", de.Field)
}

// withoutSlots copies the exported part of a field, for comparisons.
func withoutSlots(f payload.Field) payload.Field {
	d := f.Description()
	d.Members = f.Members
	return d
}

func TestNoTemplate(t *testing.T) {
	p := loadTest(t)
	for _, id := range []uint16{4, 5, 7} {
		e := event(t, p, id, 0)
		require.NotNil(t, e.Payload, "event %d", id)
		vals, err := e.Payload.Decode(nil, 8, nil)
		assert.NoError(t, err)
		assert.Empty(t, vals)
	}
}

func testRecord(id uint16, version uint8, data []byte) *record.Record {
	return &record.Record{HeaderType: header.TypeEventHeader64, ProviderId: testGUID,
		EventDescriptor: header.EventDescriptor{Id: id, Version: version}, UserData: data}
}

// TestNewerVersion: an event newer than the manifest decodes the fields
// its highest older version knows, and the bytes the newer version added
// are no error; at a version the manifest has, they are. Either way they
// are kept, as TrailingData.
func TestNewerVersion(t *testing.T) {
	p := loadTest(t)
	s := &schema.Set{}
	p.AddTo(s)
	z := describe.New(describe.Options{Manifests: s})
	var d describe.Description
	three := new(buf).u32(1).u32(2).u32(3).b

	z.Describe(testRecord(6, 5, three), &d, true)
	assert.Equal(t, "Etlkit-Test", d.ProviderName)
	assert.Equal(t, "Net", d.EventName)
	assert.True(t, d.Decoded)
	assert.NoError(t, d.Err)
	assert.Equal(t, `{"A":1,"B":2,"TrailingData":"0x03000000"}`, string(payload.AppendJSONObject(nil, d.Fields)))

	z.Describe(testRecord(6, 1, three), &d, true)
	assert.True(t, d.Decoded)
	assert.True(t, payload.IsTrailing(d.Err), "%v", d.Err)
	assert.Equal(t, `{"A":1,"B":2,"TrailingData":"0x03000000"}`, string(payload.AppendJSONObject(nil, d.Fields)))

	z.Describe(testRecord(6, 0, three[:4]), &d, true)
	assert.NoError(t, d.Err)
	assert.Equal(t, `{"A":1}`, string(payload.AppendJSONObject(nil, d.Fields)))

	// Too short for its version: raw, with an error naming the field.
	z.Describe(testRecord(6, 1, three[:6]), &d, true)
	assert.False(t, d.Decoded)
	var de *payload.DecodeError
	require.ErrorAs(t, d.Err, &de)
	assert.Equal(t, "B", de.Field)
}

func TestUTF16Manifest(t *testing.T) {
	data, err := os.ReadFile(testManifest)
	require.NoError(t, err)
	text := strings.Replace(string(data), `encoding="UTF-8"`, `encoding="UTF-16"`, 1)
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		var wide []byte
		wide = order.AppendUint16(wide, 0xFEFF)
		for _, c := range utf16.Encode([]rune(text)) {
			wide = order.AppendUint16(wide, c)
		}
		provs, err := manifest.Parse(wide, "wide.man")
		require.NoError(t, err, "%v", order)
		require.Len(t, provs, 1)
		assert.Equal(t, "IO/FlushIO", provs[0].Events[0].Schema.Name)
	}
	// A UTF-8 byte order mark is fine too.
	provs, err := manifest.Parse(append([]byte{0xEF, 0xBB, 0xBF}, data...), "bom.man")
	require.NoError(t, err)
	assert.Len(t, provs, 1)
}

const skeleton = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
<instrumentation><events>
<provider name="P" guid="{6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d01}">
%s
</provider>
</events></instrumentation>
</instrumentationManifest>`

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name, doc, msg string
		line, col      int
	}{
		{"not XML", "hello", `not XML: it begins "hello"`, 0, 0},
		{"unclosed", "<instrumentationManifest><instrumentation>", "unexpected EOF", 1, 43},
		{"mismatched", "<a>\n  <b></a>", "element <b> closed by </a>", 2, 10},
		{"two roots", "<a/><b/>", "a second root element <b>", 1, 5},
		{"encoding", `<?xml version="1.0" encoding="ISO-8859-1"?><a/>`, `unsupported encoding "ISO-8859-1"`, 1, 44},
		{"no guid", strings.Replace(skeleton, ` guid="{6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d01}"`, "", 1), `guid "" is not a GUID`, 3, 1},
		{"no name", strings.Replace(skeleton, ` name="P"`, "", 1), "<provider> has no name", 3, 1},
		{"in-type", fill(`<templates>
<template tid="T"><data name="A" inType="win:Int128"/></template></templates>`), `data "A": unknown inType "win:Int128"`, 5, 19},
		{"map", fill(`<templates><template tid="T">
<data name="A" inType="win:UInt32" map="Nope"/></template></templates>`), `map "Nope" is not defined`, 5, 1},
		{"count", fill(`<templates><template tid="T">
<data name="A" inType="win:UInt32" count="N"/></template></templates>`), `template "T": malformed: invalid schema: the count of field "A" refers to "N"`, 4, 12},
		{"length later", fill(`<templates><template tid="T"><data name="S" inType="win:AnsiString" length="L"/>
<data name="L" inType="win:UInt8"/></template></templates>`), `the length of field "S" refers to "L"`, 4, 12},
		{"binary", fill(`<templates><template tid="T"><data name="B" inType="win:Binary"/></template></templates>`),
			`data "B": win:Binary needs a length`, 4, 30},
		{"big count", fill(`<templates><template tid="T"><data name="B" inType="win:UInt8" count="70000"/></template></templates>`),
			`<data count="70000">: want a number of at most 16 bits`, 4, 30},
		{"dup template", fill(`<templates><template tid="T"/><template tid="T"/></templates>`), `template "T" is defined twice`, 4, 31},
		{"no tid", fill(`<templates><template/></templates>`), `<template> has no tid`, 4, 12},
		{"template", fill(`<events><event value="1" template="T"/></events>`), `event 1 version 0: template "T" is not defined`, 4, 9},
		{"task", fill(`<events><event value="1" task="T"/></events>`), `task "T" is not defined`, 4, 9},
		{"opcode", fill(`<events><event value="1" opcode="win:Begin"/></events>`), `opcode "win:Begin" is not defined`, 4, 9},
		{"level", fill(`<events><event value="1" level="Loud"/></events>`), `level "Loud" is not defined`, 4, 9},
		{"keyword", fill(`<events><event value="1" keywords="A B"/></events>`), `keyword "A" is not defined`, 4, 9},
		{"channel", fill(`<events><event value="1" channel="C"/></events>`), `channel "C" is not defined`, 4, 9},
		{"event id", fill(`<events><event value="65536"/></events>`), `<event value="65536">: want a number of at most 16 bits`, 4, 9},
		{"version", fill(`<events><event value="1" version="x"/></events>`), `<event version="x">`, 4, 9},
		{"dup event", fill(`<events><event value="1"/>
  <event value="1" version="0"/></events>`), `event 1 version 0 is defined twice`, 5, 3},
		{"opcode value", fill(`<opcodes><opcode name="O" value="256"/></opcodes>`), `<opcode value="256">`, 4, 10},
		{"map value", fill(`<maps><valueMap name="M"><map value="0xZ" message="x"/></valueMap></maps>`), `<map value="0xZ">`, 4, 26},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := manifest.ParseWith([]byte(c.doc), "bad.man", manifest.Options{Strict: true})
			require.Error(t, err)
			var me *manifest.Error
			require.True(t, errors.As(err, &me), "%T %v", err, err)
			assert.Contains(t, me.Msg, c.msg)
			assert.Equal(t, "bad.man", me.Source)
			assert.Equal(t, [2]int{c.line, c.col}, [2]int{me.Line, me.Column}, "%v", err)
			assert.ErrorIs(t, err, buffer.ErrMalformed)
			assert.True(t, strings.HasPrefix(err.Error(), "bad.man:"), err.Error())
		})
	}
}

func fill(inner string) string { return strings.Replace(skeleton, "%s", inner, 1) }

func TestDeepNestingIsAnError(t *testing.T) {
	doc := strings.Repeat("<a>", 100) + strings.Repeat("</a>", 100)
	_, err := manifest.Parse([]byte(doc), "deep.man")
	var me *manifest.Error
	require.ErrorAs(t, err, &me)
	assert.Contains(t, me.Msg, "nested deeper than")
}

func TestLoadPaths(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(testManifest)
	require.NoError(t, err)
	other := strings.ReplaceAll(strings.ReplaceAll(string(data), "6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d01", "6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d02"),
		`name="Etlkit-Test"`, `name="Etlkit-Other"`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.man"), data, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.XML"), []byte(other), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "settings.xml"), []byte("<settings/>"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a manifest <"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub.man"), 0o755))

	var warnings []string
	warn := manifest.Options{Warn: func(err error) { warnings = append(warnings, err.Error()) }}
	s, err := manifest.LoadPaths(warn, dir)
	require.NoError(t, err)
	assert.Equal(t, 16, s.Len())
	assert.Equal(t, []string{filepath.Join(dir, "settings.xml") + ":1:1: no <provider> in <events>: not an instrumentation manifest; the file is passed over"}, warnings)
	n, _ := s.ProviderName(uuid.MustParse("6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d02"))
	assert.Equal(t, "Etlkit-Other", n)

	s, err = manifest.LoadPaths(manifest.Options{}, testManifest)
	require.NoError(t, err)
	assert.Equal(t, 8, s.Len())

	// A file named on its own must be a manifest.
	_, err = manifest.LoadPaths(manifest.Options{}, filepath.Join(dir, "settings.xml"))
	var me *manifest.Error
	require.ErrorAs(t, err, &me)
	assert.Contains(t, err.Error(), "settings.xml:1:1: no <provider>")

	// One that is malformed is passed over; the others are read.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.man"), []byte("<a>\n<b>"), 0o644))
	warnings = nil
	s, err = manifest.LoadPaths(warn, dir)
	require.NoError(t, err)
	assert.Equal(t, 16, s.Len())
	require.Len(t, warnings, 2)
	assert.Equal(t, filepath.Join(dir, "c.man")+":2:4: unexpected EOF; the file is passed over", warnings[0])
	_, err = manifest.LoadPaths(manifest.Options{}, filepath.Join(dir, "c.man"))
	require.ErrorAs(t, err, &me)
	assert.Equal(t, filepath.Join(dir, "c.man"), me.Source)
	assert.Equal(t, 2, me.Line)

	_, err = manifest.LoadPaths(manifest.Options{}, filepath.Join(dir, "missing.man"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = manifest.LoadPaths(manifest.Options{}, t.TempDir())
	assert.ErrorContains(t, err, "no .man or .xml file")

	// Subdirectories are searched.
	deep := filepath.Join(t.TempDir(), "a", "b")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(deep, "a.man"), data, 0o644))
	s, err = manifest.LoadPaths(manifest.Options{}, filepath.Dir(filepath.Dir(deep)))
	require.NoError(t, err)
	assert.Equal(t, 8, s.Len())
}
