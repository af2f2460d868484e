package wpp_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/wpp"
)

// sampleArg is the value a test gives an argument of one item type and
// conversion, and the text expected of it, for 4- and 8-byte pointers.
type sampleArg struct {
	b4, b8       []byte
	text4, text8 string
}

func same(b []byte, text string) sampleArg { return sampleArg{b, b, text, text} }

// sampleArgs covers every (item type, conversion) pair the real TMFs use;
// the texts are written by hand from what printf and tracefmt print.
var sampleArgs = map[string]sampleArg{
	"ItemNTSTATUS/s":         same(u32(0xC0000001), "0xc0000001(STATUS_UNSUCCESSFUL)"),
	"ItemPtr/p":              {u32(0x8BE02120), u64(0xFFFF95820BE02120), "8BE02120", "FFFF95820BE02120"},
	"ItemString/s":           same(cstr("Zürich"), "Zürich"),
	"ItemLong/d":             same(i32(-5), "-5"),
	"ItemLong/04X":           same(u32(0x2A), "002A"),
	"ItemLong/02X":           same(u32(7), "07"),
	"ItemLong/u":             same(u32(0xFFFFFFFF), "4294967295"),
	"ItemWINERROR/s":         same(u32(5), "5(ERROR_ACCESS_DENIED)"),
	"ItemLong/X":             same(u32(0xABC), "ABC"),
	"ItemPWString/s":         same(counted(utf16le("wide")), "wide"),
	"ItemLongLong/I64d":      same(i64(-1234567890123), "-1234567890123"),
	"ItemListByte/s":         same(u8(2), "DPC"),
	"ItemLongLongXX/012I64X": same(u64(0xABCDEF12), "0000ABCDEF12"),
	"ItemLong/08X":           same(u32(0x1F), "0000001F"),
	"ItemLong/x":             same(u32(0xABC), "abc"),
}

// rawEntry is a message as this test reads it from the TMF text, apart
// from the parser under test.
type rawEntry struct {
	guid   uuid.UUID
	number uint16
	format string
	fn     string
	args   []rawArg
}

type rawArg struct {
	typ    string
	insert int
}

var (
	typevRE = regexp.MustCompile(`^#typev\s+\S+\s+(\d+)\s+"(.*)"\s+//.*FUNC=(.*)$`)
	argRE   = regexp.MustCompile(`^.*, (Item\w+)(?:\(.*\))? -- (\d+)$`)
	insRE   = regexp.MustCompile(`%(\d+)!([^!]*)!`)
)

// readRaw reads the sample TMFs with regular expressions: the first entry
// of each GUID and number.
func readRaw(t *testing.T, dir string) []rawEntry {
	files, err := filepath.Glob(filepath.Join(dir, "*.tmf"))
	require.NoError(t, err)
	seen := map[string]bool{}
	var out []rawEntry
	for _, f := range files {
		fh, err := os.Open(f)
		require.NoError(t, err)
		sc := bufio.NewScanner(fh)
		var guid uuid.UUID
		var cur *rawEntry
		for sc.Scan() {
			l := sc.Text()
			switch {
			case typevRE.MatchString(l):
				m := typevRE.FindStringSubmatch(l)
				n, _ := strconv.Atoi(m[1])
				cur = &rawEntry{guid: guid, number: uint16(n), format: m[2], fn: m[3]}
			case l == "}":
				k := cur.guid.String() + "/" + strconv.Itoa(int(cur.number))
				if !seen[k] {
					seen[k] = true
					out = append(out, *cur)
				}
				cur = nil
			case cur != nil && argRE.MatchString(l):
				m := argRE.FindStringSubmatch(l)
				n, _ := strconv.Atoi(m[2])
				cur.args = append(cur.args, rawArg{typ: m[1], insert: n})
			case len(l) > 36 && l[8] == '-' && !strings.HasPrefix(l, "//"):
				guid = uuid.MustParse(l[:36])
			}
		}
		require.NoError(t, sc.Err())
		fh.Close()
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].guid != out[j].guid {
			return out[i].guid.String() < out[j].guid.String()
		}
		return out[i].number < out[j].number
	})
	return out
}

