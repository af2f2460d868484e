package activity_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/record"
)

// benchRecords are a START of activity 1 with TraceLogging names, provider
// traits and a related id, a record inside it, its STOP, a record of an
// activity never started, and a record with no activity.
func benchRecords(tb testing.TB) (startRec, inside, stopRec, stray, none *record.Record) {
	data := build(tb, []ev{
		{t: 10, op: start, id: 1, rel: 9, tl: "Work", traits: "Contoso.Bench", pid: 1, tid: 2},
		{t: 20, op: info, id: 1, tl: "Step", traits: "Contoso.Bench", pid: 1, tid: 2},
		{t: 30, op: stop, id: 1, tl: "WorkStop", traits: "Contoso.Bench", pid: 1, tid: 2},
		{t: 40, op: info, id: 7, tl: "Step", traits: "Contoso.Bench", pid: 1, tid: 2},
		{t: 50, op: info, tl: "Plain", traits: "Contoso.Bench", pid: 1, tid: 2},
	})
	var recs []*record.Record
	each(tb, data, func(r *record.Record) {
		if r.ProviderId == provider {
			recs = append(recs, r.Clone())
		}
	})
	require.Len(tb, recs, 5)
	return recs[0], recs[1], recs[2], recs[3], recs[4]
}

// TestAddAllocatesOnlyForStarts pins the cost the benchmark reports: once
// the caches are warm, no record but a START allocates.
func TestAddAllocatesOnlyForStarts(t *testing.T) {
	startRec, inside, stopRec, stray, none := benchRecords(t)
	tr := newTracker()
	tr.Add(startRec)
	tr.Add(stopRec) // warms the schema cache with the STOP's name
	tr.Add(startRec)
	for name, r := range map[string]*record.Record{"inside": inside, "stray": stray, "none": none} {
		tr.Add(r)
		assert.Zero(t, testing.AllocsPerRun(100, func() { tr.Add(r) }), name)
	}

	// STOPs that each end an activity of their own.
	const n = 101 // AllocsPerRun(100) calls the function once more to warm up
	stops := make([]record.Record, n)
	for i := range stops {
		s := *startRec
		s.ActivityId[15] = byte(i)
		s.ActivityId[14] = 0x5A
		tr.Add(&s)
		stops[i] = *stopRec
		stops[i].ActivityId = s.ActivityId
	}
	i := 0
	assert.Zero(t, testing.AllocsPerRun(n-1, func() { tr.Add(&stops[i]); i++ }), "stop")
	f := tr.Forest()
	assert.Equal(t, n+1, f.Stats.Stopped)
	assert.Equal(t, 1, f.Stats.Open)
}

func BenchmarkAdd(b *testing.B) {
	startRec, inside, stopRec, stray, none := benchRecords(b)
	for _, bc := range []struct {
		name string
		r    *record.Record
	}{{"inside", inside}, {"stray", stray}, {"none", none}} {
		b.Run(bc.name, func(b *testing.B) {
			tr := newTracker()
			tr.Add(startRec)
			b.ReportAllocs()
			for b.Loop() {
				tr.Add(bc.r)
			}
		})
	}
	// A START and its STOP with a fresh id each time: the START's
	// allocations are the slab and map growth, amortized.
	b.Run("start-stop", func(b *testing.B) {
		tr := newTracker()
		s, e := *startRec, *stopRec
		n := uint64(0)
		b.ReportAllocs()
		for b.Loop() {
			n++
			if n%(1<<16) == 0 {
				// Keep memory flat however long the run.
				tr = newTracker()
			}
			for i := 0; i < 8; i++ {
				s.ActivityId[8+i] = byte(n >> (8 * i))
			}
			e.ActivityId = s.ActivityId
			tr.Add(&s)
			tr.Add(&e)
		}
	})
}
