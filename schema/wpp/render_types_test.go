package wpp_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/wpp"
)

// typesTMF has a message for each group of item types, for the extended
// formats (which tracewpp turns into those types with %N!s!: %!STATUS!
// into ItemNTSTATUS, %!irql! into ItemListByte(Low,APC,DPC), %!bool! into
// ItemListLong(false,true) …), the message metadata and FormatMessage's
// escapes, and printf's flags.
const typesTMF = `// PDB:  types.pdb
11111111-2222-3333-4444-555555555555 typesdemo // SRC=types.c MJ=MAJ MN=MIN
#typev types_c10 10 "%0 c=%10!c! uc=%11!u! sh=%12!hd! l=%13!d! ll=%14!I64d! ull=%15!I64u! x=%16!I64x! XX=%17!I64X! o=%18!I64o! d=%19!f! p=%20!p! id=%21!Iu!64" //   LEVEL=TRACE_LEVEL_INFORMATION FLAGS=FLAG_ONE FUNC=Numbers
{
c, ItemChar -- 10
uc, ItemUChar -- 11
sh, ItemShort -- 12
l, ItemLong -- 13
ll, ItemLongLong -- 14
ull, ItemULongLong -- 15
x, ItemLongLongX -- 16
xx, ItemLongLongXX -- 17
o, ItemLongLongO -- 18
d, ItemDouble -- 19
p, ItemPtr -- 20
n, ItemPtr -- 21
}
#typev types_c20 11 "%0 GUID=%10!s! CLSID=%11!s! LIBID=%12!s! IID=%13!s!" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=FLAG_ONE FUNC=Guids
{
&g, ItemGuid -- 10
&c, ItemCLSID -- 11
&l, ItemLIBID -- 12
&i, ItemIID -- 13
}
#typev types_c30 12 "%0 a=%10!s! ra=%11!s! w=%12!s! rw=%13!s! ps=%14!s! pw=%15!s!" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=FLAG_ONE FUNC=Strings
{
a, ItemString -- 10
ra, ItemRString -- 11
w, ItemWString -- 12
rw, ItemRWString -- 13
&ps, ItemPString -- 14
&pw, ItemPWString -- 15
}
#typev types_c40 13 "%0 sid=%10!s! null=%11!s! dump=%12!s! v6=%13!s! cc=%14!s! ip=%15!s! port=%16!s!" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=FLAG_ONE FUNC=Network
{
sid, ItemSid -- 10
nosid, ItemSid -- 11
WppBinary(buf,3), ItemHEXDump -- 12
&a6, ItemIPV6Addr -- 13
fourcc, ItemChar4 -- 14
a4, ItemIPAddr -- 15
port, ItemPort -- 16
}
#typev types_c50 14 "%0 status=%10!s! win=%11!s! hr=%12!s! ndis=%13!s! oid=%14!s! unknown=%15!s!" //   LEVEL=TRACE_LEVEL_ERROR FLAGS=FLAG_TWO FUNC=Codes
{
status, ItemNTSTATUS -- 10
err, ItemWINERROR -- 11
hr, ItemHRESULT -- 12
ns, ItemNDIS_STATUS -- 13
oid, ItemNDIS_OID -- 14
other, ItemNTSTATUS -- 15
}
#typev types_c60 15 "%0 ts=%10!s! wait=%11!s! due=%12!s! delta=%13!s!" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=FLAG_ONE FUNC=Times
{
ts, ItemTimestamp -- 10
wait, ItemWaitTime -- 11
due, ItemWaitTime -- 12
delta, ItemTimeDelta -- 13
}
#typev types_c70 16 "%0 irql=%10!s! bool=%11!s! short=%12!s! setb=%13!s! sets=%14!s! setl=%15!s! enum=%16!s! fenum=%17!s! outside=%18!s!" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=FLAG_ONE FUNC=Lists
{
KeGetCurrentIrql(), ItemListByte(Low,APC,DPC) -- 10
b, ItemListLong(false,true) -- 11
s, ItemListShort(A,B) -- 12
rw, ItemSetByte(R,W,X) -- 13
none, ItemSetShort(a,b) -- 14
two, ItemSetLong(one,two) -- 15
e, ItemEnum(_E) -- 16
f, ItemFlagsEnum(_F) -- 17
high, ItemListByte(Low,APC,DPC) -- 18
}
#typev types_c80 17 "%0 [%!FUNC!] %!LEVEL! %!FLAGS! %!FILE! %!LINE! %!COMPNAME! %!SUBCOMP! %!x! %!NOPE! 100%% %!%n%t|%r|% %. %12 %5!d!" //   LEVEL=TRACE_LEVEL_ERROR FLAGS=FLAG_TWO x=custom FUNC=Meta
{
}
#typev types_c90 18 "%0 printf: [%10!5d!] [%10!-5d!] [%10!05d!] [%10!+d!] [%11!#x!] [%11!#o!] [%12!.3s!] [%12!8s!] [%13!e!] [%13!.2f!] [%13!g!] [%10!.0d!] [%14!C!] [%15!08X!]" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=FLAG_ONE FUNC=Printf
{
v, ItemLong -- 10
u, ItemLong -- 11
s, ItemString -- 12
d, ItemDouble -- 13
wc, ItemShort -- 14
neg, ItemLong -- 15
}
#typev types_c95 19 "no prefix %10!s!" //   LEVEL=TRACE_LEVEL_VERBOSE FUNC=NoPrefix
{
v, ItemLong -- 10
}
#typev types_c99 20 "%0 unknown %10!s! %11!d!" //   LEVEL=TRACE_LEVEL_VERBOSE FUNC=Unknown
{
f, ItemFloat -- 10
n, ItemLong -- 11
}
`

