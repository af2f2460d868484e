package main

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
)

// sampleKey identifies a CPU sample or a stack among the records.
type sampleKey struct {
	event string
	raw   int64
	cpu   int
}

// expectedAttribution walks the merged .NET sample in time order, builds
// the thread → process map from the decoded fields of its Thread events as
// they come, and returns the CPU samples whose thread is in process pid
// and the stacks whose StackProcess is pid; then the CPU samples and the
// stacks of the threads of pid. A sample of a thread that no Thread event
// has named yet is in the process of the thread's first Thread event
// (its end rundown), unless that event is its Start.
func expectedAttribution(t *testing.T, path string, pid uint64) (byPid, byTid map[sampleKey]bool, tids []uint64) {
	t.Helper()
	type event struct {
		name     string
		tid, pid uint64
		key      sampleKey
	}
	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	names, _ := describe.ForTrace(nil, f.Reader)
	var events []event
	var d describe.Description
	field := func(name string) uint64 {
		v, ok := payload.Lookup(d.Fields, name)
		require.True(t, ok, "%s has no %s", d.EventName, name)
		return v.Uint()
	}
	first := map[uint64]event{}
	for r, err := range f.Events() {
		require.NoError(t, err)
		names.Describe(r, &d, true)
		key := sampleKey{d.EventName, r.RawTimeStamp, int(r.ProcessorNumber)}
		switch d.EventName {
		case "Thread/Start", "Thread/Stop", "Thread/DCStart", "Thread/DCStop":
			e := event{d.EventName, field("ThreadID"), field("ProcessID"), key}
			events = append(events, e)
			if _, ok := first[e.tid]; !ok {
				first[e.tid] = e
			}
		case "PerfInfo/Sample":
			events = append(events, event{d.EventName, field("ThreadID"), 0, key})
		case "StackWalk/Stack":
			events = append(events, event{d.EventName, field("StackThread"), field("StackProcess"), key})
		}
	}
	owner := map[uint64]uint64{0: 0}
	threads := map[uint64]bool{}
	byPid, byTid = map[sampleKey]bool{}, map[sampleKey]bool{}
	late := 0
	for _, e := range events {
		switch e.name {
		case "PerfInfo/Sample":
			p, known := owner[e.tid]
			if f, ok := first[e.tid]; !known && ok && f.name != "Thread/Start" {
				p, known = f.pid, true
				late++
			}
			if known && p == pid {
				byPid[e.key] = true
			}
		case "StackWalk/Stack":
			if e.pid == pid {
				byPid[e.key] = true
			}
		default:
			owner[e.tid] = e.pid
			if e.pid == pid {
				threads[e.tid] = true
			}
		}
	}
	t.Logf("pid %d: %d samples of threads named only later", pid, late)
	for tid := range threads {
		tids = append(tids, tid)
	}
	slices.Sort(tids)
	for _, e := range events {
		if (e.name == "PerfInfo/Sample" || e.name == "StackWalk/Stack") && threads[e.tid] {
			byTid[e.key] = true
		}
	}
	return byPid, byTid, tids
}

// samplesOut runs etldump --format jsonl with args and returns its CPU
// samples and stacks, and its lines.
func samplesOut(t *testing.T, args ...string) (map[sampleKey]bool, string) {
	t.Helper()
	out, errs, code := runCmd(t, append([]string{"--format", "jsonl"}, args...)...)
	require.Equal(t, exitOK, code, errs)
	got := map[sampleKey]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var m struct {
			EventName       string
			RawTimeStamp    int64
			ProcessorNumber int
		}
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if m.EventName == "PerfInfo/Sample" || m.EventName == "StackWalk/Stack" {
			k := sampleKey{m.EventName, m.RawTimeStamp, m.ProcessorNumber}
			require.False(t, got[k], "%v twice", k)
			got[k] = true
		}
	}
	return got, out
}

// TestPidKeepsSamplesAndStacks: --pid keeps every CPU sample whose thread
// belongs to the process and every stack that names it, as an independent
// walk of the Thread events counts them; --process and --tid agree.
func TestPidKeepsSamplesAndStacks(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	for _, c := range []struct {
		pid   uint64
		image string
	}{{3676, "test.x64"}, {3988, "PerfView.EXE"}} {
		pidArg := strconv.FormatUint(c.pid, 10)
		want, wantT, tids := expectedAttribution(t, path, c.pid)
		samplesWanted, stacksWanted := 0, 0
		for k := range want {
			if k.event == "PerfInfo/Sample" {
				samplesWanted++
			} else {
				stacksWanted++
			}
		}
		require.Greater(t, samplesWanted, 100, "pid %d", c.pid)
		require.Greater(t, stacksWanted, 10, "pid %d", c.pid)

		got, byPid := samplesOut(t, "--pid", pidArg, path)
		assert.Equal(t, want, got, "--pid %d: %d samples and stacks, want %d", c.pid, len(got), len(want))

		// --process gives the same records.
		_, byName := samplesOut(t, "--process", c.image, path)
		assert.Equal(t, byPid, byName, "--process %s against --pid %d", c.image, c.pid)

		// --tid with the process's threads gives the same samples and stacks.
		var list []string
		for _, tid := range tids {
			list = append(list, strconv.FormatUint(tid, 10))
		}
		gotT, _ := samplesOut(t, "--tid", strings.Join(list, ","), path)
		assert.Equal(t, wantT, gotT, "--tid of the threads of %d", c.pid)

		// --count counts what the records show.
		out, errs, code := runCmd(t, "--count", "--pid", pidArg, path)
		require.Equal(t, exitOK, code, errs)
		assert.Equal(t, strconv.Itoa(strings.Count(byPid, "\n"))+"\n", out)
	}
}
