package etlsink_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/eventsource"
	"github.com/etlkit/etlkit/schema/kernel"
	"github.com/etlkit/etlkit/sink/etlsink"
)

var (
	providerA = uuid.MustParse("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716")
	classB    = uuid.MustParse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c")
)

// everyKind builds a trace with a record of every header kind on four
// processors, in buffers of 4 KiB so that each processor fills several.
func everyKind(t testing.TB, s etltest.Session) []byte {
	t.Helper()
	s.BufferSize = 0x1000
	base := s.HeaderTimeStamp
	out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		if err := b.AddToHeader(
			&etltest.System{Bits32: s.Bits32, Version: 2, HookId: 0x0005, TimeStamp: base, Payload: make([]byte, 0x24)},
			&etltest.PerfInfo{Bits32: s.Bits32, Version: 2, HookId: 0x0042, TimeStamp: base, Payload: etltest.AnsiZ("22621.1.amd64fre")},
		); err != nil {
			return err
		}
		for i := range 200 {
			ts := base + int64(1000+i*10)
			cpu := b.CPU(i % 4)
			switch i % 9 {
			case 0:
				cpu.Add(&etltest.System{Version: 3, HookId: 0x0524, ThreadId: 4, ProcessId: 8, TimeStamp: ts, Payload: bytes.Repeat([]byte{byte(i)}, i%13)})
			case 1:
				cpu.Add(&etltest.Compact{Version: 2, HookId: 0x0324, ThreadId: 4, ProcessId: 8, TimeStamp: ts, PMC: []uint64{1, 2}})
			case 2:
				cpu.Add(&etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: ts, HasPEBS: true, PEBSIndex: 7, Payload: []byte{1, 2, 3}})
			case 3:
				cpu.Add(&etltest.Full{Bits32: true, Type: 1, Level: 4, ThreadId: 5, ProcessId: 9, TimeStamp: ts, Guid: classB, Payload: []byte("classic")})
			case 4:
				cpu.Add(&etltest.Instance{Full: etltest.Full{Type: 2, ThreadId: 5, ProcessId: 9, TimeStamp: ts, Guid: classB}, InstanceId: 3, ParentGuid: providerA})
			case 5:
				cpu.Add(&etltest.Event{ThreadId: 6, ProcessId: 10, TimeStamp: ts, ProviderId: providerA,
					Descriptor: header.EventDescriptor{Id: uint16(i), Level: uint8(i % 6), Keyword: 0x10},
					Ext:        []etltest.ExtItem{etltest.ExtRelatedActivityID(providerA)}, UserData: etltest.UTF16Z("hello")})
			case 6:
				cpu.Add(&etltest.Message{MessageNumber: 12, OptionFlags: header.MessageGUID | header.MessageTimestamp | header.MessageSystemInfo,
					Guid: providerA, TimeStamp: ts, ThreadId: 1, ProcessId: 2, Args: []byte{9, 9}})
			case 7:
				// A message without a timestamp takes its buffer's.
				cpu.Flush()
				cpu.Add(&etltest.Message{MessageNumber: 13, OptionFlags: header.MessageComponentID, ComponentId: 4})
			case 8:
				cpu.Add(&etltest.Event{Bits32: true, TimeStamp: ts, ProviderId: providerA, Descriptor: header.EventDescriptor{Id: 1, Level: 2}})
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

func TestRoundTripEveryKind(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(s *etltest.Session)
	}{
		{"64-bit", func(*etltest.Session) {}},
		{"32-bit", func(s *etltest.Session) { s.Bits32 = true }},
		{"processor index", func(s *etltest.Session) {
			s.DataBuffer.ProcIndex = true
			s.HeaderBuffer = &etltest.Buffer{Type: 4, Flags: 1, ProcIndex: true}
		}},
		{"system time", func(s *etltest.Session) { s.ClockType, s.PerfFreq = etltest.ClockSystemTime, 0 }},
		{"one stream", func(s *etltest.Session) { s.LogFileMode |= etltest.ModeNoPerProcessorBuffering }},
		{"compressed", func(s *etltest.Session) { s.LogFileMode |= etltest.ModeCompressed; s.DataBuffer.Compress = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := etltest.DefaultSession()
			tc.edit(&s)
			in := everyKind(t, s)
			want := expected(t, nil, in)
			out, st := relog(t, nil, etlsink.Options{}, in)
			hdr, first, got, errs := readTrace(t, out)
			require.Zero(t, errs)
			require.NotNil(t, first, "the output starts with a logfile-header record")
			requireSameRecords(t, want, got)
			assert.Equal(t, len(want), st.Records)
			assert.Equal(t, 2, st.HeaderRecords)
			assert.Equal(t, 1, st.Replaced)
			w := requireWalkAgrees(t, out, want)
			assert.Equal(t, st.Buffers, w.buffers)
			assert.EqualValues(t, st.Bytes, len(out))

			_, inFirst, _, _ := readTrace(t, in)
			assert.Equal(t, inFirst.RawTS, first.RawTS, "the clock anchor is kept")
			assert.Equal(t, inFirst.FileTime, first.FileTime)
			assert.Equal(t, inFirst.CPU, first.CPU)
			assert.Equal(t, inFirst.Flags, first.Flags)
			assert.Equal(t, inFirst.Type, first.Type)
			assert.EqualValues(t, st.Buffers, hdr.BuffersWritten)
			assert.Equal(t, s.LogFileMode&etltest.ModeCompressed, hdr.LogFileMode&header.ModeCompressed, "compressed as the input was")
			if s.DataBuffer.Compress {
				assert.Equal(t, st.Buffers-1, w.compressed, "every buffer but the header buffer compressed")
				assert.Less(t, len(out), len(in), "smaller than 4 KiB buffers written whole")
				assert.EqualValues(t, 2, hdr.SubVersion, "log-format version 2.0")
			} else {
				assert.Zero(t, w.compressed)
			}
			assert.NotZero(t, hdr.LogFileMode&header.ModeRelog)
			assert.Equal(t, s.LogFileMode&etltest.ModeNoPerProcessorBuffering, hdr.LogFileMode&header.ModeNoPerProcessorBuffering)
			assert.Equal(t, s.EndTime, hdr.EndTime)
			assert.EqualValues(t, 0x1000, hdr.BufferSize)
			assert.Equal(t, s.LoggerName, hdr.LoggerName)
		})
	}
}

// Records with equal timestamps come back in the order they had: across
// processors as the merge breaks the tie, and inside a processor's stream
// as written, even where a stream steps back in time.
func TestTiesAndInversionsKeepTheirOrder(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	base := s.HeaderTimeStamp + 100
	in, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		for i := range 120 {
			ts := base + int64(i/8) // eight records share each timestamp
			if i%17 == 5 {
				ts -= 3 // a step back inside the stream
			}
			b.CPU(3 - i%4).Add(&etltest.Event{TimeStamp: ts, ProviderId: providerA, Descriptor: header.EventDescriptor{Id: uint16(i)}, UserData: make([]byte, 40)})
		}
		return nil
	})
	require.NoError(t, err)
	want := expected(t, nil, in)
	out, _ := relog(t, nil, etlsink.Options{}, in)
	_, _, got, _ := readTrace(t, out)
	requireSameRecords(t, want, got)
	requireWalkAgrees(t, out, want)
}

