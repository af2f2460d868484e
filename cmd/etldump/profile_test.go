package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/internal/stacktest"
	"github.com/etlkit/etlkit/schema/kernel"
)

// goTool finds the go command, whose pprof is the reader the profile
// tests check the output with; the tests skip without it.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if p := filepath.Join(os.Getenv("GOROOT"), "bin", "go"); os.Getenv("GOROOT") != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("the go command is not on PATH: cannot run go tool pprof")
	return ""
}

// pprofOut runs go tool pprof with args on a profile file.
func pprofOut(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(goTool(t), append([]string{"tool", "pprof"}, args...)...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
	out, err := cmd.Output()
	require.NoError(t, err, "go tool pprof %v", args)
	return string(out)
}

// rawSample is one sample of go tool pprof -raw: its count and labels.
type rawSample struct {
	count  int64
	labels map[string]string
}

var (
	rawValues = regexp.MustCompile(`^\s+(\d+)\s+\d+: [\d ]*$`)
	rawValue1 = regexp.MustCompile(`^\s+(\d+): [\d ]*$`)
	rawLabel  = regexp.MustCompile(`(\w+):\[([^\]]*)\]`)
)

// parseRaw reads the samples of go tool pprof -raw.
func parseRaw(t *testing.T, out string) []rawSample {
	t.Helper()
	var got []rawSample
	in := false
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "Samples:":
			in = true
			continue
		case line == "Locations":
			in = false
		}
		if !in {
			continue
		}
		m := rawValues.FindStringSubmatch(line)
		if m == nil {
			m = rawValue1.FindStringSubmatch(line)
		}
		if m != nil {
			n, err := strconv.ParseInt(m[1], 10, 64)
			require.NoError(t, err)
			got = append(got, rawSample{count: n, labels: map[string]string{}})
			continue
		}
		if len(got) > 0 && strings.HasPrefix(line, "                ") {
			for _, l := range rawLabel.FindAllStringSubmatch(line, -1) {
				got[len(got)-1].labels[l[1]] = l[2]
			}
		}
	}
	return got
}

// traceSample is one sample of go tool pprof -traces: its count and its
// frames, leaf first.
type traceSample struct {
	count  int64
	labels map[string]string
	frames []string
}

var (
	traceLabel = regexp.MustCompile(`^\s+(\w+):  (.*)$`)
	traceFirst = regexp.MustCompile(`^\s+(\d+)   (.*)$`)
)

// parseTraces reads go tool pprof -traces -sample_index=samples.
func parseTraces(t *testing.T, out string) []traceSample {
	t.Helper()
	var got []traceSample
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-----------+") {
			got = append(got, traceSample{labels: map[string]string{}})
			continue
		}
		if len(got) == 0 {
			continue
		}
		s := &got[len(got)-1]
		if m := traceFirst.FindStringSubmatch(line); m != nil && len(s.frames) == 0 {
			n, err := strconv.ParseInt(m[1], 10, 64)
			require.NoError(t, err)
			s.count, s.frames = n, []string{m[2]}
			continue
		}
		if len(s.frames) == 0 {
			if m := traceLabel.FindStringSubmatch(line); m != nil {
				s.labels[m[1]] = m[2]
			}
			continue
		}
		if f := strings.TrimSpace(line); f != "" {
			s.frames = append(s.frames, f)
		}
	}
	return got
}

// sampleOracle is the test's own account of a trace's CPU samples, by
// process: each PerfInfo/Sample's thread (its payload's ThreadID) in the
// process the thread rundowns and starts name, checked against the
// StackProcess of the thread's stack records.
type sampleOracle struct {
	start time.Time
	times []time.Time
	pids  []uint32
}

func newSampleOracle(t *testing.T, path string) *sampleOracle {
	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	o := &sampleOracle{start: header.FileTimeToTime(f.Header().StartTime)}
	var procs kernel.Processes
	var tids []uint32
	stackPIDs := map[uint32]uint32{}
	for r, err := range f.Events() {
		require.NoError(t, err)
		procs.Learn(r)
		g, ok := kernel.Group(r)
		if !ok {
			continue
		}
		switch op := r.EventDescriptor.Opcode; {
		case g == 0x0F && op == 46:
			o.times = append(o.times, r.TimeStamp())
			tids = append(tids, binary.LittleEndian.Uint32(r.UserData[r.PointerSize():]))
		case g == 0x18 && (op == 32 || op == 37 || op == 38):
			tid, pid := binary.LittleEndian.Uint32(r.UserData[12:]), binary.LittleEndian.Uint32(r.UserData[8:])
			if p, ok := stackPIDs[tid]; ok {
				require.Equal(t, p, pid, "thread %d in two processes", tid)
			}
			stackPIDs[tid] = pid
		}
	}
	// The trace reuses no thread id: the rundowns, which may come after a
	// thread's first samples, name each thread's process for the whole
	// trace.
	for _, tid := range tids {
		pid, ok := procs.ProcessOf(tid)
		require.True(t, ok, "thread %d", tid)
		if p, ok := stackPIDs[tid]; ok {
			require.Equal(t, p, pid, "thread %d", tid)
		}
		o.pids = append(o.pids, pid)
	}
	return o
}

