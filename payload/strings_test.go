package payload

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/header"
)

// wide is s as UTF-16LE, without a terminator.
func wide(s string) []byte { return header.AppendUTF16(nil, s, false) }

func cat(parts ...[]byte) []byte { return slices.Concat(parts...) }

// stringsOf is every run NextString finds, as text.
func stringsOf(b []byte) []string {
	var out []string
	for s := range Strings(b) {
		out = append(out, string(AppendString(nil, b, s)))
	}
	return out
}

func TestStringsFound(t *testing.T) {
	nul := []byte{0}
	for _, c := range []struct {
		name string
		b    []byte
		want []string
	}{
		{"none", []byte{1, 2, 3, 0, 0, 0xFF}, nil},
		{"empty", nil, nil},
		{"ascii at both edges", cat([]byte("abcd"), []byte{0, 1, 0x80}, []byte("wxyz")), []string{"abcd", "wxyz"}},
		{"utf16 at both edges", cat(wide("C:\\Windows"), []byte{0, 0, 7, 0x90}, wide("tail")), []string{`C:\Windows`, "tail"}},
		{"utf16 cut by the end", cat([]byte{9, 9}, wide("Service"))[:2+13], []string{"Servic"}},
		{"utf16 with one byte of a last character", cat(wide("ABCD"), []byte{'E'}), []string{"ABCD"}},
		{"ascii cut by the end", cat([]byte{1, 2, 3}, []byte("HKLM\\Software")), []string{`HKLM\Software`}},
		{"short runs are not strings", cat([]byte("abc"), []byte{1}, wide("xyz"), nul, []byte("de")), nil},
		{"a NUL-terminated string, then a UTF-16 one", cat([]byte("svchost.exe"), nul, wide("svchost -k"), nul, nul),
			[]string{"svchost.exe", "svchost -k"}},
		{"exactly four", cat([]byte{1}, []byte("abcd"), []byte{1}, wide("wxyz"), nul), []string{"abcd", "wxyz"}},
		{"utf16 at an odd offset", cat([]byte{5}, wide("Explorer.exe"), nul, nul), []string{"Explorer.exe"}},
		{"ascii then only with its last character utf16", cat([]byte("Name"), wide("Valu"), nul, nul), []string{"Name", "Valu"}},
		{"ascii then utf16 at once reads as NUL-terminated", cat([]byte("Name"), wide("Value"), nul, nul), []string{"NameV", "alue"}},
		{"short ascii then utf16", cat([]byte("ab"), wide("cdef")), []string{"cdef"}},
		{"short NUL-terminated ascii then utf16", cat([]byte("ab"), nul, wide(`C:\x`)), []string{`C:\x`}},
		{"utf16 then ascii", cat(wide("Start"), []byte("Stop!")), []string{"Start", "Stop!"}},
		{"latin-1 in utf16", cat(wide("Microsoft® Windows® Café"), nul, nul), []string{"Microsoft® Windows® Café"}},
		{"other utf16 breaks the run", cat(wide("abcd€efgh"), nul, nul), []string{"abcd", "efgh"}},
		{"high ascii bytes break a run", []byte("abcd\xC3\xA9fghi"), []string{"abcd", "fghi"}},
		{"control characters break a run", []byte("abcd\tefgh\nijkl"), []string{"abcd", "efgh", "ijkl"}},
		{"mixed record", cat([]byte{0x10, 0, 0, 0}, wide(`\REGISTRY\MACHINE\SYSTEM`), nul, nul,
			[]byte{0xC8, 0, 0, 0}, []byte("svchost.exe"), nul, []byte{0xFF, 0xFF}),
			[]string{`\REGISTRY\MACHINE\SYSTEM`, "svchost.exe"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, stringsOf(c.b))
			js, ok := AppendStringsJSON([]byte("x"), c.b)
			require.Equal(t, len(c.want) > 0, ok)
			if !ok {
				assert.Equal(t, "x", string(js))
				return
			}
			var got []string
			require.NoError(t, json.Unmarshal(js[1:], &got), "%s", js)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestStringRunPositions(t *testing.T) {
	b := cat([]byte{1, 2}, wide("abcde"), []byte{0, 0, 3}, []byte("ASCII!"))
	var runs []StringRun
	for s := range Strings(b) {
		runs = append(runs, s)
	}
	assert.Equal(t, []StringRun{{Start: 2, End: 12, Wide: true}, {Start: 15, End: 21}}, runs)
	assert.Equal(t, 5, runs[0].Len())
	assert.Equal(t, 6, runs[1].Len())
	s, ok := NextString(b, 3)
	assert.True(t, ok)
	assert.Equal(t, StringRun{Start: 4, End: 12, Wide: true}, s, "a search from inside a run finds its rest")
	_, ok = NextString(b, len(b))
	assert.False(t, ok)
}

func TestStringsJSONEscapes(t *testing.T) {
	b := cat([]byte(`say "hi" \ bye`), []byte{0}, wide(`C:\"x"`), []byte{0, 0})
	js, ok := AppendStringsJSON(nil, b)
	require.True(t, ok)
	assert.Equal(t, `["say \"hi\" \\ bye","C:\\\"x\""]`, string(js))
}

// TestStringsAllocateNothing: scanning a payload and writing its strings
// into a buffer with room costs no allocation.
func TestStringsAllocateNothing(t *testing.T) {
	b := cat([]byte{1, 0, 0, 0}, wide(`C:\Windows\System32\svchost.exe`), []byte{0, 0, 9}, []byte("netsvcs -p"), []byte{0})
	dst := make([]byte, 0, 1024)
	n := testing.AllocsPerRun(100, func() {
		out, _ := AppendStringsJSON(dst[:0], b)
		for s, ok := NextString(b, 0); ok; s, ok = NextString(b, s.End) {
			out = AppendString(out, b, s)
		}
		for s := range Strings(b) {
			out = AppendString(out, b, s)
		}
		_ = out
	})
	assert.Zero(t, n)
}

func FuzzStrings(f *testing.F) {
	f.Add([]byte("abcd\x00x\x00y\x00z\x00w\x00"))
	f.Add(cat([]byte("Name"), wide("Value®")))
	f.Add(wide("C:\\Program Files\\x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		end := 0
		var joined strings.Builder
		for s := range Strings(b) {
			if s.Start < end || s.End <= s.Start || s.End > len(b) {
				t.Fatalf("run %+v after %d in %d bytes", s, end, len(b))
			}
			if s.Len() < MinStringRun || s.Wide && (s.End-s.Start)%2 != 0 {
				t.Fatalf("run %+v too short or odd", s)
			}
			end = s.End
			text := AppendString(nil, b, s)
			if !utf8.Valid(text) || utf8.RuneCount(text) != s.Len() {
				t.Fatalf("run %+v gives %q", s, text)
			}
			for _, r := range string(text) {
				if r < 0x20 || r == 0x7F || r >= 0x80 && (!s.Wide || r < 0xA0 || r > 0xFF) {
					t.Fatalf("run %+v holds %U", s, r)
				}
			}
			joined.Write(text)
		}
		js, ok := AppendStringsJSON(nil, b)
		var got []string
		if ok {
			if err := json.Unmarshal(js, &got); err != nil {
				t.Fatalf("%s: %v", js, err)
			}
		}
		if strings.Join(got, "") != joined.String() {
			t.Fatalf("JSON %s, runs %q", js, joined.String())
		}
	})
}

// BenchmarkStrings scans the payloads of undecoded Shell-Core events as
// their strings are written: a UTF-16 path with numbers around it, and
// binary fields.
func BenchmarkStrings(b *testing.B) {
	p := cat([]byte{1, 0, 0, 0, 0x10, 0x27, 0, 0}, wide(`C:\Users\User\AppData\Local\Microsoft\Windows\Application Shortcuts`), []byte{0, 0},
		[]byte{0xC8, 0x84, 0x3F, 0x12, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}, []byte("explorer.exe\x00"), make([]byte, 24))
	dst := make([]byte, 0, 4096)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = AppendStringsJSON(dst[:0], p)
	}
}