var typesGUID = uuid.MustParse("11111111-2222-3333-4444-555555555555")

// filetime is t as a FILETIME.
func filetime(t time.Time) uint64 {
	return uint64(t.Unix()+11644473600)*10_000_000 + uint64(t.Nanosecond()/100)
}

type typesCase struct {
	number       uint16
	args         func(ptr int) []byte
	text4, text8 string
}

var stamp = time.Date(2024, 5, 1, 12, 0, 0, 123456700, time.UTC)

var typesCases = []typesCase{
	{number: 10, args: func(ptr int) []byte {
		return cat(u8('A'), u8(200), u16(0xFFFE), i32(-123456), i64(-9000000000), u64(18446744073709551615),
			u64(0xDEADBEEF), u64(0xDEADBEEF), u64(8), u64(0x4004000000000000), ptrOf(ptr, 0x00007FF612345678), ptrOf(ptr, 77))
	},
		text4: "c=A uc=200 sh=-2 l=-123456 ll=-9000000000 ull=18446744073709551615 x=deadbeef XX=DEADBEEF o=10 d=2.500000 p=12345678 id=7764",
		text8: "c=A uc=200 sh=-2 l=-123456 ll=-9000000000 ull=18446744073709551615 x=deadbeef XX=DEADBEEF o=10 d=2.500000 p=00007FF612345678 id=7764"},
	{number: 11, args: func(int) []byte {
		return cat(guidBytes("01234567-89ab-cdef-0123-456789abcdef"), guidBytes("00020400-0000-0000-c000-000000000046"),
			guidBytes("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"), guidBytes("00000000-0000-0000-c000-000000000046"))
	},
		text8: "GUID=01234567-89ab-cdef-0123-456789abcdef CLSID=00020400-0000-0000-c000-000000000046 LIBID=aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee IID=00000000-0000-0000-c000-000000000046"},
	{number: 12, args: func(int) []byte {
		return cat(cstr("ansi"), []byte{'Z', 0xFC, 'r', 'i', 'c', 'h', 0}, wstr("wide"), wstr("\U0001D11Ex"),
			counted([]byte("abc")), counted(utf16le("hi")))
	},
		text8: "a=ansi ra=Zürich w=wide rw=\U0001D11Ex ps=abc pw=hi"},
	{number: 13, args: func(int) []byte {
		sid := cat([]byte{1, 5, 0, 0, 0, 0, 0, 5}, u32(21), u32(1), u32(2), u32(3), u32(500))
		return cat(sid, cstr("NULL"), counted([]byte{0x01, 0xAB, 0xFF}),
			[]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, []byte("RIFF"), []byte{192, 168, 1, 20}, []byte{0x01, 0xBB})
	},
		text8: "sid=S-1-5-21-1-2-3-500 null=NULL dump=01 AB FF v6=2001:db8::1 cc=RIFF ip=192.168.1.20 port=443"},
	{number: 14, args: func(int) []byte {
		return cat(u32(0x8000000F), u32(2), u32(0x80070005), u32(0xC0010017), u32(0x00010101), u32(0x12345678))
	},
		text8: "status=0x8000000f(STATUS_DEVICE_POWERED_OFF) win=2(ERROR_FILE_NOT_FOUND) hr=0x80070005(E_ACCESSDENIED) ndis=0xc0010017 oid=0x10101 unknown=0x12345678"},
	{number: 15, args: func(int) []byte {
		return cat(u64(filetime(stamp)), i64(-15_000_000), u64(filetime(stamp.Add(time.Hour))), i64(90_061_001))
	},
		text8: "ts=2024-05-01T12:00:00.1234567Z wait=-0~00:00:01.500 due=2024-05-01T13:00:00.1234567Z delta=1~01:01:01.001"},
	{number: 16, args: func(int) []byte {
		return cat(u8(1), u32(1), u16(7), u8(5), u16(0), u32(0x10002), u32(3), u32(6), u8(200))
	},
		text8: "irql=APC bool=true short=7 setb=R|X sets=0 setl=two|0x10000 enum=3 fenum=6 outside=200"},
	{number: 17, args: func(int) []byte { return nil },
		text8: "[Meta] TRACE_LEVEL_ERROR FLAG_TWO types.c 80 MAJ MIN custom %!NOPE! 100% !\r\n\t|\r| . %12 0"},
	{number: 18, args: func(int) []byte {
		return cat(i32(42), u32(255), cstr("abcdef"), u64(0x40934A456D5CFAAD), u16(0x263A), i32(-2))
	},
		text8: "printf: [   42] [42   ] [00042] [+42] [0xff] [0377] [abc] [  abcdef] [1.234568e+03] [1234.57] [1234.57] [42] [☺] [FFFFFFFE]"},
	{number: 19, args: func(int) []byte { return i32(7) }, text8: "no prefix 7"},
}

