package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/internal/duckdb"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/internal/tshark"
)

// TestHelpExamplesRun runs every example the help ends with on the shared
// samples, its files standing for them and its outputs in a temporary
// directory: each exits 0 and gives what its comment says (checkExample).
func TestHelpExamplesRun(t *testing.T) {
	out, _, code := runCmd(t, "--help")
	require.Equal(t, exitOK, code)
	_, ex, ok := strings.Cut(out, "\nexamples:\n")
	require.True(t, ok, "the help ends with examples")
	var commands []string
	for _, l := range strings.Split(ex, "\n") {
		if c, ok := strings.CutPrefix(l, "  etldump "); ok {
			commands = append(commands, c)
		}
	}
	require.GreaterOrEqual(t, len(commands), 6)
	require.LessOrEqual(t, len(commands), 10)
	files := map[string]string{
		"trace.etl":     samples.Path(t, "net452-x64-merged-compressed.etl"),
		"first.etl":     samples.Path(t, "gcevents-manifest.etl"),
		"second.etl":    samples.Path(t, "gcrundown-manifest.etl"),
		"PktMon.etl":    samples.Path(t, "pktmon-ethernet.etl"),
		"ClrEtwAll.man": samples.ManifestPath(t, "ClrEtwAll.man"),
	}
	covered := map[string]bool{}
	for _, c := range commands {
		t.Run(c, func(t *testing.T) {
			dir := t.TempDir()
			args := strings.Fields(c)
			var output string
			for i, a := range args {
				if p, ok := files[a]; ok {
					args[i] = p
				}
				if i > 0 && (args[i-1] == "-o" || args[i-1] == "--output") {
					output = filepath.Join(dir, a)
					if strings.HasSuffix(a, "/") {
						output += string(filepath.Separator)
					}
					args[i] = output
				}
				for _, f := range []string{"--from", "--process", "--pid", "--provider", "--manifest", "--format", "-n", "--stats"} {
					if a == f {
						covered[f] = true
					}
				}
				if a == "--format" && i+1 < len(args) {
					covered[args[i+1]] = true
				}
			}
			stdout, errs, code := runCmd(t, args...)
			require.Equal(t, exitOK, code, errs)
			checkExample(t, c, args, stdout, output)
		})
	}
	for _, what := range []string{"--from", "--process", "--pid", "--provider", "--manifest", "-n", "jsonl", "csv", "etl", "parquet", "pcapng", "pprof"} {
		assert.True(t, covered[what], "no example shows %s", what)
	}
}

func TestVersion(t *testing.T) {
	out, errs, code := runCmd(t, "--version")
	assert.Equal(t, exitOK, code, errs)
	assert.Regexp(t, `^etldump \S+ \(go[0-9.]+\S*\)\n$`, out)
	assert.Contains(t, out, runtime.Version())
	// It needs no input, and wins over a view.
	out, _, code = runCmd(t, "--version", "--stats")
	assert.Equal(t, exitOK, code)
	assert.True(t, strings.HasPrefix(out, "etldump "))
}

// TestLevelAndTimeForms: every level name and number, and every time form
// of --from and --to, as the session gets them.
func TestLevelAndTimeForms(t *testing.T) {
	for in, want := range map[string]uint8{
		"critical": 1, "error": 2, "warning": 3, "warn": 3, "information": 4, "informational": 4, "info": 4, "verbose": 5,
		"WARN": 3, "Informational": 4, "0": 0, "3": 3, "255": 255, "0x5": 5,
	} {
		o, _, err := parseOptions([]string{"--level", in, "x.etl"})
		require.NoError(t, err, in)
		assert.Equal(t, want, o.session.Level, "--level %s", in)
	}
	rel := map[string]time.Duration{"1m30s": 90 * time.Second, "1h": time.Hour, "1.5": 1500 * time.Millisecond, "90": 90 * time.Second,
		"250ms": 250 * time.Millisecond, "1.5s": 1500 * time.Millisecond}
	for in, want := range rel {
		o, _, err := parseOptions([]string{"--from", in, "--to", in, "x.etl"})
		require.NoError(t, err, in)
		assert.Equal(t, filter.TimeBound{Offset: want, Relative: true}, o.session.From, in)
		assert.Equal(t, o.session.From, o.session.To, in)
	}
	abs := map[string]time.Time{
		"2020-07-29T00:06:21":          time.Date(2020, 7, 29, 0, 6, 21, 0, time.UTC),
		"2020-07-29T00:07:00.6236167Z": time.Date(2020, 7, 29, 0, 7, 0, 623616700, time.UTC),
		"2020-07-29T02:07:00+02:00":    time.Date(2020, 7, 29, 0, 7, 0, 0, time.UTC),
		"2020-07-29 00:06:21.5":        time.Date(2020, 7, 29, 0, 6, 21, 500000000, time.UTC),
	}
	for in, want := range abs {
		o, _, err := parseOptions([]string{"--to", in, "x.etl"})
		require.NoError(t, err, in)
		assert.True(t, o.session.To.At.Equal(want) && !o.session.To.Relative, "--to %s: %+v", in, o.session.To)
	}
	for _, in := range []string{"--level=loud", "--from=-1s", "--from=yesterday", "--to=1d", "-n=0", "-n=x", "--process=", "--tid=x"} {
		_, _, err := parseOptions([]string{in, "x.etl"})
		assert.Error(t, err, in)
	}
}

