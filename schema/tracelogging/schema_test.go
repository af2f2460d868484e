package tracelogging_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/payload"
	tl "github.com/etlkit/etlkit/schema/tracelogging"
)

// The metadata of the one event in SelfDescribingSingleEvent.etl, as the
// format notes quote it.
var selfDescribingMeta = []byte{
	0x17, 0x00, 0x00,
	'T', 'e', 's', 't', 'E', 'v', 'e', 'n', 't', 0,
	'a', 0, 0x98, 0x02,
	'b', 0, 0x01,
	'c', 0, 0x01,
}

func TestParseSchemaSelfDescribing(t *testing.T) {
	s, err := tl.ParseSchema(selfDescribingMeta)
	require.NoError(t, err)
	assert.Equal(t, "TestEvent", s.Name)
	assert.Equal(t, uint32(0), s.Tags)
	require.Len(t, s.Fields, 1)
	a := s.Fields[0]
	assert.Equal(t, "a", a.Name)
	assert.Equal(t, payload.InStruct, a.InType)
	assert.Equal(t, payload.Scalar, a.Arity)
	require.Len(t, a.Members, 2)
	assert.Equal(t, payload.Field{Name: "b", InType: payload.InUnicodeString}, described(a.Members[0]))
	assert.Equal(t, payload.Field{Name: "c", InType: payload.InUnicodeString}, described(a.Members[1]))
	assert.Equal(t, 3, s.NumFields())

	vals, err := s.Decode(cat(u16z("Hello"), u16z("World!")), 8, nil)
	require.NoError(t, err)
	require.Len(t, vals, 1)
	assert.Equal(t, payload.KindStruct, vals[0].Kind())
	m := vals[0].Members()
	require.Len(t, m, 2)
	assert.Equal(t, "b", m[0].Name())
	assert.Equal(t, "Hello", m[0].Str())
	assert.Equal(t, "c", m[1].Name())
	assert.Equal(t, "World!", m[1].Str())
	assert.Equal(t, `{"a":{"b":"Hello","c":"World!"}}`, string(payload.AppendJSONObject(nil, vals)))
	assert.Equal(t, `a={"b":"Hello","c":"World!"}`, string(payload.AppendTextFields(nil, vals, "; ")))
}

func TestParseSchemaIgnoresPadding(t *testing.T) {
	b := append(append([]byte{}, selfDescribingMeta...), 0, 0, 0, 0, 0, 0, 0, 0, 0)
	s, err := tl.ParseSchema(b)
	require.NoError(t, err)
	assert.Equal(t, 3, s.NumFields())
}

func TestTags(t *testing.T) {
	cases := []struct {
		raw  []byte
		want uint32
	}{
		{[]byte{0x00}, 0},
		{[]byte{0x01}, 0x00200000},
		{[]byte{0x7F}, 0x0FE00000},
		{[]byte{0x81, 0x02}, 0x00208000},
		{[]byte{0x80, 0x80, 0x01}, 0x00000080},
		{[]byte{0x80, 0x80, 0x80, 0x01}, 0x00000001},
		{[]byte{0xFF, 0xFF, 0xFF, 0x7F}, 0x0FFFFFFF},
		{[]byte{0x91, 0xA2, 0xB3, 0x44}, 0x11<<21 | 0x22<<14 | 0x33<<7 | 0x44},
	}
	for _, c := range cases {
		fld := fo("x", 8, 0)
		fld.tags = c.raw
		s, err := tl.ParseSchema(meta("E", c.raw, fld))
		require.NoError(t, err, "% x", c.raw)
		assert.Equal(t, c.want, s.Tags, "event tags % x", c.raw)
		require.Len(t, s.Fields, 1)
		assert.Equal(t, c.want, s.Fields[0].Tags, "field tags % x", c.raw)
		assert.Equal(t, "x", s.Fields[0].Name)
		assert.Equal(t, payload.InUInt32, s.Fields[0].InType)
	}
}

func TestParseSchemaFieldForms(t *testing.T) {
	custom := []byte{0xDE, 0xAD, 0xBE, 0xEF}
	fixed := f("fixed", 6|0x20)
	fixed.count = 3
	fixedOut := fo("fixedhex", 8|0x20, 4)
	fixedOut.count = 2
	cus := f("custom", 14|0x60)
	cus.custom = custom
	tagged := fo("tagged", 8|0x40, 4)
	tagged.tags = []byte{0x81, 0x00}
	m := meta("Forms", []byte{0x85, 0x01},
		f("scalar", 7),
		fo("hex", 8, 4),
		fixed, fixedOut,
		f("var", 9|0x40),
		cus, tagged,
	)
	s, err := tl.ParseSchema(m)
	require.NoError(t, err)
	assert.Equal(t, "Forms", s.Name)
	assert.Equal(t, uint32(5<<21|1<<14), s.Tags)
	want := []payload.Field{
		{Name: "scalar", InType: payload.InInt32},
		{Name: "hex", InType: payload.InUInt32, OutType: payload.OutHexInt32},
		{Name: "fixed", InType: payload.InUInt16, Arity: payload.FixedCount, Count: 3},
		{Name: "fixedhex", InType: payload.InUInt32, OutType: payload.OutHexInt32, Arity: payload.FixedCount, Count: 2},
		{Name: "var", InType: payload.InInt64, Arity: payload.CountPrefixed},
		{Name: "custom", InType: payload.InBinary, Arity: payload.Custom, CustomSchema: custom},
		{Name: "tagged", InType: payload.InUInt32, OutType: payload.OutHexInt32, Arity: payload.CountPrefixed, Tags: 1 << 21},
	}
	got := make([]payload.Field, len(s.Fields))
	for i := range s.Fields {
		got[i] = described(s.Fields[i])
	}
	assert.Equal(t, want, got)
	// The schema owns its bytes.
	m[len(m)-10] ^= 0xFF
	assert.Equal(t, custom, s.Fields[5].CustomSchema)
}