func loadTypes(t *testing.T) *wpp.Set {
	f := wpp.ParseTMF([]byte(typesTMF), "types.tmf")
	require.Empty(t, f.Warnings)
	s := wpp.NewSet()
	s.AddFile(f)
	require.Equal(t, 11, s.Len())
	return s
}

// TestRenderTypes renders every item type, the extended formats, the
// metadata inserts, FormatMessage's escapes and printf's flags from
// etltest-built records, with 4- and 8-byte pointers, against text
// written by hand.
func TestRenderTypes(t *testing.T) {
	set := loadTypes(t)
	var msgs []message
	var want []string
	for _, ptr := range []int{4, 8} {
		for _, c := range typesCases {
			msgs = append(msgs, message{guid: typesGUID, number: c.number, args: c.args(ptr), ptr: ptr})
			w := c.text8
			if ptr == 4 && c.text4 != "" {
				w = c.text4
			}
			want = append(want, w)
		}
	}
	readMessages(t, msgs, func(i int, r *record.Record) {
		m := set.Lookup(r.ProviderId, r.Message.MessageNumber)
		require.NotNil(t, m)
		vals, err := m.Decode(nil, r.UserData, r.PointerSize())
		require.NoError(t, err, m.Name)
		require.Len(t, vals, len(m.Args))
		for j := range vals {
			assert.Equal(t, m.Args[j].Name, vals[j].Name())
		}
		assert.Equal(t, want[i], string(m.AppendText(nil, vals, nil)), "%s, %d-byte pointers", m.Name, msgs[i].ptr)
		// The line from the values Values makes, which hold the text, is
		// the line rendered from the arguments.
		p := wpp.PrefixOf(r)
		var text []byte
		described, err := m.Values(nil, &text, r.UserData, r.PointerSize(), &p)
		require.NoError(t, err)
		assert.Equal(t, want[i], string(text))
		assert.Equal(t, string(m.AppendLine(nil, vals, &p, nil)), string(m.AppendLine(nil, described, &p, nil)))
	})
}

