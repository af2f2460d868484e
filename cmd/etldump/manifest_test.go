package main

import (
	"encoding/binary"
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

// testManifest is the manifest written for the manifest reader's tests.
var testManifest = filepath.Join("..", "..", "schema", "manifest", "testdata", "etlkit-test.man")

var (
	testProvider    = uuid.MustParse("6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d01")
	dotNetRuntimeID = uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
)

func le32s(vs ...uint32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// writeManifestTrace writes a trace of events of the test manifest's
// provider and one .NET runtime event.
func writeManifestTrace(t *testing.T) string {
	t.Helper()
	s := etltest.DefaultSession()
	s.BufferSize = 0x2000
	s.NumberOfProcessors = 1
	ev := func(ts int64, prov uuid.UUID, id uint16, version uint8, data []byte) *etltest.Event {
		return &etltest.Event{TimeStamp: s.HeaderTimeStamp + ts, ProviderId: prov, ProcessId: 0x10, ThreadId: 0x20,
			Descriptor: header.EventDescriptor{Id: id, Version: version, Level: 4}, UserData: data}
	}
	gcStart := append(le32s(7, 2, 1, 0), 8, 0)
	gcStart = binary.LittleEndian.AppendUint64(gcStart, 0)
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.CPU(0).Add(
			ev(1000, testProvider, 6, 1, le32s(1, 2)),
			ev(2000, testProvider, 6, 5, le32s(3, 4, 5)), // newer than the manifest
			ev(3000, testProvider, 99, 0, []byte{0xAB}),  // not in the manifest
			ev(4000, dotNetRuntimeID, 1, 2, gcStart),
		)
		return b.Err()
	})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "manifest-events.etl")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// textLabels drops the trace header line of text output, and the time,
// processor and process columns of the others.
func textLabels(t *testing.T, out string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Greater(t, len(lines), 1)
	var rest []string
	for _, l := range lines[1:] {
		f := strings.SplitN(l, " ", 4)
		rest = append(rest, f[3])
	}
	return rest
}

func TestManifestFlag(t *testing.T) {
	trace := writeManifestTrace(t)
	out, errs, code := runCmd(t, trace)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, []string{
		"6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d01/EventID(6) INFO 0x0 data=0x0100000002000000",
		"6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d01/EventID(6) INFO 0x0 data=0x030000000400000005000000",
		"6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d01/EventID(99) INFO 0x0 data=0xab",
		"Microsoft-Windows-DotNETRuntime/GC/Start INFO 0x0 Count=7 Depth=2 Reason=Induced Type=NonConcurrentGC ClrInstanceID=8 ClientSequenceNumber=0",
	}, textLabels(t, out))

	// The manifest names the provider and its events; the newer version
	// reads with the older one's fields, the rest of its payload kept as
	// TrailingData.
	out, errs, code = runCmd(t, "--manifest", testManifest, trace)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, []string{
		"Etlkit-Test/Net INFO 0x0 A=1 B=2",
		"Etlkit-Test/Net INFO 0x0 A=3 B=4 TrailingData=0x05000000",
		"Etlkit-Test/EventID(99) INFO 0x0 data=0xab",
		"Microsoft-Windows-DotNETRuntime/GC/Start INFO 0x0 Count=7 Depth=2 Reason=Induced Type=NonConcurrentGC ClrInstanceID=8 ClientSequenceNumber=0",
	}, textLabels(t, out))

	// A directory of manifests, given twice, is the same.
	out2, errs, code := runCmd(t, "--manifest", filepath.Dir(testManifest), "--manifest", testManifest, trace)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, out, out2)

	// --event-name matches the names the manifest gives.
	out, errs, code = runCmd(t, "--manifest", testManifest, "--event-name", "Net", "--count", trace)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "2\n", out)

	out, _, code = runCmd(t, "--manifest", testManifest, "--stats", trace)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "Etlkit-Test")
}

func TestMessageFlag(t *testing.T) {
	trace := writeManifestTrace(t)
	out, errs, code := runCmd(t, "--manifest", testManifest, "--message", trace)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, []string{
		"Etlkit-Test/Net INFO 0x0 A=1, B=2",
		"Etlkit-Test/Net INFO 0x0 A=3, B=4",
		"Etlkit-Test/EventID(99) INFO 0x0 data=0xab",
		// Line breaks in a message become spaces.
		"Microsoft-Windows-DotNETRuntime/GC/Start INFO 0x0 Count=7; Depth=2; Reason=Induced; Type=NonConcurrentGC; ClrInstanceID=8; ClientSequenceNumber=0",
	}, textLabels(t, out))

	out, errs, code = runCmd(t, "--manifest", testManifest, "--format", "xml", trace)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "\t<RenderingInfo Culture=\"en-US\">\n\t\t<Message>A=1, B=2</Message>\n\t\t<Provider>Etlkit-Test</Provider>\n")
	assert.Contains(t, out, "<Message>Count=7;&#x0a;Depth=2;&#x0a;Reason=Induced;&#x0a;Type=NonConcurrentGC;&#x0a;ClrInstanceID=8;&#x0a;ClientSequenceNumber=0</Message>")
	assert.Equal(t, 3, strings.Count(out, "<Message>"), "the event without a message has none")

	for _, args := range [][]string{{"--message", "--format", "jsonl"}, {"--message", "--stats"}} {
		_, errs, code = runCmd(t, append(args, trace)...)
		assert.Equal(t, exitFatal, code)
		assert.Contains(t, errs, "--message applies to the records of --format text")
	}
}

