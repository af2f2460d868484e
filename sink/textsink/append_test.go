package textsink

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/etlkit/etlkit/payload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendHelpers(t *testing.T) {
	assert.Equal(t, "0x0000000000000005", string(appendHex16(nil, 5)))
	assert.Equal(t, "0x8000000000000000", string(appendHex16(nil, 1<<63)))
	assert.Equal(t, "0x0", string(appendHexShort(nil, 0)))
	assert.Equal(t, "0x400000", string(appendHexShort(nil, 0x400000)))
	assert.Equal(t, "00ff10", string(appendHexBytes(nil, []byte{0, 0xff, 0x10})))
	assert.Equal(t, `"a,b"`, string(appendCSVString(nil, "a,b")))
	assert.Equal(t, `"say ""hi"""`, string(appendCSVString(nil, `say "hi"`)))
	assert.Equal(t, "plain", string(appendCSVString(nil, "plain")))
	assert.Equal(t, "\"two\r\nlines\"", string(appendCSVBytes(nil, []byte("two\r\nlines"))))
	assert.Equal(t, "", string(appendCSVString(nil, "")))
	assert.Equal(t, "a&amp;b&lt;c&gt;&quot;&#x0a;\uFFFD", string(appendXMLText(nil, "a&b<c>\"\n\x01")))
}

func TestAppendHexBytesEveryLength(t *testing.T) {
	b := make([]byte, 300)
	for i := range b {
		b[i] = byte(i * 7)
	}
	for n := 0; n <= len(b); n++ {
		assert.Equal(t, hex.EncodeToString(b[:n]), string(appendHexBytes([]byte("x"), b[:n]))[1:], n)
	}
}

func TestTimeCacheMatchesAppendTime(t *testing.T) {
	var c timeCache
	base := time.Date(2024, 1, 17, 21, 19, 59, 0, time.UTC)
	for _, d := range []time.Duration{0, 100, 1_234_500, 999_999_900, time.Second, time.Second + 100, 3 * time.Second, 24 * time.Hour, 24*time.Hour + 123_456_700} {
		tm := base.Add(d)
		assert.Equal(t, string(payload.AppendTime(nil, tm)), string(c.append([]byte("x"), tm))[1:], d)
	}
}

func TestNumberFormatting(t *testing.T) {
	for _, v := range []uint64{0, 9, 10, 99, 100, 101, 576, 909, 999, 1000, 1005, 4032, 9999, 10000, 12345, 99999, 100000, 1<<32 - 1,
		1944427877538, 133500000000000000, 1<<63 - 1, 1<<64 - 1} {
		assert.Equal(t, "x"+strconv.FormatUint(v, 10), string(appendUint([]byte("x"), v)))
		assert.Equal(t, fmt.Sprintf("x0x%016x", v), string(appendHex16([]byte("x"), v)))
	}
	for _, v := range []int64{0, -1, -42, -99, -100, 1944427877538, -1 << 63, 1<<63 - 1} {
		var c rawCache
		assert.Equal(t, "x"+strconv.FormatInt(v, 10), string(c.append([]byte("x"), v)))
	}
}

// The raw timestamp cache gives strconv's digits whatever the order of the
// values: rising in small steps (its use), crossing a power of ten,
// jumping back, small and negative.
func TestRawCacheMatchesStrconv(t *testing.T) {
	var c rawCache
	values := []int64{0, 9999, 10000, 10001, 99999, 100000, -1, -123456789, 123456789, 5}
	for v := int64(1942903333); v < 1942903333+50000; v += 997 {
		values = append(values, v)
	}
	for v := int64(9999990000); v < 10000020000; v += 3001 {
		values = append(values, v)
	}
	values = append(values, 1<<62, 1<<63-1, -1<<63, 1942903333)
	for _, v := range values {
		assert.Equal(t, "x"+strconv.FormatInt(v, 10), string(c.append([]byte("x"), v)), "%d", v)
	}
}

// The remembered names give the members the names make, whatever came
// before: other names in the same slot, the same text in another string,
// one of the two names empty.
func TestQuotedNamesFollowTheNames(t *testing.T) {
	var q quotedNames
	var names []string
	for i := range 200 {
		names = append(names, fmt.Sprintf("Name%d/\"q\"", i%150))
	}
	names = append(names, "")
	for i := range 5000 {
		p, e := names[(i*7)%len(names)], names[(i*13+5)%len(names)]
		if p == "" && e == "" {
			continue
		}
		want := "x"
		if p != "" {
			want += `,"ProviderName":` + strconv.Quote(p)
		}
		if e != "" {
			want += `,"EventName":` + strconv.Quote(e)
		}
		require.Equal(t, want, string(q.append([]byte("x"), p, e)))
	}
}
