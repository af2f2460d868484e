package order_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/order"
)

// TestCounterEqualsFileOrder: a Counter fed the records of a file-order
// pass counts what the FileOrder mode counts: records by source and type,
// backward steps and ties.
func TestCounterEqualsFileOrder(t *testing.T) {
	s := session()
	a := build(t, s, nil,
		buf{cpu(0, 1), []etltest.Record{ev(1, base+10), ev(2, base+40)}},
		buf{cpu(1, 2), []etltest.Record{ev(3, base+25), ev(4, base+25)}},
		buf{cpu(0, 3), []etltest.Record{ev(5, base+25), ev(6, base+50)}},
	)
	b := build(t, s, nil, buf{cpu(1, 1), []etltest.Record{ev(7, base+5)}})
	// Long runs of one stream: twelve buffers of 150 records, the two
	// processors' buffers alternating, each processor's time rising.
	var runs []buf
	for i := range 12 {
		recs := make([]etltest.Record, 150)
		for j := range recs {
			tag := uint64(100 + 150*i + j)
			recs[j] = ev(tag, base+int64(1000*(i/2)+j*2+i%2))
		}
		runs = append(runs, buf{cpu(uint16(i%2), int64(i+1)), recs})
	}
	long := build(t, s, nil, runs...)
	for _, c := range []struct {
		name string
		srcs []order.Source
		// shortcut: AddNext counts records (one source, whose timeline is
		// the raw timestamps), and how many times at least.
		shortcut int
	}{
		{"two files", []order.Source{source(a, s), source(b, s)}, 0},
		{"one file", []order.Source{source(a, s)}, 1},
		{"long runs", []order.Source{source(long, s)}, 12 * 149},
	} {
		for _, next := range []bool{false, true} {
			m := order.New(order.Options{Mode: order.FileOrder}, c.srcs...)
			counter := order.NewCounter(c.srcs...)
			short := 0
			for rec, err := range m.Records() {
				if err != nil {
					continue
				}
				if next && counter.AddNext(rec, m.Source()) {
					short++
					continue
				}
				counter.Add(rec, m.Source())
			}
			want, got := m.Stats(), counter.Stats()
			msg := fmt.Sprintf("%s, AddNext %v", c.name, next)
			if c.name == "two files" {
				assert.Equal(t, 2, want.BackwardSteps, msg)
				assert.Equal(t, 1, want.Ties, msg)
			}
			if next {
				if c.shortcut == 0 {
					assert.Zero(t, short, msg)
				} else {
					assert.GreaterOrEqual(t, short, c.shortcut, msg)
				}
			}
			assert.Equal(t, want.Records, got.Records, msg)
			assert.Equal(t, want.Sources, got.Sources, msg)
			assert.Equal(t, want.BackwardSteps, got.BackwardSteps, msg)
			assert.Equal(t, want.LargestBackwardStep, got.LargestBackwardStep, msg)
			assert.Equal(t, want.Ties, got.Ties, msg)
			assert.Equal(t, order.FileOrder, got.Mode, msg)
		}
	}
}
