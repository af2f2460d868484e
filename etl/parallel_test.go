package etl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
)

// The two-goroutine Records (recordsParallel) must deliver exactly what the
// one-goroutine loop (records) delivers: every record field by field, the
// same errors in the same order, and the same Stats, on clean, compressed,
// wrapped and damaged traces, when the loop body stops early or panics, and
// from one pass to the next over the same Reader (the ring of slots is kept
// between passes). These tests force the parallel path with useParallel so
// that small traces take it too.

// forceParallel makes Records take the two-goroutine path whatever the
// trace's size, for the rest of the test, and counts how often Records
// asked, so that a test can tell the parallel path really ran.
func forceParallel(t testing.TB) *atomic.Int64 {
	t.Helper()
	prev := useParallel
	asked := new(atomic.Int64)
	useParallel = func(*Reader) bool {
		asked.Add(1)
		return true
	}
	t.Cleanup(func() { useParallel = prev })
	return asked
}

// parSentinels are the errors a FormatError wraps.
var parSentinels = []error{ErrTruncated, ErrUnknownHeaderType, ErrDecompress, ErrNotETL, ErrRealTimeBackup, ErrMalformed}

// parStep is one value an iteration delivered: a Clone of the record, or the
// error.
type parStep struct {
	Rec *record.Record
	Err error
}

// parStepView is a step as it is compared. Rec holds the exported fields of
// the record; the unexported ones are compared through Ext and PMC, since a
// Record keeps its extended-item store once it has had one (empty, not nil):
// two Records holding the same record can differ there, depending only on
// what they held before. Errors are compared by value, by text and by the
// sentinels they match.
type parStepView struct {
	Rec *record.Record
	Ext []record.ExtendedItem
	PMC []uint64
	Err error
	Msg string
	Is  []bool // errors.Is(Err, parSentinels[i])
}

var exportedRecordFields = func() []int {
	var idx []int
	rt := reflect.TypeFor[record.Record]()
	for i := range rt.NumField() {
		if rt.Field(i).IsExported() {
			idx = append(idx, i)
		}
	}
	return idx
}()

func (s parStep) view() parStepView {
	if s.Err != nil {
		v := parStepView{Err: s.Err, Msg: s.Err.Error(), Is: make([]bool, len(parSentinels))}
		for i, e := range parSentinels {
			v.Is[i] = errors.Is(s.Err, e)
		}
		return v
	}
	out := new(record.Record)
	src, dst := reflect.ValueOf(s.Rec).Elem(), reflect.ValueOf(out).Elem()
	for _, i := range exportedRecordFields {
		dst.Field(i).Set(src.Field(i))
	}
	v := parStepView{Rec: out}
	if x := s.Rec.ExtendedData(); len(x) > 0 {
		v.Ext = x
	}
	for i := range s.Rec.PMCCount() {
		v.PMC = append(v.PMC, s.Rec.PMCCounter(i))
	}
	return v
}

// parSameStep: the whole Records are compared first, which is quicker and
// nearly always enough; only when they differ are their views.
func parSameStep(a, b parStep) bool {
	if a.Err == nil && b.Err == nil && reflect.DeepEqual(a.Rec, b.Rec) {
		return true
	}
	return reflect.DeepEqual(a.view(), b.view())
}

func parSnapshot(rec *record.Record, err error) parStep {
	if err != nil {
		return parStep{Err: err}
	}
	return parStep{Rec: rec.Clone()}
}

// parPass is what one iteration of Records delivered.
type parPass struct {
	steps   []parStep
	stats   Stats
	records int
	errs    []error
}

func (p *parPass) hasError(sentinel error) bool {
	for _, e := range p.errs {
		if errors.Is(e, sentinel) {
			return true
		}
	}
	return false
}

// parHow says how to run one pass: on which path, where the loop body stops
// (after the step of index stopAt; never when negative), from which step on
// the steps are kept (the earlier ones are only counted), and a function to
// run in the body for each step.
type parHow struct {
	parallel bool
	stopAt   int
	keepFrom int
	body     func(i int, rec *record.Record, err error)
}

var (
	serialRun   = parHow{parallel: false, stopAt: -1}
	parallelRun = parHow{parallel: true, stopAt: -1}
)

