package nametable

import (
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
)

func u16(s string) []byte {
	var b []byte
	for _, c := range utf16.Encode([]rune(s)) {
		b = append(b, byte(c), byte(c>>8))
	}
	return b
}

func TestTable(t *testing.T) {
	var tb Table[int]
	tb.AddUTF16(1, u16("C:\\a"))
	tb.AddUTF16(2, u16("é"))
	n, ok := tb.Lookup(1)
	assert.True(t, ok)
	assert.Equal(t, "C:\\a", string(n))
	n, _ = tb.Lookup(2)
	assert.Equal(t, "é", string(n))
	_, ok = tb.Lookup(3)
	assert.False(t, ok)

	// The same name again costs nothing; a new one wins.
	size := len(tb.text)
	tb.AddUTF16(1, u16("C:\\a"))
	assert.Equal(t, size, len(tb.text))
	assert.Zero(t, testing.AllocsPerRun(100, func() { tb.AddUTF16(1, u16x) }))
	c := tb.Clone()
	c.AddUTF16(1, u16("b"))
	n, _ = c.Lookup(1)
	assert.Equal(t, "b", string(n))
	n, _ = tb.Lookup(1)
	assert.Equal(t, "C:\\a", string(n), "the copy learns on its own")

	// Past a limit the table starts afresh.
	small := Table[int]{MaxKeys: 2}
	small.AddUTF16(1, u16("a"))
	small.AddUTF16(2, u16("b"))
	small.AddUTF16(3, u16("c"))
	assert.Equal(t, 1, small.Len())
	_, ok = small.Lookup(1)
	assert.False(t, ok)
}

var u16x = u16("C:\\a")
