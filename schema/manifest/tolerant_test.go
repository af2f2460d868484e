package manifest_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/manifest"
)

// offTextbook are the kinds of manifest that mc refuses and that
// manifests dumped from TDH hold, each in a small manifest of its own
// provider: how an event of it decodes, and the one warning it gives.
var offTextbook = []struct {
	name, inner string
	// The event (id 1) as describe shows it: its name, level, keywords,
	// and the payload 1, 2, 3, 4 (four UInt32) as JSON.
	eventName, level, keywords, fields string
	warning                            string
}{
	{name: "level win:Always",
		inner: `<templates>` + fourFields + `</templates>
<events><event value="1" symbol="E" level="win:Always" template="T"/><event value="2" level="win:Always"/></events>`,
		eventName: "E", level: "win:Always", fields: `{"A":1,"B":2,"C":3,"D":4}`,
		warning: `:6:9: provider P: level "win:Always" is not defined: events show it by that name (2 places)`},
	{name: "opcode win:Start_8_1",
		inner: `<tasks><task name="Work" value="3"/></tasks><templates>` + fourFields + `</templates>
<events><event value="1" task="Work" opcode="win:Start_8_1" template="T"/></events>`,
		eventName: "Work/Start_8_1", fields: `{"A":1,"B":2,"C":3,"D":4}`,
		warning: `:6:9: provider P: opcode "win:Start_8_1" is not defined: events show it by that name`},
	{name: "undeclared task_0",
		inner: `<templates>` + fourFields + `</templates>
<events><event value="1" task="task_0" opcode="win:Info" template="T"/></events>`,
		eventName: "task_0", fields: `{"A":1,"B":2,"C":3,"D":4}`,
		warning: `:6:9: provider P: task "task_0" is not defined: events show it by that name`},
	{name: "undefined keyword",
		inner: `<keywords><keyword name="K1" mask="0x1"/></keywords><templates>` + fourFields + `</templates>
<events><event value="1" symbol="E" keywords="K1 Missing" template="T"/></events>`,
		eventName: "E", keywords: "K1 Missing", fields: `{"A":1,"B":2,"C":3,"D":4}`,
		warning: `:6:9: provider P: keyword "Missing" is not defined: events show it by that name`},
	{name: "undefined channel",
		inner: `<templates>` + fourFields + `</templates>
<events><event value="1" symbol="E" channel="Operational" template="T"/></events>`,
		eventName: "E", fields: `{"A":1,"B":2,"C":3,"D":4}`,
		warning: `:6:9: provider P: channel "Operational" is not defined: events show it by that name`},
	{name: "undefined map",
		inner: `<templates><template tid="T"><data name="A" inType="win:UInt32" map="Gone"/><data name="B" inType="win:UInt32"/>
<data name="C" inType="win:UInt32"/><data name="D" inType="win:UInt32"/></template></templates>
<events><event value="1" symbol="E" template="T"/></events>`,
		eventName: "E", fields: `{"A":1,"B":2,"C":3,"D":4}`,
		warning: `:4:30: provider P: data "A": map "Gone" is not defined: its values are shown as numbers`},
	{name: "win:Binary without a length",
		inner: `<templates><template tid="T"><data name="A" inType="win:UInt32"/><data name="B" inType="win:UInt32"/>
<data name="Blob" inType="win:Binary"/><data name="D" inType="win:UInt32"/></template></templates>
<events><event value="1" symbol="E" template="T"/></events>`,
		eventName: "E", fields: `{"A":1,"B":2,"TrailingData":"0x0300000004000000"}`,
		warning: `:5:1: provider P: template "T": data "Blob": win:Binary needs a length: the fields from it on are not decoded, their bytes are kept as TrailingData`},
	{name: "unknown in-type",
		inner: `<templates><template tid="T"><data name="A" inType="win:UInt32"/><data name="B" inType="win:Int128"/>
<data name="C" inType="win:UInt32"/></template></templates>
<events><event value="1" symbol="E" template="T"/></events>`,
		eventName: "E", fields: `{"A":1,"TrailingData":"0x020000000300000004000000"}`,
		warning: `:4:66: provider P: template "T": data "B": unknown inType "win:Int128": the fields from it on`},
	{name: "length of a later field",
		inner: `<templates><template tid="T"><data name="A" inType="win:UInt32"/><data name="S" inType="win:AnsiString" length="L"/>
<data name="L" inType="win:UInt32"/></template></templates>
<events><event value="1" symbol="E" template="T"/></events>`,
		eventName: "E", fields: `{"A":1,"TrailingData":"0x020000000300000004000000"}`,
		warning: `template "T": data "S": its length refers to "L", which is not an earlier integer field`},
	{name: "struct array counted by nothing",
		inner: `<templates><template tid="T"><data name="A" inType="win:UInt32"/><data name="B" inType="win:UInt32"/>
<struct name="S" count="N"><data name="X" inType="win:UInt32"/></struct></template></templates>
<events><event value="1" symbol="E" template="T"/></events>`,
		eventName: "E", fields: `{"A":1,"B":2,"TrailingData":"0x0300000004000000"}`,
		warning: `template "T": struct "S": its count refers to "N", which is not an earlier integer field`},
	{name: "binary inside a struct",
		inner: `<templates><template tid="T"><data name="A" inType="win:UInt32"/><struct name="S">
<data name="X" inType="win:UInt32"/><data name="Y" inType="win:Binary"/></struct><data name="Z" inType="win:UInt32"/></template></templates>
<events><event value="1" symbol="E" template="T"/></events>`,
		eventName: "E", fields: `{"A":1,"S":{"X":2},"TrailingData":"0x0300000004000000"}`,
		warning: `template "T": data "Y": win:Binary needs a length`},
}