func TestParseSchemaNestedStructs(t *testing.T) {
	// outer{ a:u8, inner{ b:u16, deepest{ c:u32 }, d:str }, e:u64 }, f:i8
	m := meta("Nest", nil,
		st("outer", 3),
		f("a", 4),
		st("inner", 3),
		f("b", 6),
		st("deepest", 1),
		f("c", 8),
		f("d", 2),
		f("e", 10),
		f("f", 3),
	)
	s, err := tl.ParseSchema(m)
	require.NoError(t, err)
	require.Len(t, s.Fields, 2)
	outer := s.Fields[0]
	require.Len(t, outer.Members, 3)
	assert.Equal(t, []string{"a", "inner", "e"}, names(outer.Members))
	inner := outer.Members[1]
	assert.Equal(t, []string{"b", "deepest", "d"}, names(inner.Members))
	assert.Equal(t, []string{"c"}, names(inner.Members[1].Members))
	assert.Equal(t, "f", s.Fields[1].Name)
	assert.Equal(t, 9, s.NumFields())
}

func names(fs []payload.Field) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

func TestParseSchemaHostile(t *testing.T) {
	deep := []fs{}
	for i := 0; i < payload.MaxDepth+1; i++ {
		deep = append(deep, st("s", 1))
	}
	deep = append(deep, f("leaf", 4))
	many := []fs{}
	for i := 0; i <= payload.MaxFields; i++ {
		many = append(many, f("", 4))
	}
	fiveTags := fo("x", 4, 0)
	fiveTags.tags = []byte{0x80, 0x80, 0x80, 0x80, 0x01}
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "at least 2"},
		{"one byte", []byte{1}, "at least 2"},
		{"size past end", []byte{0x10, 0, 0, 'a', 0}, "size 16"},
		{"no tags", []byte{2, 0}, "event tags"},
		{"no event name NUL", []byte{5, 0, 0, 'a', 'b'}, "event name"},
		{"tags run on", []byte{6, 0, 0x80, 0x80, 0x80, 0x80}, "event tags"},
		{"five tag bytes", []byte{9, 0, 0x80, 0x80, 0x80, 0x80, 0x01, 'E', 0}, "past 4 bytes"},
		{"field name no NUL", fixSize(append(meta("E", nil), 'x')), "field name"},
		{"no InMeta", fixSize(append(meta("E", nil), 'x', 0)), "InMeta"},
		{"InType 0", meta("E", nil, f("x", 0)), "unknown InType 0"},
		{"InType 26", meta("E", nil, f("x", 26)), "unknown InType 26"},
		{"InType 31", meta("E", nil, f("x", 31)), "unknown InType 31"},
		{"no OutMeta", fixSize(append(meta("E", nil), 'x', 0, 0x84)), "OutMeta"},
		{"field tags truncated", fixSize(append(meta("E", nil), 'x', 0, 0x84, 0x80, 0x81)), "tags of field"},
		{"field tags five bytes", meta("E", nil, fiveTags), "past 4 bytes"},
		{"fixed count missing", fixSize(append(meta("E", nil), 'x', 0, 0x24, 1)), "count of field"},
		{"custom size missing", fixSize(append(meta("E", nil), 'x', 0, 0x6E)), "custom schema size"},
		{"custom bytes past end", fixSize(append(meta("E", nil), 'x', 0, 0x6E, 9, 0, 1)), "runs past"},
		{"struct without OutMeta", meta("E", nil, f("s", 24), f("x", 4)), "no member count"},
		{"struct members past end", meta("E", nil, st("s", 3), f("x", 4)), "has 3 members"},
		{"custom struct", meta("E", nil, fs{name: "s", in: 24 | 0x60, out: 1}, f("x", 4)), "custom serializer"},
		{"fixed array of binary", meta("E", nil, fs{name: "b", in: 14 | 0x20, out: -1, count: 2}), "fixed array of Binary"},
		{"too deep", meta("E", nil, deep...), "nested deeper"},
		{"too many fields", meta("E", nil, many...), "more than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := tl.ParseSchema(c.b)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.True(t, errors.Is(err, buffer.ErrMalformed) || errors.Is(err, buffer.ErrTruncated), "%v", err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// fixSize rewrites a blob's size after bytes were appended to it.
func fixSize(b []byte) []byte {
	b[0], b[1] = byte(len(b)), byte(len(b)>>8)
	return b
}

func TestTypeNames(t *testing.T) {
	assert.Equal(t, "CountedBinary", payload.InCountedBinary.String())
	assert.Equal(t, "InType(30)", payload.InType(30).String())
	assert.Equal(t, "DateTimeUtc", payload.OutDateTimeUTC.String())
	assert.Equal(t, "OutType(127)", payload.OutType(0x7F).String())
	assert.Equal(t, "WBEMSID", payload.InWBEMSID.String())
	assert.Equal(t, "NoPrint", payload.OutNoPrint.String())
	assert.Equal(t, "CountPrefixed", payload.CountPrefixed.String())
	assert.Equal(t, "Struct", payload.KindStruct.String())
	assert.Equal(t, "SocketAddress", payload.OutSocketAddress.String())
}

// described is the part of a field its source describes, without what
// payload.NewSchema works out from it.
func described(f payload.Field) payload.Field {
	return f.Description()
}
