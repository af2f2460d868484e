package etl_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/seeds"
	"github.com/etlkit/etlkit/order"
)

// FuzzEvents reads arbitrary bytes in time order, the header scan and the
// merge included: no panic, errors are FormatErrors, and the records are
// those of the file order, each once, the records of one buffer in the
// buffer's order.
func FuzzEvents(f *testing.F) {
	for _, b := range seeds.SmallFiles() {
		f.Add(b)
	}
	type place struct{ buffer, offset int }
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
		if err != nil {
			return // FuzzReader holds the open errors to their types
		}
		inFile := map[place]int{}
		for rec, err := range r.SerialRecords() {
			if err == nil {
				inFile[place{rec.BufferIndex, rec.BufferOffset}]++
			}
		}
		// No workers: coverage then depends on the input alone.
		delivered := 0
		last := map[int]int{} // buffer → offset of its last record
		for rec, err := range r.EventsWith(order.Options{ReadAhead: -1}) {
			if err != nil {
				var fe *etl.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a FormatError", err)
				}
				continue
			}
			p := place{rec.BufferIndex, rec.BufferOffset}
			if inFile[p] == 0 {
				t.Fatalf("record at buffer %d offset %d: not delivered in file order, or delivered twice", p.buffer, p.offset)
			}
			inFile[p]--
			if prev, ok := last[p.buffer]; ok && prev >= p.offset {
				t.Fatalf("buffer %d: record at %d after the one at %d", p.buffer, p.offset, prev)
			}
			last[p.buffer] = p.offset
			delivered++
		}
		for p, n := range inFile {
			if n != 0 {
				t.Fatalf("record at buffer %d offset %d: in file order, not in time order", p.buffer, p.offset)
			}
		}
		if st := r.Stats(); st.Records != delivered {
			t.Fatalf("stats say %d records, %d delivered", st.Records, delivered)
		}
		// Read ahead, as two cores or a compressed input make it: the
		// sizing of the read-ahead and its worker see the same input.
		ahead := 0
		for _, err := range r.EventsWith(order.Options{ReadAhead: 2, Workers: 1}) {
			if err == nil {
				ahead++
			}
		}
		if ahead != delivered {
			t.Fatalf("%d records with read-ahead, %d without", ahead, delivered)
		}
	})
}
