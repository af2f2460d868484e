package payload

import (
	"encoding/binary"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneByOne renders a string a character at a time, as the appenders did
// before they took runs of plain characters: the reference for them.
func oneByOne(v Value, json bool) string {
	it := v.runes()
	var b []byte
	if json {
		b = append(b, '"')
	}
	for {
		r, ok := it.next()
		if !ok {
			break
		}
		if json {
			b = appendJSONRune(b, r)
		} else {
			b = appendTextRune(b, r)
		}
	}
	if json {
		b = append(b, '"')
	}
	return string(b)
}

func TestStringRunsRenderAsCharacters(t *testing.T) {
	utf16Field := &Field{Name: "S", InType: InUnicodeString}
	ansiField := &Field{Name: "S", InType: InAnsiString}
	pieces := []string{`C:\Windows\System32\`, "ntdll.dll", `"quoted"`, "tab\there", "\x01\x7f", "é", "日本", "\U0001F600", "abcd", "abcdefgh", "\n"}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		var sb strings.Builder
		for n := rng.Intn(12); n > 0; n-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := sb.String()
		units := utf16.Encode([]rune(s))
		if i%7 == 0 && len(units) > 0 {
			units[rng.Intn(len(units))] = 0xD800 // a lone surrogate
		}
		raw := make([]byte, 2*len(units))
		for k, u := range units {
			binary.LittleEndian.PutUint16(raw[2*k:], u)
		}
		for _, v := range []Value{
			{field: utf16Field, kind: KindString, flags: flagUTF16, raw: raw},
			{field: ansiField, kind: KindString, raw: []byte(s)},
		} {
			require.Equal(t, oneByOne(v, true), string(v.AppendJSON(nil)), "%q", s)
			require.Equal(t, oneByOne(v, false), string(v.AppendText(nil)), "%q", s)
		}
	}
	v := Value{field: utf16Field, kind: KindString, flags: flagUTF16, raw: []byte("C\x00:\x00\\\x00W\x00i\x00n\x00d\x00o\x00w\x00s\x00")}
	assert.Equal(t, `"C:\\Windows"`, string(v.AppendJSON(nil)))
}

func TestHexDigits(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 100000; i++ {
		x := rng.Uint64() >> uint(rng.Intn(65))
		for _, min := range []int{0, 1, 8, 12} {
			want := strings.ToUpper(strconv.FormatUint(x, 16))
			for len(want) < max(min, 1) {
				want = "0" + want
			}
			require.Equal(t, "0x"+want, string(appendHex(nil, x, min)), "%x %d", x, min)
		}
	}
}

func TestObjectKeys(t *testing.T) {
	s := MustSchema("E", []Field{
		{Name: "A", InType: InUInt8},
		{Name: `Odd"Name`, InType: InUInt8},
		{Name: "Flags", InType: InUInt8, Map: NewMap("M", true, []MapEntry{{1, "One"}, {2, "Two"}})},
	})
	vals, err := s.Decode([]byte{1, 2, 3}, 8, nil)
	require.NoError(t, err)
	const want = `{"A":1,"Odd\"Name":2,"Flags":3,"FlagsName":"One, Two"}`
	assert.Equal(t, want, string(AppendJSONObject(nil, vals)))
	// The first value, and one whose key was not made by NewSchema.
	computed := &Field{Name: "C", InType: InUInt8, Map: s.Fields[2].Map}
	vals = append([]Value{NewUint(computed, 2)}, vals...)
	assert.Equal(t, `{"C":2,"CName":"Two",`+want[1:], string(AppendJSONObject(nil, vals)))
	// A field renamed after NewSchema shows its new name.
	s.Fields[0].Name = "Renamed"
	assert.Equal(t, `{"C":2,"CName":"Two","Renamed":1,`+want[7:], string(AppendJSONObject(nil, vals)))
}

// TestHexArrays: arrays of pointers and hex integers render as each
// element would alone, whatever their widths, through the path that
// writes them in one step.
func TestHexArrays(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, c := range []struct {
		in  InType
		ptr int
	}{{InPointer, 8}, {InPointer, 4}, {InHexInt64, 8}, {InHexInt32, 8}} {
		for _, n := range []int{0, 1, 2, 5, 33} {
			var p []byte
			want := "["
			for i := range n {
				x := rng.Uint64() >> (rng.Intn(64))
				size := c.ptr
				if c.in == InHexInt32 {
					size = 4
				}
				p = binary.LittleEndian.AppendUint64(p, x)[:len(p)+size]
				if i > 0 {
					want += ","
				}
				want += string(appendQuotedHex(nil, x&widthMask(size)))
			}
			want += "]"
			s, err := NewSchema("E", []Field{{Name: "A", InType: c.in, Arity: FixedCount, Count: uint16(n)}})
			require.NoError(t, err)
			vals, err := s.Decode(p, c.ptr, nil)
			require.NoError(t, err)
			assert.Equal(t, `{"A":`+want+`}`, string(AppendJSONObject(nil, vals)), "%v, %d elements", c.in, n)
		}
	}
	// An element that is not a number of the array's field takes the
	// general path.
	kids := []Value{{field: &Field{InType: InPointer}, kind: KindUint, num: 1, raw: make([]byte, 8)}, {kind: KindString}}
	_, ok := appendHexArray(nil, kids, kids[0].field)
	assert.False(t, ok)
}