const fourFields = `<template tid="T"><data name="A" inType="win:UInt32"/><data name="B" inType="win:UInt32"/>
<data name="C" inType="win:UInt32"/><data name="D" inType="win:UInt32"/></template>`

// kindManifest is the manifest of kind i: the skeleton with its own
// provider GUID and name.
func kindManifest(i int) string {
	doc := fill(offTextbook[i].inner)
	return strings.Replace(strings.Replace(doc, "9d01}", fmt.Sprintf("%04x}", 0xa000+i), 1), `name="P"`, fmt.Sprintf(`name="P%d"`, i), 1)
}

func kindGUID(i int) uuid.UUID {
	return uuid.MustParse(fmt.Sprintf("6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c%04x", 0xa000+i))
}

func kindRecord(i int) *record.Record {
	data := new(buf).u32(1).u32(2).u32(3).u32(4).b
	return &record.Record{HeaderType: header.TypeEventHeader64, ProviderId: kindGUID(i),
		EventDescriptor: header.EventDescriptor{Id: 1, Level: 4, Opcode: 1, Keyword: 3}, UserData: data}
}

// checkKindDecodes describes the event of kind i with the events of s.
func checkKindDecodes(t *testing.T, s *schema.Set, i int) {
	t.Helper()
	k := offTextbook[i]
	z := describe.New(describe.Options{Manifests: s})
	var d describe.Description
	z.Describe(kindRecord(i), &d, true)
	assert.Equal(t, fmt.Sprintf("P%d", i), d.ProviderName, k.name)
	assert.Equal(t, k.eventName, d.EventName, k.name)
	require.NotNil(t, d.Event, k.name)
	assert.Equal(t, k.level, d.Event.Level, k.name)
	assert.Equal(t, k.keywords, strings.Join(d.Event.Keywords, " "), k.name)
	require.True(t, d.Decoded, "%s: %v", k.name, d.Err)
	assert.Equal(t, k.fields, string(payload.AppendJSONObject(nil, d.Fields)), k.name)
}

