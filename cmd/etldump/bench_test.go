package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/samples"
)

var (
	benchOnce    sync.Once
	benchPath    string
	benchRecords int64
	benchErr     error
)

// benchTrace writes one 64 MiB synthetic trace per test binary run, with
// the record mix of large kernel and manifest traces.
func benchTrace(b *testing.B) (string, int64) {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "etldump-bench-")
		if err != nil {
			benchErr = err
			return
		}
		benchPath = filepath.Join(dir, "bench.etl")
		f, err := os.Create(benchPath)
		if err != nil {
			benchErr = err
			return
		}
		w := bufio.NewWriter(f)
		res, err := etltest.WriteBenchmarkTrace(w, 64<<20, 8)
		if err == nil {
			err = w.Flush()
		}
		f.Close()
		benchRecords, benchErr = res.Records, err
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath, benchRecords
}

// BenchmarkRun measures the whole program in-process on one trace, per
// output and view, in ns per record; the output goes to io.Discard so that
// only reading, filtering and encoding are counted.
func BenchmarkRun(b *testing.B) {
	path, records := benchTrace(b)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"count", []string{"--count"}},
		{"count-filtered", []string{"--count", "--level", "3", "--any", "0x5"}},
		{"text", nil},
		{"jsonl", []string{"--format", "jsonl"}},
		{"csv", []string{"--format", "csv"}},
		{"xml", []string{"--format", "xml"}},
		{"stats", []string{"--stats"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			runBench(b, path, c.args)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*records), "ns/record")
		})
	}
}

// BenchmarkSample runs the whole program on the merged .NET sample (kernel,
// KernelTraceControl and .NET records), to hold the cost of decoding every
// payload against counting the records:
//
//	go test ./cmd/etldump -run XXX -bench Sample -count 5
//
// and compare jsonl's ns/op with count's.
func BenchmarkSample(b *testing.B) {
	path := samples.Path(b, "net452-x64-merged-compressed.etl")
	for _, c := range []struct {
		name string
		args []string
	}{{"count", []string{"--count"}}, {"jsonl", []string{"--format", "jsonl"}}} {
		b.Run(c.name, func(b *testing.B) { runBench(b, path, c.args) })
	}
}

// runBench runs the program on path with args, output discarded, b.N times.
func runBench(b *testing.B, path string, args []string) {
	args = append(append([]string{"--progress", "never"}, args...), path)
	b.ReportAllocs()
	for b.Loop() {
		if code := run(args, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
