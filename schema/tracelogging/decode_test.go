package tracelogging_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/payload"
	tl "github.com/etlkit/etlkit/schema/tracelogging"
)

type scalarCase struct {
	name    string
	in      byte
	out     int // -1: none
	payload []byte
	kind    payload.Kind
	text    string
	json    string
	typed   any // what Interface returns
}

var when = time.Date(2021, 9, 9, 12, 59, 35, 791234500, time.UTC)

func systemTimeBytes(y, mo, dow, d, h, mi, s, ms uint16) []byte {
	return cat(le16(y), le16(mo), le16(dow), le16(d), le16(h), le16(mi), le16(s), le16(ms))
}

var sidBytes = cat([]byte{1, 5, 0, 0, 0, 0, 0, 5}, le32(21), le32(1), le32(2), le32(3), le32(1001))

var scalarCases = []scalarCase{
	{"UnicodeString", 1, -1, u16z("Hé😀"), payload.KindString, "Hé😀", `"Hé😀"`, "Hé😀"},
	{"UnicodeString empty", 1, -1, u16z(""), payload.KindString, "", `""`, ""},
	{"UnicodeString controls", 1, -1, u16z("a\nb\t\"c\x01"), payload.KindString, `a\nb\t"c\x01`, `"a\nb\t\"c\u0001"`, "a\nb\t\"c\x01"},
	{"UnicodeString lone surrogate", 1, -1, cat(le16(0xD800), le16('x'), le16(0)), payload.KindString, "\uFFFDx", `"` + "\uFFFDx" + `"`, "\uFFFDx"},
	{"UnicodeString Json", 1, 0x0C, u16z(`{"k":[1,2]}`), payload.KindString, `{"k":[1,2]}`, `{"k":[1,2]}`, `{"k":[1,2]}`},
	{"UnicodeString Json invalid", 1, 0x0C, u16z(`{"k"`), payload.KindString, `{"k"`, `"{\"k\""`, `{"k"`},
	{"UnicodeString Xml", 1, 0x0B, u16z(`<a b="1"/>`), payload.KindString, `<a b="1"/>`, `"<a b=\"1\"/>"`, `<a b="1"/>`},
	{"AnsiString", 2, -1, []byte("abc\x00"), payload.KindString, "abc", `"abc"`, "abc"},
	{"AnsiString Latin-1", 2, -1, []byte("caf\xe9\x00"), payload.KindString, "café", `"café"`, "café"},
	{"AnsiString UTF-8", 2, 0x23, []byte("caf\xc3\xa9\x00"), payload.KindString, "café", `"café"`, "café"},
	{"AnsiString bad UTF-8", 2, 0x23, []byte("a\xff\x00"), payload.KindString, "a\uFFFD", "\"a\uFFFD\"", "a\uFFFD"},
	{"AnsiString Json", 2, 0x0C, []byte(`{"a":true}` + "\x00"), payload.KindString, `{"a":true}`, `{"a":true}`, `{"a":true}`},
	{"Int8", 3, -1, []byte{0xFF}, payload.KindInt, "-1", "-1", int64(-1)},
	{"Int8 hex", 3, 0x04, []byte{0xFE}, payload.KindInt, "0xFE", `"0xFE"`, int64(-2)},
	{"UInt8", 4, -1, []byte{0xFF}, payload.KindUint, "255", "255", uint64(255)},
	{"UInt8 Boolean true", 4, 0x03, []byte{1}, payload.KindBool, "true", "true", true},
	{"UInt8 Boolean false", 4, 0x03, []byte{0}, payload.KindBool, "false", "false", false},
	{"UInt8 String", 4, 0x02, []byte{77}, payload.KindUint, "M", `"M"`, uint64(77)}, // TraceLoggingChar8
	{"Int16", 5, -1, le16(0xFFFE), payload.KindInt, "-2", "-2", int64(-2)},
	{"UInt16", 6, -1, le16(0xFFFE), payload.KindUint, "65534", "65534", uint64(65534)},
	{"UInt16 Port", 6, 0x07, []byte{0x01, 0xBB}, payload.KindUint, "443", "443", uint64(443)},
	{"Int32", 7, -1, le32(uint32(0xFFFFFF9C)), payload.KindInt, "-100", "-100", int64(-100)},
	{"Int32 HResult", 7, 0x0F, le32(0x80070005), payload.KindInt, "0x80070005", `"0x80070005"`, int64(-2147024891)},
	{"Int32 Hex", 7, 0x04, le32(0xFFFFFFFF), payload.KindInt, "0xFFFFFFFF", `"0xFFFFFFFF"`, int64(-1)},
	{"UInt32", 8, -1, le32(4000000000), payload.KindUint, "4000000000", "4000000000", uint64(4000000000)},
	{"UInt32 Pid", 8, 0x05, le32(1234), payload.KindUint, "1234", "1234", uint64(1234)},
	{"UInt32 Tid", 8, 0x06, le32(5678), payload.KindUint, "5678", "5678", uint64(5678)},
	{"UInt32 IPv4", 8, 0x08, []byte{192, 168, 1, 20}, payload.KindUint, "192.168.1.20", `"192.168.1.20"`, uint64(0x1401A8C0)},
	{"UInt32 Win32Error", 8, 0x0D, le32(5), payload.KindUint, "5", "5", uint64(5)},
	{"UInt32 NTStatus", 8, 0x0E, le32(0xC0000005), payload.KindUint, "0xC0000005", `"0xC0000005"`, uint64(0xC0000005)},
	{"UInt32 NTStatus success", 8, 0x0E, le32(0), payload.KindUint, "0x00000000", `"0x00000000"`, uint64(0)},
	{"UInt32 HResult", 8, 0x0F, le32(1), payload.KindUint, "0x00000001", `"0x00000001"`, uint64(1)},
	{"Int64", 9, -1, le64(uint64(math.MaxUint64 - 4)), payload.KindInt, "-5", "-5", int64(-5)},
	{"UInt64", 10, -1, le64(math.MaxUint64), payload.KindUint, "18446744073709551615", "18446744073709551615", uint64(math.MaxUint64)},
	{"UInt64 FileTime", 10, 0x10, le64(fileTime(when)), payload.KindUint, "2021-09-09T12:59:35.7912345Z", `"2021-09-09T12:59:35.7912345Z"`, fileTime(when)},
	{"Int64 DateTimeUtc", 9, 0x26, le64(fileTime(when)), payload.KindInt, "2021-09-09T12:59:35.7912345Z", `"2021-09-09T12:59:35.7912345Z"`, int64(fileTime(when))},
	{"Float", 11, -1, le32(math.Float32bits(1.1)), payload.KindFloat, "1.1", "1.1", float64(float32(1.1))},
	{"Float NaN", 11, -1, le32(math.Float32bits(float32(math.NaN()))), payload.KindFloat, "NaN", `"NaN"`, nil},
	{"Double", 12, -1, le64(math.Float64bits(-3.25e100)), payload.KindFloat, "-3.25e+100", "-3.25e+100", -3.25e100},
	{"Double Inf", 12, -1, le64(math.Float64bits(math.Inf(1))), payload.KindFloat, "+Inf", `"+Inf"`, math.Inf(1)},
	{"Bool32 true", 13, -1, le32(1), payload.KindBool, "true", "true", true},
	{"Bool32 false", 13, -1, le32(0), payload.KindBool, "false", "false", false},
	{"Binary", 14, -1, counted([]byte{1, 0xAB, 3}), payload.KindBytes, "0x01AB03", `"0x01AB03"`, []byte{1, 0xAB, 3}},
	{"Binary empty", 14, -1, counted(nil), payload.KindBytes, "", `""`, []byte{}},
	{"Binary IPv6", 14, 0x09, counted([]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}), payload.KindBytes, "2001:db8::1", `"2001:db8::1"`, nil},
	{"Binary IPv6 wrong size", 14, 0x09, counted([]byte{1, 2}), payload.KindBytes, "0x0102", `"0x0102"`, []byte{1, 2}},
	{"Binary SocketAddress v4", 14, 0x0A, counted([]byte{2, 0, 0x00, 0x50, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}), payload.KindBytes, "10.0.0.1:80", `"10.0.0.1:80"`, nil},
	{"Binary SocketAddress v6", 14, 0x0A, counted(cat([]byte{23, 0, 0x01, 0xBB}, le32(0), []byte{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, le32(7))), payload.KindBytes, "[fe80::1%7]:443", `"[fe80::1%7]:443"`, nil},
	{"Binary SocketAddress unknown family", 14, 0x0A, counted([]byte{9, 0, 1}), payload.KindBytes, "0x090001", `"0x090001"`, nil},
	{"Guid", 15, -1, guidBytes, payload.KindGUID, guidText, `"` + guidText + `"`, uuid.MustParse(guidText)},
	{"Pointer", 16, -1, le64(0x7FF6A1B20000), payload.KindUint, "0x7FF6A1B20000", `"0x7FF6A1B20000"`, uint64(0x7FF6A1B20000)},
	{"FileTime", 17, -1, le64(fileTime(when)), payload.KindTime, "2021-09-09T12:59:35.7912345Z", `"2021-09-09T12:59:35.7912345Z"`, when},
	{"FileTime zero", 17, -1, le64(0), payload.KindTime, "1601-01-01T00:00:00.0000000Z", `"1601-01-01T00:00:00.0000000Z"`, time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC)},
	{"SystemTime", 18, -1, systemTimeBytes(2021, 9, 4, 9, 12, 59, 35, 31), payload.KindTime, "2021-09-09T12:59:35.0310000Z", `"2021-09-09T12:59:35.0310000Z"`, time.Date(2021, 9, 9, 12, 59, 35, 31e6, time.UTC)},
	{"SystemTime out of range", 18, -1, systemTimeBytes(2021, 2, 0, 30, 25, 0, 0, 0), payload.KindTime, "2021-02-30T25:00:00.0000000Z", `"2021-02-30T25:00:00.0000000Z"`, time.Time{}},
	{"SystemTime zero", 18, -1, systemTimeBytes(0, 0, 0, 0, 0, 0, 0, 0), payload.KindTime, "0000-00-00T00:00:00.0000000Z", `"0000-00-00T00:00:00.0000000Z"`, time.Time{}},
	{"Sid", 19, -1, sidBytes, payload.KindSID, "S-1-5-21-1-2-3-1001", `"S-1-5-21-1-2-3-1001"`, "S-1-5-21-1-2-3-1001"},
	{"Sid big authority", 19, -1, []byte{1, 0, 1, 2, 3, 4, 5, 6}, payload.KindSID, "S-1-0x010203040506", `"S-1-0x010203040506"`, "S-1-0x010203040506"},
	{"HexInt32", 20, -1, le32(0xFF), payload.KindUint, "0xFF", `"0xFF"`, uint64(0xFF)},
	{"HexInt64", 21, -1, le64(0x123456789A), payload.KindUint, "0x123456789A", `"0x123456789A"`, uint64(0x123456789A)},
	{"CountedString", 22, -1, counted(u16n("hi ✓")), payload.KindString, "hi ✓", `"hi ✓"`, "hi ✓"},
	{"CountedAnsiString", 23, -1, counted([]byte("xyz")), payload.KindString, "xyz", `"xyz"`, "xyz"},
	{"CountedAnsiString UTF-8", 23, 0x23, counted([]byte("\xe2\x9c\x93")), payload.KindString, "✓", `"✓"`, "✓"},
	{"CountedBinary", 25, -1, counted([]byte{0, 0xFF}), payload.KindBytes, "0x00FF", `"0x00FF"`, []byte{0, 0xFF}},
	{"CountedBinary IPv4", 25, 0x08, counted([]byte{127, 0, 0, 1}), payload.KindBytes, "127.0.0.1", `"127.0.0.1"`, nil},
}

