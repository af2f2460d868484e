package buffer_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etltest"
)

// headerWalk is what a HeadersOnly walk returns: each buffer without its
// data, or the error in its place, and how it ended.
type headerWalk struct {
	bufs     []buffer.Buffer
	errs     []string
	zeroTail bool
	served   int64
}

func walkHeaders(in []byte, session uint32, ahead bool) headerWalk {
	return walkHeadersFrom(bytes.NewReader(in), in, session, ahead)
}

func walkHeadersFrom(r io.ReaderAt, in []byte, session uint32, ahead bool) headerWalk {
	w := buffer.NewWalker(r, int64(len(in)))
	w.SessionBufferSize = session
	w.HeadersOnly = true
	var out headerWalk
	if ahead {
		stop := w.ReadHeadersAhead(true)
		defer stop()
	}
	for steps := 0; steps <= len(in)/buffer.HeaderSize+2; steps++ {
		var b buffer.Buffer
		err := w.Next(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			out.errs = append(out.errs, err.Error())
		}
		b.Data = nil
		out.bufs = append(out.bufs, b)
	}
	out.zeroTail = w.ZeroTail
	out.served = buffer.HeadersServed(w)
	return out
}

// sameWalk walks in with and without headers read ahead and requires the
// same buffers, errors and ending; it returns how many headers the reader
// supplied.
func sameWalk(t testing.TB, in []byte, session uint32) int64 {
	t.Helper()
	plain := walkHeaders(in, session, false)
	batched := walkHeadersFrom(&batchReader{Reader: bytes.NewReader(in), fail: 5}, in, session, true)
	batched.served = plain.served
	if !assert.Equal(t, plain, batched, "in batches") {
		t.FailNow()
	}
	ahead := walkHeaders(in, session, true)
	served := ahead.served
	ahead.served = plain.served
	if !assert.Equal(t, plain, ahead) {
		t.FailNow()
	}
	return served
}

func TestReadHeadersAheadSameWalk(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("headers are read ahead only with two processors or more")
	}
	var trace bytes.Buffer
	_, err := etltest.WriteBenchmarkTrace(&trace, 8<<20, 4, etltest.BenchBufferSize(0x1000))
	require.NoError(t, err)
	in := trace.Bytes()
	n := len(in) / 0x1000
	require.Greater(t, n, 1000)

	// Every buffer as large as the first: the reader supplies headers. How
	// many depends on the race between the two goroutines.
	served := sameWalk(t, in, 0)
	t.Logf("%d of %d headers read ahead", served, n)
	// That it supplies any is made certain by holding the walk's own read
	// of the third header until the reader has read the fourth.
	gated := &gatedReader{ReaderAt: bytes.NewReader(in), hold: 2 * 0x1000, until: 3 * 0x1000, read: make(chan struct{})}
	withGate := walkHeadersFrom(gated, in, 0, true)
	assert.Greater(t, withGate.served, int64(0), "no header came from the reader")
	withGate.served = -1
	assert.Equal(t, walkHeaders(in, 0, false), withGate)

	// A damaged BufferSize (stepped over by the session size), a header
	// that is all zero in the middle, and a tail cut inside a header: the
	// reader reads what the walk would read, and gives up where the guess
	// fails.
	damaged := bytes.Clone(in)
	binary.LittleEndian.PutUint32(damaged[300*0x1000:], 0x10)
	clear(damaged[600*0x1000 : 600*0x1000+buffer.HeaderSize])
	damaged = damaged[:len(damaged)-0x1000+0x20]
	sameWalk(t, damaged, 0x1000)
	sameWalk(t, damaged, 0)

	// A buffer of another size part-way: the guess fails there, after the
	// reader may have read headers beyond it at the guessed offsets.
	mixed := append(bytes.Clone(in[:100*0x1000]), rawBuffer(0x200, 1, 1, 0, []byte("12345678"))...)
	mixed = append(mixed, in[100*0x1000:200*0x1000]...)
	sameWalk(t, mixed, 0)

	// Sizes that differ from the second buffer on: the second header is
	// where the guess puts it, none after it.
	var varied []byte
	for i := range 50 {
		varied = append(varied, rawBuffer(0x100+0x40*(i%3), int64(i), uint16(i%4), 0, []byte("abcdefgh"))...)
	}
	assert.LessOrEqual(t, sameWalk(t, varied, 0), int64(1))
}

