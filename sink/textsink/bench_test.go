package textsink

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// BenchmarkEncode measures the encoders alone on records kept from a
// synthetic trace with the record mix of large kernel and manifest traces,
// without reading: ns per record and bytes per record.
func BenchmarkEncode(b *testing.B) {
	var trace bytes.Buffer
	if _, err := etltest.WriteBenchmarkTrace(&trace, 8<<20, 8); err != nil {
		b.Fatal(err)
	}
	r, err := etl.NewReader(bytes.NewReader(trace.Bytes()), int64(trace.Len()))
	if err != nil {
		b.Fatal(err)
	}
	var recs []*record.Record
	for rec, err := range r.Records() {
		if err == nil {
			recs = append(recs, rec.Clone())
		}
		if len(recs) == 4096 {
			break
		}
	}
	z, _ := describe.ForTrace(nil)
	descs := make([]describe.Description, len(recs))
	for i, rec := range recs {
		z.Describe(rec, &descs[i], true)
		for j, v := range descs[i].Fields {
			descs[i].Fields[j] = v.Clone()
		}
		descs[i].Fields = append([]payload.Value(nil), descs[i].Fields...)
	}
	for _, format := range Formats() {
		enc, err := NewEncoder(Options{Format: format})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(format), func(b *testing.B) {
			var line []byte
			n, size := 0, 0
			for b.Loop() {
				i := n % len(recs)
				line = enc.Append(line[:0], recs[i], &descs[i])
				size += len(line)
				n++
			}
			b.ReportMetric(float64(size)/float64(n), "bytes/record")
		})
	}
}

// BenchmarkSampleRecords describes and encodes the records of the merged
// .NET sample one at a time, with what a first pass learned from the
// trace, one record an op: allocs/op is what a record costs in
// allocations, which is none once the caches are warm.
//
//	go test ./sink/textsink -run XXX -bench SampleRecords -benchmem
func BenchmarkSampleRecords(b *testing.B) {
	f, err := etl.Open(samples.Path(b, "net452-x64-merged-compressed.etl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	_, learned := describe.ForTrace(nil, f.Reader)
	var recs []*record.Record
	for r, err := range f.Events() {
		if err == nil {
			recs = append(recs, r.Clone())
		}
	}
	if len(recs) != 179474 {
		b.Fatalf("%d records, want 179474", len(recs))
	}
	for _, format := range []Format{JSONL, CSV, Text} {
		enc, err := NewEncoder(Options{Format: format})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(format), func(b *testing.B) {
			z := describe.New(learned.DescribeOptions())
			var ds describe.Description
			line := make([]byte, 0, 1<<20)
			for _, r := range recs {
				z.Describe(r, &ds, true)
				line = enc.Append(line[:0], r, &ds)
			}
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			n := 0
			for b.Loop() {
				r := recs[n%len(recs)]
				n++
				z.Describe(r, &ds, true)
				line = enc.Append(line[:0], r, &ds)
			}
			runtime.ReadMemStats(&after)
			// allocs/op rounds down; this does not.
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/record")
		})
	}
}