// TestRenderLine is the tracefmt line: the prefix where the format has
// %0, none where it has not, and a prefix of the user's.
func TestRenderLine(t *testing.T) {
	set := loadTypes(t)
	msgs := []message{{guid: typesGUID, number: 11, args: typesCases[1].args(8), ptr: 8}, {guid: typesGUID, number: 19, args: i32(7), ptr: 8}}
	var lines, custom []string
	readMessages(t, msgs, func(i int, r *record.Record) {
		m := set.Lookup(r.ProviderId, r.Message.MessageNumber)
		vals, err := m.Decode(nil, r.UserData, r.PointerSize())
		require.NoError(t, err)
		p := &wpp.Prefix{CPU: uint32(r.ProcessorNumber), ThreadID: r.ThreadId, ProcessID: r.ProcessId, Time: stamp, Sequence: r.Message.Sequence}
		lines = append(lines, string(m.AppendLine(nil, vals, p, nil)))
		custom = append(custom, string(m.AppendLine(nil, vals, p, wpp.CompilePrefix("%2!s!#%7!u! %!LEVEL! %!FUNC!|%9!-3d!|%8!x!: "))))
	})
	assert.Equal(t, []string{
		"[1]01F0.00AB::2024-05-01T12:00:00.1234567Z [typesdemo] GUID=01234567-89ab-cdef-0123-456789abcdef CLSID=00020400-0000-0000-c000-000000000046 LIBID=aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee IID=00000000-0000-0000-c000-000000000046",
		"no prefix 7",
	}, lines)
	assert.Equal(t, "types_c20#0 TRACE_LEVEL_VERBOSE Guids|1  |1f0:  GUID=01234567-89ab-cdef-0123-456789abcdef CLSID=00020400-0000-0000-c000-000000000046 LIBID=aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee IID=00000000-0000-0000-c000-000000000046", custom[0])
}