// parCollect runs Records once over r as h says, and checks that the path
// asked for is the one taken.
func parCollect(t *testing.T, r *Reader, asked *atomic.Int64, h parHow) parPass {
	t.Helper()
	seq := r.SerialRecords()
	if h.parallel {
		seq = r.Records()
	}
	before := asked.Load()
	// A pass that waits on itself would otherwise hang until go test's
	// own timeout.
	watchdog := time.AfterFunc(time.Minute, func() {
		panic(fmt.Sprintf("a Records pass (parallel=%v) has not ended in a minute: deadlock?", h.parallel))
	})
	defer watchdog.Stop()
	var p parPass
	i := 0
	for rec, err := range seq {
		if h.body != nil {
			h.body(i, rec, err)
		}
		if err != nil {
			assert.Nil(t, rec, "step %d: a record beside an error", i)
			var fe *FormatError
			assert.ErrorAs(t, err, &fe, "step %d", i)
			p.errs = append(p.errs, err)
		} else {
			require.NotNil(t, rec, "step %d", i)
			p.records++
		}
		if i >= h.keepFrom {
			p.steps = append(p.steps, parSnapshot(rec, err))
		}
		if i == h.stopAt {
			break
		}
		i++
	}
	p.stats = *r.Stats()
	want := before
	if h.parallel {
		want++
	}
	require.Equal(t, want, asked.Load(), "parallel=%v: the path taken", h.parallel)
	return p
}

// parSamePass requires got to be want: the same steps and the same Stats.
func parSamePass(t *testing.T, want, got parPass, msg string, args ...any) {
	t.Helper()
	name := fmt.Sprintf(msg, args...)
	bad := 0
	for i := range min(len(want.steps), len(got.steps)) {
		if !parSameStep(want.steps[i], got.steps[i]) {
			assert.Equal(t, want.steps[i].view(), got.steps[i].view(), "%s: step %d", name, i)
			if bad++; bad == 5 {
				break
			}
		}
	}
	require.Equal(t, len(want.steps), len(got.steps), "%s: steps", name)
	require.Zero(t, bad, "%s: steps differ", name)
	assert.Equal(t, want.records, got.records, name)
	assert.Equal(t, want.stats, got.stats, "%s: Stats", name)
	assert.Nil(t, got.stats.Order, "%s: Records leaves Stats.Order nil", name)
}

// parCompare reads r serially and on the forced parallel path and
// requires the same result; it returns the serial pass.
func parCompare(t *testing.T, r *Reader, asked *atomic.Int64, name string) parPass {
	t.Helper()
	serial := parCollect(t, r, asked, serialRun)
	parallel := parCollect(t, r, asked, parallelRun)
	parSamePass(t, serial, parallel, "%s", name)
	return serial
}

// TestParallelEqualsSerial compares the two paths on every committed trace
// and every shared sample, wrapped and compressed ones included.
func TestParallelEqualsSerial(t *testing.T) {
	asked := forceParallel(t)
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "etl", "*.etl"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		t.Run("testdata/"+filepath.Base(p), func(t *testing.T) {
			f, err := Open(p)
			require.NoError(t, err)
			defer f.Close()
			serial := parCompare(t, f.Reader, asked, p)
			assert.Positive(t, serial.records)
			assert.Equal(t, serial.records, serial.stats.Records)
		})
	}
	t.Run("samples", func(t *testing.T) {
		all := samples.All(t, ".etl", ".etlgz", ".gz", ".zst", ".bz2", ".xz", ".zip")
		compared, wrapped, compressed := 0, 0, 0
		for _, p := range all {
			name := filepath.Base(p)
			if st, err := os.Stat(p); testing.Short() && err == nil && st.Size() > 4<<20 {
				t.Logf("%s: skipped in -short mode (%d bytes)", name, st.Size())
				continue
			}
			f, err := Open(p)
			if err != nil {
				// Only a file that is not a trace at all may fail to open.
				require.ErrorIs(t, err, ErrNotETL, name)
				t.Logf("%s: not read: %v", name, err)
				continue
			}
			t.Run(name, func(t *testing.T) {
				defer f.Close()
				serial := parCompare(t, f.Reader, asked, name)
				assert.Positive(t, serial.records)
				compared++
				if f.Wrapper != WrapperNone {
					wrapped++
				}
				if serial.stats.CompressedBuffers > 0 {
					compressed++
				}
			})
		}
		assert.Positive(t, compared)
		assert.Positive(t, wrapped, "wrapped samples compared")
		assert.Positive(t, compressed, "samples with compressed buffers compared")
	})
}

