package etl

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/etlkit/etlkit/internal/seeds"
	"github.com/etlkit/etlkit/record"
)

// FuzzParallelEqualsSerial reads arbitrary bytes with both file-order
// passes, the two-goroutine one forced on however small the input: they
// must deliver the same records, the same errors in the same order, and the
// same Stats.
func FuzzParallelEqualsSerial(f *testing.F) {
	for _, b := range seeds.Files() {
		f.Add(b)
	}
	saved := useParallel
	useParallel = func(*Reader) bool { return true }
	f.Cleanup(func() { useParallel = saved })
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in), int64(len(in)))
		if err != nil {
			return
		}
		pass := func(parallel bool) ([]string, Stats) {
			r.SetParallel(parallel)
			var out []string
			for rec, err := range r.Records() {
				out = append(out, describe(rec, err))
			}
			return out, *r.Stats()
		}
		serial, serialStats := pass(false)
		parallel, parallelStats := pass(true)
		if len(serial) != len(parallel) {
			t.Fatalf("%d steps on one goroutine, %d on two", len(serial), len(parallel))
		}
		for i := range serial {
			if serial[i] != parallel[i] {
				t.Fatalf("step %d:\none goroutine: %s\ntwo:          %s", i, serial[i], parallel[i])
			}
		}
		if fmt.Sprint(serialStats) != fmt.Sprint(parallelStats) {
			t.Fatalf("stats differ:\none goroutine: %+v\ntwo:          %+v", serialStats, parallelStats)
		}
	})
}

// describe is one step of a pass as text: the error, or the record's
// decoded fields and bytes.
func describe(rec *record.Record, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%v %x %v %v %d %d %v %d %v %v %d %d %d %x %x %v",
		rec.HeaderType, rec.Flags, rec.ProviderId, rec.EventDescriptor, rec.ThreadId, rec.ProcessId,
		rec.HasThreadProcess, rec.RawTimeStamp, rec.TimeStamp, rec.ActivityId, rec.ProcessorNumber,
		rec.FileOffset, rec.BufferIndex, rec.Raw, rec.UserData, rec.ExtendedData())
}