func TestDecodeScalars(t *testing.T) {
	for _, c := range scalarCases {
		t.Run(c.name, func(t *testing.T) {
			s, err := tl.ParseSchema(meta("E", nil, fo("v", c.in, c.out)))
			require.NoError(t, err)
			vals, err := s.Decode(c.payload, 8, nil)
			require.NoError(t, err)
			require.Len(t, vals, 1)
			v := vals[0]
			assert.Equal(t, "v", v.Name())
			wantIn := payload.InType(c.in)
			if c.in == 14 {
				// A TraceLogging Binary is the model's counted binary.
				wantIn = payload.InCountedBinary
			}
			assert.Equal(t, wantIn, v.InType())
			assert.Equal(t, c.kind, v.Kind())
			assert.Equal(t, c.text, string(v.AppendText(nil)))
			assert.Equal(t, c.text, v.String())
			assert.Equal(t, c.json, string(v.AppendJSON(nil)))
			if c.typed != nil {
				assert.Equal(t, c.typed, v.Interface())
			}
		})
	}
}

func TestDecodeTypedAccessors(t *testing.T) {
	s, err := tl.ParseSchema(meta("E", nil,
		f("i", 7), f("u", 10), f("d", 12), f("b", 13), f("s", 1), f("g", 15), f("t", 17), f("bin", 14), f("sid", 19)))
	require.NoError(t, err)
	p := cat(le32(uint32(0xFFFFFFF6)), le64(99), le64(math.Float64bits(2.5)), le32(7), u16z("x"), guidBytes, le64(fileTime(when)), counted([]byte{9}), sidBytes)
	vals, err := s.Decode(p, 8, nil)
	require.NoError(t, err)
	require.Len(t, vals, 9)
	assert.Equal(t, int64(-10), vals[0].Int())
	assert.Equal(t, uint64(0xFFFFFFFFFFFFFFF6), vals[0].Uint(), "sign-extended bits")
	assert.Equal(t, uint64(99), vals[1].Uint())
	assert.Equal(t, 2.5, vals[2].Float())
	assert.True(t, vals[3].Bool(), "any non-zero Bool32 is true")
	assert.Equal(t, uint64(7), vals[3].Uint())
	assert.Equal(t, "x", vals[4].Str())
	assert.Equal(t, uuid.MustParse(guidText), vals[5].GUID())
	assert.Equal(t, when, vals[6].Time())
	assert.Equal(t, []byte{9}, vals[7].Bytes())
	assert.Equal(t, sidBytes, vals[8].Bytes())
	// Accessors of the wrong kind give zero values.
	assert.Equal(t, "", vals[0].Str())
	assert.Equal(t, 0.0, vals[0].Float())
	assert.Equal(t, uuid.Nil, vals[0].GUID())
	assert.True(t, vals[0].Time().IsZero())
	assert.Nil(t, vals[0].Bytes())
	assert.Nil(t, vals[0].Members())
	assert.Nil(t, vals[0].Elems())
	assert.False(t, vals[0].Bool())
	assert.Equal(t, int64(0), vals[4].Int())
	got, ok := payload.Lookup(vals, "g")
	require.True(t, ok)
	assert.Equal(t, guidText, got.String())
	_, ok = payload.Lookup(vals, "nope")
	assert.False(t, ok)
}