// A memory limit smaller than the processors' buffers writes buffers out
// part full; the records read back the same.
func TestMemoryLimitFlushesEarly(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	in, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		for i := range 400 {
			b.CPU(i % 16).Add(&etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: s.HeaderTimeStamp + int64(i), Payload: make([]byte, 24)})
		}
		return nil
	})
	require.NoError(t, err)
	want := expected(t, nil, in)
	wide, _ := relog(t, nil, etlsink.Options{}, in)
	narrow, st := relog(t, nil, etlsink.Options{MemoryLimit: 3 * 0x1000}, in)
	_, _, got, _ := readTrace(t, narrow)
	requireSameRecords(t, want, got)
	requireWalkAgrees(t, narrow, want)
	wideWalk, err := walkTrace(wide)
	require.NoError(t, err)
	assert.Equal(t, 17, wideWalk.buffers, "one buffer per processor and the header buffer")
	assert.Greater(t, st.Buffers, 100, "a buffer written out each time another processor's is opened")
}

func TestHeaderFields(t *testing.T) {
	s := etltest.DefaultSession()
	s.NumberOfProcessors = 2
	s.LogFileMode = etltest.ModeFileSequential | 0x2 | 0x100 | 0x800 | etltest.ModeSystemLogger // circular, real time, private
	s.SubVersion, s.SubMinorVersion = 0, 0
	s.EventsLost, s.BuffersLost = 3, 1
	in, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.CPU(5).Add(&etltest.System{Version: 2, HookId: 0x0524, TimeStamp: s.HeaderTimeStamp + 50_000_000})
		b.CPU(1).Add(&etltest.System{Version: 2, HookId: 0x0524, TimeStamp: s.HeaderTimeStamp + 20_000_000})
		return nil
	})
	require.NoError(t, err)
	rd, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
	require.NoError(t, err)
	h := *rd.Header()
	h.EndTime = 0
	h.LogFileName = "cut.etl"
	var out memFile
	w, err := etlsink.NewWriter(&out, &h, etlsink.Options{})
	require.NoError(t, err)
	for r, err := range rd.Events() {
		require.NoError(t, err)
		require.NoError(t, w.Copy(r, rd))
	}
	require.NoError(t, w.Close())

	got, err := etl.NewReader(bytes.NewReader(out.b), int64(len(out.b)))
	require.NoError(t, err)
	gh := got.Header()
	assert.EqualValues(t, header.ModeFileSequential|header.ModeRelog|0x800|header.ModeSystemLogger, gh.LogFileMode)
	assert.EqualValues(t, 6, gh.NumberOfProcessors, "raised to cover processor 5")
	assert.EqualValues(t, 3, gh.BuffersWritten)
	assert.Equal(t, s.StartTime+50_000_000, gh.EndTime, "the latest record, 5 s after the start at 10 MHz")
	assert.EqualValues(t, 1, gh.SubVersion)
	assert.EqualValues(t, 5, gh.SubMinorVersion)
	assert.EqualValues(t, 0x0501000A, gh.Version)
	assert.EqualValues(t, 3, gh.EventsLost)
	assert.EqualValues(t, 1, gh.BuffersLost)
	assert.Equal(t, "cut.etl", gh.LogFileName)
	assert.Equal(t, rd.Header().StartTime, gh.StartTime)
	assert.Equal(t, rd.Header().RawTimeStamp, gh.RawTimeStamp)
	assert.Equal(t, rd.Header().TimeZone, gh.TimeZone)
	assert.Equal(t, rd.Header().BootTime, gh.BootTime)
	assert.Equal(t, rd.Header().ThreadId, gh.ThreadId)
	assert.Equal(t, header.TypeSystem64, gh.HeaderType)
	assert.Equal(t, out.off, int64(len(out.b)), "Close leaves the output at the end")
}

