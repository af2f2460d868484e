package payload_test

import (
	"encoding/binary"
	"errors"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/payload"
)

func le16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func utf16le(s string) []byte {
	var b []byte
	for _, c := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return b
}

func u16z(s string) []byte { return append(utf16le(s), 0, 0) }

// decode builds a schema of fields and decodes p with 8-byte pointers.
func decode(t *testing.T, p []byte, fields ...payload.Field) []payload.Value {
	t.Helper()
	s, err := payload.NewSchema("E", fields)
	require.NoError(t, err)
	vals, err := s.Decode(p, 8, nil)
	require.NoError(t, err)
	return vals
}

func text(vals []payload.Value) string { return string(payload.AppendTextFields(nil, vals, " ")) }
func jsonOf(vals []payload.Value) string {
	return string(payload.AppendJSONObject(nil, vals))
}

func TestCountAndLengthFromFields(t *testing.T) {
	// A count and a length, each taken from an earlier field, as manifests
	// and TDH describe them: count="N" and length="Len".
	vals := decode(t, cat(le16(3), le32(10), le32(20), le32(30), []byte{4}, []byte("abcdX")),
		payload.Field{Name: "N", InType: payload.InUInt16},
		payload.Field{Name: "Items", InType: payload.InUInt32, Arity: payload.CountFromField, CountField: "N"},
		payload.Field{Name: "Len", InType: payload.InUInt8},
		payload.Field{Name: "Text", InType: payload.InAnsiString, LengthField: "Len"},
		payload.Field{Name: "Tail", InType: payload.InAnsiChar},
	)
	assert.Equal(t, `N=3 Items=[10,20,30] Len=4 Text=abcd Tail=X`, text(vals))
}

func TestCountFromStructMemberOutsideTheStruct(t *testing.T) {
	// Struct members may refer to fields outside the struct, and a count
	// may sit inside a struct that is not in an array.
	hdr := payload.Field{Name: "Hdr", InType: payload.InStruct, Members: []payload.Field{
		{Name: "Count", InType: payload.InUInt32},
	}}
	vals := decode(t, cat(le32(2), le16(7), le16(8), le16(1), le16(2)),
		hdr,
		payload.Field{Name: "Pairs", InType: payload.InStruct, Arity: payload.CountFromField, CountField: "Count",
			Members: []payload.Field{{Name: "A", InType: payload.InUInt16}, {Name: "B", InType: payload.InUInt16}}},
	)
	assert.Equal(t, `{"Hdr":{"Count":2},"Pairs":[{"A":7,"B":8},{"A":1,"B":2}]}`, jsonOf(vals))
}

func TestCountFromMemberOfTheSameElement(t *testing.T) {
	// Each element holds a count and then the array it counts, as the
	// .NET runtime's BulkType does.
	vals := decode(t, cat(le16(2), []byte{1}, le16(7), []byte{2}, le16(8), le16(9)),
		payload.Field{Name: "Count", InType: payload.InUInt16},
		payload.Field{Name: "Types", InType: payload.InStruct, Arity: payload.CountFromField, CountField: "Count",
			Members: []payload.Field{
				{Name: "N", InType: payload.InUInt8},
				{Name: "Params", InType: payload.InUInt16, Arity: payload.CountFromField, CountField: "N"},
			}},
	)
	assert.Equal(t, `{"Count":2,"Types":[{"N":1,"Params":[7]},{"N":2,"Params":[8,9]}]}`, jsonOf(vals))
}

func TestReferenceErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields []payload.Field
	}{
		{"unknown", []payload.Field{{Name: "A", InType: payload.InUInt32, Arity: payload.CountFromField, CountField: "N"}}},
		{"later", []payload.Field{
			{Name: "A", InType: payload.InUInt32, Arity: payload.CountFromField, CountField: "N"},
			{Name: "N", InType: payload.InUInt32}}},
		{"not an integer", []payload.Field{
			{Name: "N", InType: payload.InUnicodeString},
			{Name: "A", InType: payload.InUInt32, Arity: payload.CountFromField, CountField: "N"}}},
		{"inside an array", []payload.Field{
			{Name: "S", InType: payload.InStruct, Arity: payload.FixedCount, Count: 2, Members: []payload.Field{{Name: "N", InType: payload.InUInt8}}},
			{Name: "A", InType: payload.InUInt32, Arity: payload.CountFromField, CountField: "N"}}},
		{"inside an earlier array element", []payload.Field{
			{Name: "S", InType: payload.InStruct, Arity: payload.FixedCount, Count: 2, Members: []payload.Field{
				{Name: "Inner", InType: payload.InStruct, Members: []payload.Field{{Name: "N", InType: payload.InUInt8}}}}},
			{Name: "A", InType: payload.InUInt32, Arity: payload.CountFromField, CountField: "N"}}},
		{"count field on a scalar", []payload.Field{
			{Name: "N", InType: payload.InUInt8},
			{Name: "A", InType: payload.InUInt32, CountField: "N"}}},
		{"length", []payload.Field{{Name: "S", InType: payload.InAnsiString, LengthField: "L"}}},
	} {
		_, err := payload.NewSchema("E", c.fields)
		assert.ErrorIs(t, err, payload.ErrSchema, c.name)
		assert.ErrorIs(t, err, buffer.ErrMalformed, c.name)
	}
}

func TestHostileCountsAreBounded(t *testing.T) {
	s, err := payload.NewSchema("E", []payload.Field{
		{Name: "N", InType: payload.InUInt32},
		{Name: "Empty", InType: payload.InStruct, Arity: payload.CountFromField, CountField: "N"},
	})
	require.NoError(t, err)
	_, err = s.Decode(le32(0xFFFFFFFF), 8, nil)
	assert.ErrorIs(t, err, payload.ErrTooManyValues)
	var de *payload.DecodeError
	require.True(t, errors.As(err, &de))
	assert.Equal(t, "Empty", de.Field)
	assert.Equal(t, 4, de.Offset)

	s, err = payload.NewSchema("E", []payload.Field{
		{Name: "L", InType: payload.InUInt32},
		{Name: "B", InType: payload.InBinary, LengthField: "L"},
	})
	require.NoError(t, err)
	_, err = s.Decode(cat(le32(9), []byte{1, 2}), 8, nil)
	assert.ErrorIs(t, err, buffer.ErrTruncated)
}

func TestMaps(t *testing.T) {
	disp := payload.NewMap("Disposition", false, []payload.MapEntry{{Value: 1, Name: "OPEN_EXISTING "}, {Value: 0, Name: "SUPERSEDE"}})
	share := payload.NewMap("ShareAccess", true, []payload.MapEntry{
		{Value: 0, Name: "None"}, {Value: 1, Name: "Read"}, {Value: 2, Name: "Write"}, {Value: 4, Name: "Delete"}, {Value: 3, Name: "ReadWrite"}})
	fields := []payload.Field{
		{Name: "Disposition", InType: payload.InUInt32, Map: disp},
		{Name: "Share", InType: payload.InUInt32, Map: share},
		{Name: "Share2", InType: payload.InUInt32, Map: share},
		{Name: "Share3", InType: payload.InUInt32, Map: share},
		{Name: "Unknown", InType: payload.InUInt32, Map: disp},
	}
	vals := decode(t, cat(le32(1), le32(5), le32(0x13), le32(0), le32(7)), fields...)
	// Text shows names, the trailing space TDH leaves trimmed; a bit map
	// that names a combination exactly uses that name, else the bits, and
	// leftover bits in hex; a value the map does not name stays a number.
	assert.Equal(t, "Disposition=OPEN_EXISTING Share=Read, Delete Share2=Read, Write, 0x10 Share3=None Unknown=7", text(vals))
	assert.Equal(t, `{"Disposition":1,"DispositionName":"OPEN_EXISTING","Share":5,"ShareName":"Read, Delete",`+
		`"Share2":19,"Share2Name":"Read, Write, 0x10","Share3":0,"Share3Name":"None","Unknown":7}`, jsonOf(vals))
	name, ok := vals[0].MapName()
	assert.True(t, ok)
	assert.Equal(t, "OPEN_EXISTING", name)
	_, ok = vals[4].MapName()
	assert.False(t, ok)
	v3 := decode(t, le32(3), payload.Field{Name: "S", InType: payload.InUInt32, Map: share})
	assert.Equal(t, "S=ReadWrite", text(v3))
}