// TestTimeFormsSelectAlike: the forms of one instant select the same
// records of a real trace; the text output's own time of a record starts
// at that record.
func TestTimeFormsSelectAlike(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	lines := linesOf(t, "--event-name", "GC/Start", path)
	require.NotEmpty(t, lines)
	at := objectOf(t, lines[0])["TimeStamp"].(string)
	text, _, code := runCmd(t, "--from", at, "--event-name", "GC/Start", "-n", "1", path)
	require.Equal(t, exitOK, code)
	assert.True(t, strings.HasPrefix(text, at+" "), "%s does not start at %s", text, at)

	start := countOf(t, "--from", "2020-07-29T00:07:02Z", path)
	assert.Positive(t, start)
	assert.Equal(t, start, countOf(t, "--from", "2020-07-29T00:07:02", path))
	assert.Equal(t, start, countOf(t, "--from", "2020-07-29T02:07:02+02:00", path))
	// The trace starts at 00:07:00.6236167.
	assert.Equal(t, start, countOf(t, "--from", "1.3763833", path))
	assert.Equal(t, start, countOf(t, "--from", "1376383300ns", path))
	assert.Equal(t, countOf(t, path), countOf(t, "--to", "1h", path))
	assert.Equal(t, countOf(t, "--to", "90s", path), countOf(t, "--to", "1m30s", path))
}

