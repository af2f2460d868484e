package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/kernel"
	"github.com/etlkit/etlkit/sink/etlsink"
)

// headerChanges are the logfile-header fields a written trace states
// anew (see the README): the rest of the logfile-header record, and every
// other record, read back as they were.
var headerChanges = []string{"LogFileMode", "LogFileName", "BuffersWritten", "EndTime", "NumberOfProcessors", "BufferSize"}

// linesOf runs etldump --format jsonl with args and returns its lines.
func linesOf(t *testing.T, args ...string) []string {
	t.Helper()
	out, errs, code := runCmd(t, append([]string{"--format", "jsonl"}, args...)...)
	require.NotEqual(t, exitFatal, code, errs)
	if out == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

func objectOf(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(line), &m), line)
	return m
}

// jsonlOf is linesOf with every line decoded.
func jsonlOf(t *testing.T, args ...string) ([]map[string]any, []string) {
	t.Helper()
	lines := linesOf(t, args...)
	objs := make([]map[string]any, len(lines))
	for i, l := range lines {
		objs[i] = objectOf(t, l)
	}
	return objs, lines
}

func isLogfileHeaderLine(m map[string]any) bool {
	p, _ := m["Payload"].(map[string]any)
	return m["HeaderType"] != nil && strings.HasPrefix(m["HeaderType"].(string), "SYSTEM") &&
		m["EventName"] == "EventTrace" && p != nil && p["LogFileName"] != nil
}

// requireSameHeaderLine compares logfile-header records but for the
// fields the writer states anew.
func requireSameHeaderLine(t *testing.T, want, got map[string]any) {
	t.Helper()
	w, g := maps.Clone(want), maps.Clone(got)
	wp, gp := maps.Clone(w["Payload"].(map[string]any)), maps.Clone(g["Payload"].(map[string]any))
	for _, k := range headerChanges {
		delete(wp, k)
		delete(gp, k)
	}
	w["Payload"], g["Payload"] = wp, gp
	require.Equal(t, w, g)
}