// A Writer that starts in the middle of a file writes its trace from
// there and goes back to its own header.
func TestWriterStartsAtTheCurrentPosition(t *testing.T) {
	in := everyKind(t, etltest.DefaultSession())
	rd, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
	require.NoError(t, err)
	out := memFile{b: []byte("prefix--"), off: 8}
	w, err := etlsink.NewWriter(&out, rd.Header(), etlsink.Options{})
	require.NoError(t, err)
	for r, err := range rd.Events() {
		require.NoError(t, err)
		require.NoError(t, w.Copy(r, rd))
	}
	require.NoError(t, w.Close())
	assert.Equal(t, "prefix--", string(out.b[:8]))
	_, _, got, _ := readTrace(t, out.b[8:])
	requireSameRecords(t, expected(t, nil, in), got)
}

func TestRecordErrors(t *testing.T) {
	s := etltest.DefaultSession()
	in, _, err := etltest.Build(s, func(b *etltest.Builder) error { return nil })
	require.NoError(t, err)
	rd, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
	require.NoError(t, err)
	h := *rd.Header()
	h.BufferSize = 0x1000
	var out memFile
	w, err := etlsink.NewWriter(&out, &h, etlsink.Options{})
	require.NoError(t, err)
	big := &record.Record{HeaderType: header.TypeEventHeader64, Raw: make([]byte, 0x1000)}
	var re *etlsink.RecordError
	require.ErrorAs(t, w.Write(big), &re)
	assert.Equal(t, 0x1000, re.Size)
	require.ErrorAs(t, w.Write(&record.Record{HeaderType: header.TypeSystem64, ProcessorNumber: 300, Raw: make([]byte, 0x20)}), &re)
	assert.Contains(t, re.Error(), "processor above 255")
	require.ErrorAs(t, w.Write(&record.Record{HeaderType: header.TypeSystem64, ProcessorNumber: 0x800, Flags: header.FlagProcessorIndex, Raw: make([]byte, 0x20)}), &re)
	require.ErrorAs(t, w.WriteHeaderRecord(&record.Record{Raw: []byte{1, 2}}), &re)
	// The Writer goes on.
	ok := &record.Record{HeaderType: header.TypeSystem64, ProcessorNumber: 300, Flags: header.FlagProcessorIndex, Raw: make([]byte, 0x20)}
	copy(ok.Raw, []byte{2, 0, 2, 0xC0, 0x20, 0})
	require.NoError(t, w.Write(ok))
	require.NoError(t, w.Close())
	assert.ErrorIs(t, w.Write(ok), etlsink.ErrClosed)
	assert.ErrorIs(t, w.Close(), etlsink.ErrClosed)
	wk, err := walkTrace(out.b)
	require.NoError(t, err)
	require.Len(t, wk.data, 1)
	assert.EqualValues(t, 300, wk.data[0].cpu)
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct {
	memFile
	n int
}

var errDiskFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(f.b)+len(p) > f.n {
		return 0, errDiskFull
	}
	return f.memFile.Write(p)
}

