package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/seeds"
	"github.com/etlkit/etlkit/record"
)

// TestReusedRecordEqualsFreshDecode decodes every pair of seed records of
// different kinds into one reused Record and checks that the second decode
// equals a decode into a fresh Record: no field of the first may leak.
func TestReusedRecordEqualsFreshDecode(t *testing.T) {
	recs := seeds.Records(2)
	if len(recs) < 4 {
		t.Skip("too few seed records")
	}
	lh := header.LogfileHeader{PerfFreq: 10_000_000, ReservedFlags: header.ClockQPC, StartTime: 1 << 57}
	clock := header.NewClock(&lh, 0)
	ctx := record.Context{Clock: &clock, ProcessorNumber: 1, BufferIndex: 4, BufferFileOffset: 0x1000}
	decode := func(r *record.Record, b []byte) bool {
		p, end, err := header.ParsePrefix(b)
		require.False(t, end)
		require.NoError(t, err)
		return record.Decode(r, b, p, 0x48, &ctx) == nil
	}
	kinds := map[header.Type]bool{}
	for _, a := range recs {
		for _, b := range recs {
			var reused, fresh record.Record
			if !decode(&reused, a) {
				continue
			}
			prev := reused.HeaderType
			if !decode(&reused, b) || !decode(&fresh, b) {
				continue
			}
			kinds[reused.HeaderType] = true
			// Every field, extended items included: the item store is
			// reused storage, but clones hold only the items in use.
			assert.Equal(t, *fresh.Clone(), *reused.Clone(), "%v after %v", fresh.HeaderType, prev)
		}
	}
	assert.GreaterOrEqual(t, len(kinds), 4, "kinds exercised: %v", kinds)
}
