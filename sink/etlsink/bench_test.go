package etlsink_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/sink/etlsink"
)

// discardSeeker is an output that keeps nothing, so that the benchmarks
// measure the Writer rather than a file system.
type discardSeeker struct{ pos, end int64 }

func (d *discardSeeker) Write(p []byte) (int, error) {
	d.pos += int64(len(p))
	d.end = max(d.end, d.pos)
	return len(p), nil
}

func (d *discardSeeker) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += d.pos
	case io.SeekEnd:
		off += d.end
	}
	d.pos = off
	return off, nil
}

// BenchmarkCopy writes a 64 MiB etlgen-like trace (16 processors) as
// etldump --format etl does, from file order; read alone, the same pass
// is BenchmarkRead. The difference is the Writer's cost per record. The
// whole-process comparison with cp is in PERFORMANCE.md: etlgen FILE, then
// etldump --format etl -o OUT FILE against cp FILE OUT.
func BenchmarkCopy(b *testing.B) { benchPass(b, true, etlsink.CompressNever) }

// BenchmarkCopyCompressed is BenchmarkCopy writing compressed buffers.
func BenchmarkCopyCompressed(b *testing.B) { benchPass(b, true, etlsink.CompressAlways) }

// BenchmarkRead is BenchmarkCopy without the Writer.
func BenchmarkRead(b *testing.B) { benchPass(b, false, etlsink.CompressNever) }

func benchPass(b *testing.B, write bool, compress etlsink.Compression) {
	var in bytes.Buffer
	res, err := etltest.WriteBenchmarkTrace(&in, 64<<20, 16)
	if err != nil {
		b.Fatal(err)
	}
	data := in.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var written int64
	for b.Loop() {
		rd, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			b.Fatal(err)
		}
		var w *etlsink.Writer
		if write {
			s, err := etlsink.SessionFor(etlsink.Input{Name: "bench", Reader: rd})
			if err != nil {
				b.Fatal(err)
			}
			if w, err = etlsink.NewWriter(&discardSeeker{}, &s.Header, etlsink.Options{Compression: compress}); err != nil {
				b.Fatal(err)
			}
		}
		n := 0
		for r, err := range rd.Records() {
			if err != nil {
				b.Fatal(err)
			}
			n++
			if write {
				if err := w.Copy(r, rd); err != nil {
					b.Fatal(err)
				}
			}
		}
		if write {
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			written = w.Stats().Bytes
		}
		if int64(n) != res.Records {
			b.Fatalf("%d records, want %d", n, res.Records)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(res.Records), "ns/record")
	if write {
		b.ReportMetric(float64(written)/float64(len(data)), "out/in")
	}
}