func TestWriteErrorEndsTheTrace(t *testing.T) {
	in := everyKind(t, etltest.DefaultSession())
	rd, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
	require.NoError(t, err)
	out := &failAfter{n: 0x3000}
	w, err := etlsink.NewWriter(out, rd.Header(), etlsink.Options{})
	require.NoError(t, err)
	var werr error
	for r, err := range rd.Events() {
		require.NoError(t, err)
		if werr = w.Copy(r, rd); werr != nil {
			break
		}
	}
	err = w.Close()
	require.ErrorIs(t, err, errDiskFull)
	if werr != nil {
		require.ErrorIs(t, werr, errDiskFull)
	}
	assert.ErrorIs(t, w.Close(), errDiskFull, "Close reports the error again")
}

type noSeek struct{ io.Writer }

func (noSeek) Seek(int64, int) (int64, error) { return 0, errors.New("not seekable") }

func TestNewWriterRefuses(t *testing.T) {
	in := everyKind(t, etltest.DefaultSession())
	rd, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
	require.NoError(t, err)
	_, err = etlsink.NewWriter(noSeek{io.Discard}, rd.Header(), etlsink.Options{})
	assert.ErrorContains(t, err, "cannot seek")
	h := *rd.Header()
	_, err = etlsink.NewWriter(&memFile{}, &h, etlsink.Options{MaxBufferSize: 32 << 20})
	assert.ErrorContains(t, err, "not within")
	h.BufferSize = 32 << 20 // capped
	w, err := etlsink.NewWriter(&memFile{}, &h, etlsink.Options{})
	require.NoError(t, err)
	assert.Equal(t, etlsink.DefaultMaxBufferSize, w.BufferSize())
	h.BufferSize = 16 << 20
	w, err = etlsink.NewWriter(&memFile{}, &h, etlsink.Options{MaxBufferSize: 0x8000})
	require.NoError(t, err)
	assert.Equal(t, 0x8000, w.BufferSize())
	h.BufferSize = 0x40 // raised to hold the logfile-header record
	w, err = etlsink.NewWriter(&memFile{}, &h, etlsink.Options{})
	require.NoError(t, err)
	assert.Equal(t, 0x1000, w.BufferSize())
	require.NoError(t, w.Close())
}

