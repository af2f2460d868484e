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
			if !decode(&reused, a) || !decode(&reused, b) || !decode(&fresh, b) {
				continue
			}
			kinds[reused.HeaderType] = true
			assert.Equal(t, fresh.ExtendedData(), reused.ExtendedData())
			// The extended-item store is reused storage, not a field.
			fc, rc := *fresh.Clone(), *reused.Clone()
			assert.Equal(t, len(fc.ExtendedData()), len(rc.ExtendedData()))
			assert.Equal(t, fc.Message, rc.Message)
			assert.Equal(t, fc.ParentGuid, rc.ParentGuid)
			assert.Equal(t, fresh.HeaderType, reused.HeaderType)
			assert.Equal(t, fresh.Flags, reused.Flags)
			assert.Equal(t, fresh.ProviderId, reused.ProviderId)
			assert.Equal(t, fresh.EventDescriptor, reused.EventDescriptor)
			assert.Equal(t, fresh.HasThreadProcess, reused.HasThreadProcess)
			assert.Equal(t, fresh.TimeStamp, reused.TimeStamp)
			assert.Equal(t, fresh.UserData, reused.UserData)
			assert.Equal(t, fresh.HasPEBS, reused.HasPEBS)
			assert.Equal(t, fresh.PMCCount(), reused.PMCCount())
			assert.Equal(t, fresh.InstanceId, reused.InstanceId)
			assert.Equal(t, fresh.ActivityId, reused.ActivityId)
			assert.Equal(t, fresh.HasCPUTime, reused.HasCPUTime)
		}
	}
	assert.GreaterOrEqual(t, len(kinds), 4, "kinds exercised: %v", kinds)
}
