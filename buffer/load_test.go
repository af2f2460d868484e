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
	var b buffer.Buffer
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
		if err != nil {
			s.err = err.Error()
			continue
		}
		s.data = bytes.Clone(b.Data)
	}
	return scanned
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

// TestLoaderMatchesWalkOnDamage covers the damage a walk reports: a short
// header, a bad Offset, a buffer that does not decompress, a size smaller
// than the buffer header (stepped over with the session size) and a file
// cut inside its last buffer.
func TestLoaderMatchesWalkOnDamage(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x400
	ev := func(ts int64) etltest.Record {
		return &etltest.PerfInfo{HookId: 0x0524, TimeStamp: ts, Payload: []byte{1, 2, 3, 4}}
	}
	in, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		if err := b.WriteBuffer(etltest.Buffer{CPU: 1, SequenceNumber: 1}, ev(10), ev(11)); err != nil {
			return err
		}
		if err := b.WriteBuffer(etltest.Buffer{CPU: 2, SequenceNumber: 2, Offset: etltest.Ptr(uint32(0x20))}, ev(12)); err != nil {
			return err
		}
		if err := b.WriteBuffer(etltest.Buffer{CPU: 3, SequenceNumber: 3, BadCompression: true}, ev(13)); err != nil {
			return err
		}
		if err := b.WriteBuffer(etltest.Buffer{CPU: 0, SequenceNumber: 4, Offset: etltest.Ptr(uint32(0x800))}, ev(14)); err != nil {
			return err
		}
		// A buffer whose BufferSize field is 0x10: the walk steps over it by
		// the session buffer size.
		bad := make([]byte, 0x400)
		bad[0] = 0x10
		if err := b.WriteRaw(bad); err != nil {
			return err
		}
		if err := b.WriteBuffer(etltest.Buffer{CPU: 1, SequenceNumber: 6, Compress: true}, ev(15), ev(16)); err != nil {
			return err
		}
		return b.WriteBuffer(etltest.Buffer{CPU: 1, SequenceNumber: 7, Truncate: 0x60}, ev(17), ev(18))
	})
	require.NoError(t, err)

	walker := buffer.NewWalker(bytes.NewReader(in), int64(len(in)))
	walker.SessionBufferSize = s.BufferSize
	want := walkAll(t, walker)
	got := scanThenLoad(t, bytes.NewReader(in), int64(len(in)), s.BufferSize)
	require.Equal(t, len(want), len(got))
	var errs []string
	for i := range want {
		assert.Equal(t, want[i], got[i], "buffer %d", i)
		errs = append(errs, fmt.Sprintf("%d:%v", i, want[i].err != ""))
	}
	// The damage is where it was put: buffers 2 (Offset inside the
	// header), 3 (bad compression), 4 (Offset past BufferSize) and 5
	// (BufferSize 0x10); buffer 6 is compressed and fine, buffer 7 is cut
	// but its first record is whole.
	assert.Equal(t, []string{"0:false", "1:false", "2:true", "3:true", "4:true", "5:true", "6:false", "7:false"}, errs)
	assert.True(t, got[7].truncated)
}
