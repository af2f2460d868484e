package etl_test

import (
	"bytes"
	"iter"
	"os"
	"runtime"
	"testing"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
)

// File-order figures per sample come from the Records mode of the
// BenchmarkEvents* benchmarks in ordered_bench_test.go.
func BenchmarkEventsManifest(b *testing.B) { benchSample(b, "diaghub-user-paged.etl") }

// sampleReader reads a shared sample into memory, so that passes over it
// measure the reader rather than the file system.
func sampleReader(tb testing.TB, name string) (*etl.Reader, int64) {
	tb.Helper()
	data, err := os.ReadFile(samples.Path(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		tb.Fatal(err)
	}
	return r, int64(len(data))
}

// countRecords runs a pass and counts its records; an error fails the test.
func countRecords(tb testing.TB, seq iter.Seq2[*record.Record, error]) int {
	n := 0
	for _, err := range seq {
		if err != nil {
			tb.Fatal(err)
		}
		n++
	}
	return n
}

// TestFileOrderDoesNotAllocatePerRecord pins the zero-allocation hot path:
// a whole pass over 17k records costs a fixed handful of allocations.
func TestFileOrderDoesNotAllocatePerRecord(t *testing.T) {
	r, _ := sampleReader(t, "shutdown-kernel.etl")
	records := 0
	allocs := testing.AllocsPerRun(3, func() { records = countRecords(t, r.Records()) })
	if records != 17078 {
		t.Fatalf("%d records", records)
	}
	if allocs > 20 {
		t.Fatalf("%v allocations for a pass over %d records", allocs, records)
	}
}

// TestParallelFileOrderDoesNotAllocatePerRecord pins the same for the
// two-goroutine pass, which testing.AllocsPerRun cannot see (it runs with
// GOMAXPROCS=1): once a first pass has grown the ring, a pass over 17k
// records costs a fixed handful of allocations.
func TestParallelFileOrderDoesNotAllocatePerRecord(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the two-goroutine pass needs GOMAXPROCS >= 2")
	}
	r, _ := sampleReader(t, "shutdown-kernel.etl")
	pass := func() (records int, mallocs uint64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		records = countRecords(t, r.Records())
		runtime.ReadMemStats(&after)
		return records, after.Mallocs - before.Mallocs
	}
	pass()
	pass()
	records, mallocs := pass()
	if records != 17078 {
		t.Fatalf("%d records", records)
	}
	if mallocs > 40 {
		t.Fatalf("%d allocations for a pass over %d records", mallocs, records)
	}
}

// TestFileOrderAllocationsOnCommittedTrace pins the same bound on a trace
// committed in testdata, so that it holds without the shared samples too.
func TestFileOrderAllocationsOnCommittedTrace(t *testing.T) {
	for _, name := range []string{"kernel64.etl", "compressed.etl"} {
		f, err := etl.Open("../testdata/etl/" + name)
		if err != nil {
			t.Fatal(err)
		}
		records := 0
		allocs := testing.AllocsPerRun(3, func() { records = countRecords(t, f.Records()) })
		f.Close()
		// More records than the allowed allocations, so one per record would show.
		if records < 100 {
			t.Fatalf("%s: only %d records", name, records)
		}
		if allocs > 20 {
			t.Fatalf("%s: %v allocations for a pass over %d records", name, allocs, records)
		}
	}
}
