package etl_test

import (
	"bytes"
	"os"
	"runtime"
	"testing"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
)

// benchFileOrder iterates every record of an in-memory sample and reports
// throughput, ns per record and heap allocations per record.
func benchFileOrder(b *testing.B, name string) {
	data, err := os.ReadFile(samples.Path(b, name))
	if err != nil {
		b.Fatal(err)
	}
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	records := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for rec, err := range r.Records() {
			if err != nil {
				b.Fatal(err)
			}
			_ = rec.TimeStamp
			records++
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(records), "ns/record")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(records), "allocs/record")
}

func BenchmarkFileOrderKernel(b *testing.B)   { benchFileOrder(b, "shutdown-kernel.etl") }
func BenchmarkFileOrderManifest(b *testing.B) { benchFileOrder(b, "diaghub-user-paged.etl") }
func BenchmarkFileOrderClassic(b *testing.B)  { benchFileOrder(b, "diaghub-classic.etl") }
func BenchmarkFileOrderCompressed(b *testing.B) {
	benchFileOrder(b, "net452-x64-merged-compressed.etl")
}

// TestFileOrderDoesNotAllocatePerRecord pins the zero-allocation hot path:
// a whole pass over 17k records costs a fixed handful of allocations.
func TestFileOrderDoesNotAllocatePerRecord(t *testing.T) {
	data, err := os.ReadFile(samples.Path(t, "shutdown-kernel.etl"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	records := 0
	allocs := testing.AllocsPerRun(3, func() {
		records = 0
		for rec, err := range r.Records() {
			if err != nil {
				t.Fatal(err)
			}
			_ = rec
			records++
		}
	})
	if records != 17078 {
		t.Fatalf("%d records", records)
	}
	if allocs > 20 {
		t.Fatalf("%v allocations for a pass over %d records", allocs, records)
	}
}