func TestIsTraceDescribing(t *testing.T) {
	manifest := []byte{1, 1, 0, eventsource.EnvelopeMagic, 1, 0, 0, 0, '<'}
	for _, tc := range []struct {
		name string
		r    record.Record
		want bool
	}{
		{"logfile header", record.Record{HeaderType: header.TypeSystem64, HookId: 0x0000}, true},
		{"header extension", record.Record{HeaderType: header.TypeSystem32, HookId: 0x0005}, true},
		{"build lab", record.Record{HeaderType: header.TypePerfInfo64, HookId: 0x0042}, true},
		{"rundown complete", record.Record{HeaderType: header.TypeCompact64, HookId: 0x0008}, true},
		{"context switch", record.Record{HeaderType: header.TypeSystem64, HookId: 0x0524}, false},
		{"process rundown", record.Record{HeaderType: header.TypeSystem64, HookId: 0x0303}, false},
		{"EventInfo", record.Record{HeaderType: header.TypeFull64, ProviderId: kernel.MetaDataTask, EventDescriptor: header.EventDescriptor{Opcode: 32}}, true},
		{"EventMapInfo", record.Record{HeaderType: header.TypeFull32, ProviderId: kernel.MetaDataTask, EventDescriptor: header.EventDescriptor{Opcode: 33}}, true},
		{"other MetaData opcode", record.Record{HeaderType: header.TypeFull64, ProviderId: kernel.MetaDataTask, EventDescriptor: header.EventDescriptor{Opcode: 34}}, false},
		{"classic of another class", record.Record{HeaderType: header.TypeFull64, ProviderId: classB, EventDescriptor: header.EventDescriptor{Opcode: 32}}, false},
		{"EventSource manifest", record.Record{HeaderType: header.TypeEventHeader64, EventDescriptor: header.EventDescriptor{Id: 0xFFFE, Opcode: 0xFE, Task: 0xFFFE}, UserData: manifest}, true},
		{"manifest without envelope", record.Record{HeaderType: header.TypeEventHeader32, EventDescriptor: header.EventDescriptor{Id: 0xFFFE, Opcode: 0xFE, Task: 0xFFFE}, UserData: manifest[:7]}, false},
		{"event 65534 of another opcode", record.Record{HeaderType: header.TypeEventHeader64, EventDescriptor: header.EventDescriptor{Id: 0xFFFE, Task: 0xFFFE}, UserData: manifest}, false},
		{"event 65534 of another task", record.Record{HeaderType: header.TypeEventHeader64, EventDescriptor: header.EventDescriptor{Id: 0xFFFE, Opcode: 0xFE, Task: 1}, UserData: manifest}, false},
		{"FileIO name, classic", record.Record{HeaderType: header.TypeFull64, ProviderId: record.KernelGroupGUID(0x04, 0), EventDescriptor: header.EventDescriptor{Opcode: 36}}, true},
		{"FileIO read, classic", record.Record{HeaderType: header.TypeFull64, ProviderId: record.KernelGroupGUID(0x04, 0), EventDescriptor: header.EventDescriptor{Opcode: 67}}, false},
		{"FileIO create", record.Record{HeaderType: header.TypeSystem64, HookId: 0x0420}, true},
		{"SysConfig", record.Record{HeaderType: header.TypeFull64, ProviderId: kernel.SysConfigTask, EventDescriptor: header.EventDescriptor{Opcode: 35}}, true},
		{"WPP message", record.Record{HeaderType: header.TypeMessage}, false},
	} {
		assert.Equal(t, tc.want, etlsink.IsTraceDescribing(&tc.r), tc.name)
	}
}