func TestOptionalTrailingFields(t *testing.T) {
	s, err := payload.NewSchema("E", []payload.Field{
		{Name: "A", InType: payload.InUInt32},
		{Name: "B", InType: payload.InUInt32, Optional: true},
		{Name: "C", InType: payload.InUnicodeString, Optional: true},
	})
	require.NoError(t, err)
	vals, err := s.Decode(le32(1), 8, nil)
	require.NoError(t, err)
	assert.Equal(t, "A=1", text(vals))
	vals, err = s.Decode(cat(le32(1), le32(2)), 8, nil)
	require.NoError(t, err)
	assert.Equal(t, "A=1 B=2", text(vals))
	vals, err = s.Decode(cat(le32(1), le32(2), u16z("x")), 8, nil)
	require.NoError(t, err)
	assert.Equal(t, "A=1 B=2 C=x", text(vals))
	// Ending inside an optional field is damage, not absence.
	_, err = s.Decode(cat(le32(1), []byte{2, 0}), 8, nil)
	var de *payload.DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "B", de.Field)
	assert.Equal(t, 4, de.Offset)
	assert.ErrorIs(t, err, buffer.ErrTruncated)
	// A required field is never absent.
	_, err = s.Decode(nil, 8, nil)
	assert.ErrorIs(t, err, buffer.ErrTruncated)
}

func TestCountToEnd(t *testing.T) {
	// The frames of a stack: pointers to the end of the payload.
	frames := payload.Field{Name: "Stack", InType: payload.InPointer, Arity: payload.CountToEnd}
	vals := decode(t, cat(le64(1), le32(7), le32(0), le64(0xfffff80000001000), le64(0x7ff612340000)),
		payload.Field{Name: "EventTimeStamp", InType: payload.InUInt64},
		payload.Field{Name: "StackProcess", InType: payload.InUInt32},
		payload.Field{Name: "StackThread", InType: payload.InUInt32},
		frames)
	assert.Equal(t, "EventTimeStamp=1 StackProcess=7 StackThread=0 Stack=[\"0xFFFFF80000001000\",\"0x7FF612340000\"]", text(vals))
	// 32-bit pointers.
	s, err := payload.NewSchema("E", []payload.Field{frames})
	require.NoError(t, err)
	vals, err = s.Decode(cat(le32(1), le32(2), le32(3)), 4, nil)
	require.NoError(t, err)
	assert.Len(t, vals[0].Elems(), 3)
	// Strings to the end, each sized by its NUL.
	vals = decode(t, cat(u16z("a"), u16z("bc")), payload.Field{Name: "S", InType: payload.InUnicodeString, Arity: payload.CountToEnd})
	assert.Equal(t, `S=["a","bc"]`, text(vals))
	// Structs to the end.
	vals = decode(t, cat(le16(1), u16z("a"), le16(2), u16z("b")), payload.Field{Name: "S", InType: payload.InStruct, Arity: payload.CountToEnd,
		Members: []payload.Field{{Name: "N", InType: payload.InUInt16}, {Name: "T", InType: payload.InUnicodeString}}})
	assert.Equal(t, `S=[{"N":1,"T":"a"},{"N":2,"T":"b"}]`, text(vals))
	// Bytes that do not make a whole element are trailing data.
	s, err = payload.NewSchema("E", []payload.Field{{Name: "A", InType: payload.InUInt32, Arity: payload.CountToEnd}})
	require.NoError(t, err)
	vals, err = s.Decode(cat(le32(5), []byte{1}), 8, nil)
	assert.True(t, payload.IsTrailing(err))
	assert.Equal(t, "A=[5]", text(vals))
}

