package buffer_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/samples"
)

// walked is what one step of a walk gave.
type walked struct {
	index     int
	offset    int64
	header    buffer.Header
	data      []byte
	truncated bool
	err       string
}

func walkAll(t *testing.T, w *buffer.Walker) []walked {
	t.Helper()
	var out []walked
	var b buffer.Buffer
	for {
		err := w.Next(&b)
		if err == io.EOF {
			return out
		}
		s := walked{index: b.Index, offset: b.FileOffset, header: b.Header, truncated: b.Truncated}
		if err != nil {
			s.err = err.Error()
		} else {
			s.data = bytes.Clone(b.Data)
		}
		out = append(out, s)
		require.Less(t, len(out), 1<<20, "walk does not end")
	}
}

// scanThenLoad walks headers only and reads every buffer found with a
// Loader, from the last to the first, to show that order does not matter.
func scanThenLoad(t *testing.T, r io.ReaderAt, size int64, session uint32) []walked {
	t.Helper()
	w := buffer.NewWalker(r, size)
	w.SessionBufferSize = session
	loader := w.Loader()
	w.HeadersOnly = true
	scanned := walkAll(t, w)
	for i, s := range scanned {
		assert.Empty(t, s.data, "a header-only walk reads no records")
		assert.Equal(t, i, s.index)
	}
	var b, located buffer.Buffer
	for i := len(scanned) - 1; i >= 0; i-- {
		s := &scanned[i]
		if s.err != "" {
			continue
		}
		err := loader.Load(s.offset, s.index, &b)
		assert.Equal(t, s.header, b.Header)
		assert.Equal(t, s.truncated, b.Truncated)
		assert.Equal(t, s.index, b.Index)
		assert.Equal(t, s.offset, b.FileOffset)

		// LoadLocated, handed what the scan set, gives what Load gives;
		// its storage is reused from buffer to buffer.
		located = buffer.Buffer{Header: s.header, Index: s.index, FileOffset: s.offset, Truncated: s.truncated, Data: located.Data}
		lerr := loader.LoadLocated(&located)
		assert.Equal(t, errString(err), errString(lerr), "LoadLocated, buffer %d", i)
		assert.Equal(t, b.Header, located.Header, "LoadLocated, buffer %d", i)
		assert.Equal(t, b.Truncated, located.Truncated, "LoadLocated, buffer %d", i)
		assert.Equal(t, b.Compression, located.Compression, "LoadLocated, buffer %d", i)
		if err != nil {
			s.err = err.Error()
			continue
		}
		assert.Equal(t, b.Data, located.Data, "LoadLocated, buffer %d", i)
		s.data = bytes.Clone(b.Data)
	}
	// LoadSized gives what Load gives, whether its size is the records' end
	// or falls short of it (a second read) or goes past it (bytes read for
	// nothing), past the buffer or past the input; into fresh storage,
	// which a short size makes grow, and into storage reused.
	var reused buffer.Buffer
	for i := range scanned {
		s := &scanned[i]
		if s.err != "" && s.data == nil && s.header == (buffer.Header{}) {
			continue
		}
		var want buffer.Buffer
		werr := loader.Load(s.offset, s.index, &want)
		h := s.header
		for _, size := range []uint32{h.Offset, 0, buffer.HeaderSize + 1, h.Offset / 2, h.Offset - 8, h.Offset + 100, h.BufferSize, 1 << 20} {
			for _, into := range []*buffer.Buffer{{}, &reused} {
				gerr := loader.LoadSized(s.offset, s.index, size, into)
				assert.Equal(t, errString(werr), errString(gerr), "LoadSized %#x, buffer %d", size, i)
				assert.Equal(t, want.Header, into.Header, "LoadSized %#x, buffer %d", size, i)
				assert.Equal(t, want.Truncated, into.Truncated, "LoadSized %#x, buffer %d", size, i)
				assert.Equal(t, want.Compression, into.Compression, "LoadSized %#x, buffer %d", size, i)
				if werr == nil {
					assert.Equal(t, want.Data, into.Data, "LoadSized %#x, buffer %d", size, i)
				}
			}
		}
	}
	return scanned
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestLoaderMatchesWalkOnSamples(t *testing.T) {
	n := 0
	for _, p := range samples.All(t, ".etl") {
		in, err := os.ReadFile(p)
		require.NoError(t, err)
		if buffer.IsRTBackup(in) {
			continue
		}
		t.Run(filepath.Base(p), func(t *testing.T) {
			want := walkAll(t, buffer.NewWalker(bytes.NewReader(in), int64(len(in))))
			got := scanThenLoad(t, bytes.NewReader(in), int64(len(in)), 0)
			require.Equal(t, len(want), len(got))
			for i := range want {
				assert.Equal(t, want[i], got[i], "buffer %d", i)
			}
		})
		n++
	}
	assert.Greater(t, n, 20)
}

// TestLoaderMatchesWalkOnDamage covers the damage a walk reports: a bad
// Offset inside the header and past BufferSize, a buffer that does not
// decompress, a size smaller than the buffer header and a file cut inside
// its last buffer.
func TestLoaderMatchesWalkOnDamage(t *testing.T) {
	in, session := damagedTrace(t)
	walker := buffer.NewWalker(bytes.NewReader(in), int64(len(in)))
	walker.SessionBufferSize = session
	want := walkAll(t, walker)
	got := scanThenLoad(t, bytes.NewReader(in), int64(len(in)), session)
	require.Equal(t, len(want), len(got))
	var errs []string
	for i := range want {
		assert.Equal(t, want[i], got[i], "buffer %d", i)
		errs = append(errs, fmt.Sprintf("%d:%v", i, want[i].err != ""))
	}
	// The damage is where it was put: buffers 2 (Offset inside the
	// header), 4 (bad compression), 6 (Offset past BufferSize) and 8
	// (BufferSize 0x10); buffer 9 is compressed and fine, buffer 10 is cut
	// but its first record is whole.
	assert.Equal(t, []string{"0:false", "1:false", "2:true", "3:false", "4:true", "5:false", "6:true", "7:false", "8:true", "9:false", "10:false"}, errs)
	assert.True(t, got[10].truncated)
}

// damagedTrace builds a trace with one buffer of each kind of damage a walk
// reports, each but one followed by a sound buffer, and returns it with its
// session buffer size.
func damagedTrace(t *testing.T) ([]byte, uint32) {
	t.Helper()
	s := etltest.DefaultSession()
	s.BufferSize = 0x400
	ev := func(ts int64) etltest.Record {
		return &etltest.PerfInfo{HookId: 0x0524, TimeStamp: ts, Payload: []byte{1, 2, 3, 4}}
	}
	in, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		for _, spec := range []etltest.Buffer{
			{CPU: 1, SequenceNumber: 1},
			{CPU: 2, SequenceNumber: 2, Offset: etltest.Ptr(uint32(0x20))},
			{CPU: 2, SequenceNumber: 3},
			{CPU: 3, SequenceNumber: 4, BadCompression: true},
			{CPU: 3, SequenceNumber: 5},
			{CPU: 0, SequenceNumber: 6, Offset: etltest.Ptr(uint32(0x800))},
			{CPU: 0, SequenceNumber: 7},
		} {
			if err := b.WriteBuffer(spec, ev(10+spec.SequenceNumber)); err != nil {
				return err
			}
		}
		// A buffer whose BufferSize field is 0x10: the walk finds the next
		// one a session buffer size on.
		bad := make([]byte, 0x400)
		bad[0] = 0x10
		if err := b.WriteRaw(bad); err != nil {
			return err
		}
		if err := b.WriteBuffer(etltest.Buffer{CPU: 1, SequenceNumber: 9, Compress: true}, ev(19), ev(20)); err != nil {
			return err
		}
		return b.WriteBuffer(etltest.Buffer{CPU: 1, SequenceNumber: 10, Truncate: 0x60}, ev(21), ev(22))
	})
	require.NoError(t, err)
	return in, s.BufferSize
}

