package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/filter"
)

func TestFlagsAfterFilesAndBothValueForms(t *testing.T) {
	o, _, err := parseOptions([]string{"a.etl", "--level", "3", "b.etl", "--any=0x5", "-o", "out.txt", "--count"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a.etl", "b.etl"}, o.files)
	assert.Equal(t, uint8(3), o.session.Level)
	assert.Equal(t, uint64(5), o.session.MatchAny)
	assert.Equal(t, "out.txt", o.output)
	assert.Equal(t, "count", o.view)
	assert.True(t, o.filtered)
}

func TestDoubleDashEndsFlags(t *testing.T) {
	o, _, err := parseOptions([]string{"--format", "jsonl", "--", "--level", "-x.etl"})
	require.NoError(t, err)
	assert.Equal(t, []string{"--level", "-x.etl"}, o.files)
	assert.Equal(t, "jsonl", o.format)
}

func TestWordValuesInAnyCase(t *testing.T) {
	o, _, err := parseOptions([]string{"--format", "CSV", "--order", "File", "--progress", "NEVER", "x"})
	require.NoError(t, err)
	assert.Equal(t, "csv", o.format)
	assert.Equal(t, "file", o.order)
	assert.Equal(t, "never", o.progress)
}

func TestSwitchValues(t *testing.T) {
	o, _, err := parseOptions([]string{"--ignore-keyword0=true", "x"})
	require.NoError(t, err)
	assert.True(t, o.session.IgnoreKeyword0)
	o, _, err = parseOptions([]string{"--ignore-keyword0=false", "x"})
	require.NoError(t, err)
	assert.False(t, o.session.IgnoreKeyword0)
	_, _, err = parseOptions([]string{"--count=maybe", "x"})
	assert.EqualError(t, err, `--count takes no value, or =true or =false; got "maybe"`)
}

func TestProvidersTakeLevelFlagsAsDefaults(t *testing.T) {
	o, _, err := parseOptions([]string{"--level", "warning", "--any", "0x10",
		"--provider", "Microsoft-Windows-Foo", "--provider", "68fdd900-4a3e-11d1-84f4-0000f80464e3:0x1:2", "x"})
	require.NoError(t, err)
	require.Len(t, o.session.Providers, 2)
	assert.Equal(t, filter.ProviderSpec{Name: "Microsoft-Windows-Foo", Level: 3, MatchAny: 0x10}, o.session.Providers[0])
	assert.Equal(t, filter.ProviderSpec{ID: uuid.MustParse("68fdd900-4a3e-11d1-84f4-0000f80464e3"), Level: 2, MatchAny: 1}, o.session.Providers[1])
	assert.Zero(t, o.session.Level, "the session level must stay zero with a provider list")
}

func TestGroupWithDisallow(t *testing.T) {
	g := "11111111-2222-3333-4444-555555555555"
	d := "66666666-7777-8888-9999-aaaaaaaaaaaa"
	o, _, err := parseOptions([]string{"--group", g, "--disallow", d, "x"})
	require.NoError(t, err)
	require.Len(t, o.session.Providers, 1)
	p := o.session.Providers[0]
	assert.True(t, p.Group)
	assert.Equal(t, uuid.MustParse(g), p.ID)
	assert.Equal(t, []uuid.UUID{uuid.MustParse(d)}, p.Disallow)
}

// TestDisallowBelongsToItsGroup: a --disallow applies to the --group it
// follows, not to every group.
func TestDisallowBelongsToItsGroup(t *testing.T) {
	g1, g2 := "11111111-2222-3333-4444-555555555555", "22222222-2222-3333-4444-555555555555"
	d1, d2, d3 := "66666666-7777-8888-9999-aaaaaaaaaaaa", "77777777-7777-8888-9999-aaaaaaaaaaaa", "88888888-7777-8888-9999-aaaaaaaaaaaa"
	o, _, err := parseOptions([]string{"--group", g1, "--disallow", d1, "--disallow", d2, "--provider", "Contoso",
		"--group", g2, "--disallow", d3, "x"})
	require.NoError(t, err)
	require.Len(t, o.session.Providers, 3)
	assert.Equal(t, uuid.MustParse(g1), o.session.Providers[0].ID)
	assert.Equal(t, []uuid.UUID{uuid.MustParse(d1), uuid.MustParse(d2)}, o.session.Providers[0].Disallow)
	assert.Nil(t, o.session.Providers[1].Disallow)
	assert.Equal(t, uuid.MustParse(g2), o.session.Providers[2].ID)
	assert.Equal(t, []uuid.UUID{uuid.MustParse(d3)}, o.session.Providers[2].Disallow)
}

// TestProviderFieldZeroIsGiven: a field given as 0 in --provider is kept,
// not replaced by --level/--any/--all as an empty field is; and the flags
// may come after the --provider they are defaults for.
func TestProviderFieldZeroIsGiven(t *testing.T) {
	o, _, err := parseOptions([]string{"--provider", "A::0", "--provider", "B:0", "--provider", "C:::0", "--provider", "D",
		"--level", "2", "--any", "0x10", "--all", "0x10", "x"})
	require.NoError(t, err)
	assert.Equal(t, []filter.ProviderSpec{
		{Name: "A", Level: 0, MatchAny: 0x10, MatchAll: 0x10},
		{Name: "B", Level: 2, MatchAny: 0, MatchAll: 0x10},
		{Name: "C", Level: 2, MatchAny: 0x10, MatchAll: 0},
		{Name: "D", Level: 2, MatchAny: 0x10, MatchAll: 0x10},
	}, o.session.Providers)
}

func TestProviderIgnoreKeyword0Flag(t *testing.T) {
	o, _, err := parseOptions([]string{"--provider", "A::::ignore-keyword0", "--provider", "B",
		"--group", "11111111-2222-3333-4444-555555555555::::ignore-keyword0", "x"})
	require.NoError(t, err)
	require.Len(t, o.session.Providers, 3)
	assert.True(t, o.session.Providers[0].IgnoreKeyword0)
	assert.False(t, o.session.Providers[1].IgnoreKeyword0)
	assert.True(t, o.session.Providers[2].IgnoreKeyword0)
	assert.False(t, o.session.IgnoreKeyword0)
}

func TestScopeFlags(t *testing.T) {
	o, _, err := parseOptions([]string{"--id", "1,2", "--id=0x10", "--pid", "4", "--opcode", "1,2",
		"--event-name", "Start", "--from", "1.5s", "--to", "2024-05-01T12:00:00Z", "x"})
	require.NoError(t, err)
	s := o.session
	assert.Equal(t, filter.IDFilter{IDs: []uint16{1, 2, 16}}, s.EventIDs)
	assert.Equal(t, []uint32{4}, s.ProcessIDs)
	assert.Equal(t, []uint8{1, 2}, s.Opcodes)
	assert.Equal(t, filter.NameFilter{Names: []string{"Start"}}, s.EventNames)
	assert.Equal(t, filter.TimeBound{Offset: 1500 * time.Millisecond, Relative: true}, s.From)
	assert.Equal(t, time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC), s.To.At)
}

func TestBadFlagsNameTheFlagAndTheForms(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown flag --bogus"},
		{[]string{"--level"}, "--level needs a value: --level N|NAME"},
		{[]string{"--level", "loud"}, "--level: level \"loud\": want 0-255 or critical"},
		{[]string{"--any", "0xZZ"}, "--any: keyword \"0xZZ\": want a 64-bit mask"},
		{[]string{"--id", "70000"}, "--id: \"70000\": want an event id 0-65535"},
		{[]string{"--from", "yesterday"}, "--from: time \"yesterday\": want RFC 3339"},
		{[]string{"--format", "yaml"}, "--format: \"yaml\": want text, jsonl, csv, xml"},
		{[]string{"--order", "random"}, "--order: \"random\": want time, file or sorted"},
		{[]string{"--order", "sorted"}, "--order sorted needs --window"},
		{[]string{"--window", "2s"}, "--window applies to --order sorted only"},
		{[]string{"--order", "sorted", "--window", "-3"}, "--window: \"-3\": a record count must be positive"},
		{[]string{"--progress", "sometimes"}, "--progress: \"sometimes\": want auto, always or never"},
		{[]string{"--group", "Name"}, "--group: \"Name\": a provider group is named by its GUID"},
		{[]string{"--disallow", "66666666-7777-8888-9999-aaaaaaaaaaaa"}, "--disallow follows the --group it applies to"},
		{[]string{"--disallow", "66666666-7777-8888-9999-aaaaaaaaaaaa", "--group", "11111111-2222-3333-4444-555555555555"}, "--disallow follows the --group it applies to"},
		{[]string{"--provider", "Contoso::::stack"}, "--provider: provider \"Contoso::::stack\": property \"stack\""},
		{[]string{"--id", "1", "--exclude-id", "2"}, "--id and --exclude-id cannot be combined"},
		{[]string{"--stats", "--count"}, "--stats and --count cannot be combined"},
		{[]string{"--header", "--format", "csv"}, "--format csv: --header prints text or json"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"x.etl"}, c.args...), &out, &errb)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, errb.String(), "etldump: "+c.want, c.args)
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), c.args)
		assert.Empty(t, out.String())
	}
}

func TestHelp(t *testing.T) {
	out, errs, code := runCmd(t, "--help")
	assert.Equal(t, 0, code)
	assert.Empty(t, errs)
	for _, flag := range []string{"--level", "--any", "--all", "--ignore-keyword0", "--provider", "--group", "--disallow",
		"--id", "--exclude-id", "--event-name", "--exclude-event-name", "--pid", "--opcode", "--from", "--to", "--order", "--window",
		"--format", "-o, --output", "--header", "--stats", "--count", "--activities", "--progress", "-h, --help",
		"--process", "--tid", "-n, --limit", "--version"} {
		assert.Contains(t, out, flag)
	}
	// --level accepts 0, which keeps every level, and the help says so.
	assert.Contains(t, out, "keep records up to this level: 0-255 (0, as when left out, keeps every level)")
	assert.Contains(t, out, "NAME|GUID[:ANY[:LEVEL[:ALL[:ignore-keyword0]]]]")
}
