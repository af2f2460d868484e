package etl

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatsAdd: a Set's Stats sum its readers', errors kept up to
// MaxErrors and counted in full.
func TestStatsAdd(t *testing.T) {
	cutA := &FormatError{Offset: 0x1000, Buffer: -1, Reason: "a's content breaks off", Err: ErrTruncated}
	cutB := &FormatError{Offset: 0x2000, Buffer: -1, Reason: "b's content breaks off", Err: ErrTruncated}
	a := Stats{Buffers: 3, Records: 10, Bytes: 300, BytesSkipped: 0x800, Truncated: true, ErrorCount: 40, EventsLost: 2, Unwrap: cutA}
	b := Stats{Buffers: 4, Records: 20, Bytes: 400, BytesSkipped: 0x1000, ZeroTail: true, ErrorCount: 50, EventsLost: 3, BuffersCut: 1, Unwrap: cutB}
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
	assert.Equal(t, int64(0x1800), sum.BytesSkipped)
	assert.Same(t, cutA, sum.Unwrap, "the first content cut")
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
	assert.Equal(t, "offset 0x10d8: damaged: 2 buffers skipped (1 of them held 6 records), 2 buffers cut short, the file ends inside its last buffer; 29 records read; "+
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

	// A damaged buffer header: the bytes skipped to the next buffer.
	s = Stats{Records: 7, BuffersSkipped: 1, BytesSkipped: 0x800}
	s.addError(&FormatError{Offset: 0x2000, Buffer: 4, Reason: "buffer header not plausible", Err: ErrMalformed, Skipped: 0x800})
	assert.Equal(t, "offset 0x2000: damaged: 1 buffer skipped; 7 records read; "+
		"first: buffer 4: buffer header not plausible: malformed; bytes 0x2000 to 0x2800 (0x800) skipped", s.DamageSummary())
	// The records it held, where they could be counted.
	s.Errors[0].Records, s.Errors[0].RecordsKnown = 6, true
	s.BuffersCounted, s.RecordsLost = 1, 6
	assert.Equal(t, "offset 0x2000: damaged: 1 buffer skipped (it held 6 records); 7 records read; "+
		"first: buffer 4: buffer header not plausible: malformed; bytes 0x2000 to 0x2800 (0x800) skipped, which held 6 records", s.DamageSummary())
	s.BuffersSkipped, s.BuffersCounted, s.RecordsLost = 2, 2, 7
	assert.Contains(t, s.DamageSummary(), "damaged: 2 buffers skipped (they held 7 records);")
	s.BuffersSkipped = 3
	assert.Contains(t, s.DamageSummary(), "damaged: 3 buffers skipped (2 of them held 7 records);")

	// A wrapped input's content that breaks off, or stops at the limit, is
	// told last, after the first damage before it.
	for _, c := range []struct {
		err  error
		says string
	}{{ErrTruncated, "its content breaks off"}, {ErrUnwrapLimit, "its content stops at the unwrapped size limit"}} {
		cut := &FormatError{Offset: 0x3000, Buffer: -1, Reason: "the gzip content ends here", Err: c.err}
		s = Stats{Records: 1, Truncated: true, Unwrap: cut}
		s.addError(cut)
		assert.Equal(t, "offset 0x3000: damaged: "+c.says+"; 1 record read; the gzip content ends here", s.DamageSummary())
		s.RecordsSkipped++
		s.addError(&FormatError{Offset: 0x1048, Buffer: 1, Reason: "record", Err: ErrUnknownHeaderType})
		assert.Equal(t, "offset 0x1048: damaged: 1 record skipped, "+c.says+"; 1 record read; first: buffer 1: record: unknown record header type; the gzip content ends here", s.DamageSummary())
	}
}

// TestErrorsInFileOrder: Errors holds the MaxErrors errors earliest in the
// file, in file order, whatever order they were met in.
func TestErrorsInFileOrder(t *testing.T) {
	var s Stats
	for i := range MaxErrors + 10 {
		// Every multiple of 0x10 below 74 × 0x10 once (29 is prime to 74),
		// met in an order that jumps back and forth.
		off := int64((i*29)%(MaxErrors+10)) * 0x10
		s.addError(&FormatError{Offset: off, Buffer: -1, Reason: "x"})
	}
	assert.Equal(t, MaxErrors+10, s.ErrorCount)
	require.Len(t, s.Errors, MaxErrors)
	for i, fe := range s.Errors {
		assert.Equal(t, int64(i)*0x10, fe.Offset, "Errors[%d]", i)
	}
}

// TestStatsAddEveryCount: every counter of Stats is summed by add, so a
// counter added to Stats and forgotten there fails here. Each integer
// field of a is set to 1 and of b to 2: the sum holds 3 in each.
func TestStatsAddEveryCount(t *testing.T) {
	var a, b, sum Stats
	set := func(s *Stats, n int64) {
		v := reflect.ValueOf(s).Elem()
		for i := range v.NumField() {
			switch f := v.Field(i); f.Kind() {
			case reflect.Int, reflect.Int64:
				f.SetInt(n)
			case reflect.Uint32:
				f.SetUint(uint64(n))
			}
		}
	}
	set(&a, 1)
	set(&b, 2)
	sum.add(&a)
	sum.add(&b)
	v := reflect.ValueOf(sum)
	counted := 0
	for i := range v.NumField() {
		f := v.Field(i)
		var got int64
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			got = f.Int()
		case reflect.Uint32:
			got = int64(f.Uint())
		default:
			continue
		}
		counted++
		assert.Equal(t, int64(3), got, "Stats.%s", v.Type().Field(i).Name)
	}
	assert.GreaterOrEqual(t, counted, 14, "the integer counters of Stats")
}
