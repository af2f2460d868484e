package etl_test

import (
	"bytes"
	"hash/fnv"
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/record"
)

// compressedTrace is a trace of compressed buffers, 24 of them.
func compressedTrace(t *testing.T) []byte {
	var b bytes.Buffer
	res, err := etltest.WriteBenchmarkTrace(&b, 24<<16, 4, etltest.BenchCompress())
	require.NoError(t, err)
	require.Equal(t, 24, res.Buffers)
	return b.Bytes()
}

// passDigest sums the records of a pass, bytes and time, in their order.
func passDigest(t *testing.T, seq iter.Seq2[*record.Record, error]) (uint64, int) {
	h := fnv.New64a()
	n := 0
	for r, err := range seq {
		require.NoError(t, err)
		h.Write(r.Raw)
		h.Write([]byte{byte(r.RawTimeStamp), byte(r.RawTimeStamp >> 8), byte(r.ProcessorNumber)})
		n++
	}
	return h.Sum64(), n
}

func TestKeepDecompressedGivesTheSameRecords(t *testing.T) {
	data := compressedTrace(t)
	open := func() *etl.Reader {
		r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
		require.NoError(t, err)
		return r
	}
	for _, c := range []struct {
		name string
		seq  func(*etl.Reader) iter.Seq2[*record.Record, error]
	}{
		{"time order", func(r *etl.Reader) iter.Seq2[*record.Record, error] { return r.Events() }},
		{"file order", func(r *etl.Reader) iter.Seq2[*record.Record, error] {
			r.SetParallel(false)
			return r.Records()
		}},
		{"file order, parallel", func(r *etl.Reader) iter.Seq2[*record.Record, error] { return r.Records() }},
		{"sorted", func(r *etl.Reader) iter.Seq2[*record.Record, error] {
			return r.EventsWith(order.Options{Mode: order.Sorted})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, wantN := passDigest(t, c.seq(open()))
			require.Greater(t, wantN, 1000)

			r := open()
			r.KeepDecompressed(64 << 20)
			walked := 0
			for b, err := range r.Buffers() {
				require.NoError(t, err)
				walked++
				_ = b
			}
			got, gotN := passDigest(t, c.seq(r))
			assert.Equal(t, wantN, gotN)
			assert.Equal(t, want, got)
			saved, taken := r.KeptCounts()
			assert.Equal(t, 23, saved, "every data buffer is compressed and kept")
			assert.Equal(t, saved, taken, "and taken by the pass after")
			assert.Equal(t, 24, walked)
			assert.False(t, r.Stats().Damaged())

			// A pass after that decompresses again, with the same result.
			again, againN := passDigest(t, c.seq(r))
			assert.Equal(t, want, again)
			assert.Equal(t, wantN, againN)
			_, taken2 := r.KeptCounts()
			assert.Equal(t, taken, taken2)
		})
	}
}

func TestKeepDecompressedStaysWithinItsLimit(t *testing.T) {
	data := compressedTrace(t)
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	// Room for a few buffers only: the rest are decompressed again.
	r.KeepDecompressed(5 << 16)
	for _, err := range r.Buffers() {
		require.NoError(t, err)
	}
	saved, _ := r.KeptCounts()
	assert.Positive(t, saved)
	assert.Less(t, saved, 23, "buffers of up to 64 KiB, room for 320 KiB")
	_, n := passDigest(t, r.Events())
	_, taken := r.KeptCounts()
	assert.Equal(t, saved, taken)

	plain, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	_, want := passDigest(t, plain.Events())
	assert.Equal(t, want, n)
}
