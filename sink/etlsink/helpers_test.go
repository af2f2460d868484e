package etlsink_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/sink/etlsink"
)

// memFile is an in-memory io.WriteSeeker.
type memFile struct {
	b   []byte
	off int64
}

func (m *memFile) Write(p []byte) (int, error) {
	end := int(m.off) + len(p)
	if end > len(m.b) {
		m.b = slices.Grow(m.b, end-len(m.b))[:end]
	}
	copy(m.b[m.off:], p)
	m.off = int64(end)
	return len(p), nil
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		off += m.off
	case io.SeekEnd:
		off += int64(len(m.b))
	}
	if off < 0 {
		return 0, errors.New("negative position")
	}
	m.off = off
	return off, nil
}

// rec is what a reader gives of a record that a written trace must keep:
// its bytes, and what it takes from its buffer and its file.
type rec struct {
	Raw      []byte
	Type     header.Type
	CPU      uint16
	Flags    uint16
	RawTS    int64
	FileTime int64
}

func (r rec) String() string {
	return fmt.Sprintf("%v cpu %d flags 0x%x raw %d ft %d (%d bytes)", r.Type, r.CPU, r.Flags, r.RawTS, r.FileTime, len(r.Raw))
}

func recOf(r *record.Record) rec {
	ft, _ := r.FileTime()
	return rec{Raw: bytes.Clone(r.Raw), Type: r.HeaderType, CPU: r.ProcessorNumber, Flags: r.Flags, RawTS: r.RawTimeStamp, FileTime: ft}
}

// isLogfileHeader is the record a reader takes the logfile header from.
func isLogfileHeader(r *record.Record, rd *etl.Reader) bool {
	return rd.Header().RealTimeBackup == nil && r.BufferIndex == 0 && r.BufferOffset == buffer.HeaderSize &&
		(r.HeaderType == header.TypeSystem32 || r.HeaderType == header.TypeSystem64) && r.HookId == 0
}

// readTrace reads b in time order. The logfile-header record is returned
// apart; errors are counted.
func readTrace(t testing.TB, b []byte) (hdr *etl.Header, first *rec, recs []rec, errs int) {
	t.Helper()
	rd, err := etl.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	for r, err := range rd.Events() {
		if err != nil {
			errs++
			continue
		}
		if isLogfileHeader(r, rd) {
			c := recOf(r)
			first = &c
			continue
		}
		recs = append(recs, recOf(r))
	}
	return rd.Header(), first, recs, errs
}

// relog writes the records of the traces that keep accepts, and those
// that describe the trace, into a new trace, as etldump does.
func relog(t testing.TB, keep func(*record.Record) bool, opts etlsink.Options, traces ...[]byte) ([]byte, etlsink.Stats) {
	t.Helper()
	var inputs []etlsink.Input
	var readers []*etl.Reader
	for i, b := range traces {
		rd, err := etl.NewReader(bytes.NewReader(b), int64(len(b)))
		require.NoError(t, err)
		inputs = append(inputs, etlsink.Input{Name: fmt.Sprintf("trace%d", i), Reader: rd})
		readers = append(readers, rd)
	}
	s, err := etlsink.SessionFor(inputs...)
	require.NoError(t, err)
	var out memFile
	w, err := etlsink.NewWriter(&out, &s.Header, opts)
	require.NoError(t, err)
	set := etl.NewSet(readers...)
	for r, err := range set.Events() {
		if err != nil {
			continue
		}
		if keep != nil && !keep(r) && !etlsink.IsTraceDescribing(r) {
			continue
		}
		require.NoError(t, w.Copy(r, readers[set.Origin()]))
	}
	require.NoError(t, w.Close())
	return out.b, w.Stats()
}

// relogFileOrder writes a single trace from file order, as etldump does
// when SessionFor finds its streams in sequence order. It reports false
// when they are not.
func relogFileOrder(t testing.TB, in []byte) ([]byte, bool) {
	t.Helper()
	rd, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
	require.NoError(t, err)
	s, err := etlsink.SessionFor(etlsink.Input{Name: "in", Reader: rd})
	require.NoError(t, err)
	if !s.StreamOrder {
		return nil, false
	}
	var out memFile
	w, err := etlsink.NewWriter(&out, &s.Header, etlsink.Options{})
	require.NoError(t, err)
	for r, err := range rd.Records() {
		if err == nil {
			require.NoError(t, w.Copy(r, rd))
		}
	}
	require.NoError(t, w.Close())
	return out.b, true
}

// expected is what relog should write: the records of the traces in time
// order, but for the logfile-header records, which the Writer replaces.
func expected(t testing.TB, keep func(*record.Record) bool, traces ...[]byte) []rec {
	t.Helper()
	var readers []*etl.Reader
	for _, b := range traces {
		rd, err := etl.NewReader(bytes.NewReader(b), int64(len(b)))
		require.NoError(t, err)
		readers = append(readers, rd)
	}
	set := etl.NewSet(readers...)
	var out []rec
	for r, err := range set.Events() {
		if err != nil || isLogfileHeader(r, readers[set.Origin()]) {
			continue
		}
		if keep != nil && !keep(r) && !etlsink.IsTraceDescribing(r) {
			continue
		}
		out = append(out, recOf(r))
	}
	return out
}

// requireSameRecords compares record lists, naming the first difference.
func requireSameRecords(t testing.TB, want, got []rec) {
	t.Helper()
	for i := range min(len(want), len(got)) {
		w, g := &want[i], &got[i]
		if !bytes.Equal(w.Raw, g.Raw) || w.Type != g.Type || w.CPU != g.CPU || w.Flags != g.Flags || w.RawTS != g.RawTS || w.FileTime != g.FileTime {
			t.Fatalf("record %d of %d: want %v, got %v", i, len(want), want[i], got[i])
		}
	}
	require.Equal(t, len(want), len(got), "record count")
}

// requireWalkAgrees runs the second reader on out and compares each
// processor's records, in order, with the raw timestamps want has.
func requireWalkAgrees(t testing.TB, out []byte, want []rec) *walked {
	t.Helper()
	w, err := walkTrace(out)
	require.NoError(t, err)
	require.Equal(t, len(want), len(w.header)+len(w.data), "records found by the second reader")
	// The header buffer's records come first, in order; then each
	// processor's records in their stream order.
	perCPU := map[uint16][]int64{}
	for i, r := range want {
		if i < len(w.header) {
			require.Equal(t, r.RawTS, w.header[i].ts, "header record %d", i)
			continue
		}
		perCPU[r.CPU] = append(perCPU[r.CPU], r.RawTS)
	}
	for cpu, ts := range perCPU {
		var got []int64
		for _, r := range w.perCPU[cpu] {
			got = append(got, r.ts)
		}
		require.Equal(t, ts, got, "raw timestamps of processor %d", cpu)
	}
	return w
}
