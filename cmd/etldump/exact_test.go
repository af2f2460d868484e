package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
)

// writeTrace writes recs on CPU 0 of a session s into a temporary file.
func writeTrace(t *testing.T, s etltest.Session, recs ...etltest.Record) string {
	t.Helper()
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.CPU(0).Add(recs...)
		return b.Err()
	})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "trace.etl")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// recordLines runs etldump --format jsonl with args and decodes its lines,
// the logfile header record's left out.
func recordLines(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	out, errs, code := runCmd(t, append([]string{"--format", "jsonl"}, args...)...)
	require.Equal(t, 0, code, errs)
	return jsonLines(t, out)[1:]
}

var classicClass = uuid.MustParse("f0f0f0f0-6666-4666-8666-666666666666")

// TestClassVersionShown: jsonl's Version is the byte ProcessTrace gives;
// a header version that does not fit in it is shown whole as ClassVersion.
func TestClassVersionShown(t *testing.T) {
	ts := etltest.DefaultSession().HeaderTimeStamp
	path := writeTrace(t, etltest.DefaultSession(),
		&etltest.Full{Version: 0x0102, Guid: classicClass, TimeStamp: ts + 1},
		&etltest.Full{Version: 0x0003, Guid: classicClass, TimeStamp: ts + 2},
		&etltest.System{Version: 0x0803, HookId: 0x0301, TimeStamp: ts + 3, HasPEBS: true},
		&etltest.Event{ProviderId: classicClass, Descriptor: header.EventDescriptor{Version: 9}, TimeStamp: ts + 4},
	)
	recs := recordLines(t, path)
	require.Len(t, recs, 4)
	for i, want := range []struct {
		version float64
		class   any
	}{{2, 258.0}, {3, nil}, {3, 2051.0}, {9, nil}} {
		assert.Equal(t, want.version, recs[i]["Version"], "record %d", i)
		assert.Equal(t, want.class, recs[i]["ClassVersion"], "record %d", i)
	}
}

// TestPrivateSessionShowsProcessorTime: a private logger's classic and
// EVENT_HEADER records hold one 64-bit ProcessorTime, which the xml shows
// in place of KernelTime and UserTime; no other format shows CPU time.
func TestPrivateSessionShowsProcessorTime(t *testing.T) {
	s := etltest.DefaultSession()
	s.LogFileMode |= header.ModePrivateLogger | header.ModePrivateInProc
	ts := s.HeaderTimeStamp
	path := writeTrace(t, s,
		&etltest.Event{ProviderId: classicClass, TimeStamp: ts + 1, ProcessId: 4, ThreadId: 8, KernelTime: 3703553566, UserTime: 48},
		&etltest.Full{Guid: classicClass, TimeStamp: ts + 2, ProcessId: 4, ThreadId: 8, KernelTime: 7, UserTime: 1},
	)
	out, errs, code := runCmd(t, "--format", "xml", path)
	require.Equal(t, 0, code, errs)
	var exec []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "<Execution") {
			exec = append(exec, strings.TrimSpace(l))
		}
	}
	assert.Equal(t, []string{
		`<Execution ProcessID="3856" ThreadID="6700" ProcessorID="0" KernelTime="0" UserTime="0" />`,
		`<Execution ProcessID="4" ThreadID="8" ProcessorID="0" ProcessorTime="209861983774" />`,
		`<Execution ProcessID="4" ThreadID="8" ProcessorID="0" ProcessorTime="4294967303" />`,
	}, exec)
	for _, format := range []string{"text", "jsonl", "csv"} {
		out, errs, code := runCmd(t, "--format", format, path)
		require.Equal(t, 0, code, errs)
		assert.NotContains(t, out, "KernelTime", format)
		assert.NotContains(t, out, "3703553566", format)
	}

	// The sample the issue came from: Explorer's private logger.
	out, errs, code = runCmd(t, "--format", "xml", samples.Path(t, "win7-explorer-startup.etl"))
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, `KernelTime="3703553566"`)
	assert.Contains(t, out, `ProcessorID="1" ProcessorTime="209861983774" />`)
	assert.Equal(t, 1, strings.Count(out, "KernelTime="), "only the SYSTEM logfile-header record keeps KernelTime")
	assert.Equal(t, 106, strings.Count(out, "ProcessorTime="))
}

// TestShortReservedTraitKeepsProvider: a trait of a reserved type shorter
// than a GUID is skipped by its size, so the record keeps its provider
// name in the output, and --provider NAME and --group find it alike.
func TestShortReservedTraitKeepsProvider(t *testing.T) {
	group := uuid.MustParse("4f50731a-89cf-4782-b3e0-dce8c90476ba")
	prov := uuid.MustParse("a1a1a1a1-1111-4111-8111-111111111111")
	traits := etltest.ProviderTraits("Contoso.Short",
		etltest.Trait{Type: etltest.TraitDecodeGUID, Data: []byte{1, 2, 3}}, etltest.GroupTrait(group))
	ts := etltest.DefaultSession().HeaderTimeStamp
	path := writeTrace(t, etltest.DefaultSession(),
		&etltest.Event{ProviderId: prov, TimeStamp: ts + 1, Ext: []etltest.ExtItem{etltest.ExtProviderTraits(traits)}})
	recs := recordLines(t, path)
	require.Len(t, recs, 1)
	assert.Equal(t, "Contoso.Short", recs[0]["ProviderName"])
	for _, args := range [][]string{{"--provider", "Contoso.Short"}, {"--provider", "contoso.short"}, {"--group", group.String()}} {
		out, errs, code := runCmd(t, append([]string{"--count", path}, args...)...)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, "1\n", out, "%v", args)
	}
}