// writeETL runs etldump --format etl and returns the written trace's path.
func writeETL(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.etl")
	stdout, errs, code := runCmd(t, append([]string{"--format", "etl", "-o", out}, args...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Empty(t, stdout)
	assert.Empty(t, errs)
	return out
}

// contextMembers are the JSON-lines members that come from other records
// or from the command line rather than from the record itself: the
// process a record is about, and its input. A trace written with filters
// keeps the records those come from only if they pass.
var contextMembers = regexp.MustCompile(`,"(SubjectProcessId":\d+|ProcessName":"(?:[^"\\]|\\.)*")|"File":"(?:[^"\\]|\\.)*",`)

// sansContext is lines without their contextMembers.
func sansContext(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = contextMembers.ReplaceAllString(l, "")
	}
	return out
}

// keptBy lists, for each record etldump prints of inputs without filters,
// whether a trace written with filter args keeps it: it passes the
// filters or describes the trace.
func keptBy(t *testing.T, filterArgs []string, inputs ...string) []bool {
	t.Helper()
	o, _, err := parseOptions(append(slices.Clone(filterArgs), inputs...))
	require.NoError(t, err)
	set, err := etl.OpenMany(inputs...)
	require.NoError(t, err)
	defer set.Close()
	var start time.Time
	for _, r := range set.Readers {
		if s := header.FileTimeToTime(r.Header().StartTime); start.IsZero() || s.Before(start) {
			start = s
		}
	}
	// Records are judged by the process they are about, as the thread and
	// process events before them, and a first pass, say.
	l := describe.NewTraceLearner(nil)
	for _, r := range set.Readers {
		l.ScanTrace(r)
	}
	procs := kernel.Processes{Ahead: l.Ahead()}
	var subject kernel.Subject
	flt, err := filter.Compile(filter.Options{TraceStart: start, Lookup: filter.Lookup{
		Process: func(*record.Record) (uint32, bool) { return subject.ProcessID, subject.HasProcess },
		Thread:  func(*record.Record) (uint32, bool) { return subject.ThreadID, subject.HasThread },
	}}, o.session)
	require.NoError(t, err)
	var keep []bool
	for r, err := range set.Events() {
		if err == nil {
			procs.Learn(r)
			subject = procs.Subject(r)
			keep = append(keep, flt.Match(r) || etlsink.IsTraceDescribing(r))
		}
	}
	return keep
}

// filterCases picks, from a trace's records, a provider, a process and a
// time range with records in and out of them.
func filterCases(objs []map[string]any) [][]string {
	cases := [][]string{{"--level", "3"}}
	providers, pids := map[string]int{}, map[float64]int{}
	for _, m := range objs {
		if p, ok := m["ProviderId"].(string); ok && !strings.HasPrefix(m["HeaderType"].(string), "SYSTEM") {
			providers[p]++
		}
		if pid, ok := m["ProcessId"].(float64); ok {
			pids[pid]++
		}
	}
	if p := mostCommon(providers); p != "" {
		cases = append(cases, []string{"--provider", p})
	}
	if pid := mostCommon(pids); pid != 0 {
		cases = append(cases, []string{"--pid", strconv.FormatFloat(pid, 'f', 0, 64)})
	}
	var times []string
	for _, m := range objs {
		times = append(times, m["TimeStamp"].(string))
	}
	slices.Sort(times)
	if times = slices.Compact(times); len(times) >= 3 {
		n := len(times)
		cases = append(cases, []string{"--from", times[n/3], "--to", times[max(2*n/3, n/3+1)]})
	}
	return cases
}

func mostCommon[K comparable](counts map[K]int) K {
	var best K
	for k, n := range counts {
		if n > counts[best] {
			best = k
		}
	}
	return best
}

// Every shared sample, written whole and with each filter, reads back
// to the records etldump prints of it, field by field and in order.
func TestETLSamplesRoundTrip(t *testing.T) {
	for _, path := range samples.All(t, ".etl", ".gz", ".zst", ".bz2", ".etlgz") {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			f, err := etl.Open(path)
			if err != nil {
				out := filepath.Join(t.TempDir(), "out.etl")
				_, errs, code := runCmd(t, "--format", "etl", "-o", out, path)
				assert.Equal(t, exitFatal, code)
				assert.Contains(t, errs, name)
				assert.NoFileExists(t, out, "nothing is written for an input that is not a trace")
				return
			}
			rlfs := f.Header().RealTimeBackup != nil
			compressed := f.Header().LogFileMode&header.ModeCompressed != 0
			f.Close()
			in, inLines := jsonlOf(t, path)

			out := writeETL(t, path)
			if compressed {
				// Compressed as the input was: a trace stays about its size.
				inSt, err := os.Stat(path)
				require.NoError(t, err)
				outSt, err := os.Stat(out)
				require.NoError(t, err)
				assert.LessOrEqual(t, outSt.Size(), 2*inSt.Size()+etlsink.DefaultMaxBufferSize)
				g, err := etl.Open(out)
				require.NoError(t, err)
				assert.NotZero(t, g.Header().LogFileMode&header.ModeCompressed)
				g.Close()
			}
			gotLines := linesOf(t, out)
			require.NotEmpty(t, gotLines)
			first := objectOf(t, gotLines[0])
			if rlfs {
				// The writer adds the logfile-header record an RlFs file lacks.
				require.True(t, isLogfileHeaderLine(first))
				require.Equal(t, inLines, gotLines[1:])
			} else {
				requireSameHeaderLine(t, in[0], first)
				assert.Equal(t, in[0]["Payload"].(map[string]any)["EndTime"], first["Payload"].(map[string]any)["EndTime"], "an uncut trace keeps its end")
				require.Equal(t, inLines[1:], gotLines[1:])
			}

			cases := filterCases(in)
			if st, err := os.Stat(path); err == nil && st.Size() > 1<<20 && testing.Short() {
				cases = nil // the large samples' filters only in the full run
			}
			for _, args := range cases {
				t.Run(strings.Join(args, " "), func(t *testing.T) {
					out := writeETL(t, append(slices.Clone(args), path)...)
					// Read with the filters, the new trace prints what the input does.
					wantLines := linesOf(t, append(slices.Clone(args), path)...)
					gotLines := linesOf(t, append(slices.Clone(args), out)...)
					if len(wantLines) > 0 && isLogfileHeaderLine(objectOf(t, wantLines[0])) {
						require.NotEmpty(t, gotLines)
						requireSameHeaderLine(t, objectOf(t, wantLines[0]), objectOf(t, gotLines[0]))
						wantLines, gotLines = wantLines[1:], gotLines[1:]
					} else if rlfs && len(gotLines) > 0 && isLogfileHeaderLine(objectOf(t, gotLines[0])) {
						gotLines = gotLines[1:]
					}
					require.Equal(t, len(wantLines), len(gotLines))
					wantLines, gotLines = sansContext(wantLines), sansContext(gotLines)
					for i := range wantLines {
						require.Equal(t, wantLines[i], gotLines[i])
					}

					// Without filters it holds exactly those records and the
					// ones that describe the trace.
					keep := keptBy(t, args, path)
					require.Len(t, keep, len(inLines))
					kept := []string{}
					for i, k := range keep {
						if k && (i > 0 || rlfs) {
							kept = append(kept, inLines[i])
						}
					}
					all := linesOf(t, out)
					require.NotEmpty(t, all)
					assert.Equal(t, sansContext(kept), sansContext(all[1:]))
				})
			}
		})
	}
}