// Each kind loads with one warning (a problem met twice is said once,
// with its count), and its event decodes as far as the manifest allows;
// Strict refuses it as mc does.
func TestOffTextbookManifestsLoad(t *testing.T) {
	for i, k := range offTextbook {
		t.Run(k.name, func(t *testing.T) {
			doc := kindManifest(i)
			var warnings []error
			provs, err := manifest.ParseWith([]byte(doc), "kind.man", manifest.Options{Warn: func(err error) { warnings = append(warnings, err) }})
			require.NoError(t, err)
			require.Len(t, provs, 1)
			require.Len(t, warnings, 1, "%v", warnings)
			assert.Contains(t, warnings[0].Error(), strings.Replace(k.warning, "provider P:", fmt.Sprintf("provider P%d:", i), 1))
			assert.True(t, strings.HasPrefix(warnings[0].Error(), "kind.man:"), warnings[0].Error())
			var me *manifest.Error
			assert.ErrorAs(t, warnings[0], &me)

			s := &schema.Set{}
			provs[0].AddTo(s)
			checkKindDecodes(t, s, i)

			_, err = manifest.ParseWith([]byte(doc), "kind.man", manifest.Options{Strict: true})
			require.ErrorAs(t, err, &me, "Strict refuses it")

			// Without Warn the warnings are dropped, and Parse is the same.
			provs, err = manifest.Parse([]byte(doc), "kind.man")
			require.NoError(t, err)
			require.Len(t, provs, 1)
		})
	}
}

// randomBinary is bytes as a file that is no manifest holds: controls,
// invalid UTF-8, escapes.
func randomBinary() []byte {
	r := rand.New(rand.NewPCG(23, 1))
	b := []byte("MZ\x90\x00\x1b[2J\x1b]0;title\x07")
	for len(b) < 4096 {
		b = append(b, byte(r.Uint32()))
	}
	return b
}

// requirePrintable fails when msg holds anything but printable characters.
func requirePrintable(t *testing.T, msg string) {
	t.Helper()
	require.True(t, utf8.ValidString(msg), "%q", msg)
	for _, r := range msg {
		require.True(t, unicode.IsPrint(r), "%q holds %U", msg, r)
	}
}