// count is the number of samples of process pid (any when pid < 0) in
// [from, to) after the trace start (no bound when to is 0).
func (o *sampleOracle) count(pid int64, from, to time.Duration) int64 {
	var n int64
	for i, at := range o.times {
		d := at.Sub(o.start)
		if (pid < 0 || uint32(pid) == o.pids[i]) && d >= from && (to == 0 || d < to) {
			n++
		}
	}
	return n
}

// TestProfilePprofNet452 checks the pprof profile of the merged .NET sample
// with go tool pprof: every PerfInfo/Sample is in it, each under its
// thread's process; the threads' samples have their stacks, whose frames
// are placed in images and .NET methods. Then the same for one process in
// a time window.
func TestProfilePprofNet452(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	goTool(t)
	oracle := newSampleOracle(t, path)
	require.Len(t, oracle.times, 79528)
	for _, tc := range []struct {
		name     string
		args     []string
		pid      int64
		from, to time.Duration
		methods  int
	}{
		{name: "whole", pid: -1, methods: 460},
		{name: "pid and window", args: []string{"--pid", "3676", "--from", "2s", "--to", "6s"}, pid: 3676, from: 2 * time.Second,
			to: 6 * time.Second, methods: 90},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "net452.pb.gz")
			_, errs, code := runCmd(t, append([]string{path, "--format", "pprof", "-o", out}, tc.args...)...)
			require.Equal(t, 0, code, errs)
			want := oracle.count(tc.pid, tc.from, tc.to)
			require.Positive(t, want)

			raw := parseRaw(t, pprofOut(t, "-raw", out))
			var total int64
			for _, s := range raw {
				total += s.count
				pid, err := strconv.ParseUint(s.labels["pid"], 10, 32)
				require.NoError(t, err, "%v", s.labels)
				tid, err := strconv.ParseUint(s.labels["tid"], 10, 32)
				require.NoError(t, err, "%v", s.labels)
				if tc.pid >= 0 {
					require.EqualValues(t, tc.pid, pid)
				}
				if tid == 0 {
					require.Zero(t, pid, "the idle threads are process 0's")
				}
			}
			assert.Equal(t, want, total, "samples in the profile")

			traces := parseTraces(t, pprofOut(t, "-traces", "-sample_index=samples", out))
			var samples, threadSamples, deep, frames, placed int64
			methods := map[string]bool{}
			for _, s := range traces {
				samples += s.count
				if s.labels["tid"] != "0" {
					threadSamples += s.count
					if len(s.frames) >= 2 {
						deep += s.count
					}
				}
				for _, f := range s.frames {
					frames += s.count
					if !strings.HasPrefix(f, "?!") {
						placed += s.count
					}
					if !strings.Contains(f, "!") {
						methods[f] = true
					}
				}
			}
			require.Equal(t, want, samples)
			t.Logf("%d samples, %d of threads other than idle, %d of them with 2 frames or more; %d of %d frames placed; %d .NET methods",
				samples, threadSamples, deep, placed, frames, len(methods))
			assert.GreaterOrEqual(t, float64(deep), 0.95*float64(threadSamples))
			assert.GreaterOrEqual(t, float64(placed), 0.98*float64(frames))
			assert.GreaterOrEqual(t, len(methods), tc.methods)
		})
	}
}

