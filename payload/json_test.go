package payload

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendJSONString: every string gives valid JSON that reads back as
// the string, invalid UTF-8 as U+FFFD; the escapes are those written.
func TestAppendJSONString(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`quo"te`, `"quo\"te"`},
		{`back\slash`, `"back\\slash"`},
		{"tab\tnl\ncr\r", `"tab\tnl\ncr\r"`},
		{"\x00\x1f\x7f", `"\u0000\u001f` + "\x7f" + `"`},
		{"é ✓ 😀", `"é ✓ 😀"`},
		{"bad \xff\xfe utf8", `"bad \ufffd\ufffd utf8"`},
		{"\u2028\u2029", `"\u2028\u2029"`},
	} {
		b := AppendJSONString(nil, c.in)
		assert.Equal(t, c.out, string(b), "%q", c.in)
		var back string
		require.NoError(t, json.Unmarshal(b, &back), "%q -> %s", c.in, b)
		assert.Equal(t, strings.ToValidUTF8(c.in, "\uFFFD"), strings.ReplaceAll(back, "\uFFFD\uFFFD", "\uFFFD"), "%q", c.in)
	}
}

// TestJSONNamesAndValuesEscapeAlike: a field name and a string value with
// the same text come out the same.
func TestJSONNamesAndValuesEscapeAlike(t *testing.T) {
	for _, s := range []string{"a\u2028b", "x\"y", "tab\t", "é"} {
		name := string(appendJSONName(nil, s))
		assert.Equal(t, string(AppendJSONString(nil, s)), name, "%q", s)
		var value []byte
		value = appendJSONString(value, runeIter{b: []byte(s)})
		assert.Equal(t, name, string(value), "%q", s)
	}
}
