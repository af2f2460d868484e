package buffer_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

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
	served   int
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
		w.ReadHeadersAhead()
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

// sameWalk walks in without headers read ahead and with them, in batches
// that all succeed and in batches where every fifth read fails, and
// requires the same buffers, errors and ending; it returns how many
// headers the batches that all succeed supplied.
func sameWalk(t testing.TB, in []byte, session uint32) int {
	t.Helper()
	plain := walkHeaders(in, session, false)
	served := 0
	for _, fail := range []int{0, 5} {
		batched := walkHeadersFrom(&batchReader{Reader: bytes.NewReader(in), fail: fail}, in, session, true)
		if fail == 0 {
			served = batched.served
		}
		batched.served = plain.served
		if !assert.Equal(t, plain, batched, "in batches, every %dth read failing", fail) {
			t.FailNow()
		}
	}
	return served
}

// uniformTrace is an etlgen trace of size bytes in buffers of 0x1000,
// and how many buffers it has.
func uniformTrace(t *testing.T, size int64) (in []byte, buffers int) {
	var trace bytes.Buffer
	_, err := etltest.WriteBenchmarkTrace(&trace, size, 4, etltest.BenchBufferSize(0x1000))
	require.NoError(t, err)
	return trace.Bytes(), trace.Len() / 0x1000
}

func TestReadHeadersAheadSameWalk(t *testing.T) {
	in, n := uniformTrace(t, 8<<20)
	require.Greater(t, n, 1000)

	// Every buffer as large as the first: every header after the first,
	// which gives the guess its stride, comes from a batch.
	assert.Equal(t, n-1, sameWalk(t, in, 0))
	// A reader that cannot batch: the walk reads alone.
	assert.Equal(t, -1, walkHeaders(in, 0, true).served)

	// A damaged BufferSize at 300 (the walk finds the next buffer a
	// session size on, or by its scan without one) and a header that is
	// all zero at 600, with buffers after it: damage, not a zero tail, so
	// the walk goes on to the tail cut inside a header. Without a session
	// size the scan checks the header after each one it finds, and the
	// walk takes those two headers from the scan rather than a batch.
	damaged := bytes.Clone(in)
	binary.LittleEndian.PutUint32(damaged[300*0x1000:], 0x10)
	clear(damaged[600*0x1000 : 600*0x1000+buffer.HeaderSize])
	damaged = damaged[:len(damaged)-0x1000+0x20]
	assert.Equal(t, n-2, sameWalk(t, damaged, 0x1000))
	assert.Equal(t, n-4, sameWalk(t, damaged, 0))

	// A buffer of another size at 100: its header is where the guess puts
	// it, the next is not, and the batches stop there, having read
	// headers beyond it at the guessed offsets.
	mixed := append(bytes.Clone(in[:100*0x1000]), rawBuffer(0x200, 1, 1, 0, []byte("12345678"))...)
	mixed = append(mixed, in[100*0x1000:200*0x1000]...)
	assert.Equal(t, 100, sameWalk(t, mixed, 0))

	// Sizes that differ from the second buffer on.
	var varied []byte
	for i := range 50 {
		varied = append(varied, rawBuffer(0x100+0x40*(i%3), int64(i), uint16(i%4), 0, []byte("abcdefgh"))...)
	}
	assert.Equal(t, 1, sameWalk(t, varied, 0))
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

// TestReadHeadersAheadInBatches counts the batches and what they supply:
// 256 headers a call, reads a batch could not make left to the walk, and
// a reader that refuses a batch left to read alone.
func TestReadHeadersAheadInBatches(t *testing.T) {
	in, n := uniformTrace(t, 4<<20)
	for _, c := range []struct {
		name    string
		fail    int
		refuse  bool
		served  int
		batches int
	}{
		{name: "whole", served: n - 1, batches: (n - 1 + 255) / 256},
		{name: "some fail", fail: 3, served: servedFailingEvery(n-1, 256, 3), batches: (n - 1 + 255) / 256},
		{name: "refused", refuse: true, served: 0, batches: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := walkHeaders(in, 0, false)
			br := &batchReader{Reader: bytes.NewReader(in), fail: c.fail, refuse: c.refuse}
			got := walkHeadersFrom(br, in, 0, true)
			assert.Equal(t, c.served, got.served)
			assert.Equal(t, c.batches, br.batches)
			got.served = want.served
			assert.Equal(t, want, got)
		})
	}
}

// servedFailingEvery is how many of n headers, read in batches of size,
// come from the batches when every kth read of a batch fails, from the
// first.
func servedFailingEvery(n, size, k int) int {
	served := 0
	for n > 0 {
		m := min(n, size)
		served += m - (m+k-1)/k
		n -= m
	}
	return served
}
