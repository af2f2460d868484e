package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
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

// BenchmarkEncode measures the encoders alone on records kept from the
// benchmark trace, without reading: ns per record and bytes per record.
func BenchmarkEncode(b *testing.B) {
	path, _ := benchTrace(b)
	f, err := etl.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	var recs []*record.Record
	for r, err := range f.Records() {
		if err == nil {
			recs = append(recs, r.Clone())
		}
		if len(recs) == 4096 {
			break
		}
	}
	f.Close()
	z := newDescriber(true, nil, nil, nil, wppOptions{})
	descs := make([]describe.Description, len(recs))
	for i, r := range recs {
		z.describe(r, &descs[i])
		for j, v := range descs[i].Fields {
			descs[i].Fields[j] = v.Clone()
		}
		descs[i].Fields = append([]payload.Value(nil), descs[i].Fields...)
	}
	for _, c := range []struct {
		name string
		enc  encoder
	}{{"text", &textEncoder{}}, {"jsonl", &jsonlEncoder{}}, {"csv", &csvEncoder{}}, {"xml", &xmlEncoder{}}} {
		b.Run(c.name, func(b *testing.B) {
			var line []byte
			n, size := 0, 0
			for b.Loop() {
				i := n % len(recs)
				line = c.enc.record(line[:0], recs[i], &descs[i])
				size += len(line)
				n++
			}
			b.ReportMetric(float64(size)/float64(n), "bytes/record")
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

// BenchmarkSampleRecords describes and encodes the records of the merged
// .NET sample one at a time, with the schemas a first pass learned from
// the trace as etldump learns them, one record an op: allocs/op is what a
// record costs in allocations, which is none once the caches are warm.
//
//	go test ./cmd/etldump -run XXX -bench SampleRecords -benchmem
func BenchmarkSampleRecords(b *testing.B) {
	path := samples.Path(b, "net452-x64-merged-compressed.etl")
	f, err := etl.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	d := &dumper{stderr: io.Discard, inputs: []*input{{name: path, f: f}}}
	trace := d.learnTrace()
	var recs []*record.Record
	for r, err := range f.Events() {
		if err == nil {
			recs = append(recs, r.Clone())
		}
	}
	if len(recs) != 179474 {
		b.Fatalf("%d records, want 179474", len(recs))
	}
	for _, c := range []struct {
		name string
		enc  encoder
	}{{"jsonl", &jsonlEncoder{}}, {"csv", &csvEncoder{}}, {"text", &textEncoder{}}} {
		b.Run(c.name, func(b *testing.B) {
			z := newDescriber(true, trace, nil, d.learned, wppOptions{})
			var ds describe.Description
			line := make([]byte, 0, 1<<20)
			for _, r := range recs {
				z.describe(r, &ds)
				line = c.enc.record(line[:0], r, &ds)
			}
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			n := 0
			for b.Loop() {
				r := recs[n%len(recs)]
				n++
				z.describe(r, &ds)
				line = c.enc.record(line[:0], r, &ds)
			}
			runtime.ReadMemStats(&after)
			// allocs/op rounds down; this does not.
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/record")
		})
	}
}