var (
	testProvider = uuid.MustParse("5a0f1d7e-9c3b-4a61-8e2f-0b7d6c5a4e31")
	testActivity = uuid.MustParse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
	testParent   = uuid.MustParse("a1b2c3d4-e5f6-4789-9abc-def012345678")
)

// mixedRecord is the i-th of a rotation through the record kinds, so that
// a Record that held one kind before holds another now.
func mixedRecord(i int, ts int64) etltest.Record {
	tid, pid := uint32(0x100+i), uint32(4+i%3)
	payload := binary.LittleEndian.AppendUint32(nil, uint32(i))
	switch i % 8 {
	case 0:
		return &etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: ts, Payload: payload}
	case 1:
		return &etltest.System{Version: 3, HookId: 0x0524, ThreadId: tid, ProcessId: pid, TimeStamp: ts, KernelTime: uint32(i), UserTime: 7, Payload: payload}
	case 2:
		return &etltest.Event{ThreadId: tid, ProcessId: pid, TimeStamp: ts, ProviderId: testProvider,
			Descriptor: header.EventDescriptor{Id: uint16(i), Version: 1, Level: 4, Keyword: 0x10},
			Ext:        []etltest.ExtItem{etltest.ExtStackTrace64(uint64(i), 0x7ff0_0000_1000, 0x7ff0_0000_2000), etltest.ExtRelatedActivityID(testActivity)},
			UserData:   payload}
	case 3:
		return &etltest.Event{ThreadId: tid, ProcessId: pid, TimeStamp: ts, ProviderId: testProvider, ActivityId: testActivity,
			Descriptor: header.EventDescriptor{Id: uint16(i), Opcode: 1}, UserData: payload}
	case 4:
		return &etltest.Instance{Full: etltest.Full{Type: 2, Level: 3, ThreadId: tid, ProcessId: pid, TimeStamp: ts, Guid: testProvider, Payload: payload},
			InstanceId: uint32(i), ParentInstanceId: uint32(i / 2), ParentGuid: testParent}
	case 5:
		return &etltest.Message{MessageNumber: uint16(i), OptionFlags: header.MessageSequence | header.MessageGUID | header.MessageTimestamp | header.MessageSystemInfo,
			Sequence: uint32(i), Guid: testParent, TimeStamp: ts, ThreadId: tid, ProcessId: pid, Args: payload}
	case 6:
		return &etltest.PerfInfo{Version: 2, HookId: 0x0F33, TimeStamp: ts, HasPEBS: true, PEBSIndex: uint64(i), PMC: []uint64{1, uint64(i)}, Payload: payload}
	default:
		return &etltest.Full{Type: 1, Level: 4, Version: 2, ThreadId: tid, ProcessId: pid, TimeStamp: ts, Guid: testParent, KernelTime: 3, UserTime: uint32(i), Payload: payload}
	}
}

// tinyRecord is a 0x10-byte PERFINFO64 record, so that a 64 KiB buffer
// holds thousands.
func tinyRecord(i int, ts int64) etltest.Record {
	return &etltest.PerfInfo{Version: 2, HookId: uint16(0x0F00 + i%0x100), TimeStamp: ts}
}

// badSizeRecord is a PERFINFO64 record whose size (4) is smaller than its
// header: the cursor cannot go on, and the rest of the buffer is lost.
func badSizeRecord(t *testing.T) etltest.Record {
	b, err := (&etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: 1, Payload: make([]byte, 8)}).AppendRecord(nil)
	require.NoError(t, err)
	binary.LittleEndian.PutUint16(b[4:], 4)
	return etltest.Raw(b)
}

