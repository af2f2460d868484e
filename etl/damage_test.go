package etl_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/order"
)

// sampleRecord names a record by its place, which damage elsewhere in the
// file does not change.
type sampleRecord struct{ buffer, offset int }

// readPlaces reads every record of a trace in the mode opts asks for, and
// the errors.
func readPlaces(t *testing.T, data []byte, opts order.Options) ([]sampleRecord, []*etl.FormatError, *etl.Stats) {
	t.Helper()
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	var recs []sampleRecord
	var errs []*etl.FormatError
	for rec, err := range r.EventsWith(opts) {
		if err != nil {
			var fe *etl.FormatError
			require.ErrorAs(t, err, &fe)
			errs = append(errs, fe)
			continue
		}
		recs = append(recs, sampleRecord{rec.BufferIndex, rec.BufferOffset})
	}
	return recs, errs, r.Stats()
}

// bufferOffsets walks a sound trace and gives each buffer's offset.
func bufferOffsets(t *testing.T, data []byte) []int64 {
	t.Helper()
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	var offs []int64
	for b, err := range r.Buffers() {
		require.NoError(t, err)
		offs = append(offs, b.FileOffset)
	}
	return offs
}

// TestDamagedHeaderCostsItsBuffer damages one buffer header of real traces
// (the first data buffer, one in the middle, the last), its BufferSize
// alone or the whole header, with garbage: every record of the other
// buffers is read, in file order and in time order, in the order an
// undamaged read gives them, and one error names the damaged buffer's
// offset and the bytes skipped.
func TestDamagedHeaderCostsItsBuffer(t *testing.T) {
	names := []string{
		"win10-explorer-startup.etl", "shutdown-kernel.etl", "powershell-manifest.etl", "gcevents-manifest.etl",
		"wpp-netsetup-append.etl", "pktmon-ethernet.etl", "selfdescribing-compressed.etl",
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			orig, err := os.ReadFile(samples.Path(t, name))
			require.NoError(t, err)
			offs := bufferOffsets(t, orig)
			require.GreaterOrEqual(t, len(offs), 3)
			hr, err := etl.NewReader(bytes.NewReader(orig), int64(len(orig)))
			require.NoError(t, err)
			// The records a skipped buffer held are known for a buffer of
			// the session's size whose header keeps its Offset.
			countable := int64(0)
			if hr.Header().LogFileMode&header.ModeCompressed == 0 {
				countable = int64(hr.Header().BufferSize)
			}
			wantFile, errs, _ := readPlaces(t, orig, order.Options{Mode: order.FileOrder})
			require.Empty(t, errs)
			wantTime, errs, _ := readPlaces(t, orig, order.Options{})
			require.Empty(t, errs)
			rng := rand.New(rand.NewPCG(uint64(len(orig)), 23))
			known, reads := 0, 0
			defer func() {
				t.Logf("the records of the skipped bytes known in %d of %d reads", known, reads)
				if countable > 0 {
					assert.Positive(t, known, "an uncompressed trace has buffers whose records are counted")
				}
			}()
			for _, k := range []int{1, len(offs) / 2, len(offs) - 1} {
				off := offs[k]
				size := binary.LittleEndian.Uint32(orig[off:])
				damages := map[string]func([]byte){
					"size-garbage": func(d []byte) { binary.LittleEndian.PutUint32(d[off:], rng.Uint32()|0x8000_0000) },
					"size-xor":     func(d []byte) { binary.LittleEndian.PutUint32(d[off:], size^0xFFFFFFFF) },
					"size-zero":    func(d []byte) { binary.LittleEndian.PutUint32(d[off:], 0) },
					"header-garbage": func(d []byte) {
						for i := range buffer.HeaderSize {
							d[off+int64(i)] = byte(rng.Uint32())
						}
					},
				}
				if size%8 == 0 {
					// Sizes a damaged uncompressed header could claim that
					// look like buffer sizes: three buffers, half a buffer.
					damages["size-triple"] = func(d []byte) { binary.LittleEndian.PutUint32(d[off:], 3*size) }
					damages["size-half"] = func(d []byte) { binary.LittleEndian.PutUint32(d[off:], size/2) }
				}
				for what, damage := range damages {
					data := bytes.Clone(orig)
					damage(data)
					name := fmt.Sprintf("buffer %d at 0x%x, %s", k, off, what)
					end := int64(len(orig))
					if k+1 < len(offs) {
						end = offs[k+1]
					}
					for _, c := range []struct {
						opts order.Options
						want []sampleRecord
					}{{order.Options{Mode: order.FileOrder}, wantFile}, {order.Options{}, wantTime}} {
						got, errs, st := readPlaces(t, data, c.opts)
						reads++
						want := slices.DeleteFunc(slices.Clone(c.want), func(r sampleRecord) bool { return r.buffer == k })
						require.Less(t, len(want), len(c.want), name)
						require.Equal(t, want, got, "%s, %v: the records of the other buffers, in order", name, c.opts.Mode)
						require.Len(t, errs, 1, name)
						assert.Equal(t, off, errs[0].Offset, name)
						assert.Equal(t, k, errs[0].Buffer, name)
						assert.ErrorIs(t, errs[0], etl.ErrMalformed, name)
						assert.Equal(t, end-off, errs[0].Skipped, name)
						if held := len(c.want) - len(want); errs[0].RecordsKnown {
							known++
							assert.Equal(t, held, errs[0].Records, "%s: the records the skipped bytes held", name)
							assert.Contains(t, errs[0].Error(), fmt.Sprintf(", which held %d record", held), name)
						} else {
							assert.False(t, what != "header-garbage" && end-off == countable, "%s: the records of a buffer that keeps its Offset are counted", name)
							assert.NotContains(t, errs[0].Error(), "which held", name)
						}
						assert.Contains(t, errs[0].Error(), fmt.Sprintf("offset 0x%x: ", off), name)
						assert.Equal(t, 1, st.BuffersSkipped, name)
						assert.Equal(t, end-off, st.BytesSkipped, name)
						assert.Equal(t, len(want), st.Records, name)
						assert.True(t, st.Damaged(), name)
					}
				}
			}
		})
	}
}

