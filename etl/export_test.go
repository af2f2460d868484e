package etl

import (
	"iter"

	"github.com/etlkit/etlkit/internal/fileorder"
	"github.com/etlkit/etlkit/record"
)

// SerialRecords is Records on the calling goroutine whatever the trace's
// size: the fuzz targets read on one goroutine, so that coverage depends
// on the input alone, and the tests of the two-goroutine pass compare it
// with this one.
func (r *Reader) SerialRecords() iter.Seq2[*record.Record, error] {
	return func(yield func(*record.Record, error) bool) { r.records(false, yield) }
}

// The two-goroutine pass's ring size and the records it decodes ahead in
// one buffer, for the tests that place damage around them.
const (
	parallelSlots = fileorder.Slots
	maxPredecoded = fileorder.MaxPredecoded
)
