package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParquet measures the whole program in-process on the benchmark
// trace writing Parquet to a file, beside jsonl written to io.Discard: ns
// per record, and the output's bytes per record. On the 1 GiB trace of
// internal/cmd/etlgen the same comparison, whole process:
//
//	/usr/bin/time -v etldump --format jsonl big.etl > /dev/null
//	/usr/bin/time -v etldump --format parquet -o big.parquet big.etl
func BenchmarkParquet(b *testing.B) {
	path, records := benchTrace(b)
	out := filepath.Join(b.TempDir(), "bench.parquet")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"jsonl", []string{"--format", "jsonl"}},
		{"parquet", []string{"--format", "parquet", "-o", out}},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := append(append([]string{"--progress", "never"}, c.args...), path)
			size := &countingWriter{}
			for b.Loop() {
				if code := run(args, size, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			if st, err := os.Stat(out); err == nil && c.name == "parquet" {
				size.n = st.Size() * int64(b.N)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*records), "ns/record")
			b.ReportMetric(float64(size.n)/float64(int64(b.N)*records), "bytes/record")
		})
	}
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
