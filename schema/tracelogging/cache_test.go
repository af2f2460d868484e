package tracelogging_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/payload"
	tl "github.com/etlkit/etlkit/schema/tracelogging"
)

func TestCacheHitsByBytes(t *testing.T) {
	c := tl.NewCache(0, 0)
	a := meta("Same", nil, f("x", 8))
	// The same event name with another layout is another schema, as with
	// providers that write every event with id 0.
	b := meta("Same", nil, f("x", 10))
	sa, err := c.Schema(a)
	require.NoError(t, err)
	sb, err := c.Schema(b)
	require.NoError(t, err)
	assert.NotSame(t, sa, sb)
	assert.Equal(t, payload.InUInt32, sa.Fields[0].InType)
	assert.Equal(t, payload.InUInt64, sb.Fields[0].InType)

	// A copy with extended-item padding after it hits the same entry.
	padded := append(append([]byte{}, a...), 0, 0, 0)
	again, err := c.Schema(padded)
	require.NoError(t, err)
	assert.Same(t, sa, again)
	hits, misses := c.Stats()
	assert.Equal(t, uint64(1), hits)
	assert.Equal(t, uint64(2), misses)
	assert.Equal(t, 2, c.Len())

	allocs := testing.AllocsPerRun(100, func() {
		if s, _ := c.Schema(padded); s != sa {
			t.Fatal("wrong schema")
		}
	})
	assert.Equal(t, 0.0, allocs)
}

func TestCacheKeepsErrors(t *testing.T) {
	var c tl.Cache // the zero value works
	bad := []byte{5, 0, 0, 'a', 'b'}
	_, err1 := c.Schema(bad)
	_, err2 := c.Schema(bad)
	assert.ErrorIs(t, err1, buffer.ErrMalformed)
	assert.Same(t, err1, err2, "the failure is parsed once")
	hits, misses := c.Stats()
	assert.Equal(t, uint64(1), hits)
	assert.Equal(t, uint64(1), misses)
}

func TestCacheBounds(t *testing.T) {
	c := tl.NewCache(3, 0)
	for i := 0; i < 10; i++ {
		_, err := c.Schema(meta(string(rune('A'+i)), nil, f("x", 8)))
		require.NoError(t, err)
		assert.LessOrEqual(t, c.Len(), 3)
	}
	assert.Equal(t, 3, c.Len())

	one := meta("E", nil, f("x", 8))
	c = tl.NewCache(100, 2*len(one)+1)
	for i := 0; i < 10; i++ {
		_, err := c.Schema(meta(string(rune('A'+i)), nil, f("x", 8)))
		require.NoError(t, err)
		assert.LessOrEqual(t, c.Len(), 2)
	}
	// A blob bigger than the whole budget is parsed but not kept.
	c = tl.NewCache(100, 4)
	s, err := c.Schema(one)
	require.NoError(t, err)
	assert.Equal(t, "E", s.Name)
	assert.Equal(t, 0, c.Len())
}

// A realistic event: a request-completed event with strings, numbers, a
// GUID, a time and a small array of structs.
func benchEvent() ([]byte, []byte) {
	items := fs{name: "Stages", in: 24 | 0x40, out: 2}
	m := meta("RequestCompleted", nil,
		f("Url", 1), fo("Status", 8, 0x0D), f("Bytes", 10), f("ActivityId", 15), f("Started", 17),
		fo("Remote", 14, 0x0A), fo("Elapsed", 12, -1), fo("Ok", 4, 3),
		items, f("Name", 2), f("Micros", 8),
	)
	p := cat(u16z("https://example.test/api/v1/items?id=42"), le32(0), le64(123456), guidBytes, le64(fileTime(when)),
		counted([]byte{2, 0, 0x01, 0xBB, 10, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0}), le64(0x3FF8000000000000), []byte{1},
		le16(3), []byte("dns\x00"), le32(120), []byte("connect\x00"), le32(3400), []byte("transfer\x00"), le32(9100))
	return m, p
}

func BenchmarkDecode(b *testing.B) {
	m, p := benchEvent()
	c := tl.NewCache(0, 0)
	var vals []payload.Value
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		s, err := c.Schema(m)
		if err != nil {
			b.Fatal(err)
		}
		vals, err = s.Decode(p, 8, vals[:0])
		if err != nil || len(vals) != 9 {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeAndRenderJSON(b *testing.B) {
	m, p := benchEvent()
	c := tl.NewCache(0, 0)
	var vals []payload.Value
	var out []byte
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		s, _ := c.Schema(m)
		vals, _ = s.Decode(p, 8, vals[:0])
		out = payload.AppendJSONObject(out[:0], vals)
	}
}

func TestBenchEventDecodes(t *testing.T) {
	m, p := benchEvent()
	s, err := tl.ParseSchema(m)
	require.NoError(t, err)
	vals, err := s.Decode(p, 8, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"Url":"https://example.test/api/v1/items?id=42","Status":0,"Bytes":123456,`+
		`"ActivityId":"01234567-89ab-cdef-0123-456789abcdef","Started":"2021-09-09T12:59:35.7912345Z",`+
		`"Remote":"10.1.2.3:443","Elapsed":1.5,"Ok":true,`+
		`"Stages":[{"Name":"dns","Micros":120},{"Name":"connect","Micros":3400},{"Name":"transfer","Micros":9100}]}`,
		string(payload.AppendJSONObject(nil, vals)))
}