func TestDecodePointerSize(t *testing.T) {
	s, err := tl.ParseSchema(meta("E", nil, f("p", 16), f("after", 4)))
	require.NoError(t, err)
	vals, err := s.Decode([]byte{0x78, 0x56, 0x34, 0x12, 9}, 4, nil)
	require.NoError(t, err)
	assert.Equal(t, uint64(0x12345678), vals[0].Uint())
	assert.Equal(t, "0x12345678", vals[0].String())
	assert.Equal(t, uint64(9), vals[1].Uint())
	_, err = s.Decode(cat(le64(1), []byte{9}), 0, nil)
	assert.ErrorIs(t, err, buffer.ErrMalformed)
	assert.Contains(t, err.Error(), "pointer size 0")
}

// arrayPayloads gives the payload of a two-element array of a scalar case:
// the element twice.
func TestDecodeArraysOfEveryType(t *testing.T) {
	for _, c := range scalarCases {
		if c.in == 14 {
			continue // arrays of Binary are not defined
		}
		for _, arity := range []byte{0x20, 0x40} {
			name := c.name + map[byte]string{0x20: " fixed", 0x40: " var"}[arity]
			t.Run(name, func(t *testing.T) {
				fld := fo("arr", c.in|arity, c.out)
				fld.count = 2
				s, err := tl.ParseSchema(meta("E", nil, fld, f("tail", 4)))
				require.NoError(t, err)
				p := cat(c.payload, c.payload, []byte{0x5A})
				if arity == 0x40 {
					p = cat(le16(2), p)
				}
				vals, err := s.Decode(p, 8, nil)
				require.NoError(t, err)
				require.Len(t, vals, 2)
				arr := vals[0]
				assert.Equal(t, payload.KindArray, arr.Kind())
				require.Len(t, arr.Elems(), 2)
				for _, e := range arr.Elems() {
					assert.Equal(t, c.kind, e.Kind())
					assert.Equal(t, c.text, e.String())
					assert.Equal(t, "arr", e.Name())
				}
				if c.out == 0x02 { // a character array renders as text
					assert.Equal(t, `"MM"`, string(arr.AppendJSON(nil)))
					assert.Equal(t, "MM", arr.String())
				} else {
					assert.Equal(t, "["+c.json+","+c.json+"]", string(arr.AppendJSON(nil)))
					assert.Equal(t, "["+c.json+","+c.json+"]", arr.String())
				}
				assert.Equal(t, uint64(0x5A), vals[1].Uint())
			})
		}
	}
}

