package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/etlkit/etlkit/internal/packettest"
)

// BenchmarkPcapng measures the whole program in-process on a 64 MiB
// synthetic capture of each provider, writing pcapng to a file, beside
// `--count --order file` of the same trace: ns per packet record, and the
// output's bytes per record. On a 1 GiB capture (internal/cmd/etlgen
// -packets pktmon) the same comparison, whole process:
//
//	/usr/bin/time -v etldump --count --order file big.etl
//	/usr/bin/time -v etldump --format pcapng -o big.pcapng big.etl
func BenchmarkPcapng(b *testing.B) {
	dir := b.TempDir()
	for _, kind := range []string{packettest.CapturePktMon, packettest.CaptureNDIS} {
		path := filepath.Join(dir, kind+".etl")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriter(f)
		res, err := packettest.WriteCapture(w, 64<<20, kind, 8)
		if err == nil {
			err = w.Flush()
		}
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		out := filepath.Join(dir, kind+".pcapng")
		for _, c := range []struct {
			name string
			args []string
		}{
			{"count-file", []string{"--count", "--order", "file"}},
			{"pcapng", []string{"--format", "pcapng", "-o", out}},
		} {
			b.Run(kind+"/"+c.name, func(b *testing.B) {
				args := append(append([]string{"--progress", "never"}, c.args...), path)
				for b.Loop() {
					if code := run(args, io.Discard, io.Discard); code != 0 {
						b.Fatalf("exit %d", code)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*res.Records), "ns/record")
				if st, err := os.Stat(out); err == nil && c.name == "pcapng" {
					b.ReportMetric(float64(st.Size())/float64(res.Records), "bytes/record")
				}
			})
		}
	}
}