// unknownTypeRecord has a header type no reader knows: the rest of the
// buffer is lost.
func unknownTypeRecord() etltest.Record {
	return etltest.Raw{0x00, 0x00, 0x7E, 0xC0, 0x18, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
}

// badExtRecord is an EVENT_HEADER record that announces extended items it
// does not hold: its size is sound, so only this record is skipped.
func badExtRecord(ts int64) etltest.Record {
	return &etltest.Event{Flags: header.FlagExtendedInfo, ThreadId: 1, ProcessId: 2, TimeStamp: ts, ProviderId: testProvider}
}

// Kinds of damaged traces.
const (
	tailCut           = iota // the file ends inside the last (uncompressed) buffer
	tailCutCompressed        // the file ends inside the last buffer, compressed
	tailGarbage              // 0x30 bytes of garbage after the last buffer
	tailZeros                // a zero-filled tail
	compressedSession        // every buffer compressed; a bad BufferSize ends the walk
	compressedEarly          // the same, with the walk ending inside the first ring
)

// parTrace is a synthetic trace for these tests.
type parTrace struct {
	data []byte
	want int // records a reader delivers
	// ahead are the offsets of the records of the buffers in the first
	// ring that the walk locates without error: while the loop body holds
	// the first record (of the header buffer), these are read by the second
	// goroutine and no one else.
	ahead []int64
}

// reader opens the trace through a parWatchReader.
func (tr parTrace) reader(t *testing.T) (*Reader, *parWatchReader) {
	t.Helper()
	w := &parWatchReader{ra: bytes.NewReader(tr.data)}
	w.reset()
	r, err := NewReader(w, int64(len(tr.data)))
	require.NoError(t, err)
	return r, w
}

// gated is a parallel pass whose loop body holds the first record until
// the second goroutine has read every buffer of tr.ahead, so that it
// decodes them, damage included, into its arrays; ok reports whether it
// did within the time allowed.
func gated(tr parTrace, w *parWatchReader, h parHow, ok *bool) parHow {
	w.reset()
	h.parallel = true
	h.body = func(i int, _ *record.Record, _ error) {
		if i == 0 {
			*ok = w.waitFor(tr.ahead, 5*time.Second)
		}
	}
	return h
}

// damagedParallelTrace is a trace of 48 data buffers of 2 KiB over 4
// processors with every kind of damage, spread so that some falls in the
// first ring of slots (located before the second goroutine starts) and
// some later.
func damagedParallelTrace(t *testing.T, kind int) parTrace {
	t.Helper()
	const bufSize = 0x800
	const buffers = 48
	s := etltest.DefaultSession()
	s.BufferSize = bufSize
	compressedMode := kind == compressedSession || kind == compressedEarly
	if compressedMode {
		s.LogFileMode |= etltest.ModeCompressed
	}
	endAt := 20
	if kind == compressedEarly {
		endAt = 3
	}
	base := s.HeaderTimeStamp
	want := 1 // the logfile header record
	var smallSize []int64
	var lastStart int64
	var ahead []int64
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		for i := range buffers {
			ts := base + int64(100*i)
			spec := etltest.Buffer{CPU: uint16(i % 4), ProcIndex: i%8 < 4, SequenceNumber: int64(i + 1), TimeStamp: ts}
			n := 3 + (i*5)%9
			var recs []etltest.Record
			for j := range n {
				recs = append(recs, mixedRecord(i*16+j, ts+int64(j)))
			}
			delivered := n
			switch {
			case compressedMode:
				spec.Compress = true
				switch {
				case i == 2 && kind == compressedSession:
					spec.BadCompression = true
					delivered = 0
				case i == endAt:
					smallSize = append(smallSize, b.Offset())
					delivered = 0
				case i == 7:
					recs = append(recs[:2:2], append([]etltest.Record{badSizeRecord(t)}, recs[2:]...)...)
					delivered = 2
				case i == 9:
					recs = append(recs[:1:1], append([]etltest.Record{badExtRecord(ts)}, recs[1:]...)...)
				}
			case i == 2 || i == 24:
				spec.BadCompression = true
				delivered = 0
			case i == 5 || i == 27:
				smallSize = append(smallSize, b.Offset())
				delivered = 0
			case i == 9:
				recs = append(recs[:2:2], append([]etltest.Record{badSizeRecord(t)}, recs[2:]...)...)
				delivered = 2
			case i == 12:
				recs = append(recs[:1:1], append([]etltest.Record{badExtRecord(ts)}, recs[1:]...)...)
			case i == 15:
				recs = append(recs[:3:3], append([]etltest.Record{unknownTypeRecord()}, recs[3:]...)...)
				delivered = 3
			case i == 18:
				spec.Offset = etltest.Ptr(uint32(0x20))
				delivered = 0
			case i == 21:
				spec.Offset = etltest.Ptr(uint32(bufSize + 0x100))
				delivered = 0
			case i == 30:
				spec.Flags = buffer.FlagEventsLost
			case i == 31:
				spec.Flags = buffer.FlagBufferLost
			case i == 33:
				recs = append([]etltest.Record{badSizeRecord(t)}, recs...)
				delivered = 0
			case i == 36:
				recs = append(recs, badExtRecord(ts))
			case i%6 == 4:
				spec.Compress = true
			case i == buffers-1:
				// Equal records, so that the cut falls inside the fourth.
				recs = recs[:0]
				for j := range 6 {
					recs = append(recs, &etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: ts + int64(j), Payload: make([]byte, 8)})
				}
				delivered = 6
				switch kind {
				case tailCut:
					delivered = 3
				case tailCutCompressed:
					spec.Compress = true
					delivered = 0
				}
			}
			want += delivered
			if i == buffers-1 {
				lastStart = b.Offset()
			}
			located := !slices.Contains(smallSize, b.Offset()) &&
				(spec.Offset == nil || *spec.Offset >= buffer.HeaderSize)
			if i < parallelSlots-1 && located {
				ahead = append(ahead, b.Offset()+buffer.HeaderSize)
			}
			if err := b.WriteBuffer(spec, recs...); err != nil {
				return err
			}
		}
		switch kind {
		case tailGarbage:
			return b.WriteRaw(bytes.Repeat([]byte{0xAB}, 0x30))
		case tailZeros:
			return b.WriteZeros(bufSize)
		}
		return nil
	})
	require.NoError(t, err)
	if compressedMode {
		require.Len(t, smallSize, 1)
	}
	for _, off := range smallSize {
		binary.LittleEndian.PutUint32(data[off:], 0x20)
	}
	switch kind {
	case tailCut:
		data = data[:lastStart+buffer.HeaderSize+3*0x18+8]
	case tailCutCompressed:
		data = data[:lastStart+(int64(len(data))-lastStart)/2]
	}
	require.NotEmpty(t, ahead)
	return parTrace{data: data, want: want, ahead: ahead}
}

