package order_test

import (
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
	srcs := []order.Source{source(a, s), source(b, s)}
	m := order.New(order.Options{Mode: order.FileOrder}, srcs...)
	c := order.NewCounter(srcs...)
	for rec, err := range m.Records() {
		if err == nil {
			c.Add(rec, m.Source())
		}
	}
	want, got := m.Stats(), c.Stats()
	assert.Equal(t, 2, want.BackwardSteps)
	assert.Equal(t, 1, want.Ties)
	assert.Equal(t, want.Records, got.Records)
	assert.Equal(t, want.Sources, got.Sources)
	assert.Equal(t, want.BackwardSteps, got.BackwardSteps)
	assert.Equal(t, want.LargestBackwardStep, got.LargestBackwardStep)
	assert.Equal(t, want.Ties, got.Ties)
	assert.Equal(t, order.FileOrder, got.Mode)
}