// TestRenderSampleMessages renders every message of the real TMFs from a
// MESSAGE record built with etltest and read back with etl, with 4- and
// 8-byte pointers, against the text expected from the format string: %0
// and the spaces after it dropped, %!FUNC! the function, each insert the
// hand-written text of its type and conversion.
func TestRenderSampleMessages(t *testing.T) {
	dir := samples.TMFDir(t)
	set, err := wpp.Load(dir)
	require.NoError(t, err)
	raw := readRaw(t, dir)
	require.Len(t, raw, 2454)
	var msgs []message
	var want []string
	for _, ptr := range []int{4, 8} {
		for _, e := range raw {
			var args []byte
			texts := map[int]string{}
			for _, a := range e.args {
				conv := ""
				if m := regexp.MustCompile(`%` + strconv.Itoa(a.insert) + `!([^!]*)!`).FindStringSubmatch(e.format); m != nil {
					conv = m[1]
				}
				sa, ok := sampleArgs[a.typ+"/"+conv]
				require.True(t, ok, "no sample value for %s/%s", a.typ, conv)
				if ptr == 4 {
					args, texts[a.insert] = append(args, sa.b4...), sa.text4
				} else {
					args, texts[a.insert] = append(args, sa.b8...), sa.text8
				}
			}
			text := strings.TrimLeft(strings.TrimPrefix(e.format, "%0"), " ")
			text = strings.ReplaceAll(text, "%!FUNC!", e.fn)
			text = insRE.ReplaceAllStringFunc(text, func(s string) string {
				n, _ := strconv.Atoi(insRE.FindStringSubmatch(s)[1])
				return texts[n]
			})
			msgs = append(msgs, message{guid: e.guid, number: e.number, args: args, ptr: ptr})
			want = append(want, text)
		}
	}
	failures := 0
	readMessages(t, msgs, func(i int, r *record.Record) {
		m := set.Lookup(r.ProviderId, r.Message.MessageNumber)
		require.NotNil(t, m)
		vals, err := m.Decode(nil, r.UserData, r.PointerSize())
		require.NoError(t, err, m.Origin)
		require.Len(t, vals, len(m.Args))
		got := string(m.AppendText(nil, vals, nil))
		if got != want[i] && failures < 10 {
			failures++
			t.Errorf("%s (%d-byte pointers):\n got  %q\n want %q", m.Origin, msgs[i].ptr, got, want[i])
		}
	})
}

// TestWorkedExample is the message the shared notes show decoded from a
// real trace by another reader, `[BthPS3PSMEvtIoInternalDeviceControl]>>
// Bulk IN transfer (PipeHandle: 0xFFFF95820BE02120)`. That reader adds 0x
// before %p values; Microsoft's printf, which FormatMessage and so
// tracefmt use, writes none (which is why the TMFs write 0x%10!p! 802
// times). Here too with the tracefmt prefix.
func TestWorkedExample(t *testing.T) {
	set, err := wpp.Load(filepath.Join(samples.TMFDir(t), "324ed36d-6949-3aa1-d581-3e2dc9652ec2.tmf"))
	require.NoError(t, err)
	g := uuid.MustParse("324ed36d-6949-3aa1-d581-3e2dc9652ec2")
	readMessages(t, []message{{guid: g, number: 13, args: u64(0xFFFF95820BE02120), ptr: 8}}, func(_ int, r *record.Record) {
		m := set.Lookup(r.ProviderId, r.Message.MessageNumber)
		require.NotNil(t, m)
		vals, err := m.Decode(nil, r.UserData, r.PointerSize())
		require.NoError(t, err)
		assert.Equal(t, "[BthPS3PSMEvtIoInternalDeviceControl]>> Bulk IN transfer (PipeHandle: FFFF95820BE02120)",
			string(m.AppendText(nil, vals, nil)))
		p := &wpp.Prefix{CPU: uint32(r.ProcessorNumber), ThreadID: r.ThreadId, ProcessID: r.ProcessId, Time: r.TimeStamp()}
		assert.Equal(t, "[1]01F0.00AB::"+r.TimeStamp().Format("2006-01-02T15:04:05.0000000Z")+
			" [BthPS3PSM] [BthPS3PSMEvtIoInternalDeviceControl]>> Bulk IN transfer (PipeHandle: FFFF95820BE02120)",
			string(m.AppendLine(nil, vals, p, nil)))
	})
}
