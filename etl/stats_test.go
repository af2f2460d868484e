package etl

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStatsAdd: a Set's Stats sum its readers', errors kept up to
// MaxErrors and counted in full.
func TestStatsAdd(t *testing.T) {
	a := Stats{Buffers: 3, Records: 10, Bytes: 300, Truncated: true, ErrorCount: 40, EventsLost: 2}
	b := Stats{Buffers: 4, Records: 20, Bytes: 400, ZeroTail: true, ErrorCount: 50, EventsLost: 3, BuffersCut: 1}
	a.HeaderTypes[5], b.HeaderTypes[5], b.HeaderTypes[6] = 1, 2, 3
	a.Compression[2], b.Compression[2] = 4, 5
	for range 40 {
		a.Errors = append(a.Errors, &FormatError{Offset: 1})
	}
	for range 50 {
		b.Errors = append(b.Errors, &FormatError{Offset: 2})
	}
	var sum Stats
	sum.add(&a)
	sum.add(&b)
	assert.Equal(t, 7, sum.Buffers)
	assert.Equal(t, 30, sum.Records)
	assert.Equal(t, int64(700), sum.Bytes)
	assert.Equal(t, 3, sum.HeaderTypes[5])
	assert.Equal(t, 3, sum.HeaderTypes[6])
	assert.Equal(t, 9, sum.Compression[2])
	assert.Equal(t, uint32(5), sum.EventsLost)
	assert.Equal(t, 1, sum.BuffersCut)
	assert.True(t, sum.Truncated)
	assert.True(t, sum.ZeroTail)
	assert.Equal(t, 90, sum.ErrorCount)
	assert.Len(t, sum.Errors, MaxErrors)
	assert.Equal(t, int64(1), sum.Errors[39].Offset)
	assert.Equal(t, int64(2), sum.Errors[40].Offset)
	assert.True(t, sum.Damaged())
}