// TestProviderEntriesEndToEnd runs the provider-entry flags over a trace of
// two groups: per-group --disallow, a given 0 in --provider, a provider's
// own ignore-keyword0, and --id not applying to records a group enabled.
func TestProviderEntriesEndToEnd(t *testing.T) {
	groupA := uuid.MustParse("5a5a5a5a-0000-4000-8000-00000000000a")
	groupB := uuid.MustParse("5b5b5b5b-0000-4000-8000-00000000000b")
	alpha := uuid.MustParse("a1a1a1a1-1111-4111-8111-111111111111") // group A
	beta := uuid.MustParse("b2b2b2b2-2222-4222-8222-222222222222")  // group B
	plain := uuid.MustParse("c3c3c3c3-3333-4333-8333-333333333333") // no group
	traits := map[uuid.UUID][]byte{
		alpha: etltest.ProviderTraits("Contoso.Alpha", etltest.GroupTrait(groupA)),
		beta:  etltest.ProviderTraits("Contoso.Beta", etltest.GroupTrait(groupB)),
		plain: etltest.ProviderTraits("Contoso.Plain"),
	}
	ts := etltest.DefaultSession().HeaderTimeStamp
	var recs []etltest.Record
	// Each provider writes ids 1 (level 5, keyword 0) and 2 (level 1, keyword 0x1).
	for _, p := range []uuid.UUID{alpha, beta, plain} {
		for _, d := range []header.EventDescriptor{{Id: 1, Level: 5}, {Id: 2, Level: 1, Keyword: 0x1}} {
			ts++
			recs = append(recs, &etltest.Event{ProviderId: p, Descriptor: d, TimeStamp: ts,
				Ext: []etltest.ExtItem{etltest.ExtProviderTraits(traits[p])}})
		}
	}
	path := writeTrace(t, etltest.DefaultSession(), recs...)
	a, b := groupA.String(), groupB.String()
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"both groups", []string{"--group", a, "--group", b}, 4},
		// The disallow after A takes alpha out of A only.
		{"disallow follows its group", []string{"--group", a, "--disallow", alpha.String(), "--group", b}, 2},
		{"disallow after B leaves A whole", []string{"--group", a, "--group", b, "--disallow", alpha.String()}, 4},
		// --level 1 is the default of the entry; its given 0 keeps every level.
		{"given level 0 keeps all", []string{"--level", "1", "--provider", "Contoso.Plain::0"}, 2},
		{"empty level takes --level", []string{"--level", "1", "--provider", "Contoso.Plain"}, 1},
		{"ignore-keyword0 on one provider", []string{"--provider", "Contoso.Plain::::ignore-keyword0", "--group", a}, 3},
		{"--id filters a provider enabled by name", []string{"--provider", "Contoso.Plain", "--id", "2"}, 1},
		{"--id does not filter a group", []string{"--provider", "Contoso.Plain", "--group", a, "--id", "2"}, 3},
		{"--event-name does not filter a group", []string{"--group", a, "--event-name", "Nothing"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runCmd(t, append([]string{"--count", path}, c.args...)...)
			require.Equal(t, 0, code, errs)
			assert.Equal(t, strconv.Itoa(c.want)+"\n", out)
		})
	}
}

// TestUnreadableFileMessages: a file that cannot be read is one line with
// one cause, said once, and an offset only where the cause is a place in
// the file.
func TestUnreadableFileMessages(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	short := write("x.etl", []byte("abcdef"))
	empty := write("empty.etl", nil)
	gz := write("bad.etl.gz", []byte("\x1f\x8b\x08\x00garbage"))
	missing := filepath.Join(dir, "nosuch.etl")
	cases := []struct{ path, want string }{
		{missing, "no such file or directory"},
		{dir, "reading the file: is a directory"},
		{empty, "empty file: not an ETL file"},
		{short, "offset 0x0: buffer 0: 6 bytes left, too few for a buffer header: not an ETL file"},
		{gz, "unwrapping gzip: unexpected EOF"},
	}
	for _, c := range cases {
		out, errs, code := runCmd(t, "--count", c.path)
		assert.Equal(t, 2, code, c.path)
		assert.Empty(t, out)
		assert.Equal(t, "etldump: "+c.path+": "+c.want+"\n", errs)
	}
	// The library still says what kind of input it was.
	for _, p := range []string{empty, short} {
		_, err := etl.Open(p)
		assert.ErrorIs(t, err, etl.ErrNotETL, p)
	}
	var fe *etl.FormatError
	_, err := etl.Open(short)
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, etl.FormatError{Offset: 0, Buffer: 0, Reason: "6 bytes left, too few for a buffer header", Err: etl.ErrNotETL}, *fe)
}

// TestCutFileSaysItOnce: a trace cut inside its last buffer is reported
// once as such, not again as the first error.
func TestCutFileSaysItOnce(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	var recs []etltest.Record
	for i := range 40 {
		recs = append(recs, &etltest.Event{ProviderId: classicClass, TimeStamp: s.HeaderTimeStamp + int64(i) + 1, UserData: make([]byte, 100)})
	}
	path := writeTrace(t, s, recs...)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Greater(t, len(data), 0x2000+0x300)
	require.NoError(t, os.WriteFile(path, data[:0x2000+0x300], 0o644))
	_, errs, code := runCmd(t, "--count", path)
	assert.Equal(t, 1, code)
	assert.Regexp(t, `^etldump: `+regexp.QuoteMeta(path)+`: offset 0x2000: damaged: 1 buffer cut short, the file ends inside its last buffer; \d+ records read\n$`, errs)
}
