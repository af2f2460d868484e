package etl_test

import (
	"bufio"
	"bytes"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/record"
)

// benchPasses iterates seq b.N times and reports ns and heap allocations
// per record.
func benchPasses(b *testing.B, bytes int64, seq func() iter.Seq2[*record.Record, error]) {
	b.SetBytes(bytes)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	records := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for rec, err := range seq() {
			if err != nil {
				b.Fatal(err)
			}
			// The stored time, as before TimeStamp became a conversion
			// on call: the figures measure the reader, not time.Time.
			_ = rec.RawTimeStamp
			records++
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(records), "ns/record")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(records), "allocs/record")
}

// modes are the iterations compared: file order twice (the Records loop
// and the order package's), time order with and without read-ahead, and
// Sorted.
var benchModes = []struct {
	name string
	seq  func(r *etl.Reader) iter.Seq2[*record.Record, error]
}{
	{"Records", func(r *etl.Reader) iter.Seq2[*record.Record, error] { return r.Records() }},
	{"RecordsOneGoroutine", func(r *etl.Reader) iter.Seq2[*record.Record, error] {
		return r.SerialRecords()
	}},
	{"FileOrder", func(r *etl.Reader) iter.Seq2[*record.Record, error] {
		return r.EventsWith(order.Options{Mode: order.FileOrder})
	}},
	{"Ordered", func(r *etl.Reader) iter.Seq2[*record.Record, error] { return r.Events() }},
	{"OrderedNoReadAhead", func(r *etl.Reader) iter.Seq2[*record.Record, error] {
		return r.EventsWith(order.Options{ReadAhead: -1})
	}},
	{"Sorted", func(r *etl.Reader) iter.Seq2[*record.Record, error] {
		return r.EventsWith(order.Options{Mode: order.Sorted})
	}},
}

func benchSample(b *testing.B, name string) {
	r, size := sampleReader(b, name)
	for _, m := range benchModes {
		b.Run(m.name, func(b *testing.B) {
			benchPasses(b, size, func() iter.Seq2[*record.Record, error] { return m.seq(r) })
		})
	}
}

func BenchmarkEventsKernel(b *testing.B)     { benchSample(b, "shutdown-kernel.etl") }
func BenchmarkEventsClassic(b *testing.B)    { benchSample(b, "diaghub-classic.etl") }
func BenchmarkEventsCompressed(b *testing.B) { benchSample(b, "net452-x64-merged-compressed.etl") }

// BenchmarkEventsSynthetic reads a 64 MiB trace of 16 processors from
// memory: the merge's cost per record against file order.
func BenchmarkEventsSynthetic(b *testing.B) {
	var buf bytes.Buffer
	if _, err := etltest.WriteBenchmarkTrace(&buf, 64<<20, 16); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range benchModes {
		b.Run(m.name, func(b *testing.B) {
			benchPasses(b, int64(len(data)), func() iter.Seq2[*record.Record, error] { return m.seq(r) })
		})
	}
}

// LargeTraceEnv names the variable that enables BenchmarkLargeTrace: a
// 1 GiB trace of 16 processors, written once to the temporary directory
// and read from disk (the page cache, after the first pass).
const LargeTraceEnv = "ETLKIT_LARGE_TRACE"

func largeTrace(b *testing.B) string {
	if os.Getenv(LargeTraceEnv) == "" {
		b.Skipf("set %s=1 to write and read a 1 GiB trace", LargeTraceEnv)
	}
	path := filepath.Join(os.TempDir(), "etlkit-bench-16cpu-1GiB.etl")
	if st, err := os.Stat(path); err == nil && st.Size() >= 1<<30 {
		return path
	}
	tmp := path + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := etltest.WriteBenchmarkTrace(w, 1<<30, 16); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkLargeTrace compares time order with file order on a 1 GiB
// trace of 16 processors. Run one mode at a time under /usr/bin/time -v to
// see its peak memory, e.g.
//
//	ETLKIT_LARGE_TRACE=1 go test -run - -bench 'LargeTrace/Ordered$' -benchtime 1x ./etl
func BenchmarkLargeTrace(b *testing.B) {
	path := largeTrace(b)
	f, err := etl.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for _, m := range benchModes {
		b.Run(m.name, func(b *testing.B) {
			benchPasses(b, f.Size(), func() iter.Seq2[*record.Record, error] { return m.seq(f.Reader) })
			if st := f.Stats(); st.Order != nil {
				b.ReportMetric(float64(len(st.Order.Streams)), "streams")
			}
		})
	}
}

// TestEventsAllocationsPerPass pins the allocation-free hot path of the
// merge: a pass over 17k records costs the same handful of allocations as
// a pass over none would (the index, the streams, the read-ahead slots).
func TestEventsAllocationsPerPass(t *testing.T) {
	r, _ := sampleReader(t, "shutdown-kernel.etl")
	for _, opts := range []order.Options{{ReadAhead: -1}, {ReadAhead: 2, Workers: 2}} {
		records := 0
		allocs := testing.AllocsPerRun(3, func() { records = countRecords(t, r.EventsWith(opts)) })
		if records != 17078 {
			t.Fatalf("%d records", records)
		}
		t.Logf("%+v: %v allocations per pass", opts, allocs)
		// 49 buffers: their index entries, three streams with their rings
		// and slots, the workers: 53 allocations without read-ahead and 78
		// with it when this was written. Nothing grows with the records.
		if allocs > 100 {
			t.Fatalf("%s: %v allocations for a pass over %d records", fmt.Sprint(opts), allocs, records)
		}
	}
}