// Two traces of one clock make one: every record of both on one
// timeline, but for the second logfile-header record.
func TestETLMergesTraces(t *testing.T) {
	out := writeETL(t, kernelTrace, manifestTrace)
	in, inLines := jsonlOf(t, kernelTrace, manifestTrace)
	gotLines := linesOf(t, out)
	delete(in[0], "File")
	inLines = sansContext(inLines)
	requireSameHeaderLine(t, in[0], objectOf(t, gotLines[0]))
	var want []string
	for i, m := range in[1:] {
		if !isLogfileHeaderLine(m) {
			want = append(want, inLines[i+1])
		}
	}
	require.Len(t, want, len(inLines)-2)
	assert.Equal(t, want, sansContext(gotLines[1:]))
	assert.Equal(t, countOf(t, kernelTrace)+countOf(t, manifestTrace)-1, len(gotLines))
}

func TestETLRefusals(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.etl")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--format", "etl", kernelTrace}, "--format etl needs -o FILE"},
		{[]string{"--format", "etl", "-o", "-", kernelTrace}, "--format etl needs -o FILE"},
		{[]string{"--format", "etl", "-o", out, "--count", kernelTrace}, "cannot be combined with --count"},
		{[]string{"--format", "etl", "-o", out, "--order", "file", kernelTrace}, "--order file cannot be combined"},
		{[]string{"--format", "etl", "-o", out, kernelTrace, "../../testdata/etl/classic32.etl"},
			"cannot merge traces whose clocks differ: " + kernelTrace + " (QPC at 10000000 Hz), ../../testdata/etl/classic32.etl (QPC at 3117777 Hz)"},
		{[]string{"--format", "etl", "-o", out, "../../testdata/etl/clock-systemtime.etl", kernelTrace}, "(system time)"},
	} {
		stdout, errs, code := runCmd(t, tc.args...)
		assert.Equal(t, exitFatal, code, tc.args)
		assert.Empty(t, stdout)
		assert.Contains(t, errs, tc.msg)
		assert.NoFileExists(t, out)
	}

	// The output must not be an input: writing would truncate it first.
	in := filepath.Join(dir, "in.etl")
	b, err := os.ReadFile(kernelTrace)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, b, 0o644))
	_, errs, code := runCmd(t, "--format", "etl", "-o", in, in)
	assert.Equal(t, exitFatal, code)
	assert.Contains(t, errs, "it is an input")
	after, err := os.ReadFile(in)
	require.NoError(t, err)
	assert.Equal(t, b, after)
}

// A damaged input is written with the records that could be read; the
// run says what was lost, as the other formats do.
func TestETLFromDamagedInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.etl")
	_, errs, code := runCmd(t, "--format", "etl", "-o", out, damagedTrace)
	assert.Equal(t, exitDamaged, code)
	assert.Contains(t, errs, "damaged")
	wantOut, _, _ := runCmd(t, "--format", "jsonl", damagedTrace)
	gotOut, gotErrs, gotCode := runCmd(t, "--format", "jsonl", out)
	require.Equal(t, exitOK, gotCode, gotErrs)
	want := strings.SplitAfter(wantOut, "\n")
	got := strings.SplitAfter(gotOut, "\n")
	require.Greater(t, len(got), 2)
	assert.Equal(t, want[1:], got[1:])
}
