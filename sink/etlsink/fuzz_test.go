package etlsink_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/seeds"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/sink/etlsink"
)

// fuzzBufferSize holds a record of the largest size, and any buffer of
// the small traces fuzzing reads. The buffer size is the input's when it
// is smaller, with room for a logfile-header record a little longer than
// the input's.
const fuzzBufferSize = 0x11000

// FuzzRelog: any trace the reader accepts, written out and read back,
// gives the same records in the same order (but for the logfile-header
// record, which the Writer writes anew), and the second reader agrees.
func FuzzRelog(f *testing.F) {
	for _, b := range seeds.Files() {
		f.Add(b)
	}
	f.Add(everyKind(f, etltest.DefaultSession()))
	f.Fuzz(func(t *testing.T, in []byte) { fuzzOne(t, in, etlsink.CompressLikeInput) })
}

// FuzzRelogCompressed is FuzzRelog writing every buffer compressed: the
// encoder's output, in buffers of any content, reads back to the same
// records, with both readers.
func FuzzRelogCompressed(f *testing.F) {
	for _, b := range seeds.Files() {
		f.Add(b)
	}
	f.Add(everyKind(f, etltest.DefaultSession()))
	f.Fuzz(func(t *testing.T, in []byte) { fuzzOne(t, in, etlsink.CompressAlways) })
}

func fuzzOne(t *testing.T, in []byte, compress etlsink.Compression) {
	if len(in) > seeds.MaxFileSeed {
		return
	}
	rd, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
	if err != nil {
		return
	}
	s, err := etlsink.SessionFor(etlsink.Input{Name: "fuzz", Reader: rd})
	require.NoError(t, err)
	h := s.Header
	h.BufferSize = min(h.BufferSize+0x1000, fuzzBufferSize)
	var out memFile
	w, err := etlsink.NewWriter(&out, &h, etlsink.Options{Compression: compress})
	require.NoError(t, err)
	var want []rec
	// No read-ahead: worker goroutines cost more than small inputs save.
	for r, err := range rd.EventsWith(order.Options{ReadAhead: -1}) {
		if err != nil {
			continue
		}
		if !isLogfileHeader(r, rd) {
			want = append(want, recOf(r))
		}
		require.NoError(t, w.Copy(r, rd))
	}
	require.NoError(t, w.Close())
	_, first, got, errs := readTrace(t, out.b)
	require.Zero(t, errs)
	require.NotNil(t, first)
	requireSameRecords(t, want, got)
	walked := requireWalkAgrees(t, out.b, want)
	if compress == etlsink.CompressAlways {
		require.NotZero(t, walked.logFileMode&header.ModeCompressed)
	}
}