func TestSizedStrings(t *testing.T) {
	// MOF char16 X[16] with format("s"): a fixed array holding text up to
	// its first NUL.
	name := cat(utf16le("Idle"), make([]byte, 24))
	vals := decode(t, cat(name, []byte("ab\x00\x00"), le32(9)),
		payload.Field{Name: "Name", InType: payload.InUnicodeString, Length: 16},
		payload.Field{Name: "Code", InType: payload.InAnsiString, Length: 4},
		payload.Field{Name: "After", InType: payload.InUInt32})
	assert.Equal(t, "Name=Idle Code=ab After=9", text(vals))
	// A fixed length of 0 given on purpose is an empty string, not a
	// NUL-terminated one.
	vals = decode(t, le32(9),
		payload.Field{Name: "Empty", InType: payload.InUnicodeString, FixedLength: true},
		payload.Field{Name: "After", InType: payload.InUInt32})
	assert.Equal(t, "Empty= After=9", text(vals))
}

func TestBinary(t *testing.T) {
	addr := []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	vals := decode(t, cat(addr, le16(2), []byte{0xAB, 0xCD}),
		payload.Field{Name: "Addr", InType: payload.InBinary, OutType: payload.OutIPv6},
		payload.Field{Name: "N", InType: payload.InUInt16},
		payload.Field{Name: "Blob", InType: payload.InBinary, LengthField: "N"})
	assert.Equal(t, "Addr=2001:db8::1 N=2 Blob=0xABCD", text(vals))
	s, err := payload.NewSchema("E", []payload.Field{{Name: "B", InType: payload.InBinary}})
	require.NoError(t, err)
	_, err = s.Decode([]byte{1}, 8, nil)
	assert.ErrorIs(t, err, buffer.ErrMalformed, "a binary field needs a length")
}

func TestWBEMTypes(t *testing.T) {
	sid := cat([]byte{1, 2, 0, 0, 0, 0, 0, 5}, le32(32), le32(544))
	fields := []payload.Field{
		{Name: "NoSid", InType: payload.InWBEMSID},
		{Name: "Sid", InType: payload.InWBEMSID},
		{Name: "Rev", InType: payload.InReversedCountedString},
		{Name: "RevA", InType: payload.InReversedCountedAnsiString},
		{Name: "Cnt", InType: payload.InWBEMCountedString},
		{Name: "CntA", InType: payload.InWBEMCountedAnsiString},
		{Name: "WC", InType: payload.InUnicodeChar},
		{Name: "AC", InType: payload.InAnsiChar},
		{Name: "Size", InType: payload.InSizeT},
		{Name: "Dump", InType: payload.InHexDump},
		{Name: "Rest", InType: payload.InNonNullTerminatedString},
	}
	s, err := payload.NewSchema("E", fields)
	require.NoError(t, err)
	for _, ptr := range []int{4, 8} {
		p := cat(le32(0),
			le32(1), make([]byte, 2*ptr-4), sid, // TOKEN_USER (two pointers), then the SID
			[]byte{0, 4}, utf16le("hi"),
			[]byte{0, 2}, []byte("ok"),
			le16(2), utf16le("x"),
			le16(1), []byte("y"),
			utf16le("Z"), []byte("q"),
			make([]byte, ptr),
			le32(2), []byte{1, 2},
			utf16le("end"))
		p[len(p)-len("end")*2-6-ptr] = 0x10 // Size = 0x10
		vals, err := s.Decode(p, ptr, nil)
		require.NoError(t, err, "pointer size %d", ptr)
		assert.Equal(t, "NoSid= Sid=S-1-5-32-544 Rev=hi RevA=ok Cnt=x CntA=y WC=Z AC=q Size=0x10 Dump=0x0102 Rest=end", text(vals), "pointer size %d", ptr)
	}
}

func TestPortAndIPv4AndCharacters(t *testing.T) {
	vals := decode(t, cat([]byte{0x01, 0xBB}, []byte{192, 168, 1, 20}, []byte{'A'}, le16('é')),
		payload.Field{Name: "Port", InType: payload.InUInt16, OutType: payload.OutPort},
		payload.Field{Name: "Addr", InType: payload.InUInt32, OutType: payload.OutIPv4},
		payload.Field{Name: "C", InType: payload.InInt8, OutType: payload.OutString},
		payload.Field{Name: "W", InType: payload.InUInt16, OutType: payload.OutString})
	assert.Equal(t, "Port=443 Addr=192.168.1.20 C=A W=é", text(vals))
	assert.Equal(t, `{"Port":443,"Addr":"192.168.1.20","C":"A","W":"é"}`, jsonOf(vals))
}

