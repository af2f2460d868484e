package describe_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/samples"
)

// BenchmarkScan measures the first pass that learns a trace's metadata
// against the leanest full pass (etl.Reader.Records, which decodes every
// record on two goroutines), in ns per record: on a 64 MiB synthetic trace
// (plain and compressed), on net452-x64-merged-compressed.etl, and on the
// trace named by $ETLKIT_BENCH_TRACE when set (for example the 1 GiB one
// `go run ./internal/cmd/etlgen FILE` writes).
func BenchmarkScan(b *testing.B) {
	traces := map[string]func(b *testing.B) *etl.Reader{
		"synthetic":            syntheticTrace(false),
		"synthetic-compressed": syntheticTrace(true),
		"net452": func(b *testing.B) *etl.Reader {
			f, err := etl.Open(samples.Path(b, "net452-x64-merged-compressed.etl"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { f.Close() })
			return f.Reader
		},
	}
	if p := os.Getenv("ETLKIT_BENCH_TRACE"); p != "" {
		traces["env"] = func(b *testing.B) *etl.Reader {
			f, err := etl.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { f.Close() })
			return f.Reader
		}
	}
	for name, open := range traces {
		b.Run(name, func(b *testing.B) {
			r := open(b)
			records := 0
			for range r.Records() {
				records++
			}
			b.Run("scan", func(b *testing.B) {
				for b.Loop() {
					l := describe.NewLearner()
					l.Scan(r.Buffers(), &r.Header().Clock)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*records), "ns/record")
			})
			b.Run("records", func(b *testing.B) {
				for b.Loop() {
					for range r.Records() {
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*records), "ns/record")
			})
		})
	}
}

func syntheticTrace(compress bool) func(b *testing.B) *etl.Reader {
	return func(b *testing.B) *etl.Reader {
		var opts []etltest.BenchOption
		if compress {
			opts = append(opts, etltest.BenchCompress())
		}
		var buf bytes.Buffer
		if _, err := etltest.WriteBenchmarkTrace(&buf, 64<<20, 8, opts...); err != nil {
			b.Fatal(err)
		}
		r, err := etl.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
}