func TestManifestErrors(t *testing.T) {
	trace := writeManifestTrace(t)
	bad := filepath.Join(t.TempDir(), "bad.man")
	require.NoError(t, os.WriteFile(bad, []byte("<instrumentationManifest>\n  <instrumentation>\n</instrumentationManifest>"), 0o644))
	for _, c := range []struct {
		path, want string
	}{
		{bad, "etldump: --manifest: " + bad + ":3:27: element <instrumentation> closed by </instrumentationManifest>\n"},
		{filepath.Join(t.TempDir(), "none.man"), "no such file or directory"},
		{trace, `manifest-events.etl: not XML: it begins ".`},
	} {
		out, errs, code := runCmd(t, "--manifest", c.path, trace)
		assert.Equal(t, exitFatal, code, c.path)
		assert.Empty(t, out)
		assert.Contains(t, errs, c.want)
	}
	_, errs, code := runCmd(t, "--manifest")
	assert.Equal(t, exitFatal, code)
	assert.Contains(t, errs, "--manifest")
}

// A directory of manifests with one off the textbook (an undefined level),
// in a subdirectory, and files that are no manifest: the good ones decode
// their events, each problem is one warning line, nothing raw is printed.
func TestManifestDirectoryWithBadFiles(t *testing.T) {
	trace := writeManifestTrace(t)
	man, err := os.ReadFile(testManifest)
	require.NoError(t, err)
	dir := t.TempDir()
	sub := filepath.Join(dir, "vendor", "tdh")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	odd := strings.Replace(string(man), `level="win:Informational"`, `level="win:Always"`, 1)
	require.NotEqual(t, string(man), odd)
	require.NoError(t, os.WriteFile(filepath.Join(sub, "test.man"), []byte(odd), 0o644))
	binary := append([]byte("\x7fELF\x02\x01\x1b[2J"), make([]byte, 200)...)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.man"), binary, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.xml"), []byte("<settings/>"), 0o644))

	out, errs, code := runCmd(t, "--manifest", dir, trace)
	require.Equal(t, exitOK, code, errs)
	assert.Equal(t, "Etlkit-Test/Net INFO 0x0 A=1 B=2", textLabels(t, out)[0])
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	require.Len(t, lines, 3, errs)
	assert.Equal(t, "etldump: --manifest: "+filepath.Join(dir, "a.man")+`: not XML: it begins ".ELF...[2J`+strings.Repeat(".", 70)+`"; the file is passed over`, lines[0])
	assert.Equal(t, "etldump: --manifest: "+filepath.Join(dir, "b.xml")+":1:1: no <provider> in <events>: not an instrumentation manifest; the file is passed over", lines[1])
	assert.Contains(t, lines[2], `level "win:Always" is not defined: events show it by that name`)

	// Named on its own, the binary is an error and nothing is decoded.
	out, errs, code = runCmd(t, "--manifest", filepath.Join(dir, "a.man"), trace)
	assert.Equal(t, exitFatal, code)
	assert.Empty(t, out)
	assert.Equal(t, "etldump: --manifest: "+filepath.Join(dir, "a.man")+`: not XML: it begins ".ELF...[2J`+strings.Repeat(".", 70)+"\"\n", errs)
}

// TestManifestSameAsBuiltIn: the .NET runtime's manifest given with
// --manifest decodes the .NET samples exactly as the built-in tables do.
func TestManifestSameAsBuiltIn(t *testing.T) {
	man := samples.ManifestPath(t, "ClrEtwAll.man")
	for _, trace := range []string{"gcevents-manifest.etl", "gcrundown-manifest.etl", "net452-x64-merged-compressed.etl"} {
		t.Run(trace, func(t *testing.T) {
			path := samples.Path(t, trace)
			builtIn, errs, code := runCmd(t, "--format", "jsonl", path)
			require.Equal(t, 0, code, errs)
			given, errs, code := runCmd(t, "--format", "jsonl", "--manifest", man, path)
			require.Equal(t, 0, code, errs)
			require.True(t, builtIn == given, "outputs differ")
			assert.Greater(t, strings.Count(builtIn, `"ProviderName":"Microsoft-Windows-DotNETRuntime`), 20)
		})
	}
}
