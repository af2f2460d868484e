package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
