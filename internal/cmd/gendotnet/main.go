// Command gendotnet writes the built-in .NET runtime tables of package
// schema/dotnet from the runtime's instrumentation manifest:
//
//	gendotnet -o tables.go ClrEtwAll.man
//
// It reads the manifest with package schema/manifest, the reader behind
// --manifest, and writes what that reader makes of every event, so that the
// built-in tables and the manifest decode the same.
package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema/manifest"
)

// wanted are the providers taken from the manifest.
var wanted = []string{
	"Microsoft-Windows-DotNETRuntime",
	"Microsoft-Windows-DotNETRuntimeRundown",
	"Microsoft-Windows-DotNETRuntimeStress",
	"Microsoft-Windows-DotNETRuntimePrivate",
	"Microsoft-DotNETRuntimeMonoProfiler",
}

func main() {
	out := flag.String("o", "tables.go", "output file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gendotnet [-o FILE] MANIFEST")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out); err != nil {
		fmt.Fprintln(os.Stderr, "gendotnet:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	provs, err := manifest.ParseWith(data, filepath.Base(in), manifest.Options{Strict: true})
	if err != nil {
		return err
	}
	g := &gen{mapIndex: map[*payload.Map]int{}, templateIndex: map[*payload.Schema]int{}, keywordIndex: map[string]int{"0\x00": 0}}
	g.keywordSets = append(g.keywordSets, nil)
	for _, name := range wanted {
		var p *manifest.Provider
		for _, q := range provs {
			if q.Name == name {
				p = q
			}
		}
		if p == nil {
			return fmt.Errorf("%s: no provider %s", in, name)
		}
		g.provider(p)
	}
	src := g.source(filepath.Base(in), sha256.Sum256(data))
	formatted, err := format.Source(src)
	if err != nil {
		return fmt.Errorf("formatting the output: %v", err)
	}
	return os.WriteFile(out, formatted, 0o644)
}

type gen struct {
	providers   bytes.Buffer
	events      bytes.Buffer
	templates   bytes.Buffer
	maps        bytes.Buffer
	nProviders  int
	nTemplates  int
	nMaps       int
	nEvents     int
	keywordSets [][]string

	mapIndex      map[*payload.Map]int
	templateIndex map[*payload.Schema]int
	keywordIndex  map[string]int
}

func (g *gen) provider(p *manifest.Provider) {
	var id []string
	for _, c := range p.GUID {
		id = append(id, fmt.Sprintf("%#02x", c))
	}
	fmt.Fprintf(&g.providers, "\t{name: %q, guid: uuid.UUID{%s}}, // %s\n", p.Name, strings.Join(id, ", "), p.GUID)
	for i := range p.Events {
		e := &p.Events[i]
		s := e.Schema
		tmpl := 0
		if len(s.Payload.Fields) > 0 || e.Template != "" {
			tmpl = g.template(s.Payload)
		}
		fmt.Fprintf(&g.events, "\t{provider: %d, id: %d, version: %d, template: %d, keywords: %d, name: %q, task: %q, opcode: %q, level: %q, channel: %q, message: %q},\n",
			g.nProviders, e.ID, e.Version, tmpl, g.keywords(s.Keywords), s.Name, s.Task, s.Opcode, s.Level, s.Channel, s.Message)
		g.nEvents++
	}
	g.nProviders++
}

func (g *gen) keywords(kw []string) int {
	key := strconv.Itoa(len(kw)) + "\x00" + strings.Join(kw, "\x00")
	if i, ok := g.keywordIndex[key]; ok {
		return i
	}
	g.keywordIndex[key] = len(g.keywordSets)
	g.keywordSets = append(g.keywordSets, kw)
	return len(g.keywordSets) - 1
}

// template returns 1 + the index of the schema's template, writing it out
// the first time.
func (g *gen) template(s *payload.Schema) int {
	if i, ok := g.templateIndex[s]; ok {
		return i
	}
	var b bytes.Buffer
	g.fields(&b, s.Fields)
	fmt.Fprintf(&g.templates, "\t{name: %q, top: %d, fields: []field{\n%s\t}},\n", s.Name, len(s.Fields), b.Bytes())
	g.nTemplates++
	g.templateIndex[s] = g.nTemplates
	return g.nTemplates
}

func (g *gen) fields(b *bytes.Buffer, fs []payload.Field) {
	for i := range fs {
		f := &fs[i]
		var parts []string
		add := func(s string, args ...any) { parts = append(parts, fmt.Sprintf(s, args...)) }
		add("name: %q", f.Name)
		add("in: payload.In%s", f.InType)
		if f.OutType != payload.OutDefault {
			add("out: payload.Out%s", outName(f.OutType))
		}
		if f.Arity != payload.Scalar {
			add("arity: payload.%s", f.Arity)
		}
		if f.Count != 0 {
			add("count: %d", f.Count)
		}
		if f.CountField != "" {
			add("countField: %q", f.CountField)
		}
		if f.Length != 0 {
			add("length: %d", f.Length)
		}
		if f.LengthField != "" {
			add("lengthField: %q", f.LengthField)
		}
		if f.FixedLength {
			add("fixedLength: true")
		}
		if f.Map != nil {
			add("mapIndex: %d", g.mapOf(f.Map))
		}
		if f.InType == payload.InStruct {
			add("members: %d", len(f.Members))
		}
		fmt.Fprintf(b, "\t\t{%s},\n", strings.Join(parts, ", "))
		if f.InType == payload.InStruct {
			g.fields(b, f.Members)
		}
	}
}

// outName is the Go name of an out-type constant.
func outName(t payload.OutType) string {
	switch t {
	case payload.OutXML:
		return "XML"
	case payload.OutJSON:
		return "JSON"
	case payload.OutUTF8:
		return "UTF8"
	case payload.OutPKCS7WithTypeInfo:
		return "PKCS7WithTypeInfo"
	case payload.OutDateTimeUTC:
		return "DateTimeUTC"
	}
	return t.String()
}

// mapOf returns 1 + the index of m in maps, writing it out the first time.
func (g *gen) mapOf(m *payload.Map) int {
	if i, ok := g.mapIndex[m]; ok {
		return i
	}
	fmt.Fprintf(&g.maps, "\t{Name: %q, Bits: %v, Entries: []payload.MapEntry{", m.Name, m.Bits)
	for _, e := range m.Entries {
		fmt.Fprintf(&g.maps, "{Value: %#x, Name: %q}, ", e.Value, e.Name)
	}
	g.maps.WriteString("}},\n")
	g.nMaps++
	g.mapIndex[m] = g.nMaps
	return g.nMaps
}

func (g *gen) source(name string, sum [32]byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by gendotnet from %s (sha256 %x); DO NOT EDIT.\n\n", name, sum)
	b.WriteString("package dotnet\n\nimport (\n\t\"github.com/google/uuid\"\n\n\t\"github.com/etlkit/etlkit/payload\"\n)\n\n")
	fmt.Fprintf(&b, "var providers = [...]provider{\n%s}\n\n", g.providers.Bytes())
	b.WriteString("var keywordSets = [...][]string{\n")
	for _, kw := range g.keywordSets {
		if kw == nil {
			b.WriteString("\tnil,\n")
			continue
		}
		q := make([]string, len(kw))
		for i, k := range kw {
			q[i] = strconv.Quote(k)
		}
		fmt.Fprintf(&b, "\t{%s},\n", strings.Join(q, ", "))
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "var maps = [...]payload.Map{\n%s}\n\n", g.maps.Bytes())
	fmt.Fprintf(&b, "var templates = [...]template{\n%s}\n\n", g.templates.Bytes())
	fmt.Fprintf(&b, "var events = [...]event{\n%s}\n", g.events.Bytes())
	return b.Bytes()
}
