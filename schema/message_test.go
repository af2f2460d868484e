package schema_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema"
)

func TestAppendMessage(t *testing.T) {
	colors := payload.NewMap("Color", false, []payload.MapEntry{{Value: 2, Name: "Blue"}})
	u32 := payload.Field{Name: "N", InType: payload.InUInt32}
	i32 := payload.Field{Name: "I", InType: payload.InInt32}
	str := payload.Field{Name: "S", InType: payload.InAnsiString}
	mapped := payload.Field{Name: "C", InType: payload.InUInt32, Map: colors}
	// NewUint and NewInt values have no width of their own, so the
	// formats see them as 64-bit.
	vals := []payload.Value{
		payload.NewUint(&u32, 255),               // %1
		payload.NewInt(&i32, -42),                // %2
		payload.NewString(&str, []byte("héllo")), // %3
		payload.NewUint(&mapped, 2),              // %4
		payload.NewUint(&u32, 0),                 // %5
		payload.NewUint(&u32, 65),                // %6
		payload.NewUint(&u32, 7), payload.NewUint(&u32, 8), payload.NewUint(&u32, 9),
		payload.NewUint(&u32, 10), // %10
	}
	for _, c := range []struct{ msg, want string }{
		{"plain text", "plain text"},
		{"%1 and %2 and %3", "255 and -42 and héllo"},
		{"%4 / %4!d! / %4!s!", "Blue / 2 / Blue"},
		{"%1!x! %1!X! %1!#x! %1!08x! %1!#010x! %1!o! %1!#o!", "ff FF 0xff 000000ff 0x000000ff 377 0377"},
		{"[%2!5d!] [%2!-5d!] [%2!05d!] [%1!+d!] [%1! d!] [%1!.5d!]", "[  -42] [-42  ] [-0042] [+255] [ 255] [00255]"},
		{"[%3!8s!] [%3!-8s!] [%3!.2s!] [%3!S!] [%3!ws!] [%3!hs!]", "[   héllo] [héllo   ] [hé] [héllo] [héllo] [héllo]"},
		{"%1!lu! %1!I64u! %1!I32d! %1!hd! %1!lld!", "255 255 255 255 255"},
		{"%6!c! %5!.0d!|", "A |"},
		{"%1!hhu! %1!zu! %1!ju! %1!tu! %2!Ld!", "255 255 255 255 -42"}, // C99 size prefixes read as the value's size
		{"%1!p! %1!.4p! %1!#p!", "00000000000000FF 00FF 00000000000000FF"},
		{"%1!q! %1!5! %1!-!", "255 255 255"},
		{"%1!d", "255!d"},
		{"%10 %100 %11 %99", "10 100  "},
		{"line%nbreak%rcr%ttab %% %. %! % x", "line\nbreak\rcr\ttab % . !  x"},
		{"stop%0here", "stop"},
		{"%z%", "%z%"},
		{"%", "%"},
	} {
		got := string(schema.AppendMessage([]byte("> "), c.msg, vals))
		assert.Equal(t, "> "+c.want, got, c.msg)
	}
	assert.Equal(t, "no %1 inserts: ", string(schema.AppendMessage(nil, "no %%1 inserts: %1", nil)))
	dst := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		dst = schema.AppendMessage(dst[:0], "%1!08x! %3 %4 [%2!-6d!]", vals)
	})
	assert.Zero(t, allocs)
}

// TestMessageIsBounded: a message repeating a long insert, or asking for
// wide padding, stops at MaxMessage bytes.
func TestMessageIsBounded(t *testing.T) {
	long := payload.Field{Name: "L", InType: payload.InAnsiString}
	vals := []payload.Value{payload.NewString(&long, []byte(strings.Repeat("é", 500)))}
	got := schema.AppendMessage([]byte("> "), strings.Repeat("%1", 10000), vals)
	assert.LessOrEqual(t, len(got), 2+schema.MaxMessage)
	assert.Greater(t, len(got), 2+schema.MaxMessage-4)
	assert.True(t, strings.HasSuffix(string(got), "é…"), "cut at a character: %q", got[len(got)-8:])
	assert.True(t, utf8.Valid(got))

	n := payload.Field{Name: "N", InType: payload.InUInt32}
	vals = []payload.Value{payload.NewUint(&n, 5)}
	assert.Equal(t, "[5]", string(schema.AppendMessage(nil, "[%1!100000d!]", vals)), "a width too wide is not a format")
	assert.Equal(t, "["+strings.Repeat(" ", 63)+"5]", string(schema.AppendMessage(nil, "[%1!64d!]", vals)))
}