func TestComputedValues(t *testing.T) {
	build := &payload.Field{Name: "BuildTime", InType: payload.InFileTime}
	ms := &payload.Field{Name: "ElapsedTimeMSec", InType: payload.InDouble}
	pid := &payload.Field{Name: "ParentProcessID", InType: payload.InUInt32}
	vals := []payload.Value{
		payload.NewFileTime(build, 116444736000000000+10_000_000),
		payload.NewFloat(ms, 1.25),
		payload.NewUint(pid, 4),
		payload.NewString(&payload.Field{Name: "S", InType: payload.InAnsiString}, []byte("a\"b")),
		payload.NewBool(&payload.Field{Name: "B", InType: payload.InBoolean}, true),
		payload.NewInt(&payload.Field{Name: "I", InType: payload.InInt32}, -3),
	}
	assert.Equal(t, `BuildTime=1970-01-01T00:00:01.0000000Z ElapsedTimeMSec=1.25 ParentProcessID=4 S=a"b B=true I=-3`, text(vals))
	assert.Equal(t, `{"BuildTime":"1970-01-01T00:00:01.0000000Z","ElapsedTimeMSec":1.25,"ParentProcessID":4,"S":"a\"b","B":true,"I":-3}`, jsonOf(vals))
}

func TestDecodeDoesNotAllocate(t *testing.T) {
	m := payload.NewMap("M", true, []payload.MapEntry{{Value: 1, Name: "One"}, {Value: 2, Name: "Two"}})
	s, err := payload.NewSchema("E", []payload.Field{
		{Name: "N", InType: payload.InUInt8},
		{Name: "A", InType: payload.InUInt32, Arity: payload.CountFromField, CountField: "N", Map: m},
		{Name: "S", InType: payload.InUnicodeString},
		{Name: "P", InType: payload.InPointer, Arity: payload.CountToEnd},
	})
	require.NoError(t, err)
	p := cat([]byte{2}, le32(1), le32(3), u16z("hello"), le64(1), le64(2))
	vals, err := s.Decode(p, 8, nil)
	require.NoError(t, err)
	out := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(100, func() {
		vals, err = s.Decode(p, 8, vals[:0])
		out = payload.AppendJSONObject(out[:0], vals)
		out = payload.AppendTextFields(out, vals, " ")
	})
	require.NoError(t, err)
	assert.Zero(t, allocs)
	assert.Equal(t, `{"N":2,"A":[1,3],"S":"hello","P":["0x1","0x2"]}N=2 A=[1,3] S=hello P=["0x1","0x2"]`, string(out))
}

func TestSystemTimeRules(t *testing.T) {
	st := func(f ...uint16) []byte {
		var b []byte
		for _, x := range f {
			b = append(b, le16(x)...)
		}
		return b
	}
	field := payload.Field{Name: "T", InType: payload.InSystemTime}
	for _, c := range []struct {
		fields [8]uint16
		text   string
		date   bool
	}{
		// TIME_ZONE_INFORMATION keeps its transitions as year-0 rules:
		// the first Sunday of November, the second Sunday of March.
		{[8]uint16{0, 11, 0, 1, 2, 0, 0, 0}, "yearly, first Sunday of November, 02:00:00", false},
		{[8]uint16{0, 3, 0, 2, 2, 0, 0, 0}, "yearly, second Sunday of March, 02:00:00", false},
		{[8]uint16{0, 10, 6, 5, 23, 59, 59, 999}, "yearly, last Saturday of October, 23:59:59.999", false},
		{[8]uint16{2020, 7, 3, 29, 0, 7, 0, 623}, "2020-07-29T00:07:00.6230000Z", true},
		// Not a rule: a week past 5 makes it the sixth of March of year
		// 0, and the zero value is out of range.
		{[8]uint16{0, 3, 0, 6, 2, 0, 0, 0}, "0000-03-06T02:00:00.0000000Z", true},
		{[8]uint16{}, "0000-00-00T00:00:00.0000000Z", false},
	} {
		v := decode(t, st(c.fields[:]...), field)[0]
		assert.Equal(t, "T="+c.text, text([]payload.Value{v}))
		assert.Equal(t, `{"T":"`+c.text+`"}`, jsonOf([]payload.Value{v}))
		assert.Equal(t, c.text, string(payload.AppendSystemTime(nil, c.fields)))
		assert.Equal(t, c.date, !v.Time().IsZero(), c.text)
	}
}

