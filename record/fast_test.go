package record

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/seeds"
)

// comparable gives every field of a record, with its views as bytes, so
// that two decodes can be compared whole.
func comparable(r *Record) Record {
	c := *r
	c.ext = nil
	return c
}

// sameDecode decodes b twice — once by the fast path, once by Decode — into
// records that first held prevKind's decode, and fails on any difference;
// once for a file of an ordinary session, once for a private logger's.
func sameDecode(t *testing.T, prev, b []byte) {
	for _, mode := range []uint32{0, header.ModePrivateLogger} {
		sameDecodeIn(t, mode, prev, b)
	}
}

func sameDecodeIn(t *testing.T, logFileMode uint32, prev, b []byte) {
	lh := header.LogfileHeader{PerfFreq: 10_000_000, ReservedFlags: header.ClockQPC, StartTime: 1 << 57, LogFileMode: logFileMode}
	clock := header.NewClock(&lh, 77)
	buf := &buffer.Buffer{Index: 2, FileOffset: 0x10000}
	buf.BufferFlag = buffer.FlagProcIndex
	buf.ClientContext = 5
	buf.Data = append(make([]byte, buffer.HeaderSize), b...)
	var c Cursor
	c.Reset(buf, &clock)

	var fast, slow Record
	if prev != nil {
		for _, r := range []*Record{&fast, &slow} {
			if p, end, err := header.ParsePrefix(prev); !end && err == nil {
				Decode(r, prev, p, buffer.HeaderSize, &c.ctx)
			}
		}
	}
	sameSkim(t, buf, &clock)
	if !c.decodeFast(&fast) {
		require.Equal(t, buffer.HeaderSize, c.Position(), "the fast path moved without taking the record")
		return
	}
	p, end, err := header.ParsePrefix(buf.Data[buffer.HeaderSize:])
	require.False(t, end)
	require.NoError(t, err, "the fast path took a record the general path rejects")
	require.Equal(t, buffer.HeaderSize+header.Align(p.Size), c.Position())
	require.Equal(t, c.Position() >= len(buf.Data), c.done)
	require.Len(t, fast.Raw, p.Size)
	require.NoError(t, Decode(&slow, buf.Data[buffer.HeaderSize:], p, buffer.HeaderSize, &c.ctx))
	require.Equal(t, comparable(&slow), comparable(&fast))
	require.Equal(t, slow.ExtendedData(), fast.ExtendedData())
}

// sameSkim walks buf with Skim and with Next and demands the same outcome
// at every step, and Skim's timestamp where Next decoded a record.
func sameSkim(t *testing.T, buf *buffer.Buffer, clock *header.Clock) {
	var skim, next Cursor
	skim.Reset(buf, clock)
	next.Reset(buf, clock)
	var scratch, r Record
	for i := 0; ; i++ {
		raw, sok, serr := skim.Skim(&scratch)
		nok, nerr := next.Next(&r)
		require.Equal(t, nok, sok, "step %d", i)
		require.Equal(t, nerr, serr, "step %d", i)
		require.Equal(t, next.Position(), skim.Position(), "step %d", i)
		if !nok {
			return
		}
		if nerr == nil {
			require.Equal(t, r.RawTimeStamp, raw, "step %d", i)
		}
	}
}

// TestSkimEqualsNext walks a buffer of seed records of every kind, and
// every record after damage to one byte, with Skim and with Next.
func TestSkimEqualsNext(t *testing.T) {
	data := make([]byte, buffer.HeaderSize)
	for _, r := range seeds.Records(8) {
		data = append(data, r...)
		data = append(data, make([]byte, header.Align(len(r))-len(r))...)
	}
	if len(data) == buffer.HeaderSize {
		t.Skip("no seed records")
	}
	lh := header.LogfileHeader{PerfFreq: 10_000_000, ReservedFlags: header.ClockQPC}
	clock := header.NewClock(&lh, 0)
	sameSkim(t, &buffer.Buffer{Data: data}, &clock)
	for at := buffer.HeaderSize; at < len(data); at += 7 {
		bad := append([]byte(nil), data...)
		bad[at] ^= 0x5A
		sameSkim(t, &buffer.Buffer{Data: bad}, &clock)
	}
}

// TestFastPathEqualsDecode runs every seed record of every kind through both
// paths, after a record of each other kind, and demands identical results.
func TestFastPathEqualsDecode(t *testing.T) {
	recs := seeds.Records(6)
	if len(recs) == 0 {
		t.Skip("no seed records")
	}
	taken := 0
	for _, b := range recs {
		for _, prev := range append([][]byte{nil}, recs...) {
			sameDecode(t, prev, b)
		}
		lh := header.LogfileHeader{PerfFreq: 10_000_000, ReservedFlags: header.ClockQPC}
		clock := header.NewClock(&lh, 0)
		var c Cursor
		c.Reset(&buffer.Buffer{Data: append(make([]byte, buffer.HeaderSize), b...)}, &clock)
		var r Record
		if c.decodeFast(&r) {
			taken++
		}
	}
	// The kinds the fast path serves are among the seeds.
	require.Greater(t, taken, 10)
}

// FuzzFastPath feeds arbitrary record bytes to both paths.
func FuzzFastPath(f *testing.F) {
	for _, r := range seeds.Records(4) {
		f.Add(r, r)
	}
	f.Fuzz(func(t *testing.T, prev, b []byte) {
		sameDecode(t, prev, b)
	})
}

// BenchmarkCursorNext walks a buffer of seed records of every kind, the
// fast path's and the general path's, with one reused Record.
func BenchmarkCursorNext(b *testing.B) {
	data := make([]byte, buffer.HeaderSize)
	n := 0
	for _, r := range seeds.Records(16) {
		data = append(data, r...)
		data = append(data, make([]byte, header.Align(len(r))-len(r))...)
		n++
	}
	if n == 0 {
		b.Skip("no seed records")
	}
	lh := header.LogfileHeader{PerfFreq: 10_000_000, ReservedFlags: header.ClockQPC, StartTime: 1 << 57}
	clock := header.NewClock(&lh, 0)
	buf := &buffer.Buffer{Data: data}
	var c Cursor
	var r Record
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		c.Reset(buf, &clock)
		got := 0
		for {
			ok, err := c.Next(&r)
			if !ok {
				break
			}
			if err == nil {
				got++
			}
		}
		if got == 0 {
			b.Fatal("no record decoded")
		}
	}
}