func TestDecodeCharacterArrays(t *testing.T) {
	fixed8 := fo("name8", 3|0x20, 0x02)
	fixed8.count = 6
	s, err := tl.ParseSchema(meta("E", nil,
		fo("wide", 6|0x40, 0x02), fixed8, fo("empty8", 4|0x40, 0x02), f("plain", 4|0x40), fo("wide16", 5|0x20, 0x02)))
	require.NoError(t, err)
	require.Equal(t, uint16(0), s.Fields[4].Count)
	p := cat(le16(3), u16n("hé\n"), []byte("ab\xe9\x00\x00\x00"), le16(0), le16(2), []byte{1, 2})
	vals, err := s.Decode(p, 8, nil)
	require.NoError(t, err)
	require.Len(t, vals, 5)
	assert.True(t, vals[0].IsText())
	assert.Equal(t, "hé\n", vals[0].Str())
	assert.Equal(t, `hé\n`, vals[0].String())
	assert.Equal(t, `"hé\n"`, string(vals[0].AppendJSON(nil)))
	assert.Len(t, vals[0].Elems(), 3, "the elements stay available")
	assert.Equal(t, uint64('h'), vals[0].Elems()[0].Uint())
	assert.Equal(t, "abé", vals[1].Str(), "NUL padding is trimmed, the bytes are Latin-1")
	assert.Equal(t, "", vals[2].Str())
	assert.Equal(t, `""`, string(vals[2].AppendJSON(nil)))
	assert.False(t, vals[3].IsText(), "without OutType String bytes stay numbers")
	assert.Equal(t, "[1,2]", vals[3].String())
	assert.Equal(t, "", vals[3].Str())
	assert.Equal(t, []byte{1, 2}, vals[3].Raw())
	assert.Equal(t, "", vals[4].Str())
}

