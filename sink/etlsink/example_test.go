package etlsink_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/sink/etlsink"
)

// Write the warnings and errors, and the records that describe the trace,
// into a new trace.
func Example() {
	dir, _ := os.MkdirTemp("", "etlsink")
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "out.etl")
	keep := func(r *record.Record) bool { l := r.EventDescriptor.Level; return l != 0 && l <= 3 }

	f, err := etl.Open("../../testdata/etl/tracelogging.etl")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	s, err := etlsink.SessionFor(etlsink.Input{Name: "tracelogging.etl", Reader: f.Reader})
	if err != nil {
		panic(err)
	}
	out, err := os.Create(name)
	if err != nil {
		panic(err)
	}
	defer out.Close()
	w, err := etlsink.NewWriter(out, &s.Header, etlsink.Options{})
	if err != nil {
		panic(err)
	}
	for rec, err := range f.Events() {
		if err == nil && (keep(rec) || etlsink.IsTraceDescribing(rec)) {
			if err := w.Copy(rec, f.Reader); err != nil {
				panic(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		panic(err)
	}

	g, err := etl.Open(name)
	if err != nil {
		panic(err)
	}
	defer g.Close()
	n := 0
	for range g.Events() {
		n++
	}
	fmt.Println(f.Stats().Records, "records in,", n, "out,", w.Stats().Buffers, "buffers")
	// Output: 19 records in, 7 out, 2 buffers
}