func parNewReader(t *testing.T, data []byte) *Reader {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	return r
}

// TestParallelDamaged compares the two paths on traces with every kind of
// damage, and checks that the damage is there to be compared.
func TestParallelDamaged(t *testing.T) {
	asked := forceParallel(t)
	for _, c := range []struct {
		name string
		kind int
	}{
		{"cut", tailCut}, {"cut-compressed", tailCutCompressed}, {"garbage-tail", tailGarbage},
		{"zero-tail", tailZeros}, {"compressed-session", compressedSession}, {"compressed-early-end", compressedEarly},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := damagedParallelTrace(t, c.kind)
			want := tr.want
			r, w := tr.reader(t)
			serial := parCompare(t, r, asked, c.name)
			var ok bool
			got := parCollect(t, r, asked, gated(tr, w, parallelRun, &ok))
			require.True(t, ok, "the second goroutine read the first ring while the loop body held the first record")
			parSamePass(t, serial, got, "%s, gated", c.name)
			st := serial.stats
			assert.Equal(t, want, serial.records, "records delivered")
			assert.Equal(t, want, st.Records)
			assert.Positive(t, st.ErrorCount)
			assert.True(t, st.Damaged())
			assert.True(t, serial.hasError(ErrMalformed), "ErrMalformed")
			assert.Positive(t, st.BuffersSkipped)
			assert.Positive(t, st.CompressedBuffers)
			if c.kind != compressedEarly {
				assert.Positive(t, st.BuffersCut)
				assert.Positive(t, st.RecordsSkipped)
			}
			switch c.kind {
			case tailCut:
				// Skipped: two that do not decompress, two whose BufferSize
				// is under the header, Offset inside the header, Offset past
				// BufferSize. Cut: a bad record size twice, an unknown
				// header type, the record the end of the file cuts.
				// Skipped records: two that announce extended items.
				assert.Equal(t, 49, st.Buffers)
				assert.Equal(t, 6, st.BuffersSkipped)
				assert.Equal(t, 4, st.BuffersCut)
				assert.Equal(t, 2, st.RecordsSkipped)
				assert.Equal(t, 6+4+2+1, st.ErrorCount, "and the truncation")
				assert.Len(t, serial.errs, 6+4+2)
				assert.True(t, st.Truncated)
				assert.Equal(t, 1, st.EventsLostBuffers)
				assert.Equal(t, 1, st.BufferLostBuffers)
				assert.Equal(t, 8, st.CompressedBuffers)
				assert.True(t, serial.hasError(ErrDecompress), "ErrDecompress")
				assert.True(t, serial.hasError(ErrUnknownHeaderType), "ErrUnknownHeaderType")
				assert.True(t, serial.hasError(ErrTruncated), "ErrTruncated")
				assert.Equal(t, uint32(0), st.EventsLost)
			case tailCutCompressed, tailGarbage:
				assert.True(t, serial.hasError(ErrTruncated), "ErrTruncated")
				assert.True(t, serial.hasError(ErrDecompress), "ErrDecompress")
				assert.False(t, st.Truncated)
			case tailZeros:
				assert.True(t, st.ZeroTail)
				assert.Equal(t, 49, st.Buffers)
			case compressedSession:
				assert.True(t, serial.hasError(ErrDecompress), "ErrDecompress")
				assert.Equal(t, 49, st.Buffers, "the walk finds the buffers after the bad BufferSize")
				assert.Equal(t, 2, st.BuffersSkipped)
			case compressedEarly:
				assert.Equal(t, 49, st.Buffers, "the walk finds the buffers after the bad BufferSize")
				assert.Equal(t, 1, st.BuffersSkipped)
			}
		})
	}
	t.Run("header-only", func(t *testing.T) {
		data, _, err := etltest.Build(etltest.DefaultSession(), func(b *etltest.Builder) error { return nil })
		require.NoError(t, err)
		serial := parCompare(t, parNewReader(t, data), asked, "header-only")
		assert.Equal(t, 1, serial.records)
		assert.Equal(t, 1, serial.stats.Buffers)
	})
}