func TestDecodeEmptyArrays(t *testing.T) {
	fixed := f("fixed", 8|0x20)
	s, err := tl.ParseSchema(meta("E", nil, f("var", 8|0x40), fixed, st("sv", 1), f("m", 4)))
	require.NoError(t, err)
	vals, err := s.Decode(cat(le16(0), []byte{3}), 8, nil)
	require.NoError(t, err)
	require.Len(t, vals, 3)
	assert.Equal(t, payload.KindArray, vals[0].Kind())
	assert.Empty(t, vals[0].Elems())
	assert.Equal(t, "[]", vals[0].String())
	assert.Equal(t, "[]", vals[1].String())
	assert.Equal(t, `{"m":3}`, vals[2].String())
}

func TestDecodeBinaryVarArrayIsOneBlob(t *testing.T) {
	s, err := tl.ParseSchema(meta("E", nil, f("b", 14|0x40)))
	require.NoError(t, err)
	vals, err := s.Decode(counted([]byte{1, 2, 3}), 8, nil)
	require.NoError(t, err)
	assert.Equal(t, payload.KindBytes, vals[0].Kind())
	assert.Equal(t, []byte{1, 2, 3}, vals[0].Bytes())
}

func TestDecodeStructsAndArraysOfStructs(t *testing.T) {
	// hdr{ id:u32, name:str }, items: var array of { k:u16, v: fixed [2]i8, sub{ flag:bool32 } }, end:u8
	items := fs{name: "items", in: 24 | 0x40, out: 3}
	v := f("v", 3|0x20)
	v.count = 2
	s, err := tl.ParseSchema(meta("E", nil,
		st("hdr", 2), fo("id", 8, 4), f("name", 2),
		items, f("k", 6), v, st("sub", 1), f("flag", 13),
		f("end", 4),
	))
	require.NoError(t, err)
	p := cat(le32(0xBEEF), []byte("n1\x00"),
		le16(3),
		le16(10), []byte{1, 0xFF}, le32(1),
		le16(20), []byte{2, 0xFE}, le32(0),
		le16(30), []byte{3, 0xFD}, le32(1),
		[]byte{0x7F})
	vals, err := s.Decode(p, 8, nil)
	require.NoError(t, err)
	require.Len(t, vals, 3)
	assert.Equal(t, `{"hdr":{"id":"0xBEEF","name":"n1"},"items":[`+
		`{"k":10,"v":[1,-1],"sub":{"flag":true}},`+
		`{"k":20,"v":[2,-2],"sub":{"flag":false}},`+
		`{"k":30,"v":[3,-3],"sub":{"flag":true}}],"end":127}`, string(payload.AppendJSONObject(nil, vals)))
	el := vals[1].Elems()
	require.Len(t, el, 3)
	assert.Equal(t, payload.KindStruct, el[1].Kind())
	k, ok := el[1].Member("k")
	require.True(t, ok)
	assert.Equal(t, uint64(20), k.Uint())
	sub, _ := el[2].Member("sub")
	flag, _ := sub.Member("flag")
	assert.True(t, flag.Bool())
	assert.Equal(t, []any{int64(3), int64(-3)}, []any{el[2].Members()[1].Elems()[0].Interface(), el[2].Members()[1].Elems()[1].Interface()})
}