// TestLimit: -n stops after N records out, after the filters and in the
// chosen order, in every view and output.
func TestLimit(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	for _, args := range [][]string{
		nil,
		{"--order", "file"},
		{"--provider", "Windows Kernel", "--level", "4"},
		{"--pid", "3676", "--from", "3s"},
		{"--event-name", "GC/Start"},
	} {
		all := linesOf(t, append(append([]string{}, args...), path)...)
		require.Greater(t, len(all), 20, "%v", args)
		for _, n := range []int{1, 7, 20} {
			got := linesOf(t, append(append([]string{"-n", itoa(n)}, args...), path)...)
			assert.Equal(t, all[:n], got, "-n %d %v", n, args)
		}
		assert.Equal(t, 20, countOf(t, append(append([]string{"-n", "20"}, args...), path)...))
		assert.Equal(t, all, linesOf(t, append(append([]string{"-n", itoa(len(all) + 5)}, args...), path)...))
	}
	// A new trace holds the first N records that pass (and those that
	// describe the trace).
	out := filepath.Join(t.TempDir(), "first.etl")
	_, errs, code := runCmd(t, "--format", "etl", "-o", out, "-n", "50", "--event-name", "PerfInfo/Sample", path)
	require.Equal(t, exitOK, code, errs)
	assert.Equal(t, 50, countOf(t, "--event-name", "PerfInfo/Sample", out))
	_, errs, code = runCmd(t, "--format", "pprof", "-n", "5", "-o", filepath.Join(t.TempDir(), "p"), path)
	assert.Equal(t, exitFatal, code, errs)
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestFileColumnWithSeveralInputs: every format names the input of each
// record when several are read, and none when one is.
func TestFileColumnWithSeveralInputs(t *testing.T) {
	a, b := samples.Path(t, "gcevents-manifest.etl"), samples.Path(t, "gcrundown-manifest.etl")
	for _, format := range []string{"text", "jsonl", "csv", "xml"} {
		both, errs, code := runCmd(t, "--format", format, a, b)
		require.Equal(t, exitOK, code, errs)
		one, _, _ := runCmd(t, "--format", format, a)
		names := map[string]int{}
		for _, in := range []string{a, b} {
			names[in] = strings.Count(both, in)
		}
		assert.Equal(t, 71+112, names[a]+names[b], "--format %s: a File per record", format)
		assert.Equal(t, 71, names[a], "--format %s", format)
		assert.NotContains(t, one, a, "--format %s of one input", format)
	}
	lines := linesOf(t, a, b)
	assert.True(t, strings.HasPrefix(lines[0], `{"File":`), lines[0])
	csvOut, _, _ := runCmd(t, "--format", "csv", a, b)
	assert.True(t, strings.HasPrefix(csvOut, "File,TimeStamp,"))
	text, _, _ := runCmd(t, a, b)
	assert.True(t, strings.HasPrefix(text, a+" "), text[:80])
}

// checkExample checks that a help example (c, run as args) gave what it
// says, from its output: stdout, or the file or directory output.
func checkExample(t *testing.T, c string, args []string, stdout, output string) {
	t.Helper()
	countOf := func(args ...string) int {
		n, _, code := countRun(t, args...)
		require.Equal(t, exitOK, code)
		return n
	}
	switch {
	case strings.Contains(c, "--level warning"):
		// Text: every line of the provider, at warning or above.
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		assert.Equal(t, countOf(args...), len(lines))
		for _, l := range lines {
			f := strings.Fields(l)
			require.GreaterOrEqual(t, len(f), 5, l)
			assert.True(t, strings.HasPrefix(f[3], "Microsoft-Windows-DotNETRuntime/"), l)
			assert.Contains(t, []string{"LOG_ALWAYS", "CRITICAL", "ERROR", "WARNING"}, f[4], l)
		}
	case strings.Contains(c, "--process Test.x64"):
		// JSON lines, each about process 3676.
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		assert.Equal(t, countOf(args...), len(lines))
		for _, l := range lines {
			var m struct {
				ProcessId        int64
				SubjectProcessId *int64
			}
			require.NoError(t, json.Unmarshal([]byte(l), &m), l)
			pid := m.ProcessId
			if m.SubjectProcessId != nil {
				pid = *m.SubjectProcessId
			}
			require.EqualValues(t, 3676, pid, l)
		}
	case strings.HasSuffix(output, "events.csv"):
		rows, err := csv.NewReader(mustOpen(t, output)).ReadAll()
		require.NoError(t, err)
		assert.Len(t, rows, 1001, "the header row and 1000 events")
	case strings.HasSuffix(output, "cut.etl"):
		// The records from the instant on, as --count counts them; before
		// it only what keeps the cut decodable (the logfile header, the
		// trace's metadata and header events).
		from, err := time.Parse(time.RFC3339, "2020-07-29T00:07:02Z")
		require.NoError(t, err)
		f, err := etl.Open(output)
		require.NoError(t, err)
		defer f.Close()
		after, before := 0, 0
		for r, err := range f.Events() {
			require.NoError(t, err)
			if r.TimeStamp().Before(from) {
				before++
			} else {
				after++
			}
		}
		assert.Equal(t, countOf(args[0], "--from", "2020-07-29T00:07:02"), after)
		assert.Equal(t, 28, before, "8 TDH metadata, 3 EventSource manifests, 17 kernel header events")
	case strings.HasSuffix(output, "parquet/"):
		names, err := os.ReadDir(output)
		require.NoError(t, err)
		require.Len(t, names, 2, "a Parquet file per input")
		res := duckdb.Query(t,
			"SELECT count(*) FROM read_parquet("+sqlString(filepath.Join(output, "gcevents-manifest.parquet"))+")",
			"SELECT count(*) FROM read_parquet("+sqlString(filepath.Join(output, "gcrundown-manifest.parquet"))+")")
		assert.EqualValues(t, countOf(args[0]), asInt(t, res[0].Rows[0][0]))
		assert.EqualValues(t, countOf(args[1]), asInt(t, res[1].Rows[0][0]))
	case strings.HasSuffix(output, "cpu.pb.gz"):
		// The CPU samples of process 3676, each labelled with it.
		prof, err := profile.Parse(mustOpen(t, output))
		require.NoError(t, err)
		var samples int64
		for _, smp := range prof.Sample {
			assert.Equal(t, []string{"3676"}, smp.Label["pid"])
			samples += smp.Value[0]
		}
		assert.EqualValues(t, countOf(args[0], "--pid", "3676", "--event-name", "PerfInfo/Sample"), samples)
	case strings.HasSuffix(output, "capture.pcapng"):
		info := tshark.Capinfos(t, "-c", output)
		assert.Contains(t, info, "Number of packets:   51\n")
	case strings.Contains(c, "--stats"):
		assert.Contains(t, stdout, fmt.Sprintf("Records:        %d\n", countOf(args[0])))
	default:
		t.Errorf("no check for the example %q", c)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}