// parWatchReader records the offsets read, so that a test can wait until the
// second goroutine has read particular buffers, and counts the reads made
// while closed is set: after an iteration returned, nothing may read.
type parWatchReader struct {
	ra     io.ReaderAt
	mu     sync.Mutex
	reads  [][2]int64 // offset and length of each read
	closed atomic.Bool
	late   atomic.Int64
}

func (w *parWatchReader) ReadAt(p []byte, off int64) (int, error) {
	if w.closed.Load() {
		w.late.Add(1)
	}
	w.mu.Lock()
	w.reads = append(w.reads, [2]int64{off, int64(len(p))})
	w.mu.Unlock()
	return w.ra.ReadAt(p, off)
}

func (w *parWatchReader) reset() {
	w.mu.Lock()
	w.reads = nil
	w.mu.Unlock()
}

// waitFor waits until every offset has been read (lies in a read made
// since reset), for at most timeout.
func (w *parWatchReader) waitFor(offs []int64, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		w.mu.Lock()
		all := true
		for _, o := range offs {
			all = all && w.covered(o)
		}
		w.mu.Unlock()
		if all {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
}

func (w *parWatchReader) covered(o int64) bool {
	for _, r := range w.reads {
		if o >= r[0] && o < r[0]+r[1] {
			return true
		}
	}
	return false
}

// largeBuffer describes one data buffer of the large-buffer trace.
type largeBuffer struct {
	n        int  // records
	cut      int  // index of a record that ends the buffer (-1: none)
	skip     int  // index of a record that is skipped (-1: none)
	mixed    bool // every 25th record an EVENT_HEADER with extended items
	compress bool
}

// largeBuffers: the first seven fill the first ring behind the header
// buffer, and the second goroutine decodes all of them while the loop body
// holds the header record, so each edge around maxPredecoded is met on the
// array path; the same edges come again later, where either side may take
// them.
var largeBuffers = func() []largeBuffer {
	edges := []largeBuffer{
		{n: 1030, cut: maxPredecoded - 1, skip: -1}, // the last predecoded step ends the buffer
		{n: 1030, cut: maxPredecoded, skip: -1},     // the first step after the array ends it
		{n: 1030, cut: -1, skip: maxPredecoded - 1},
		{n: 1030, cut: -1, skip: maxPredecoded},
		{n: maxPredecoded, cut: -1, skip: -1},
		{n: 2500, cut: -1, skip: -1, mixed: true, compress: true},
		{n: 2200, cut: -1, skip: 2100},
	}
	more := []largeBuffer{
		{n: maxPredecoded - 1, cut: -1, skip: -1},
		{n: maxPredecoded + 1, cut: -1, skip: 0},
		{n: 5, cut: -1, skip: -1},
		{n: 1600, cut: 1500, skip: 10, compress: true},
		{n: 1500, cut: -1, skip: -1, mixed: true},
	}
	return append(append(append([]largeBuffer(nil), edges...), more...), edges...)
}()

// largeBufferTrace writes largeBuffers in 64 KiB buffers.
func largeBufferTrace(t *testing.T) parTrace {
	t.Helper()
	s := etltest.DefaultSession()
	s.BufferSize = 0x10000
	base := s.HeaderTimeStamp
	want := 1
	var starts []int64
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		k := 0
		for i, lb := range largeBuffers {
			ts := base + int64(10000*i)
			spec := etltest.Buffer{CPU: uint16(i % 3), ProcIndex: i%2 == 0, SequenceNumber: int64(i + 1), TimeStamp: ts, Compress: lb.compress}
			recs := make([]etltest.Record, 0, lb.n)
			for j := range lb.n {
				switch {
				case j == lb.cut:
					recs = append(recs, badSizeRecord(t))
				case j == lb.skip:
					recs = append(recs, badExtRecord(ts+int64(j)))
				case lb.mixed && j%25 == 0:
					recs = append(recs, mixedRecord(2, ts+int64(j)))
				case lb.mixed && j%25 == 12:
					recs = append(recs, mixedRecord(4+k%2, ts+int64(j)))
				default:
					recs = append(recs, tinyRecord(k, ts+int64(j)))
				}
				k++
			}
			end := lb.n
			if lb.cut >= 0 {
				end = lb.cut
			}
			want += end
			if lb.skip >= 0 && lb.skip < end {
				want--
			}
			starts = append(starts, b.Offset()+buffer.HeaderSize)
			if err := b.WriteBuffer(spec, recs...); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	return parTrace{data: data, want: want, ahead: starts[:parallelSlots-1]}
}

// TestParallelLargeBuffers: buffers holding more records than the second
// goroutine decodes ahead (maxPredecoded), so that the loop goes on with
// the cursor the goroutine left, with errors on either side of the edge.
func TestParallelLargeBuffers(t *testing.T) {
	asked := forceParallel(t)
	tr := largeBufferTrace(t)
	r, w := tr.reader(t)

	serial := parCollect(t, r, asked, serialRun)
	assert.Equal(t, tr.want, serial.records)
	perBuffer := map[int]int{}
	for _, s := range serial.steps {
		if s.Rec != nil {
			perBuffer[s.Rec.BufferIndex]++
		}
	}
	assert.Greater(t, perBuffer[7], maxPredecoded, "buffer 7 holds more records than are decoded ahead")
	assert.Equal(t, largeBuffers[6].n-1, perBuffer[7])
	assert.Equal(t, maxPredecoded, perBuffer[5])
	assert.Equal(t, len(largeBuffers)+1, serial.stats.Buffers)
	assert.Equal(t, 2*2+1, serial.stats.BuffersCut)
	assert.Equal(t, 2*3+2, serial.stats.RecordsSkipped)
	assert.Equal(t, 2*2+1+2*3+2, serial.stats.ErrorCount)

	// While the body holds the header record, the iterating side has read
	// the header buffer only: the records of buffers 1 to 7 are read by the
	// second goroutine, which decodes them into its arrays.
	var ok bool
	got := parCollect(t, r, asked, gated(tr, w, parallelRun, &ok))
	require.True(t, ok, "the second goroutine read buffers 1-7 while the loop body held the first record")
	parSamePass(t, serial, got, "gated")

	// And without holding the body, where the two sides share the work.
	for i := range 2 {
		parSamePass(t, serial, parCollect(t, r, asked, parallelRun), "pass %d", i)
	}
}

// settledGoroutines waits until the goroutine count is at most n: the
// second goroutine signals its end just before it exits.
func settledGoroutines(n int) int {
	deadline := time.Now().Add(time.Second)
	for {
		got := runtime.NumGoroutine()
		if got <= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(time.Millisecond)
	}
}

// stopPoints are the steps to stop at: the first, the second, the middle,
// the last, every error, and the steps around each buffer's
// maxPredecoded-th record.
func stopPoints(serial parPass) []int {
	n := len(serial.steps)
	points := []int{0, 1, n / 2, n - 1}
	first := map[int]int{}
	for i, s := range serial.steps {
		if s.Err != nil {
			points = append(points, i)
			continue
		}
		b := s.Rec.BufferIndex
		if _, ok := first[b]; !ok {
			first[b] = i
		}
		if d := i - first[b]; d >= maxPredecoded-1 && d <= maxPredecoded+1 {
			points = append(points, i)
		}
	}
	return points
}

// reuseTraces are the traces that passes stopped early and repeated passes
// run over: one with every kind of damage, one with buffers larger than
// what is decoded ahead.
func reuseTraces(t *testing.T) map[string]parTrace {
	return map[string]parTrace{"damaged": damagedParallelTrace(t, tailCut), "large": largeBufferTrace(t)}
}

// TestParallelEarlyStop: a loop body that stops early gets the records the
// one-goroutine loop gives up to there, the same Stats, and leaves no
// goroutine behind, nor one still reading the trace; so does one that
// panics, and the panic comes through as it was raised. Each pass holds
// its first record until the second goroutine has read the first ring, so
// that the stops inside it fall in records it decoded.
func TestParallelEarlyStop(t *testing.T) {
	asked := forceParallel(t)
	for name, tr := range reuseTraces(t) {
		t.Run(name, func(t *testing.T) {
			r, w := tr.reader(t)
			full := parCollect(t, r, asked, serialRun)
			require.Positive(t, full.stats.ErrorCount)
			points := stopPoints(full)
			require.Greater(t, len(points), 8)
			for _, k := range points {
				// The steps before the last few were compared on full
				// passes: keep only those, and the Stats.
				from := max(k-2, 0)
				want := parCollect(t, r, asked, parHow{stopAt: k, keepFrom: k + 1})
				require.Equal(t, k+1, want.records+len(want.errs))
				want.steps = full.steps[from : k+1]
				before := runtime.NumGoroutine()
				var ok bool
				got := parCollect(t, r, asked, gated(tr, w, parHow{stopAt: k, keepFrom: from}, &ok))
				w.closed.Store(true)
				require.True(t, ok, "stop at %d: the first ring read ahead", k)
				assert.Equal(t, before, settledGoroutines(before), "stop at %d: goroutines", k)
				assert.Zero(t, w.late.Load(), "stop at %d: reads after the loop returned", k)
				w.closed.Store(false)
				parSamePass(t, want, got, "stop at %d", k)
			}

			type boom struct{ at int }
			for _, k := range []int{0, 1, len(full.steps) / 2, len(full.steps) - 1} {
				before := runtime.NumGoroutine()
				raised := &boom{k}
				var recovered any
				n := 0
				calls := asked.Load()
				func() {
					defer func() { recovered = recover() }()
					for range r.Records() {
						if n == k {
							panic(raised)
						}
						n++
					}
				}()
				w.closed.Store(true)
				assert.Equal(t, calls+1, asked.Load(), "the parallel path")
				assert.Equal(t, k, n)
				assert.Same(t, raised, recovered, "panic at %d: the value raised", k)
				assert.Equal(t, before, settledGoroutines(before), "panic at %d: goroutines", k)
				assert.Zero(t, w.late.Load(), "panic at %d: reads after the loop returned", k)
				w.closed.Store(false)
			}
			// The Reader reads as before after the panics.
			parSamePass(t, full, parCollect(t, r, asked, parallelRun), "after the panics")
		})
	}
}

// TestParallelTwice: passes over the same Reader, which keeps its ring of
// slots and their record arrays between passes, deliver the same every
// time, whatever the pass before left in them.
func TestParallelTwice(t *testing.T) {
	asked := forceParallel(t)
	for name, tr := range reuseTraces(t) {
		t.Run(name, func(t *testing.T) {
			r, w := tr.reader(t)
			serial := parCollect(t, r, asked, serialRun)
			var ok bool
			first := parCollect(t, r, asked, gated(tr, w, parallelRun, &ok))
			require.True(t, ok, "the first ring read ahead")
			second := parCollect(t, r, asked, parallelRun)
			parSamePass(t, serial, first, "first pass")
			parSamePass(t, first, second, "second pass")
			// A pass stopped early (its goroutine's arrays left full), then
			// a full one; then serial and parallel in turn.
			parCollect(t, r, asked, gated(tr, w, parHow{stopAt: 1, keepFrom: 2}, &ok))
			require.True(t, ok, "the first ring read ahead")
			parSamePass(t, serial, parCollect(t, r, asked, parallelRun), "after a stopped pass")
			parSamePass(t, serial, parCollect(t, r, asked, serialRun), "serial after parallel")
			parSamePass(t, serial, parCollect(t, r, asked, parallelRun), "parallel after serial")
		})
	}
}