// A directory holding every kind, in subdirectories too, with files that
// are no manifest beside them: every good manifest is used, each bad file
// is passed over with one warning, none of them printed raw.
func TestDirectoryOfManifestsWithBadFiles(t *testing.T) {
	dir := t.TempDir()
	for i := range offTextbook {
		sub := dir
		if i%2 == 1 {
			sub = filepath.Join(dir, "more", fmt.Sprintf("k%d", i))
			require.NoError(t, os.MkdirAll(sub, 0o755))
		}
		require.NoError(t, os.WriteFile(filepath.Join(sub, fmt.Sprintf("kind%02d.man", i)), []byte(kindManifest(i)), 0o644))
	}
	bad := map[string][]byte{
		"binary.man":            randomBinary(),
		"more/settings.xml":     []byte(`<?xml version="1.0"?><settings><a/></settings>`),
		"more/broken.xml":       []byte("<instrumentationManifest>\n<instrumentation>\x01\n"),
		"more/k1/text.man":      []byte("just words, and a \x1b[31mcolour"),
		"utf16-garbage.man":     append([]byte{0xFF, 0xFE}, randomBinary()[:200]...),
		"notes.txt":             randomBinary(), // not a manifest's extension: not read at all
		"more/k3/empty.XML":     nil,
		"more/k3/truncated.man": []byte(kindManifest(0)[:300]),
	}
	for name, b := range bad {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	var warnings []string
	s, err := manifest.LoadPaths(manifest.Options{Warn: func(err error) { warnings = append(warnings, err.Error()) }}, dir)
	require.NoError(t, err)
	for i := range offTextbook {
		checkKindDecodes(t, s, i)
	}
	passed := 0
	for _, w := range warnings {
		requirePrintable(t, w)
		if strings.HasSuffix(w, "the file is passed over") {
			passed++
		}
	}
	assert.Equal(t, len(bad)-1, passed, "one warning per bad file:\n%s", strings.Join(warnings, "\n"))
	assert.Len(t, warnings, len(offTextbook)+len(bad)-1, "and one per kind:\n%s", strings.Join(warnings, "\n"))
	for _, want := range []string{
		filepath.Join(dir, "binary.man") + `: not XML: it begins "MZ...[2J.]0;title.`,
		filepath.Join(dir, "more", "settings.xml") + ":1:1: no <provider> in <events>: not an instrumentation manifest",
		filepath.Join(dir, "more", "k1", "text.man") + `: not XML: it begins "just words, and a .[31mcolour"`,
	} {
		assert.True(t, containsPrefix(warnings, want), "%s\nin\n%s", want, strings.Join(warnings, "\n"))
	}
}

func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// A file named on its own must be a manifest: a binary is refused with at
// most 80 printable characters of what it holds; the other paths are
// still read, and every refusal is in the error.
func TestNamedFileMustBeAManifest(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "trace.etl")
	require.NoError(t, os.WriteFile(bin, randomBinary(), 0o644))
	good := filepath.Join(dir, "good.man")
	require.NoError(t, os.WriteFile(good, []byte(kindManifest(0)), 0o644))
	missing := filepath.Join(dir, "missing.man")

	s, err := manifest.LoadPaths(manifest.Options{}, bin, good, missing)
	require.Error(t, err)
	msg := err.Error()
	lines := strings.Split(msg, "\n")
	require.Len(t, lines, 2, msg)
	requirePrintable(t, lines[0])
	prefix := bin + `: not XML: it begins "`
	require.True(t, strings.HasPrefix(lines[0], prefix), lines[0])
	shown, uerr := strconv.Unquote(strings.TrimPrefix(lines[0], prefix[:len(prefix)-1]))
	require.NoError(t, uerr)
	assert.Equal(t, 80, utf8.RuneCountInString(shown), "80 characters of the file show")
	var me *manifest.Error
	require.ErrorAs(t, err, &me)
	assert.Equal(t, bin, me.Source)
	assert.ErrorIs(t, err, os.ErrNotExist)
	checkKindDecodes(t, s, 0)
}

// A length may refer to a field of the same in-types whether the manifest
// reader checks the reference (tolerant) or leaves it to payload.NewSchema
// (Strict): the two lists cannot drift apart.
func TestLengthReferencesAsPayloadTakesThem(t *testing.T) {
	accepted := 0
	for _, in := range []string{"UnicodeString", "AnsiString", "Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32",
		"Int64", "UInt64", "Float", "Double", "Boolean", "GUID", "Pointer", "FILETIME", "SYSTEMTIME", "SID",
		"HexInt32", "HexInt64", "CountedUnicodeString", "CountedAnsiString", "CountedBinary"} {
		doc := fill(`<templates><template tid="T"><data name="L" inType="win:` + in + `"/>` +
			`<data name="S" inType="win:AnsiString" length="L"/></template></templates><events><event value="1" template="T"/></events>`)
		_, strictErr := manifest.ParseWith([]byte(doc), "ref.man", manifest.Options{Strict: true})
		var warnings []error
		_, err := manifest.ParseWith([]byte(doc), "ref.man", manifest.Options{Warn: func(err error) { warnings = append(warnings, err) }})
		require.NoError(t, err, in)
		assert.Equal(t, strictErr == nil, len(warnings) == 0, "win:%s: strict %v, tolerant %v", in, strictErr, warnings)
		if strictErr == nil {
			accepted++
		}
	}
	// The ten integer types and Pointer.
	assert.Equal(t, 11, accepted)
}
