package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/internal/samples"
)

func runCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestJSONLOneObjectPerRecord(t *testing.T) {
	path := samples.Path(t, "win11-sih.etl")
	out, errs, code := runCmd(t, "--format", "jsonl", path)
	require.Equal(t, 0, code, errs)
	assert.Empty(t, errs)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 12)
	var first map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	assert.Equal(t, "2023-04-22T10:47:24.3632943Z", first["TimeStamp"])
	assert.Equal(t, "SYSTEM64", first["HeaderType"])
	assert.Equal(t, "68fdd900-4a3e-11d1-84f4-0000f80464e3", first["ProviderId"])
	assert.EqualValues(t, 6412, first["ProcessId"])
	assert.EqualValues(t, 3240, first["ThreadId"])
	assert.EqualValues(t, int64(1944427877538), first["RawTimeStamp"])
	eventHeaders := 0
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if m["HeaderType"] == "EVENT_HEADER64" {
			eventHeaders++
			assert.Regexp(t, `^0x[0-9a-f]{16}$`, m["Keyword"])
			assert.Contains(t, m, "Id")
		}
	}
	assert.Equal(t, 10, eventHeaders, "the trace's EVENT_HEADER records")
}

func TestUnreadableFileIsOneLineAndExit2(t *testing.T) {
	path := samples.Path(t, "corrupt-zero-bytes-replaced.etl")
	out, errs, code := runCmd(t, path)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errs, "\n"))
	assert.True(t, strings.HasPrefix(errs, "etldump: "+path+": offset 0x48: "), errs)
}

func TestMissingFile(t *testing.T) {
	_, errs, code := runCmd(t, "no-such-file.etl")
	assert.Equal(t, 2, code)
	assert.Equal(t, "etldump: no-such-file.etl: no such file or directory\n", errs)
}

func TestOutputFile(t *testing.T) {
	const trace = "../../testdata/etl/manifest64.etl"
	want, _, code := runCmd(t, "--format", "jsonl", trace)
	require.Equal(t, 0, code)
	require.NotEmpty(t, want)
	path := filepath.Join(t.TempDir(), "out.jsonl")
	out, errs, code := runCmd(t, "--format", "jsonl", "-o", path, trace)
	require.Equal(t, 0, code, errs)
	assert.Empty(t, out, "with -o nothing goes to standard output")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, string(got))

	bad := filepath.Join(t.TempDir(), "no", "such.jsonl")
	out, errs, code = runCmd(t, "-o", bad, trace)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, "etldump: -o "+bad+": no such file or directory\n", errs)

	_, errs, code = runCmd(t, "--count")
	assert.Equal(t, 2, code)
	assert.True(t, strings.HasPrefix(errs, "etldump: no input file"), errs)
}

// pipeWriter takes n bytes and then fails as a pipe whose reader has gone.
type pipeWriter struct{ n int }

func (p *pipeWriter) Write(b []byte) (int, error) {
	if p.n <= 0 {
		return 0, syscall.EPIPE
	}
	p.n -= len(b)
	return len(b), nil
}

func TestClosedPipeEndsQuietly(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	var errb bytes.Buffer
	code := run([]string{path}, &pipeWriter{n: 1}, &errb)
	assert.Equal(t, 0, code)
	assert.Empty(t, errb.String())
}

// TestEventNameFilterOnKernelNames keeps kernel records by the name their
// EventName shows, the way TraceLogging events are kept by theirs.
func TestEventNameFilterOnKernelNames(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "etl", "kernel64.etl")
	out, _, code := runCmd(t, "--event-name", "Process/Start", "--format", "jsonl", path)
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 8)
	for _, l := range lines {
		assert.Contains(t, l, `"EventName":"Process/Start"`)
		assert.Contains(t, l, `"ImageFileName":"notepad.exe"`)
	}
	out, _, code = runCmd(t, "--exclude-event-name", "Process/Start", "--count", path)
	require.Equal(t, 0, code)
	all, _, _ := runCmd(t, "--count", path)
	assert.Equal(t, mustAtoi(t, all)-8, mustAtoi(t, out))
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(s))
	require.NoError(t, err)
	return n
}