func TestDecodeCustom(t *testing.T) {
	cus := f("proto", 14|0x60)
	cus.custom = []byte{1, 2, 3}
	s, err := tl.ParseSchema(meta("E", nil, cus, f("after", 4)))
	require.NoError(t, err)
	vals, err := s.Decode(cat(counted([]byte{0x0A, 0x03, 'a', 'b', 'c'}), []byte{1}), 8, nil)
	require.NoError(t, err)
	assert.Equal(t, payload.KindBytes, vals[0].Kind())
	assert.Equal(t, []byte{0x0A, 0x03, 'a', 'b', 'c'}, vals[0].Bytes())
	assert.Equal(t, []byte{1, 2, 3}, vals[0].Field().CustomSchema)
	assert.Equal(t, payload.Custom, vals[0].Field().Arity)
	assert.Equal(t, uint64(1), vals[1].Uint())
}

func TestDecodeMismatch(t *testing.T) {
	items := fs{name: "items", in: 24 | 0x40, out: 2}
	s, err := tl.ParseSchema(meta("E", nil,
		f("first", 8),
		st("a", 2), f("s", 1), items, f("k", 6), f("c", 22),
		f("sid", 19),
	))
	require.NoError(t, err)
	good := cat(le32(1), u16z("ab"), le16(2), le16(1), counted(u16n("x")), le16(2), counted(u16n("yz")), sidBytes)
	vals, err := s.Decode(good, 8, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"first":1,"a":{"s":"ab","items":[{"k":1,"c":"x"},{"k":2,"c":"yz"}]},"sid":"S-1-5-21-1-2-3-1001"}`, string(payload.AppendJSONObject(nil, vals)))

	cases := []struct {
		name    string
		payload []byte
		field   string
		offset  int
		err     error
	}{
		{"empty", nil, "first", 0, buffer.ErrTruncated},
		{"short u32", []byte{1, 2}, "first", 0, buffer.ErrTruncated},
		{"unterminated string", cat(le32(1), []byte{'a', 0, 'b'}), "a.s", 4, buffer.ErrTruncated},
		{"no count", cat(le32(1), u16z("ab"), []byte{2}), "a.items", 10, buffer.ErrTruncated},
		{"second element short", cat(le32(1), u16z("ab"), le16(2), le16(1), counted(u16n("x")), le16(2)), "a.items[1].c", 20, buffer.ErrTruncated},
		{"count past end", cat(le32(1), u16z("ab"), le16(1), le16(1), le16(40), u16n("x")), "a.items[0].c", 14, buffer.ErrTruncated},
		{"odd UTF-16 count", cat(le32(1), u16z("ab"), le16(1), le16(1), le16(3), []byte{'x', 0, 'y'}), "a.items[0].c", 14, buffer.ErrMalformed},
		{"SID too many sub-authorities", cat(good[:len(good)-len(sidBytes)], []byte{1, 16, 0, 0, 0, 0, 0, 5}), "sid", len(good) - len(sidBytes), buffer.ErrMalformed},
		{"SID short", good[:len(good)-1], "sid", len(good) - len(sidBytes), buffer.ErrTruncated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vals, err := s.Decode(c.payload, 8, nil)
			require.Error(t, err)
			assert.Empty(t, vals)
			var de *payload.DecodeError
			require.True(t, errors.As(err, &de), "%T %v", err, err)
			assert.Equal(t, c.field, de.Field)
			assert.Equal(t, c.offset, de.Offset)
			assert.ErrorIs(t, err, c.err)
			assert.Contains(t, err.Error(), c.field)
		})
	}

	vals, err = s.Decode(append(good, 0xCC, 0xDD), 8, nil)
	assert.True(t, payload.IsTrailing(err))
	var de *payload.DecodeError
	require.True(t, errors.As(err, &de))
	assert.Equal(t, len(good), de.Offset)
	assert.Contains(t, err.Error(), "2 bytes left")
	require.Len(t, vals, 3, "values stay usable with trailing data")
	assert.Equal(t, "S-1-5-21-1-2-3-1001", vals[2].String())
}

func TestDecodeBoundsValues(t *testing.T) {
	// 65535 empty structs cost no payload bytes; they must not be built.
	s, err := tl.ParseSchema(meta("E", nil, fs{name: "a", in: 24 | 0x40, out: 0}))
	require.NoError(t, err)
	_, err = s.Decode(le16(0xFFFF), 8, nil)
	assert.ErrorIs(t, err, payload.ErrTooManyValues)

	// Nested fixed arrays of empty structs: 65535³ values in theory.
	inner := fs{name: "b", in: 24 | 0x20, out: 1, count: 0xFFFF}
	outer := fs{name: "a", in: 24 | 0x20, out: 1, count: 0xFFFF}
	leaf := fs{name: "c", in: 24 | 0x20, out: 0, count: 0xFFFF}
	s, err = tl.ParseSchema(meta("E", nil, outer, inner, leaf))
	require.NoError(t, err)
	_, err = s.Decode(nil, 8, nil)
	assert.ErrorIs(t, err, payload.ErrTooManyValues)

	// A big but honest array is fine.
	s, err = tl.ParseSchema(meta("E", nil, f("a", 4|0x40)))
	require.NoError(t, err)
	p := cat(le16(0xFFFF), make([]byte, 0xFFFF))
	vals, err := s.Decode(p, 8, nil)
	require.NoError(t, err)
	assert.Len(t, vals[0].Elems(), 0xFFFF)
}

func TestDecodeReusesDst(t *testing.T) {
	items := fs{name: "items", in: 24 | 0x40, out: 2}
	s, err := tl.ParseSchema(meta("E", nil, f("s", 1), items, f("k", 6), f("c", 2)))
	require.NoError(t, err)
	p1 := cat(u16z("one"), le16(2), le16(1), []byte("x\x00"), le16(2), []byte("y\x00"))
	p2 := cat(u16z("two"), le16(1), le16(7), []byte("z\x00"))

	vals, err := s.Decode(p1, 8, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"s":"one","items":[{"k":1,"c":"x"},{"k":2,"c":"y"}]}`, string(payload.AppendJSONObject(nil, vals)))
	capBefore := cap(vals)
	assert.GreaterOrEqual(t, capBefore, 2+2+4)

	vals, err = s.Decode(p2, 8, vals[:0])
	require.NoError(t, err)
	assert.Equal(t, capBefore, cap(vals), "the same backing array is reused")
	assert.Equal(t, `{"s":"two","items":[{"k":7,"c":"z"}]}`, string(payload.AppendJSONObject(nil, vals)))

	allocs := testing.AllocsPerRun(100, func() {
		vals, err = s.Decode(p1, 8, vals[:0])
	})
	require.NoError(t, err)
	assert.Equal(t, 0.0, allocs)

	// A slice too small for the children is grown once.
	small := make([]payload.Value, 0, 1)
	vals, err = s.Decode(p1, 8, small)
	require.NoError(t, err)
	assert.Equal(t, `{"s":"one","items":[{"k":1,"c":"x"},{"k":2,"c":"y"}]}`, string(payload.AppendJSONObject(nil, vals)))
}

