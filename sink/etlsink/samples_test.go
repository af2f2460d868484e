package etlsink_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/sink/etlsink"
)

// sampleTraces returns the shared real traces the reader opens, gzip
// copies unwrapped (the WPP samples come only so), by name.
func sampleTraces(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, path := range samples.All(t, ".etl", ".etlgz") {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		if strings.HasSuffix(path, ".etlgz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			require.NoError(t, err)
			b, err = io.ReadAll(zr)
			require.NoError(t, err)
		}
		if _, err := etl.NewReader(bytes.NewReader(b), int64(len(b))); err != nil {
			require.True(t, errors.Is(err, etl.ErrNotETL), "%s: %v", path, err)
			continue // the sample damaged on purpose
		}
		out[filepath.Base(path)] = b
	}
	require.NotEmpty(t, out)
	return out
}

// Every shared sample, written out whole and through a filter, reads back
// to the records it had, in their order; the second reader agrees.
func TestSamplesRoundTrip(t *testing.T) {
	oddPID := func(r *record.Record) bool { return r.HasThreadProcess && r.ProcessId%2 == 1 }
	for name, in := range sampleTraces(t) {
		t.Run(name, func(t *testing.T) {
			for _, keep := range []func(*record.Record) bool{nil, oddPID} {
				want := expected(t, keep, in)
				out, st := relog(t, keep, etlsink.Options{}, in)
				_, first, got, errs := readTrace(t, out)
				require.Zero(t, errs)
				require.NotNil(t, first)
				requireSameRecords(t, want, got)
				w := requireWalkAgrees(t, out, want)
				assert.Equal(t, st.Buffers, w.buffers)
				if keep == nil {
					if out, ok := relogFileOrder(t, in); ok {
						_, _, got, errs := readTrace(t, out)
						require.Zero(t, errs)
						requireSameRecords(t, want, got)
						requireWalkAgrees(t, out, want)
					}
					rd, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
					require.NoError(t, err)
					if rd.Header().LogFileMode&header.ModeCompressed != 0 {
						// Compressed as the input was: about its size.
						assert.NotZero(t, w.compressed)
						assert.LessOrEqual(t, len(out), 2*len(in)+etlsink.DefaultMaxBufferSize, "%d bytes written of %d", len(out), len(in))
						t.Logf("%d bytes written of %d", len(out), len(in))
					} else {
						assert.Zero(t, w.compressed)
					}
					if rd.Header().RealTimeBackup == nil {
						assert.Equal(t, 1, st.Replaced)
						assert.Equal(t, min(rd.Header().BufferSize, etlsink.DefaultMaxBufferSize), uint32(w.bufferSize), "the session's buffer size is kept, up to the cap")
					}
				}
			}
		})
	}
}