// TestDecodeShort checks what a record holds less of than its TMF says:
// the arguments before the damage decode, the rest of the bytes are kept
// as TrailingData, the error names the argument, and the text marks what
// is missing. An unknown type stops decoding the same way; bytes after
// the last argument are kept too.
func TestDecodeShort(t *testing.T) {
	set := loadTypes(t)
	full := typesCases[0].args(8)
	cut := full[:1+1+2+4+3] // inside ll
	unknown := cat(u32(0x3F800000), i32(5))
	extra := cat(i32(7), []byte{0xEE, 0xFF})
	msgs := []message{{guid: typesGUID, number: 10, args: cut, ptr: 8}, {guid: typesGUID, number: 20, args: unknown, ptr: 8},
		{guid: typesGUID, number: 19, args: extra, ptr: 8}, {guid: typesGUID, number: 10, args: nil, ptr: 8}}
	readMessages(t, msgs, func(i int, r *record.Record) {
		m := set.Lookup(r.ProviderId, r.Message.MessageNumber)
		vals, err := m.Decode(nil, r.UserData, r.PointerSize())
		var ae *wpp.ArgError
		require.True(t, errors.As(err, &ae), "%v", err)
		text := string(m.AppendText(nil, vals, nil))
		switch i {
		case 0:
			assert.True(t, errors.Is(err, buffer.ErrTruncated))
			assert.Equal(t, "ll", ae.Arg)
			assert.Equal(t, 4, ae.Index)
			assert.Equal(t, 8, ae.Offset)
			require.Len(t, vals, 5)
			assert.Equal(t, payload.TrailingData, vals[4].Field())
			assert.Equal(t, []byte{0x00, 0xe6, 0x8e}, vals[4].Bytes())
			assert.Equal(t, "c=A uc=200 sh=-2 l=-123456 ll=<missing> ull=<missing> x=<missing> XX=<missing> o=<missing> d=<missing> p=<missing> id=<missing>64", text)
		case 1:
			assert.True(t, errors.Is(err, wpp.ErrUnknownType))
			assert.Equal(t, "f", ae.Arg)
			require.Len(t, vals, 1)
			assert.Equal(t, unknown, vals[0].Bytes())
			assert.Equal(t, "unknown <missing> <missing>", text)
		case 2:
			assert.True(t, errors.Is(err, payload.ErrTrailingData))
			require.Len(t, vals, 2)
			assert.Equal(t, []byte{0xEE, 0xFF}, vals[1].Bytes())
			assert.Equal(t, "no prefix 7", text)
		case 3:
			assert.True(t, errors.Is(err, buffer.ErrTruncated))
			assert.Empty(t, vals)
			assert.True(t, strings.HasPrefix(text, "c=<missing> uc=<missing>"), text)
		}
	})
}

// TestDecodeValues checks the values of the payload model: JSON names
// status codes and labels beside their numbers, and the metadata fields.
func TestDecodeValues(t *testing.T) {
	set := loadTypes(t)
	m := set.Lookup(typesGUID, 14)
	vals, err := m.Decode(nil, typesCases[4].args(8), 8)
	require.NoError(t, err)
	assert.Equal(t, `{"status":"0x8000000F","statusName":"STATUS_DEVICE_POWERED_OFF","err":2,"errName":"ERROR_FILE_NOT_FOUND","hr":"0x80070005","hrName":"E_ACCESSDENIED","ns":"0xC0010017","oid":"0x10101","other":"0x12345678"}`,
		string(payload.AppendJSONObject(nil, vals)))
	m = set.Lookup(typesGUID, 16)
	vals, err = m.Decode(nil, typesCases[6].args(8), 8)
	require.NoError(t, err)
	assert.Equal(t, `{"KeGetCurrentIrql()":1,"KeGetCurrentIrql()Name":"APC","b":1,"bName":"true","s":7,"rw":5,"rwName":"R|X","none":0,"two":65538,"twoName":"two|0x10000","e":3,"f":6,"high":200}`,
		string(payload.AppendJSONObject(nil, vals)))
	m = set.Lookup(typesGUID, 13)
	vals, err = m.Decode(nil, typesCases[3].args(8), 8)
	require.NoError(t, err)
	assert.Equal(t, `{"sid":"S-1-5-21-1-2-3-500","nosid":"NULL","WppBinary(buf,3)":"0x01ABFF","&a6":"2001:db8::1","fourcc":"RIFF","a4":"192.168.1.20","port":443}`,
		string(payload.AppendJSONObject(nil, vals)))
}

// TestDecodeAllocs: decoding into a slice with room allocates nothing.
func TestDecodeAllocs(t *testing.T) {
	set := loadTypes(t)
	m := set.Lookup(typesGUID, 10)
	args := typesCases[0].args(8)
	dst := make([]payload.Value, 0, 32)
	var text []byte
	allocs := testing.AllocsPerRun(100, func() {
		vals, _ := m.Decode(dst[:0], args, 8)
		text = m.AppendText(text[:0], vals, nil)
	})
	assert.Zero(t, allocs)
}