// TestOnlyBufferDamaged: a trace whose one buffer, the logfile header's,
// claims a size far past the end of the file leaves no buffer to merge
// (the logfile header is still read for NewReader). Every mode reports the
// loss, with read-ahead on too, rather than failing in the sizing of a
// read-ahead of no streams (a fuzzer's find).
func TestOnlyBufferDamaged(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	data, _, err := etltest.Build(s, func(*etltest.Builder) error { return nil })
	require.NoError(t, err)
	binary.LittleEndian.PutUint32(data, 0x74010000)
	for _, opts := range []order.Options{
		{},
		{ReadAhead: 4},
		{ReadAhead: 4, Workers: 2},
		{ReadAhead: 4, DecodeAhead: 64},
		{ReadAhead: 4, MergeAhead: true},
		{Mode: order.FileOrder},
		{Mode: order.Sorted},
	} {
		r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
		require.NoError(t, err, "the logfile header is read from the cut buffer")
		n := 0
		var errs []*etl.FormatError
		for _, err := range r.EventsWith(opts) {
			if err != nil {
				var fe *etl.FormatError
				require.ErrorAs(t, err, &fe)
				errs = append(errs, fe)
				continue
			}
			n++
		}
		assert.Zero(t, n, "%+v", opts)
		require.Len(t, errs, 1, "%+v: the loss is reported once", opts)
		assert.Equal(t, int64(0), errs[0].Offset)
		assert.Equal(t, 0, errs[0].Buffer)
		assert.ErrorIs(t, errs[0], etl.ErrMalformed)
		assert.Equal(t, int64(len(data)), errs[0].Skipped, "the whole file skipped")
		assert.Equal(t, 1, r.Stats().BuffersSkipped)
	}
}

// readCounter counts the bytes read through it; read-ahead reads from
// several goroutines at once.
type readCounter struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *readCounter) ReadAt(p []byte, off int64) (int, error) {
	c.n.Add(int64(len(p)))
	return c.r.ReadAt(p, off)
}

// TestZeroTailNotScanned: the zero-filled tail of a preallocated file,
// met once the logfile header's BuffersWritten buffers are read, ends the
// walk without a scan of the tail for buffers after it, in every mode;
// the same zeros met before that many buffers are scanned (damage).
func TestZeroTailNotScanned(t *testing.T) {
	trace, err := os.ReadFile("../testdata/etl/zero-tail.etl")
	require.NoError(t, err)
	const tail = 16 << 20
	data := append(bytes.Clone(trace), make([]byte, tail)...)
	for _, opts := range []order.Options{{ReadAhead: -1}, {ReadAhead: 2}, {Mode: order.FileOrder}} {
		in := &readCounter{r: bytes.NewReader(data)}
		r, err := etl.NewReader(in, int64(len(data)))
		require.NoError(t, err)
		n := 0
		for _, err := range r.EventsWith(opts) {
			require.NoError(t, err)
			n++
		}
		assert.Equal(t, 19, n, "%v: the logfile header and 18 events", opts.Mode)
		assert.True(t, r.Stats().ZeroTail)
		assert.Less(t, in.n.Load(), int64(len(trace))*4, "%v: bytes read of a %d-byte trace and a %d-byte tail", opts.Mode, len(trace), tail)
	}
	// BuffersWritten above the buffers before the zeros: they may hide
	// buffers, and the input after them is scanned.
	more := bytes.Clone(data)
	// BuffersWritten: at 0x24 of the logfile header, the payload of the
	// first record, after its 0x20-byte SYSTEM64 header.
	at := buffer.HeaderSize + 0x20 + 0x24
	require.Equal(t, uint32(4), binary.LittleEndian.Uint32(more[at:]))
	binary.LittleEndian.PutUint32(more[at:], 5)
	in := &readCounter{r: bytes.NewReader(more)}
	r, err := etl.NewReader(in, int64(len(more)))
	require.NoError(t, err)
	for range r.EventsWith(order.Options{Mode: order.FileOrder}) {
	}
	assert.Greater(t, in.n.Load(), int64(tail), "the zeros are scanned")
}