// TestNextIntoKeepsEarlierBuffers reads the buffers into two Buffers in
// turn: each read gives what Next gives, and leaves the buffer read before
// it intact, which Next, sharing the walker's storage, would not.
func TestNextIntoKeepsEarlierBuffers(t *testing.T) {
	in, session := damagedTrace(t)
	walker := buffer.NewWalker(bytes.NewReader(in), int64(len(in)))
	walker.SessionBufferSize = session
	want := walkAll(t, walker)

	w := buffer.NewWalker(bytes.NewReader(in), int64(len(in)))
	w.SessionBufferSize = session
	var bufs [2]buffer.Buffer
	for i := 0; ; i++ {
		b := &bufs[i%2]
		err := w.NextInto(b)
		if err == io.EOF {
			require.Equal(t, len(want), i)
			return
		}
		require.Less(t, i, len(want))
		assert.Equal(t, want[i].err, errString(err), "buffer %d", i)
		assert.Equal(t, want[i].header, b.Header, "buffer %d", i)
		if err == nil {
			assert.Equal(t, want[i].data, b.Data, "buffer %d", i)
		}
		if i > 0 && want[i-1].err == "" {
			assert.Equal(t, want[i-1].data, bufs[(i-1)%2].Data, "buffer %d changed by reading buffer %d", i-1, i)
		}
	}
}

// TestLoadLocatedRereadsAChangedHeader hands LoadLocated a located header
// that no longer matches the file: it reads the buffer as Load does, with
// the header the file holds.
func TestLoadLocatedRereadsAChangedHeader(t *testing.T) {
	in, session := damagedTrace(t)
	w := buffer.NewWalker(bytes.NewReader(in), int64(len(in)))
	w.SessionBufferSize = session
	loader := w.Loader()
	var want buffer.Buffer
	require.NoError(t, loader.Load(0, 0, &want))

	b := buffer.Buffer{Header: want.Header, Index: 0, FileOffset: 0}
	b.SequenceNumber += 99
	require.NoError(t, loader.LoadLocated(&b))
	assert.Equal(t, want.Header, b.Header)
	assert.Equal(t, want.Data, b.Data)
	assert.Greater(t, len(b.Records()), 0)
}

// TestWalkSpan: each step of the walk covers its buffer's size, the
// damaged one the session's size it stepped by, and the cut last buffer
// only what the file holds of it; the end of the walk covers nothing.
func TestWalkSpan(t *testing.T) {
	in, session := damagedTrace(t)
	w := buffer.NewWalker(bytes.NewReader(in), int64(len(in)))
	w.SessionBufferSize = session
	var b buffer.Buffer
	var spans []int64
	var total int64
	for {
		start := w.Offset()
		if err := w.Next(&b); err == io.EOF {
			assert.Zero(t, w.Span(start), "at the end")
			break
		}
		spans = append(spans, w.Span(start))
		total += w.Span(start)
	}
	// The header buffer and 0x400-byte buffers, except the two compressed
	// ones, stored at their compressed sizes (0x60, 0x66); the damaged
	// headers cover the bytes up to the next buffer, a session size on;
	// the last is cut to 0x60 bytes.
	assert.Equal(t, []int64{0x400, 0x400, 0x400, 0x400, 0x60, 0x400, 0x400, 0x400, 0x400, 0x66, 0x60}, spans)
	assert.Equal(t, int64(len(in)), total)
}
