package describe_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// TestDiskServiceTime: a disk read's or write's DiskServiceTimeMSec is
// the time from the later of its start and the previous completion on
// the same disk to its completion. The clock counts 100 ns ticks.
func TestDiskServiceTime(t *testing.T) {
	clock := &header.Clock{}
	// A DiskIo v3 completion of the given opcode on disk, at tick at,
	// that took elapsed ticks.
	done := func(opcode uint8, disk uint32, at, elapsed int64) *record.Record {
		var p []byte
		if opcode == 14 { // FlushBuffers
			p = new(etltest.Payload).U32(disk).U32(0).U64(uint64(elapsed)).Ptr(8, 0x1000).U32(4).Bytes()
		} else {
			p = new(etltest.Payload).U32(disk).U32(0).U32(4096).U32(0).U64(0).Ptr(8, 0x2000).Ptr(8, 0x1000).
				U64(uint64(elapsed)).U32(4).Bytes()
		}
		r := kernelRecord(0x0100|uint16(opcode), 3, p)
		r.Clock, r.RawTimeStamp = clock, at
		return r
	}
	z := describe.New(describe.Options{})
	var d describe.Description
	service := func(r *record.Record) (float64, bool) {
		z.Describe(r, &d, true)
		require.True(t, d.Decoded, "%v", d.Err)
		v, ok := payload.Lookup(d.Fields, "DiskServiceTimeMSec")
		return v.Float(), ok
	}
	const ms = 10_000

	// The first request on a disk: its elapsed time.
	got, ok := service(done(10, 0, 100*ms, 5*ms))
	require.True(t, ok)
	assert.InDelta(t, 5, got, 1e-9)
	// Started at 99 ms, while the read was still on the disk until 100.
	got, _ = service(done(11, 0, 102*ms, 3*ms))
	assert.InDelta(t, 2, got, 1e-9)
	// Another disk has its own history.
	got, _ = service(done(10, 1, 102*ms+ms/10, ms))
	assert.InDelta(t, 1, got, 1e-9)
	// A flush has none of its own, but ends the disk's earlier work.
	_, ok = service(done(14, 0, 103*ms, 2*ms))
	assert.False(t, ok)
	got, _ = service(done(10, 0, 103*ms+ms/10, 2*ms))
	assert.InDelta(t, 0.1, got, 1e-9)
	// A completion the caller does not describe (a filter dropped it)
	// counts all the same.
	z.Learn(done(11, 0, 104*ms, ms))
	got, _ = service(done(10, 0, 104*ms+ms/5, ms))
	assert.InDelta(t, 0.2, got, 1e-9)
	v, _ := payload.Lookup(d.Fields, "ElapsedTimeMSec")
	assert.InDelta(t, 1, v.Float(), 1e-9)

	// A Describer that starts from what a first pass learned does not
	// take the disks' last completions from it: they are at the trace's
	// end.
	l := describe.NewLearner()
	l.Learn(done(10, 0, 200*ms, ms))
	z = describe.New(describe.Options{KernelNames: l.KernelNames()})
	got, _ = service(done(10, 0, 100*ms, 5*ms))
	assert.InDelta(t, 5, got, 1e-9)

	// Records keep costing nothing.
	a, b := done(10, 0, 300*ms, 5*ms), done(11, 0, 301*ms, 5*ms)
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		z.Describe(a, &d, true)
		z.Describe(b, &d, true)
	}))
}
