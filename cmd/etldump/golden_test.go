package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the current output")

// goldenRuns are the invocations compared with a golden file for every
// synthetic trace: each output format and each view.
var goldenRuns = []struct {
	suffix string
	args   []string
}{
	{"text", nil},
	{"jsonl", []string{"--format", "jsonl"}},
	{"csv", []string{"--format", "csv"}},
	{"xml", []string{"--format", "xml"}},
	{"header.txt", []string{"--header"}},
	{"header.json", []string{"--header", "--format", "json"}},
	{"stats.txt", []string{"--stats"}},
	{"stats.json", []string{"--stats", "--format", "json"}},
	{"count", []string{"--count"}},
	{"file-order.jsonl", []string{"--format", "jsonl", "--order", "file"}},
}

func traces(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("../../testdata/etl/*.etl")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no synthetic traces in testdata/etl")
	}
	return paths
}

// TestGolden runs etldump on every synthetic trace in every format and
// view and compares standard output, standard error and the exit status
// with the committed golden file. go test -run TestGolden -update rewrites
// them.
func TestGolden(t *testing.T) {
	for _, path := range traces(t) {
		base := strings.TrimSuffix(filepath.Base(path), ".etl")
		for _, g := range goldenRuns {
			t.Run(base+"."+g.suffix, func(t *testing.T) {
				checkGolden(t, base+"."+g.suffix, append(append([]string{}, g.args...), path))
			})
		}
	}
}

// activityTraces are the synthetic traces whose records pair STARTs and
// STOPs by activity id; TestNoActivitiesElsewhere holds the others to
// none.
var activityTraces = []string{"manifest64", "tracelogging"}

// activityRuns are the --activities invocations compared with a golden file.
var activityRuns = []struct {
	suffix string
	args   []string
}{
	{"activities.txt", []string{"--activities"}},
	{"activities.json", []string{"--activities", "--format", "json"}},
}

// TestGoldenActivities compares --activities on the synthetic traces that
// have activities, and on a trace built here with a tree of them (nested
// children, an open activity, an unknown parent, an orphan stop).
func TestGoldenActivities(t *testing.T) {
	paths := map[string]string{"activity-tree": writeActivityTrace(t)}
	for _, base := range activityTraces {
		paths[base] = filepath.Join("..", "..", "testdata", "etl", base+".etl")
	}
	for _, base := range append([]string{"activity-tree"}, activityTraces...) {
		for _, g := range activityRuns {
			t.Run(base+"."+g.suffix, func(t *testing.T) {
				checkGolden(t, base+"."+g.suffix, append(append([]string{}, g.args...), paths[base]))
			})
		}
	}
}

// checkGolden runs etldump and compares standard output, standard error
// and the exit status with testdata/golden/name; -update rewrites it.
func checkGolden(t *testing.T, name string, args []string) {
	t.Helper()
	args = append([]string{"--progress", "never"}, args...)
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	got := out.Bytes()
	if errb.Len() > 0 || code != 0 {
		// Damage is part of what a trace shows; keep it in the
		// golden file after the output.
		got = append(got, "--- stderr, exit "+strconv.Itoa(code)+"\n"...)
		got = append(got, errb.Bytes()...)
	}
	golden := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestGolden -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -run TestGolden -update rewrites it)\n%s", golden, firstDiff(got, want))
	}
}

// firstDiff shows the first line that differs, which is what a reviewer
// needs to see whether a change is meant.
func firstDiff(got, want []byte) string {
	g := strings.Split(string(got), "\n")
	w := strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			// Long JSON lines are cut around the first differing byte.
			c := 0
			for c < len(gl) && c < len(wl) && gl[c] == wl[c] {
				c++
			}
			cut := func(s string) string {
				from, to := max(c-60, 0), min(c+100, len(s))
				return s[from:to]
			}
			return "line " + strconv.Itoa(i+1) + ", byte " + strconv.Itoa(c+1) + ":\n got: " + cut(gl) + "\nwant: " + cut(wl)
		}
	}
	return "(only line ends differ)"
}