func TestSpareSlotsKeepNestedValues(t *testing.T) {
	// Values appended after Decode (computed ones) land in the spare slots,
	// not on the elements of an array that Decode stored after the
	// top-level values.
	s, err := payload.NewSchema("E", []payload.Field{
		{Name: "N", InType: payload.InUInt8},
		{Name: "A", InType: payload.InUInt16, Arity: payload.CountFromField, CountField: "N"},
	})
	require.NoError(t, err)
	s.Spare = 2
	extra := &payload.Field{Name: "X", InType: payload.InUInt32}
	vals, err := s.Decode(cat([]byte{2}, le16(7), le16(9)), 8, nil)
	require.NoError(t, err)
	vals = append(vals, payload.NewUint(extra, 1), payload.NewUint(extra, 2))
	assert.Equal(t, "N=2 A=[7,9] X=1 X=2", text(vals))
	again, err := s.Decode(cat([]byte{1}, le16(5)), 8, vals[:0])
	require.NoError(t, err)
	assert.Same(t, &vals[0], &again[0], "the array is reused")
	assert.Equal(t, "N=1 A=[5] X=3", text(append(again, payload.NewUint(extra, 3))))
}

func TestManyReferences(t *testing.T) {
	// More referenced fields than the decoder keeps inline.
	var fields []payload.Field
	var p []byte
	want := ""
	for i := 0; i < 12; i++ {
		n := string(rune('A' + i))
		fields = append(fields, payload.Field{Name: n, InType: payload.InUInt8},
			payload.Field{Name: "x" + n, InType: payload.InUInt8, Arity: payload.CountFromField, CountField: n})
		p = append(p, byte(i%3), 7, 7)[:len(p)+1+i%3]
		if i > 0 {
			want += " "
		}
		want += n + "=" + string(rune('0'+i%3)) + " x" + n + "=" + [...]string{"[]", "[7]", "[7,7]"}[i%3]
	}
	vals := decode(t, p, fields...)
	assert.Equal(t, want, text(vals))
}

func TestHexByteArray(t *testing.T) {
	// Bytes to the end of the payload, shown in hex: one string, as a
	// binary field renders, not an array of numbers.
	vals := decode(t, cat(le16(1), []byte{0xAB, 0x01, 0xFF}),
		payload.Field{Name: "N", InType: payload.InUInt16},
		payload.Field{Name: "Data", InType: payload.InUInt8, OutType: payload.OutHexBinary, Arity: payload.CountToEnd})
	assert.Equal(t, "N=1 Data=0xAB01FF", text(vals))
	assert.Equal(t, `{"N":1,"Data":"0xAB01FF"}`, jsonOf(vals))
	assert.Len(t, vals[1].Elems(), 3)
}

