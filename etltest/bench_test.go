package etltest_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
)

func TestBenchmarkTraceReadsBack(t *testing.T) {
	for _, compress := range []bool{false, true} {
		var opts []etltest.BenchOption
		if compress {
			opts = append(opts, etltest.BenchCompress())
		}
		var buf bytes.Buffer
		res, err := etltest.WriteBenchmarkTrace(&buf, 4<<20, 16, opts...)
		require.NoError(t, err)
		assert.Equal(t, 64, res.Buffers)
		assert.Equal(t, int64(buf.Len()), res.Bytes)
		if compress {
			assert.Less(t, res.Bytes, int64(4<<20)/2, "compressed to less than half")
		} else {
			assert.Equal(t, int64(4<<20), res.Bytes)
		}

		r, err := etl.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		require.NoError(t, err)
		assert.Equal(t, uint32(64), r.Header().BuffersWritten)
		assert.Equal(t, uint32(16), r.Header().NumberOfProcessors)
		lastTS := map[uint16]int64{}
		kinds := map[header.Type]int{}
		var n int64
		for rec, err := range r.Records() {
			require.NoError(t, err)
			n++
			if n == 1 {
				continue
			}
			size := len(rec.Raw)
			require.GreaterOrEqual(t, size, 40)
			require.LessOrEqual(t, size, 200)
			kinds[rec.HeaderType]++
			cpu := rec.ProcessorNumber
			require.Less(t, cpu, uint16(16))
			require.Greater(t, rec.RawTimeStamp, lastTS[cpu], "per-CPU timestamps rise")
			lastTS[cpu] = rec.RawTimeStamp
		}
		assert.Equal(t, res.Records, n)
		assert.Len(t, lastTS, 16)
		total := float64(n - 1)
		assert.InDelta(t, 0.55, float64(kinds[header.TypeEventHeader64])/total, 0.03)
		assert.InDelta(t, 0.30, float64(kinds[header.TypeSystem64])/total, 0.03)
		assert.InDelta(t, 0.15, float64(kinds[header.TypePerfInfo64])/total, 0.03)
		assert.Equal(t, 64, r.Stats().Buffers)

		// File order interleaves CPUs, and sequence numbers follow it.
		var seq int64
		cpusSeen := map[uint16]bool{}
		for b, err := range r.Buffers() {
			require.NoError(t, err)
			assert.Equal(t, seq, b.SequenceNumber)
			seq++
			if seq > 1 && seq <= 17 {
				cpusSeen[b.ProcessorNumber()] = true
			}
		}
		assert.Greater(t, len(cpusSeen), 8, "the first data buffers come from many CPUs")
	}
}

func TestBenchmarkTraceDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	_, err := etltest.WriteBenchmarkTrace(&a, 1<<20, 4)
	require.NoError(t, err)
	_, err = etltest.WriteBenchmarkTrace(&b, 1<<20, 4)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(a.Bytes(), b.Bytes()))
	var c bytes.Buffer
	_, err = etltest.WriteBenchmarkTrace(&c, 1<<20, 4, etltest.BenchSeed(7))
	require.NoError(t, err)
	assert.False(t, bytes.Equal(a.Bytes(), c.Bytes()))
}

func BenchmarkWriteBenchmarkTrace(b *testing.B) {
	const size = 64 << 20
	b.SetBytes(size)
	for b.Loop() {
		if _, err := etltest.WriteBenchmarkTrace(io.Discard, size, 16); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteBenchmarkTraceCompressed(b *testing.B) {
	const size = 16 << 20
	b.SetBytes(size)
	for b.Loop() {
		if _, err := etltest.WriteBenchmarkTrace(io.Discard, size, 16, etltest.BenchCompress()); err != nil {
			b.Fatal(err)
		}
	}
}
