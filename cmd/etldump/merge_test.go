package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	kernelTrace   = "../../testdata/etl/kernel64.etl"
	manifestTrace = "../../testdata/etl/manifest64.etl"
	damagedTrace  = "../../testdata/etl/damaged.etl"
)

func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		objs = append(objs, m)
	}
	return objs
}

func countOf(t *testing.T, args ...string) int {
	t.Helper()
	out, errs, code := runCmd(t, append([]string{"--count"}, args...)...)
	require.Equal(t, 0, code, errs)
	n, err := strconv.Atoi(strings.TrimSpace(out))
	require.NoError(t, err)
	return n
}

// Two files make one timeline: every record of both, the header records
// first, then time never steps back except where a processor's own stream
// does.
func TestFilesMergeOntoOneTimeline(t *testing.T) {
	a, b := countOf(t, kernelTrace), countOf(t, manifestTrace)
	out, errs, code := runCmd(t, "--format", "jsonl", kernelTrace, manifestTrace)
	require.Equal(t, 0, code, errs)
	objs := jsonLines(t, out)
	require.Len(t, objs, a+b)
	steps := 0
	for i := 1; i < len(objs); i++ {
		if objs[i]["TimeStamp"].(string) < objs[i-1]["TimeStamp"].(string) {
			steps++
		}
	}
	st, _, _ := statsJSON(t, kernelTrace, manifestTrace)
	assert.EqualValues(t, a+b, st["Records"])
	assert.EqualValues(t, steps, st["BackwardSteps"])
	assert.Equal(t, []any{kernelTrace, manifestTrace}, st["Files"])

	fileOut, _, code := runCmd(t, "--format", "jsonl", "--order", "file", kernelTrace, manifestTrace)
	require.Equal(t, 0, code)
	assert.Len(t, jsonLines(t, fileOut), a+b)
	assert.NotEqual(t, out, fileOut, "file order must differ from time order on a per-CPU trace")
}

func TestSortedWindowRepairsOrder(t *testing.T) {
	out, errs, code := runCmd(t, "--format", "jsonl", "--order", "sorted", "--window", "1000", kernelTrace)
	require.Equal(t, 0, code, errs)
	objs := jsonLines(t, out)
	all := countOf(t, kernelTrace)
	require.Len(t, objs, all)
	for i := 1; i < len(objs); i++ {
		assert.LessOrEqual(t, objs[i-1]["TimeStamp"].(string), objs[i]["TimeStamp"].(string), "record %d", i)
	}
	// A window of trace time loses no record either.
	assert.Equal(t, all, countOf(t, "--order", "sorted", "--window", "1s", kernelTrace))
}

// An unreadable file among readable ones is reported, the others are
// printed, and the exit status says a file could not be read.
func TestUnreadableAmongReadable(t *testing.T) {
	out, errs, code := runCmd(t, "--count", kernelTrace, "missing.etl")
	assert.Equal(t, 2, code)
	assert.Equal(t, strconv.Itoa(countOf(t, kernelTrace))+"\n", out)
	assert.Equal(t, "etldump: missing.etl: no such file or directory\n", errs)
}

func TestDamageIsExitOneWithOneLine(t *testing.T) {
	out, errs, code := runCmd(t, "--format", "jsonl", damagedTrace)
	assert.Equal(t, 1, code)
	assert.Len(t, jsonLines(t, out), 29)
	assert.Equal(t, 1, strings.Count(errs, "\n"))
	assert.True(t, strings.HasPrefix(errs, "etldump: "+damagedTrace+": offset 0x"), errs)
	assert.Contains(t, errs, "2 buffers skipped")
}

func TestTimeRangeSplitsTheTrace(t *testing.T) {
	all := countOf(t, kernelTrace)
	before := countOf(t, kernelTrace, "--to", "2ms")
	after := countOf(t, kernelTrace, "--from", "2ms")
	assert.Equal(t, all, before+after)
	assert.Positive(t, before)
	assert.Positive(t, after)
	abs := countOf(t, kernelTrace, "--from", "2024-01-17T21:20:00.002Z")
	assert.Equal(t, after, abs, "the trace starts at 21:20:00Z, so +2ms and the absolute instant agree")
}

func TestFilterFlagsNarrow(t *testing.T) {
	all := countOf(t, manifestTrace)
	lvl := countOf(t, manifestTrace, "--level", "error")
	assert.Less(t, lvl, all)
	ig := countOf(t, manifestTrace, "--ignore-keyword0")
	assert.Less(t, ig, all)
	out, _, code := runCmd(t, "--format", "jsonl", "--pid", "768", manifestTrace)
	require.Equal(t, 0, code)
	objs := jsonLines(t, out)
	assert.Len(t, objs, 26)
	about := 0
	for _, m := range objs {
		if s, ok := m["SubjectProcessId"]; ok {
			// A relogged Process/Stop of process 768, logged by process 0.
			assert.EqualValues(t, 768, s)
			assert.EqualValues(t, "Process/Stop", m["EventName"])
			about++
		} else {
			assert.EqualValues(t, 768, m["ProcessId"])
		}
	}
	assert.Equal(t, 1, about)
}