// Filtered: the records the filter keeps and those that describe the
// trace, in their order, whatever else the filter drops.
func TestFilteredKeepsTraceDescribing(t *testing.T) {
	s := etltest.DefaultSession()
	manifest := append([]byte{1, 1, 0, eventsource.EnvelopeMagic, 1, 0, 0, 0}, "<instrumentationManifest/>"...)
	in, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.AddToHeader(&etltest.System{Version: 2, HookId: 0x0005, TimeStamp: s.HeaderTimeStamp, Payload: make([]byte, 0x24)})
		b.CPU(0).Add(&etltest.Event{TimeStamp: s.HeaderTimeStamp + 1, ProviderId: providerA, Descriptor: header.EventDescriptor{Id: 0xFFFE, Opcode: 0xFE, Task: 0xFFFE}, UserData: manifest})
		b.CPU(1).Add(&etltest.Full{Type: 32, TimeStamp: s.HeaderTimeStamp + 2, Guid: kernel.MetaDataTask, Payload: []byte("tei")})
		for i := range 30 {
			b.CPU(i % 2).Add(&etltest.Event{TimeStamp: s.HeaderTimeStamp + int64(10+i), ProviderId: providerA, ProcessId: uint32(i % 3), Descriptor: header.EventDescriptor{Id: uint16(i)}})
		}
		b.CPU(1).Add(&etltest.System{Version: 2, HookId: 0x0008, TimeStamp: s.HeaderTimeStamp + 99})
		return nil
	})
	require.NoError(t, err)
	keep := func(r *record.Record) bool { return r.ProcessId == 1 && r.HeaderType == header.TypeEventHeader64 }
	want := expected(t, keep, in)
	require.Len(t, want, 1+1+1+10+1, "Extension, manifest, EventInfo, ten events of process 1, RundownComplete")
	out, _ := relog(t, keep, etlsink.Options{}, in)
	_, _, got, _ := readTrace(t, out)
	requireSameRecords(t, want, got)
	requireWalkAgrees(t, out, want)
}

// Past the first megabytes buffers are written on a goroutine of their
// own; an error there ends the trace all the same.
func TestWriteErrorOnTheOutputGoroutine(t *testing.T) {
	var in bytes.Buffer
	_, err := etltest.WriteBenchmarkTrace(&in, 12<<20, 4)
	require.NoError(t, err)
	rd, err := etl.NewReader(bytes.NewReader(in.Bytes()), int64(in.Len()))
	require.NoError(t, err)
	for _, limit := range []int{8 << 20, 64 << 20} {
		out := &failAfter{n: limit}
		w, err := etlsink.NewWriter(out, rd.Header(), etlsink.Options{})
		require.NoError(t, err)
		var werr error
		for r, err := range rd.Records() {
			require.NoError(t, err)
			if werr = w.Copy(r, rd); werr != nil {
				require.ErrorIs(t, werr, errDiskFull)
				break
			}
		}
		err = w.Close()
		if limit > in.Len()+1<<20 {
			require.NoError(t, err)
			_, _, got, errs := readTrace(t, out.b)
			require.Zero(t, errs)
			requireSameRecords(t, expected(t, nil, in.Bytes()), got)
			continue
		}
		require.ErrorIs(t, err, errDiskFull)
		assert.LessOrEqual(t, len(out.b), limit)
	}
}

// A PointerSize that is neither 4 nor 8 is written as the form's.
func TestPointerSizeFollowsTheForm(t *testing.T) {
	for _, tc := range []struct {
		bits32 bool
		in     uint32
		want   uint32
	}{{true, 256, 4}, {false, 0, 8}, {true, 8, 8}, {false, 4, 4}} {
		s := etltest.DefaultSession()
		s.Bits32, s.PointerSize = tc.bits32, tc.in
		in, _, err := etltest.Build(s, func(b *etltest.Builder) error { return nil })
		require.NoError(t, err)
		out, _ := relog(t, nil, etlsink.Options{}, in)
		hdr, _, _, _ := readTrace(t, out)
		assert.Equal(t, tc.want, hdr.PointerSize, "%+v", tc)
		_, err = walkTrace(out)
		require.NoError(t, err)
	}
}