func TestRenderDoesNotAllocate(t *testing.T) {
	var m []fs
	var p []byte
	for _, c := range scalarCases {
		if c.out == 0x0C {
			continue // JSON validation may allocate
		}
		m = append(m, fo(c.name, c.in, c.out))
		p = append(p, c.payload...)
	}
	s, err := tl.ParseSchema(meta("All", nil, m...))
	require.NoError(t, err)
	vals, err := s.Decode(p, 8, nil)
	require.NoError(t, err)
	require.Len(t, vals, len(m))
	buf := make([]byte, 0, 1<<16)
	allocs := testing.AllocsPerRun(50, func() {
		buf = payload.AppendJSONObject(buf[:0], vals)
		buf = payload.AppendTextFields(buf, vals, " ")
	})
	assert.Equal(t, 0.0, allocs)
}

func TestClone(t *testing.T) {
	s, err := tl.ParseSchema(selfDescribingMeta)
	require.NoError(t, err)
	p := cat(u16z("Hello"), u16z("World!"))
	vals, err := s.Decode(p, 8, nil)
	require.NoError(t, err)
	c := vals[0].Clone()
	for i := range p {
		p[i] = 'Z'
	}
	_, err = s.Decode(cat(u16z("a"), u16z("b")), 8, vals[:0])
	require.NoError(t, err)
	assert.Equal(t, `{"b":"Hello","c":"World!"}`, c.String())
}
