package etl

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/etlkit/etlkit/internal/seeds"
)

// FuzzParallelEqualsSerial reads arbitrary bytes with both file-order
// passes, the two-goroutine one forced on however small the input: they
// must deliver the same records (every exported field, the extended items
// and PMC counters, as TestParallelEqualsSerial compares them), the same
// errors in the same order, and the same Stats.
func FuzzParallelEqualsSerial(f *testing.F) {
	for _, b := range seeds.SmallFiles() {
		f.Add(b)
	}
	forceParallel(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in), int64(len(in)))
		if err != nil {
			return
		}
		pass := func(parallel bool) ([]parStep, Stats) {
			seq := r.SerialRecords()
			if parallel {
				seq = r.Records()
			}
			var steps []parStep
			for rec, err := range seq {
				steps = append(steps, parSnapshot(rec, err))
			}
			return steps, *r.Stats()
		}
		serial, serialStats := pass(false)
		parallel, parallelStats := pass(true)
		if len(serial) != len(parallel) {
			t.Fatalf("%d steps on one goroutine, %d on two", len(serial), len(parallel))
		}
		for i := range serial {
			if !parSameStep(serial[i], parallel[i]) {
				t.Fatalf("step %d:\none goroutine: %+v\ntwo:          %+v", i, serial[i].view(), parallel[i].view())
			}
		}
		if !reflect.DeepEqual(serialStats, parallelStats) {
			t.Fatalf("stats differ:\none goroutine: %+v\ntwo:          %+v", serialStats, parallelStats)
		}
	})
}
