package describe_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
)

// kernelRecords keeps the kernel and KernelTraceControl records of a
// sample, in time order.
func kernelRecords(tb testing.TB, name string) []*record.Record {
	f, err := etl.Open(samples.Path(tb, name))
	require.NoError(tb, err)
	defer f.Close()
	z := describe.New(describe.Options{})
	var d describe.Description
	var out []*record.Record
	for r, err := range f.Events() {
		require.NoError(tb, err)
		z.Describe(r, &d, false)
		if d.Kernel || d.ProviderName == "KernelTraceControl" {
			out = append(out, r.Clone())
		}
	}
	return out
}

// TestKernelDescribeDoesNotAllocate describes every kernel record of two
// samples with its payload; once the Describer has seen them (its value
// slab grown, file names learned), a second pass allocates nothing.
func TestKernelDescribeDoesNotAllocate(t *testing.T) {
	for _, name := range []string{"net452-x64-merged-compressed.etl", "shutdown-kernel.etl"} {
		recs := kernelRecords(t, name)
		z := describe.New(describe.Options{})
		var d describe.Description
		pass := func() {
			for _, r := range recs {
				z.Describe(r, &d, true)
			}
		}
		pass()
		if n := testing.AllocsPerRun(2, pass); n != 0 {
			t.Errorf("%s: %v allocations for %d records", name, n, len(recs))
		}
	}
}

// BenchmarkDescribeKernel describes the kernel records of the merged .NET
// sample with their payloads, in ns and allocations per record:
//
//	go test ./describe -run XXX -bench DescribeKernel -benchmem
func BenchmarkDescribeKernel(b *testing.B) {
	recs := kernelRecords(b, "net452-x64-merged-compressed.etl")
	z := describe.New(describe.Options{})
	var d describe.Description
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		z.Describe(recs[n%len(recs)], &d, true)
		n++
	}
	b.ReportMetric(float64(len(recs)), "records")
}
