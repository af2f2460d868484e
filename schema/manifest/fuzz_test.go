package manifest_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/manifest"
)

// clrSlice cuts a small manifest out of the .NET runtime's, when the
// shared folder has it: three templates (maps, a struct array, a count
// inside its elements), the events that use them and their messages.
func clrSlice() string {
	d := samples.Dir()
	if d == "" {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(d, "..", "manifests", "ClrEtwAll.man"))
	if err != nil {
		return ""
	}
	man := string(data)
	man = man[:strings.Index(man, "</events>")] // the first provider
	block := func(open, close string) string { return between(man, open, close) }
	var b strings.Builder
	b.WriteString(man[:strings.Index(man, "<keywords>")])
	b.WriteString("<maps>")
	for _, m := range []string{`<valueMap name="GCReasonMap">`, `<valueMap name="GCTypeMap">`, `<bitMap name="TypeFlagsMap">`} {
		b.WriteString(block(m, "</"+m[1:strings.IndexByte(m, ' ')]+">"))
	}
	b.WriteString("</maps><templates>")
	tids := []string{"GCStart_V2", "GCPerHeapHistory_V3", "BulkType"}
	for _, tid := range tids {
		b.WriteString(block(`<template tid="`+tid+`">`, "</template>"))
	}
	b.WriteString("</templates><events>")
	attrs := regexp.MustCompile(`\s(task|opcode|keywords)\s*="[^"]*"`)
	var ids []string
	for _, tid := range tids {
		ev := block(`template="`+tid+`"`, "/>")
		if ev == "" {
			continue
		}
		i := strings.LastIndex(man[:strings.Index(man, ev)], "<event ")
		ev = man[i : strings.Index(man, ev)+len(ev)]
		if m := regexp.MustCompile(`\$\(string\.([^)]*)\)`).FindStringSubmatch(ev); m != nil {
			ids = append(ids, m[1])
		}
		b.WriteString(attrs.ReplaceAllString(ev, ""))
	}
	b.WriteString("</events></provider></events></instrumentation><localization><resources culture=\"en-US\"><stringTable>")
	all := string(data)
	for _, id := range ids {
		b.WriteString(between(all, `<string id="`+id+`"`, "/>"))
	}
	b.WriteString("</stringTable></resources></localization></instrumentationManifest>")
	return b.String()
}

// between is the first part of s from open to close, both included.
func between(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	j := strings.Index(s[i:], close)
	if j < 0 {
		return ""
	}
	return s[i : i+j+len(close)]
}

func TestCLRSliceSeedParses(t *testing.T) {
	seed := clrSlice()
	if seed == "" {
		t.Skip("ClrEtwAll.man not found beside the samples")
	}
	provs, err := manifest.Parse([]byte(seed), "slice")
	if err != nil {
		t.Fatal(err)
	}
	if len(provs) != 1 || len(provs[0].Events) < 3 {
		t.Fatalf("slice has %d providers", len(provs))
	}
	if len(seed) > 16<<10 {
		t.Fatalf("slice is %d bytes: too big for a fuzz seed", len(seed))
	}
}

// FuzzParse: any input either parses into schemas that decode and render
// any payload without panicking, or gives an *Error with a position.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile(testManifest); err == nil {
		f.Add(data)
	}
	if s := clrSlice(); s != "" {
		f.Add([]byte(s))
	}
	for _, inner := range []string{
		`<templates><template tid="T"><data name="N" inType="win:UInt8"/><struct name="S" count="N"><data name="V" inType="win:UnicodeString" length="N"/></struct></template></templates><events><event value="1" template="T" message="%1 %2!x!"/></events>`,
		`<maps><bitMap name="M"><map value="0x1" message="$(string.a)"/></bitMap></maps><templates><template tid="T"><data name="A" inType="win:UInt32" map="M"/></template></templates>`,
		`<tasks><task name="T" value="1"><opcodes><opcode name="O" value="10"/></opcodes></task></tasks><events><event value="1" task="T" opcode="O"/></events>`,
	} {
		f.Add([]byte(fill(inner)))
	}
	payloads := [][]byte{nil, {1, 2, 3, 4, 5, 6, 7, 8}, []byte("a\x00b\x00\x00\x00\x02\x00xyzw\x01\x00\x00\x00")}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Strict or not, every problem has a place and no raw bytes.
		checkError := func(err error) {
			var me *manifest.Error
			if !errors.As(err, &me) || me.Source != "fuzz" || me.Line < 0 || me.Line > 0 && me.Column < 1 {
				t.Fatalf("error without a position: %v", err)
			}
			for _, r := range err.Error() {
				if r == utf8.RuneError || !unicode.IsPrint(r) {
					t.Fatalf("message holds %U: %q", r, err.Error())
				}
			}
		}
		_, strictErr := manifest.ParseWith(data, "fuzz", manifest.Options{Strict: true})
		warned := false
		provs, err := manifest.ParseWith(data, "fuzz", manifest.Options{Warn: func(err error) {
			warned = true
			checkError(err)
		}})
		if strictErr != nil {
			checkError(strictErr)
		} else if warned {
			t.Fatalf("warnings for a manifest Strict reads")
		}
		if err != nil {
			checkError(err)
			if strictErr == nil {
				t.Fatalf("refused, but Strict reads it: %v", err)
			}
			return
		}
		s := &schema.Set{}
		var msg []byte
		for _, p := range provs {
			p.AddTo(s)
			for _, e := range p.Events {
				if e.Schema.Payload == nil {
					t.Fatalf("event %d has no payload schema", e.ID)
				}
				for _, pl := range payloads {
					vals, _ := e.Schema.Payload.Decode(pl, 8, nil)
					msg = schema.AppendMessage(msg[:0], e.Schema.Message, vals)
				}
			}
		}
	})
}

// BenchmarkParseSeed is the cost of one FuzzParse run on the largest
// seeds: the fuzz target's speed.
func BenchmarkParseSeed(b *testing.B) {
	seeds := map[string][]byte{}
	if data, err := os.ReadFile(testManifest); err == nil {
		seeds["test"] = data
	}
	if s := clrSlice(); s != "" {
		seeds["clr"] = []byte(s)
	}
	for name, data := range seeds {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := manifest.Parse(data, "seed"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