// gatedReader holds a read at offset hold until a read at offset until has
// been made (or a few seconds have passed).
type gatedReader struct {
	io.ReaderAt
	hold, until int64
	once        sync.Once
	read        chan struct{}
}

func (g *gatedReader) ReadAt(p []byte, off int64) (int, error) {
	if off == g.hold {
		select {
		case <-g.read:
		case <-time.After(5 * time.Second):
		}
	}
	n, err := g.ReaderAt.ReadAt(p, off)
	if off == g.until {
		g.once.Do(func() { close(g.read) })
	}
	return n, err
}

// batchReader is a BatchReaderAt over bytes that counts its batches; fail
// refuses every nth read of a batch (0: none), refuse the whole batch.
type batchReader struct {
	*bytes.Reader
	batches int
	fail    int
	refuse  bool
}

func (b *batchReader) BatchReads() bool { return true }

func (b *batchReader) ReadAtBatch(p [][]byte, off []int64, ok []bool) bool {
	if b.refuse {
		return false
	}
	b.batches++
	for i := range p {
		n, _ := b.ReadAt(p[i], off[i])
		ok[i] = n == len(p[i]) && (b.fail == 0 || i%b.fail != 0)
		if !ok[i] {
			clear(p[i]) // what a failed read leaves must not be used
		}
	}
	return true
}

func TestReadHeadersAheadInBatches(t *testing.T) {
	var trace bytes.Buffer
	_, err := etltest.WriteBenchmarkTrace(&trace, 4<<20, 4, etltest.BenchBufferSize(0x1000))
	require.NoError(t, err)
	in := trace.Bytes()
	n := len(in) / 0x1000
	damaged := bytes.Clone(in)
	binary.LittleEndian.PutUint32(damaged[300*0x1000:], 0x10)
	clear(damaged[600*0x1000 : 600*0x1000+buffer.HeaderSize])
	damaged = damaged[:len(damaged)-0x1000+0x20]

	for _, c := range []struct {
		name    string
		in      []byte
		session uint32
		fail    int
		refuse  bool
		served  int64
		batches int
	}{
		// Every header but the first, which gives the stride, from
		// batches of 256.
		{name: "whole", in: in, served: int64(n - 1), batches: (n - 1 + 255) / 256},
		// Reads a batch could not make are made by the walk itself.
		{name: "some fail", in: in, fail: 3, served: servedFailingEvery(n-1, 256, 3), batches: (n - 1 + 255) / 256},
		{name: "refused", in: in, refuse: true, served: 0, batches: 0},
		// Damage: a BufferSize of 0x10, stepped over by the session size,
		// an all-zero header, a tail cut inside a header.
		{name: "damaged", in: damaged, session: 0x1000, served: -1},
		{name: "damaged, no session size", in: damaged, served: -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := walkHeaders(c.in, c.session, false)
			br := &batchReader{Reader: bytes.NewReader(c.in), fail: c.fail, refuse: c.refuse}
			got := walkHeadersFrom(br, c.in, c.session, true)
			if c.served >= 0 {
				assert.Equal(t, c.served, got.served)
				assert.Equal(t, c.batches, br.batches)
			}
			got.served = want.served
			assert.Equal(t, want, got)
		})
	}
}

// servedFailingEvery is how many of n headers, read in batches of size,
// come from the batches when every kth read of a batch fails, from the
// first.
func servedFailingEvery(n, size, k int) int64 {
	served := 0
	for n > 0 {
		m := min(n, size)
		served += m - (m+k-1)/k
		n -= m
	}
	return int64(served)
}