func TestProfileSpeedscopeAndFolded(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	for _, by := range []string{"thread", "process"} {
		out, errs, code := runCmd(t, path, "--format", "speedscope", "--profile-by", by)
		require.Equal(t, 0, code, errs)
		var f struct {
			Schema   string `json:"$schema"`
			Profiles []struct {
				Name    string    `json:"name"`
				Samples [][]int   `json:"samples"`
				Weights []float64 `json:"weights"`
			} `json:"profiles"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &f))
		assert.Equal(t, "https://www.speedscope.app/file-format-schema.json", f.Schema)
		var total float64
		for _, p := range f.Profiles {
			require.Len(t, p.Weights, len(p.Samples))
			for _, w := range p.Weights {
				total += w
			}
		}
		assert.EqualValues(t, 79528, total, by)
		if by == "process" {
			assert.Equal(t, "Idle (0)", f.Profiles[0].Name)
			assert.Equal(t, "Test.x64.exe (3676)", f.Profiles[1].Name)
		}
	}
	out, errs, code := runCmd(t, path, "--format", "folded")
	require.Equal(t, 0, code, errs)
	var total int64
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		i := strings.LastIndexByte(line, ' ')
		n, err := strconv.ParseInt(line[i+1:], 10, 64)
		require.NoError(t, err, line)
		total += n
		require.NotContains(t, line[:i], "\r")
	}
	assert.EqualValues(t, 79528, total)
	assert.Contains(t, out, "\nTest.x64.exe;ntdll.dll!+0x")
}

// TestProfileStacksOf: events other than CPU samples, by name.
func TestProfileStacksOf(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	for _, tc := range []struct {
		name string
		want int
	}{
		{"GC/AllocationTick", 10382},
		{"microsoft-windows-dotnetruntime/gc/allocationtick", 10382},
		{"DiskIO/ReadInit", 1208},
		{"Microsoft-Windows-Kernel-File/Create", 562},
	} {
		out, errs, code := runCmd(t, path, "--format", "folded", "--stacks-of", tc.name)
		require.Equal(t, 0, code, errs)
		var total int
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			n, err := strconv.Atoi(line[strings.LastIndexByte(line, ' ')+1:])
			require.NoError(t, err)
			total += n
		}
		assert.Equal(t, tc.want, total, tc.name)
	}
}

// TestProfileKernelSamples: the diaghub and shutdown kernel traces have
// no CPU samples; their profiles are empty and valid.
func TestProfileKernelSamples(t *testing.T) {
	for _, name := range []string{"diaghub-kernel.etl", "shutdown-kernel.etl"} {
		path := samples.Path(t, name)
		out := filepath.Join(t.TempDir(), "p.pb.gz")
		_, errs, code := runCmd(t, path, "--format", "pprof", "-o", out)
		require.Equal(t, 0, code, errs)
		assert.Empty(t, parseRaw(t, pprofOut(t, "-raw", out)))
		folded, errs, code := runCmd(t, path, "--format", "folded")
		require.Equal(t, 0, code, errs)
		assert.Empty(t, folded)
	}
}

func TestProfileFlags(t *testing.T) {
	path := samples.Path(t, "win11-sih.etl")
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--format", "pprof", "--stats"}, "cannot be combined with --stats"},
		{[]string{"--format", "pprof", path}, "profiles one trace"},
		{[]string{"--format", "folded", "--provider", "Microsoft-Windows-Kernel-Process"}, "it takes --pid, --process, --tid, --from and --to"},
		{[]string{"--format", "folded", "--order", "file"}, "joins stacks in time order"},
		{[]string{"--format", "pprof", "--profile-by", "process"}, "--profile-by applies to --format speedscope"},
		{[]string{"--format", "jsonl", "--stacks-of", "CSwitch"}, "--stacks-of applies to"},
		{[]string{"--format", "speedscope", "--profile-by", "cpu"}, "want thread or process"},
		{[]string{"--format", "pprof"}, "name it with -o FILE.pb.gz, or -o - for standard output"},
	} {
		_, errs, code := runCmd(t, append([]string{path}, tc.args...)...)
		assert.Equal(t, 2, code, tc.args)
		assert.Contains(t, errs, tc.err, tc.args)
	}
	// A profile with no samples is written, and standard error says why
	// it is empty.
	for _, tc := range []struct {
		path string
		args []string
		says string
	}{
		{path, nil, "no PerfInfo/Sample records (CPU samples) in the input"},
		{path, []string{"--stacks-of", "CSwitch"}, "no CSwitch records in the input"},
		{samples.Path(t, "net452-x64-merged-compressed.etl"), []string{"--pid", "1"}, "no PerfInfo/Sample records (CPU samples) pass the filters"},
	} {
		out, errs, code := runCmd(t, append([]string{tc.path, "--format", "folded"}, tc.args...)...)
		assert.Equal(t, 0, code, errs)
		assert.Empty(t, out)
		assert.Equal(t, "etldump: the profile is empty: "+tc.says+"\n", errs)
	}
	// -o - asks for standard output: a gzip stream.
	out, errs, code := runCmd(t, path, "--format", "pprof", "-o", "-")
	assert.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(out, "\x1f\x8b"), "%q", out[:min(len(out), 8)])
}

// TestProfileThreadsNamedLate: a trace without its start rundown names its
// threads only in its end rundown, after their samples. The profile puts
// each sample in its thread's process all the same, as jsonl does.
func TestProfileThreadsNamedLate(t *testing.T) {
	const pid, tid = 1234, 5678
	tr := stacktest.New()
	tr.Sample(0, 100, tid, 0x7FF6_0000_2000)
	tr.Stack(0, 101, 100, pid, tid, 0x7FF6_0000_2000, 0x7FF6_0000_3000)
	tr.Sample(0, 200, tid, 0x7FF6_0000_2010)
	tr.Stack(0, 201, 200, pid, tid, 0x7FF6_0000_2010)
	tr.ProcessRundown(0, 300, pid, "late.exe")
	tr.ThreadRundown(0, 301, pid, tid)
	path := filepath.Join(t.TempDir(), "late.etl")
	require.NoError(t, os.WriteFile(path, tr.Bytes(t), 0o644))

	out, errs, code := runCmd(t, path, "--format", "folded")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "late.exe;?!0x7ff600002010 1\nlate.exe;?!0x7ff600003000;?!0x7ff600002000 1\n", out)
	out, errs, code = runCmd(t, path, "--format", "jsonl")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, 2, strings.Count(out, `"EventName":"PerfInfo/Sample","Version":2,"Opcode":46,"SubjectProcessId":1234,`), out)
}
