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

// TestDamageSummary: the one line a damaged pass gives, and none for a
// clean one.
func TestDamageSummary(t *testing.T) {
	f, err := Open("../testdata/etl/damaged.etl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for range f.Events() {
	}
	assert.Equal(t, "offset 0x10d8: damaged: 2 buffers skipped, 2 buffers cut short, the file ends inside its last buffer; 29 records read; "+
		"first: buffer 2: record: unknown record header type: marker 0x12345678 is not a trace header", f.Stats().DamageSummary())

	clean, err := Open("../testdata/etl/kernel64.etl")
	if err != nil {
		t.Fatal(err)
	}
	defer clean.Close()
	for range clean.Events() {
	}
	assert.Equal(t, "", clean.Stats().DamageSummary())
	s := Stats{ErrorCount: 1, Records: 3, Errors: []*FormatError{{Offset: 0x40, Buffer: -1, Reason: "odd"}}}
	assert.Equal(t, "offset 0x40: damaged: 1 error; 3 records read; first: odd", s.DamageSummary())
	s = Stats{Records: 1, BuffersSkipped: 1, RecordsSkipped: 1, BuffersCut: 1, ErrorCount: 3}
	assert.Equal(t, "offset 0x0: damaged: 1 buffer skipped, 1 record skipped, 1 buffer cut short; 1 record read", s.DamageSummary())
	s = Stats{Records: 2, BuffersSkipped: 2, RecordsSkipped: 3, Truncated: true, ErrorCount: 5}
	assert.Equal(t, "offset 0x0: damaged: 2 buffers skipped, 3 records skipped, the file ends inside its last buffer; 2 records read", s.DamageSummary())
}
