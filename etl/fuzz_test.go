package etl_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/seeds"
)

// FuzzReader reads arbitrary bytes as a whole file: opening either fails
// with a FormatError or succeeds, and then every record or error comes out
// without a panic, and the counts agree with what was delivered.
func FuzzReader(f *testing.F) {
	for _, b := range seeds.SmallFiles() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
		if err != nil {
			// An input without a single buffer is ErrNotETL with no
			// place in the file; every other open error is a FormatError.
			var fe *etl.FormatError
			if !errors.As(err, &fe) && !errors.Is(err, etl.ErrNotETL) {
				t.Fatalf("open error %v is neither a FormatError nor ErrNotETL", err)
			}
			return
		}
		// One goroutine, so that coverage depends on the input alone:
		// the second goroutine's timing would make inputs look new, and
		// the fuzzer would spend its time minimizing them.
		// FuzzParallelEqualsSerial covers the two-goroutine pass.
		records, errs := 0, 0
		for rec, err := range r.SerialRecords() {
			if err != nil {
				errs++
				var fe *etl.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a FormatError", err)
				}
				continue
			}
			records++
			if len(rec.Raw) == 0 {
				t.Fatalf("empty record")
			}
		}
		st := r.Stats()
		if st.Records != records {
			t.Fatalf("stats say %d records, %d delivered", st.Records, records)
		}
		if st.ErrorCount < errs {
			t.Fatalf("stats say %d errors, %d delivered", st.ErrorCount, errs)
		}
	})
}