// TestDecodeKeep keeps the bytes after the last field as a value of their
// own, beside complete fields, in every rendering and without allocating;
// values a caller appends after them (up to Spare) leave both the kept
// bytes and the elements of arrays alone.
func TestDecodeKeep(t *testing.T) {
	s, err := payload.NewSchema("E", []payload.Field{
		{Name: "N", InType: payload.InUInt16},
		{Name: "A", InType: payload.InUInt8, Arity: payload.CountFromField, CountField: "N"},
	})
	require.NoError(t, err)
	s.Spare = 1
	p := cat(le16(2), []byte{7, 8}, []byte{0xAB, 0xCD, 0xEF})

	vals, err := s.Decode(p, 8, nil)
	var de *payload.DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, 4, de.Offset)
	assert.Equal(t, "N=2 A=[7,8]", text(vals))

	vals, err = s.DecodeKeep(p, 8, nil)
	require.NoError(t, err)
	assert.Equal(t, "N=2 A=[7,8] TrailingData=0xABCDEF", text(vals))
	assert.Equal(t, `{"N":2,"A":[7,8],"TrailingData":"0xABCDEF"}`, string(payload.AppendJSONObject(nil, vals)))
	rest, ok := payload.HasTrailingData(vals)
	require.True(t, ok)
	assert.Same(t, payload.TrailingData, rest.Field())
	assert.Equal(t, payload.KindBytes, rest.Kind())
	assert.Equal(t, []byte{0xAB, 0xCD, 0xEF}, rest.Bytes())

	extra := payload.Field{Name: "X", InType: payload.InUInt32}
	vals = append(vals, payload.NewUint(&extra, 9))
	assert.Equal(t, "N=2 A=[7,8] TrailingData=0xABCDEF X=9", text(vals))

	// A payload that ends with its fields has no such value.
	vals, err = s.DecodeKeep(p[:4], 8, vals[:0])
	require.NoError(t, err)
	assert.Equal(t, "N=2 A=[7,8]", text(vals))
	_, ok = payload.HasTrailingData(vals)
	assert.False(t, ok)

	// Reusing the values costs nothing, trailing bytes or not; Decode's
	// error for them is the allocation DecodeKeep spares.
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		vals, _ = s.DecodeKeep(p, 8, vals[:0])
		vals, _ = s.DecodeKeep(p[:4], 8, vals[:0])
	}))

	// A payload that does not fit is an error with no values, as for
	// Decode.
	vals, err = s.DecodeKeep(p[:3], 8, vals[:0])
	assert.ErrorIs(t, err, buffer.ErrTruncated)
	assert.Empty(t, vals)
}

func TestUTF16Helpers(t *testing.T) {
	s, rest, ok := payload.CutUTF16(cat(utf16le("a\U0001F600é"), []byte{0, 0, 7}))
	require.True(t, ok)
	assert.Equal(t, []byte{7}, rest)
	assert.Equal(t, "a\U0001F600é", string(payload.AppendUTF16([]byte(">"), s))[1:])
	_, _, ok = payload.CutUTF16([]byte{'a', 0, 0})
	assert.False(t, ok, "a NUL byte that is not a whole code unit")
	// A lone surrogate is U+FFFD; an odd last byte is left out.
	assert.Equal(t, "\uFFFDx", string(payload.AppendUTF16(nil, []byte{0x00, 0xD8, 'x', 0, 'y'})))
}

func TestNewSchema(t *testing.T) {
	s, err := payload.NewSchema("X", []payload.Field{
		{Name: "a", InType: payload.InUInt32},
		{Name: "s", InType: payload.InStruct, Members: []payload.Field{{Name: "b", InType: payload.InAnsiString}}},
	})
	require.NoError(t, err)
	assert.Equal(t, 3, s.NumFields())
	vals, err := s.Decode(cat(le32(7), []byte("hi\x00")), 8, nil)
	require.NoError(t, err)
	assert.Equal(t, "a=7 s={\"b\":\"hi\"}", string(payload.AppendTextFields(nil, vals, " ")))

	for _, bad := range [][]payload.Field{
		{{Name: "n", InType: payload.InNull}},
		{{Name: "n", InType: 40}},
		{{Name: "n", InType: payload.InUInt8, Arity: 0x10}},
		{{Name: "n", InType: payload.InUInt8, Members: []payload.Field{{Name: "m", InType: payload.InUInt8}}}},
		{{Name: "n", InType: payload.InStruct, Arity: payload.Custom}},
	} {
		_, err := payload.NewSchema("X", bad)
		assert.ErrorIs(t, err, buffer.ErrMalformed, "%+v", bad)
	}
	assert.Panics(t, func() { payload.MustSchema("X", []payload.Field{{InType: payload.InNull}}) })
}
