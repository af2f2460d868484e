package record

import (
	"bytes"
	"testing"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/seeds"
	"github.com/stretchr/testify/require"
)

// sameWithSpare walks the records b holds twice: in storage exactly as
// long, and in storage reused from a longer buffer, whose capacity beyond
// the length still holds that buffer's bytes (as buffer.Loader's storage
// does). Every step must give the same outcome and the same record: no
// decoder may read past the buffer's length.
func sameWithSpare(t *testing.T, b []byte, fill byte) {
	exact := append(make([]byte, buffer.HeaderSize), b...)
	exact = exact[:len(exact):len(exact)]
	spare := bytes.Repeat([]byte{fill}, 2*len(exact)+256)
	copy(spare, exact)
	spare = spare[:len(exact)]

	lh := header.LogfileHeader{PerfFreq: 10_000_000, ReservedFlags: header.ClockQPC, StartTime: 1 << 57}
	clock := header.NewClock(&lh, 77)
	var c1, c2 Cursor
	c1.Reset(&buffer.Buffer{Index: 1, FileOffset: 0x10000, Data: exact}, &clock)
	c2.Reset(&buffer.Buffer{Index: 1, FileOffset: 0x10000, Data: spare}, &clock)
	var r1, r2 Record
	for i := 0; ; i++ {
		ok1, err1 := c1.Next(&r1)
		ok2, err2 := c2.Next(&r2)
		require.Equal(t, ok1, ok2, "step %d", i)
		require.Equal(t, err1, err2, "step %d", i)
		if !ok1 {
			return
		}
		if err1 == nil {
			require.Equal(t, comparable(&r1), comparable(&r2), "step %d", i)
			require.Equal(t, r1.ExtendedData(), r2.ExtendedData(), "step %d", i)
		}
	}
}

// TestSpareCapacityUnread runs sameWithSpare over a buffer of seed records
// of every kind, whole and cut short at every length.
func TestSpareCapacityUnread(t *testing.T) {
	var data []byte
	for _, r := range seeds.Records(8) {
		data = append(data, r...)
		data = append(data, make([]byte, header.Align(len(r))-len(r))...)
	}
	require.NotEmpty(t, data)
	for n := 0; n <= len(data); n += 1 + n/64 {
		sameWithSpare(t, data[:n], 0xFF)
		sameWithSpare(t, data[:n], 0x00)
	}
}

// FuzzSpareCapacity: sameWithSpare on arbitrary records.
func FuzzSpareCapacity(f *testing.F) {
	for _, r := range seeds.Records(4) {
		f.Add(r, byte(0xFF))
	}
	f.Fuzz(func(t *testing.T, b []byte, fill byte) {
		sameWithSpare(t, b, fill)
	})
}
