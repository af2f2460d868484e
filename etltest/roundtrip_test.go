package etltest_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/tracelogging"
)

// view holds the decoded fields a round trip compares, so that one
// assert.Equal shows every difference at once.
type view struct {
	HeaderType                   header.Type
	Flags, EventProperty         uint16
	ProviderId                   uuid.UUID
	Descriptor                   header.EventDescriptor
	HookId                       uint16
	ThreadId, ProcessId          uint32
	HasThreadProcess             bool
	RawTimeStamp                 int64
	KernelTime, UserTime         uint32
	HasCPUTime                   bool
	ActivityId                   uuid.UUID
	ProcessorNumber              uint16
	InstanceId, ParentInstanceId uint32
	ParentGuid                   uuid.UUID
	Message                      header.Message
	HasPEBS                      bool
	PEBSIndex                    uint64
	PMC                          []uint64
	Ext                          []etltest.ExtItem
	UserData                     []byte
}

func viewOf(r *record.Record) view {
	v := view{
		HeaderType: r.HeaderType, Flags: r.Flags, EventProperty: r.EventProperty, ProviderId: r.ProviderId,
		Descriptor: r.EventDescriptor, HookId: r.HookId, ThreadId: r.ThreadId, ProcessId: r.ProcessId,
		HasThreadProcess: r.HasThreadProcess, RawTimeStamp: r.RawTimeStamp, KernelTime: r.KernelTime,
		UserTime: r.UserTime, HasCPUTime: r.HasCPUTime, ActivityId: r.ActivityId, ProcessorNumber: r.ProcessorNumber,
		InstanceId: r.InstanceId, ParentInstanceId: r.ParentInstanceId, ParentGuid: r.ParentGuid,
		Message: r.Message, HasPEBS: r.HasPEBS, PEBSIndex: r.PEBSIndex, UserData: nilIfEmpty(r.UserData),
	}
	v.Message.Size, v.Message.DataOffset = 0, 0
	for i := 0; i < r.PMCCount(); i++ {
		v.PMC = append(v.PMC, r.PMCCounter(i))
	}
	for _, it := range r.ExtendedData() {
		v.Ext = append(v.Ext, etltest.ExtItem{Type: it.Type, Data: nilIfEmpty(it.Data)})
	}
	return v
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// placed is a record with the buffer it was written into.
type placed struct {
	rec       etltest.Record
	cpu       uint16
	procIndex bool
	bufferTS  int64
}

func bitsFlag(bits32 bool) uint16 {
	if bits32 {
		return header.Flag32BitHeader
	}
	return header.Flag64BitHeader
}

// expect says what a reader that follows the format notes and translates
// records the way ProcessTrace does should make of p.
func expect(p placed) view {
	v := view{ProcessorNumber: p.cpu}
	var pi uint16
	if p.procIndex {
		pi = header.FlagProcessorIndex
	}
	kernel := func(bits32 bool, t32, t64 header.Type, version, hook uint16, pebs bool, pebsIndex uint64, pmc []uint64, ts int64, payload []byte) {
		v.HeaderType = t64
		if bits32 {
			v.HeaderType = t32
		}
		v.Flags = bitsFlag(bits32) | pi
		v.HookId = hook
		v.ProviderId = record.KernelGroupGUID(uint8(hook>>8), uint8(hook))
		v.Descriptor = header.EventDescriptor{Opcode: uint8(hook), Version: uint8(version)}
		v.RawTimeStamp = ts
		v.HasPEBS, v.PEBSIndex = pebs, pebsIndex
		v.PMC = pmc
		v.UserData = nilIfEmpty(payload)
	}
	switch r := p.rec.(type) {
	case *etltest.System:
		kernel(r.Bits32, header.TypeSystem32, header.TypeSystem64, r.Version, r.HookId, r.HasPEBS, r.PEBSIndex, r.PMC, r.TimeStamp, r.Payload)
		v.ThreadId, v.ProcessId, v.HasThreadProcess = r.ThreadId, r.ProcessId, true
		v.KernelTime, v.UserTime, v.HasCPUTime = r.KernelTime, r.UserTime, true
	case *etltest.Compact:
		kernel(r.Bits32, header.TypeCompact32, header.TypeCompact64, r.Version, r.HookId, r.HasPEBS, r.PEBSIndex, r.PMC, r.TimeStamp, r.Payload)
		v.ThreadId, v.ProcessId, v.HasThreadProcess = r.ThreadId, r.ProcessId, true
	case *etltest.PerfInfo:
		kernel(r.Bits32, header.TypePerfInfo32, header.TypePerfInfo64, r.Version, r.HookId, r.HasPEBS, r.PEBSIndex, r.PMC, r.TimeStamp, r.Payload)
	case *etltest.Full, *etltest.Instance:
		var f *etltest.Full
		v.HeaderType = header.TypeFull64
		if in, ok := r.(*etltest.Instance); ok {
			f = &in.Full
			v.HeaderType = header.TypeInstance64
			v.InstanceId, v.ParentInstanceId, v.ParentGuid = in.InstanceId, in.ParentInstanceId, in.ParentGuid
		} else {
			f = r.(*etltest.Full)
		}
		if f.Bits32 {
			v.HeaderType -= 0x0A // FULL64 0x14 → FULL32 0x0A, INSTANCE64 0x15 → INSTANCE32 0x0B
		}
		v.Flags = bitsFlag(f.Bits32) | header.FlagClassicHeader | pi
		v.ProviderId = f.Guid
		v.Descriptor = header.EventDescriptor{Opcode: f.Type, Level: f.Level, Version: uint8(f.Version)}
		v.ThreadId, v.ProcessId, v.HasThreadProcess = f.ThreadId, f.ProcessId, true
		v.RawTimeStamp = f.TimeStamp
		v.KernelTime, v.UserTime, v.HasCPUTime = f.KernelTime, f.UserTime, true
		v.UserData = nilIfEmpty(f.Payload)
	case *etltest.Event:
		v.HeaderType = header.TypeEventHeader64
		if r.Bits32 {
			v.HeaderType = header.TypeEventHeader32
		}
		v.Flags = r.Flags | bitsFlag(r.Bits32) | pi
		if len(r.Ext) > 0 {
			v.Flags |= header.FlagExtendedInfo
		}
		v.EventProperty = r.EventProperty
		v.ProviderId = r.ProviderId
		v.Descriptor = r.Descriptor
		v.ThreadId, v.ProcessId, v.HasThreadProcess = r.ThreadId, r.ProcessId, true
		v.RawTimeStamp = r.TimeStamp
		v.KernelTime, v.UserTime, v.HasCPUTime = r.KernelTime, r.UserTime, true
		v.ActivityId = r.ActivityId
		for _, it := range r.Ext {
			v.Ext = append(v.Ext, etltest.ExtItem{Type: it.Type, Data: nilIfEmpty(it.Data)})
		}
		v.UserData = nilIfEmpty(r.UserData)
	case *etltest.Message:
		f := r.OptionFlags
		v.HeaderType = header.TypeMessage
		v.Flags = header.FlagTraceMessage | pi
		switch {
		case f&header.MessagePointer64 != 0:
			v.Flags |= header.Flag64BitHeader
		case f&header.MessagePointer32 != 0:
			v.Flags |= header.Flag32BitHeader
		}
		m := header.Message{MessageNumber: r.MessageNumber, OptionFlags: f}
		if f&header.MessageSequence != 0 {
			m.Sequence = r.Sequence
		}
		if f&header.MessageComponentID != 0 {
			m.ComponentId = r.ComponentId
		} else if f&header.MessageGUID != 0 {
			m.Guid = r.Guid
			v.ProviderId = r.Guid
		}
		v.RawTimeStamp = p.bufferTS
		if f&header.MessageTimestamp != 0 {
			m.TimeStamp = r.TimeStamp
			v.RawTimeStamp = r.TimeStamp
		}
		if f&header.MessageSystemInfo != 0 {
			m.ThreadId, m.ProcessId = r.ThreadId, r.ProcessId
			v.ThreadId, v.ProcessId, v.HasThreadProcess = r.ThreadId, r.ProcessId, true
		}
		v.Message = m
		v.Descriptor = header.EventDescriptor{Id: r.MessageNumber}
		v.UserData = nilIfEmpty(r.Args)
	case *etltest.ErrorRecord:
		v.HeaderType = header.TypeError
		v.Flags = pi
		v.RawTimeStamp = p.bufferTS
		v.UserData = nilIfEmpty(r.Body)
	default:
		panic("no expectation for this record")
	}
	return v
}

// readAll reads every record of data, keeping clones and errors.
func readAll(t *testing.T, data []byte) (*etl.Reader, []*record.Record, []error) {
	t.Helper()
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	var recs []*record.Record
	var errs []error
	for rec, err := range r.Records() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		recs = append(recs, rec.Clone())
	}
	return r, recs, errs
}

// tracker writes buffers and remembers what went where.
type tracker struct {
	b      *etltest.Builder
	placed []placed
}

func (tr *tracker) buffer(spec etltest.Buffer, recs ...etltest.Record) error {
	for _, r := range recs {
		tr.placed = append(tr.placed, placed{rec: r, cpu: spec.CPU, procIndex: spec.ProcIndex, bufferTS: spec.TimeStamp})
	}
	return tr.b.WriteBuffer(spec, recs...)
}

func allKindsRecords(ts int64) []etltest.Record {
	g1, g2 := uuid.MustParse("11111111-2222-3333-4444-555555555555"), uuid.MustParse("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")
	var out []etltest.Record
	next := func() int64 { ts += 321; return ts }
	for _, bits32 := range []bool{false, true} {
		out = append(out,
			&etltest.System{Bits32: bits32, Version: 3, HookId: 0x0301, ThreadId: 1, ProcessId: 2, TimeStamp: next(), KernelTime: 3, UserTime: 4, Payload: []byte{1, 2, 3}},
			&etltest.System{Bits32: bits32, Version: 2, HookId: 0x0524, ThreadId: 5, ProcessId: 6, TimeStamp: next(), HasPEBS: true, PEBSIndex: 77, PMC: []uint64{8, 9}, Payload: []byte{4}},
			&etltest.Compact{Bits32: bits32, Version: 4, HookId: 0x0A0B, ThreadId: 7, ProcessId: 8, TimeStamp: next(), Payload: []byte{5, 6}},
			&etltest.Compact{Bits32: bits32, Version: 1, HookId: 0x0F2E, ThreadId: 7, ProcessId: 8, TimeStamp: next(), PMC: []uint64{1, 2, 3, 4, 5, 6, 7}},
			&etltest.PerfInfo{Bits32: bits32, Version: 2, HookId: 0x0F2E, TimeStamp: next(), Payload: []byte{9, 9, 9, 9}},
			&etltest.PerfInfo{Bits32: bits32, Version: 4, HookId: 0x0524, TimeStamp: next(), HasPEBS: true, PEBSIndex: 0xFFFF_FFFF_FFFF_FFFF},
			&etltest.PerfInfo{Bits32: bits32, Version: 2, HookId: 0x0F2F, TimeStamp: next(), PMC: []uint64{100, 200, 300}, Payload: []byte{1}},
			&etltest.PerfInfo{Bits32: bits32, Version: 3, HookId: 0x0F30, TimeStamp: next(), HasPEBS: true, PEBSIndex: 5, PMC: []uint64{6}, Payload: []byte{2}},
			&etltest.Full{Bits32: bits32, Type: 0x0A, Level: 4, Version: 2, ThreadId: 11, ProcessId: 12, TimeStamp: next(), Guid: g1, KernelTime: 13, UserTime: 14, Payload: []byte("mof")},
			&etltest.Instance{Full: etltest.Full{Bits32: bits32, Type: 1, Level: 5, Version: 0, ThreadId: 15, ProcessId: 16, TimeStamp: next(), Guid: g2,
				KernelTime: 17, UserTime: 18, Payload: []byte("inst")}, InstanceId: 19, ParentInstanceId: 20, ParentGuid: g1},
			&etltest.Event{Bits32: bits32, Flags: header.FlagStringOnly, EventProperty: header.PropertyForwardedXML, ThreadId: 21, ProcessId: 22, TimeStamp: next(),
				ProviderId: g1, Descriptor: header.EventDescriptor{Id: 23, Version: 24, Channel: 25, Level: 26, Opcode: 27, Task: 28, Keyword: 0xFEDCBA9876543210},
				KernelTime: 29, UserTime: 30, ActivityId: g2, UserData: etltest.UTF16Z("only a string")},
			&etltest.Event{Bits32: bits32, ThreadId: 31, ProcessId: 32, TimeStamp: next(), ProviderId: g2,
				Descriptor: header.EventDescriptor{Id: 33}, Ext: []etltest.ExtItem{
					etltest.ExtRelatedActivityID(g1), etltest.ExtSID(etltest.SID(1, 5, 18)), etltest.ExtTerminalSessionID(1),
					etltest.ExtInstanceInfo(1, 2, g2), etltest.ExtStackTrace32(1, 0x1000), etltest.ExtStackTrace64(2, 0x2000, 0x3000),
					etltest.ExtPEBSIndex(3), etltest.ExtPMCCounters(4, 5), etltest.ExtPSMKey(6), etltest.ExtEventKey(7),
					etltest.ExtEventSchemaTL([]byte{5, 0, 0, 'E', 0}), etltest.ExtProviderTraits(etltest.ProviderTraits("P")),
					etltest.ExtProcessStartKey(8), etltest.ExtControlGUID(g1), etltest.ExtQPCDelta(9), etltest.ExtContainerID(g2),
				}, UserData: []byte{0xDD}},
			&etltest.Event{Bits32: bits32, TimeStamp: next(), ProviderId: g1, Ext: []etltest.ExtItem{etltest.ExtStackKey32(1, 2), etltest.ExtStackKey64(3, 4)}},
		)
	}
	for _, f := range []uint16{0, 0x01, 0x02, 0x04, 0x06, 0x08, 0x10, 0x18, 0x20, 0x3F, 0x2B | header.MessagePointer32, 0x35 | header.MessagePointer64} {
		out = append(out, &etltest.Message{MessageNumber: 40 + f, OptionFlags: f, Sequence: 41, ComponentId: 42, Guid: g1,
			TimeStamp: next(), ThreadId: 43, ProcessId: 44, Args: []byte{0xAA, 0xBB, 0xCC}})
	}
	out = append(out, &etltest.ErrorRecord{Body: bytes.Repeat([]byte{0xEE}, 0x4C)})
	return out
}

func TestRoundTripEveryKind(t *testing.T) {
	for _, compress := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "compressed"}[compress], func(t *testing.T) {
			s := etltest.DefaultSession()
			s.BufferSize = 0x2000
			tr := &tracker{}
			out, st, err := etltest.Build(s, func(b *etltest.Builder) error {
				tr.b = b
				recs := allKindsRecords(s.HeaderTimeStamp)
				half := len(recs) / 2
				if err := tr.buffer(etltest.Buffer{CPU: 5, ProcIndex: true, SequenceNumber: 1, TimeStamp: 0x5555, Compress: compress}, recs[:half]...); err != nil {
					return err
				}
				return tr.buffer(etltest.Buffer{CPU: 200, Alignment: 0x08, SequenceNumber: 2, TimeStamp: 0x6666, Compress: compress}, recs[half:]...)
			})
			require.NoError(t, err)
			r, recs, errs := readAll(t, out)
			require.Empty(t, errs)
			require.Len(t, recs, 1+len(tr.placed))
			assert.Equal(t, 3, st.Buffers)
			assert.Equal(t, 3, r.Stats().Buffers)
			if compress {
				assert.Equal(t, 2, r.Stats().CompressedBuffers)
			}

			hdr := recs[0]
			assert.Equal(t, header.TypeSystem64, hdr.HeaderType)
			assert.Equal(t, uint16(0), hdr.HookId)
			assert.Equal(t, s.HeaderTimeStamp, hdr.RawTimeStamp)
			for i, p := range tr.placed {
				assert.Equal(t, expect(p), viewOf(recs[i+1]), "record %d (%T)", i, p.rec)
			}
		})
	}
}

func TestRoundTripLogfileHeader(t *testing.T) {
	for _, bits32 := range []bool{false, true} {
		s := etltest.DefaultSession()
		s.Bits32 = bits32
		s.BufferSize = 0x1000
		s.HeaderThreadId, s.HeaderProcessId, s.HeaderTimeStamp = 0x10, 0x20, 123_456_789
		s.OSMajor, s.OSMinor, s.SubVersion, s.SubMinorVersion = 6, 3, 2, 0
		s.ProviderVersion = 9600
		s.NumberOfProcessors = 12
		s.EndTime = 133_500_000_900_000_000
		s.TimerResolution = 5000
		s.MaximumFileSize = 64
		s.LogFileMode = etltest.ModeCompressed | etltest.ModeFileSequential
		s.StartBuffers = 3
		s.PointerSize = 4 // deliberately not the session's: readers must not trust it
		s.EventsLost, s.BuffersLost = 17, 2
		s.CPUSpeedInMHz = 2100
		s.TimerSource, s.PerfCounterSource = 10, 7
		s.TimeZone = etltest.TimeZone{Bias: 480, StandardName: "Pacific Standard Time", StandardDate: etltest.SystemTime{Month: 11, DayOfWeek: 0, Day: 1, Hour: 2},
			StandardBias: 0, DaylightName: "Pacific Daylight Time", DaylightDate: etltest.SystemTime{Month: 3, Day: 2, Hour: 2}, DaylightBias: -60}
		s.BootTime, s.PerfFreq, s.StartTime = 133_499_000_000_000_000, 3_000_000, 133_500_000_000_000_000
		s.ClockType = etltest.ClockQPC
		s.LoggerName, s.LogFileName = "Round Trip", `D:\x\rt.etl`
		tr := &tracker{}
		ev := &etltest.Event{TimeStamp: s.HeaderTimeStamp + 3_000_000*3 + 1, ProviderId: guidA}
		out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
			tr.b = b
			return tr.buffer(etltest.Buffer{SequenceNumber: 1}, ev)
		})
		require.NoError(t, err)
		r, recs, errs := readAll(t, out)
		require.Empty(t, errs)
		h := r.Header()
		want := header.LogfileHeader{
			BufferSize: 0x1000, Version: 0x00020306, MajorVersion: 6, MinorVersion: 3, SubVersion: 2, SubMinorVersion: 0,
			ProviderVersion: 9600, NumberOfProcessors: 12, EndTime: s.EndTime, TimerResolution: 5000, MaximumFileSize: 64,
			LogFileMode: s.LogFileMode, BuffersWritten: 2, StartBuffers: 3, PointerSize: 4, EventsLost: 17, CPUSpeedInMHz: 2100,
			LoggerNameField: 10, LogFileNameField: 7,
			TimeZone: header.TimeZone{Bias: 480, StandardName: "Pacific Standard Time", StandardDate: header.SystemTime{Month: 11, Day: 1, Hour: 2},
				DaylightName: "Pacific Daylight Time", DaylightDate: header.SystemTime{Month: 3, Day: 2, Hour: 2}, DaylightBias: -60},
			BootTime: s.BootTime, PerfFreq: s.PerfFreq, StartTime: s.StartTime, ReservedFlags: 1, BuffersLost: 2,
			LoggerName: "Round Trip", LogFileName: `D:\x\rt.etl`, Is64: !bits32,
		}
		assert.Equal(t, want, h.LogfileHeader, "bits32=%v", bits32)
		wantType := header.TypeSystem64
		if bits32 {
			wantType = header.TypeSystem32
		}
		assert.Equal(t, wantType, h.HeaderType)
		assert.Equal(t, s.HeaderTimeStamp, h.RawTimeStamp)
		assert.Equal(t, uint32(0x10), h.ThreadId)
		assert.Equal(t, uint32(0x20), h.ProcessId)
		require.Len(t, recs, 2)
		// Three seconds and one tick of a 3 MHz clock: 3⅓ FILETIME units, rounded down.
		assert.Equal(t, header.FileTimeToTime(s.StartTime+30_000_003), recs[1].TimeStamp())
		assert.Equal(t, header.FileTimeToTime(s.StartTime), recs[0].TimeStamp())
	}
}

// TestRoundTripHeaderBufferQuirks checks that records after a short or zero
// SavedOffset in the header buffer are still read.
func TestRoundTripHeaderBufferQuirks(t *testing.T) {
	for _, hb := range []etltest.Buffer{
		{Type: buffer.TypeHeader, SavedOffsetRecords: 1},
		{Type: buffer.TypeHeader, SavedOffset: etltest.Ptr(uint32(0)), Size: 0x400},
	} {
		s := etltest.DefaultSession()
		s.BufferSize = 0x1000
		s.HeaderBuffer = &hb
		extra := []etltest.Record{
			&etltest.System{Version: 2, HookId: 0x0005, TimeStamp: s.HeaderTimeStamp, Payload: make([]byte, 0x24)},
			&etltest.PerfInfo{Version: 2, HookId: 0x0042, TimeStamp: s.HeaderTimeStamp, Payload: etltest.AnsiZ("build")},
		}
		out, _, err := etltest.Build(s, func(b *etltest.Builder) error { return b.AddToHeader(extra...) })
		require.NoError(t, err)
		_, recs, errs := readAll(t, out)
		require.Empty(t, errs)
		require.Len(t, recs, 3)
		for i, r := range extra {
			assert.Equal(t, expect(placed{rec: r}), viewOf(recs[i+1]))
		}
	}
}

func TestRoundTripStreams(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x400
	s.DataBuffer.ProcIndex = true
	out, st, err := etltest.Build(s, func(b *etltest.Builder) error {
		for i := 0; i < 200; i++ {
			cpu := i % 3
			r := &etltest.System{Version: 2, HookId: 0x0524, ThreadId: uint32(i), ProcessId: uint32(cpu), TimeStamp: int64(1_000_000_100 + i),
				Payload: bytes.Repeat([]byte{byte(i)}, 8+i%40)}
			b.CPU(cpu).Add(r)
		}
		return b.Err()
	})
	require.NoError(t, err)
	r, recs, errs := readAll(t, out)
	require.Empty(t, errs)
	require.Len(t, recs, 201)
	assert.Equal(t, st.Buffers, r.Stats().Buffers)
	// Per CPU, records come back in the order they were added, from
	// buffers whose sequence numbers rise in file order.
	last := map[uint16]uint32{}
	seen := map[uint16]int{}
	for _, rec := range recs[1:] {
		cpu := rec.ProcessorNumber
		assert.Equal(t, uint32(cpu), rec.ProcessId)
		if n, ok := last[cpu]; ok {
			assert.Equal(t, n+3, rec.ThreadId)
		}
		last[cpu] = rec.ThreadId
		seen[cpu]++
		assert.Equal(t, bytes.Repeat([]byte{byte(rec.ThreadId)}, 8+int(rec.ThreadId)%40), rec.UserData)
	}
	assert.Equal(t, map[uint16]int{0: 67, 1: 67, 2: 66}, seen)
	var seqs, want []int64
	for b, err := range r.Buffers() {
		require.NoError(t, err)
		seqs = append(seqs, b.SequenceNumber)
		want = append(want, int64(len(want)))
	}
	assert.Len(t, seqs, st.Buffers)
	assert.Equal(t, want, seqs, "sequence numbers rise in file order from the header buffer's 0")
}

// goldenTrace returns the golden trace of that name, failing the test when
// there is none.
func goldenTrace(t *testing.T, name string) etltest.GoldenTrace {
	t.Helper()
	for _, g := range etltest.GoldenTraces() {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no golden trace %s", name)
	return etltest.GoldenTrace{}
}

// TestRoundTripTraceLogging parses each schema of tracelogging.etl back and
// decodes its payload without error or trailing bytes.
func TestRoundTripTraceLogging(t *testing.T) {
	out, _, err := goldenTrace(t, "tracelogging.etl").Build()
	require.NoError(t, err)
	_, recs, errs := readAll(t, out)
	require.Empty(t, errs)
	require.Len(t, recs, 19)
	names := []string{"TestEvent", "Scalars", "Arrays", "Nested", "Tagged", "Tags1234567", "Wow64Pointer", "NoFields", "Custom"}
	for i, rec := range recs[1:] {
		it, ok := rec.Extended(record.ExtEventSchemaTL)
		require.True(t, ok)
		sch, err := tracelogging.ParseSchema(it.Data)
		require.NoError(t, err)
		assert.Equal(t, names[i%9], sch.Name)
		vals, err := sch.Decode(rec.UserData, rec.PointerSize(), nil)
		require.NoError(t, err, sch.Name)
		require.Len(t, vals, len(sch.Fields), sch.Name)
		switch sch.Name {
		case "TestEvent":
			a, ok := payload.Lookup(vals, "a")
			require.True(t, ok)
			b, _ := a.Member("b")
			c, _ := a.Member("c")
			assert.Equal(t, "Hello", b.Str())
			assert.Equal(t, "World!", c.Str())
		case "Tagged":
			assert.Equal(t, uint32(0x0FE00000), sch.Tags)
			require.Len(t, sch.Fields, 3)
			assert.Equal(t, []uint32{1, 0x0ABCDEF, 0x0FE00000}, []uint32{sch.Fields[0].Tags, sch.Fields[1].Tags, sch.Fields[2].Tags})
		case "Tags1234567":
			assert.Equal(t, uint32(0x1234567), sch.Tags)
		case "Arrays":
			pts, ok := payload.Lookup(vals, "points")
			require.True(t, ok)
			require.Len(t, pts.Elems(), 2)
			lbl, _ := pts.Elems()[1].Member("label")
			assert.Equal(t, "right", lbl.Str())
			fixed, _ := payload.Lookup(vals, "fixed")
			require.Len(t, fixed.Elems(), 3)
			assert.Equal(t, uint64(3), fixed.Elems()[2].Uint())
		case "Scalars":
			v, _ := payload.Lookup(vals, "ustr")
			assert.Equal(t, "wide ✓", v.Str())
			v, _ = payload.Lookup(vals, "i64")
			assert.Equal(t, int64(-64), v.Int())
			v, _ = payload.Lookup(vals, "tid")
			assert.Equal(t, uint64(0x2001), v.Uint())
		case "Wow64Pointer":
			assert.Equal(t, 4, rec.PointerSize())
			v, _ := payload.Lookup(vals, "n")
			assert.Equal(t, uint64(7), v.Uint())
		case "Nested":
			outer, _ := payload.Lookup(vals, "outer")
			inner, _ := outer.Member("inner")
			deep, _ := inner.Member("b")
			assert.Equal(t, "deep", deep.Str())
			after, _ := outer.Member("after")
			assert.Equal(t, int64(-2), after.Int())
		case "Custom":
			// The custom-serialized field comes back as its opaque bytes.
			before, _ := payload.Lookup(vals, "before")
			assert.Equal(t, uint64(3), before.Uint())
			blob, _ := payload.Lookup(vals, "blob")
			assert.Equal(t, []byte{0x08, 0x96, 0x01, 0x00}, blob.Bytes())
			assert.Equal(t, []byte("proto:Msg"), sch.Fields[1].CustomSchema)
		}
	}
	tr, ok := recs[1].Extended(record.ExtProviderTraits)
	require.True(t, ok)
	assert.Equal(t, etltest.ProviderTraits("Etlkit.Test.Provider", etltest.GroupTrait(uuid.MustParse("4f50731a-89cf-4782-b3e0-dce8c90476ba")),
		etltest.DecodeGUIDTrait(uuid.MustParse("b3a0f1c2-d4e5-4f60-8172-839405a6b7c8")), etltest.Trait{Type: 0x7E, Data: []byte{1, 2, 3}}), tr.Data)
	tr, ok = recs[10].Extended(record.ExtProviderTraits)
	require.True(t, ok)
	assert.Equal(t, etltest.ProviderTraits("MySource"), tr.Data)
}

// TestRoundTripGolden reads every committed trace and checks the reader's
// per-kind counts against what the builder wrote, less what damage hides.
func TestRoundTripGolden(t *testing.T) {
	for _, g := range etltest.GoldenTraces() {
		t.Run(g.Name, func(t *testing.T) {
			f, err := etl.Open(filepath.Join(goldenDir, g.Name))
			require.NoError(t, err)
			defer f.Close()
			delivered, failed := 0, 0
			for _, err := range f.Records() {
				if err != nil {
					failed++
				} else {
					delivered++
				}
			}
			_, st, err := g.Build()
			require.NoError(t, err)
			rs := f.Stats()
			got := map[string]int{}
			for ty, c := range rs.HeaderTypes {
				if c > 0 {
					got[header.Type(ty).String()] = c
				}
			}
			want := map[string]int{}
			for k, c := range st.Records {
				if k != "RAW" && c-st.Damaged[k] > 0 {
					want[k] = c - st.Damaged[k]
				}
			}
			switch g.Name {
			case "damaged.etl":
				// The two complete records before the cut are read.
				want["SYSTEM64"]++
				want["EVENT_HEADER64"]++
				assert.True(t, rs.Truncated)
				assert.Positive(t, rs.ErrorCount)
				// One per damaged buffer: the garbage marker, the wrong
				// Offset, the bad compression, the record cut by the end.
				assert.Equal(t, 4, failed, "errors yielded")
			case "zero-tail.etl":
				assert.True(t, rs.ZeroTail)
				assert.Zero(t, failed)
			default:
				assert.Zero(t, rs.ErrorCount)
				assert.Zero(t, failed)
			}
			assert.Equal(t, want, got)
			total := 0
			for _, c := range want {
				total += c
			}
			assert.Equal(t, total, delivered, "records delivered")
			assert.Equal(t, uint32(st.Buffers), f.Header().BuffersWritten)
		})
	}
}

// TestRoundTripEdgeBuffers writes buffers at the edges of the format and
// checks that the reader keeps what the notes say it should.
func TestRoundTripEdgeBuffers(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	exact := &etltest.System{HookId: 0x0501, Payload: make([]byte, 0x200-0x48-0x20)} // fills a 0x200 buffer to the byte
	var items []etltest.ExtItem
	for i := 0; i < 17; i++ {
		items = append(items, etltest.ExtTerminalSessionID(uint32(i)))
	}
	out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.WriteBuffer(etltest.Buffer{SequenceNumber: 1, Compress: true}) // no records at all
		b.WriteBuffer(etltest.Buffer{SequenceNumber: 2, Size: 0x200}, exact)
		b.WriteBuffer(etltest.Buffer{SequenceNumber: 3, Size: 0x200, Compress: true}, exact)
		b.WriteBuffer(etltest.Buffer{SequenceNumber: 4, CPU: 0x900, ProcIndex: true}, &etltest.System{HookId: 0x0401})
		b.WriteBuffer(etltest.Buffer{SequenceNumber: 5, Offset: etltest.Ptr(uint32(0))}, &etltest.System{HookId: 0x0402})
		b.WriteBuffer(etltest.Buffer{SequenceNumber: 6}, &etltest.Event{Ext: items}, &etltest.System{HookId: 0x0403})
		b.WriteBuffer(etltest.Buffer{SequenceNumber: 7, Offset: etltest.Ptr(uint32(0x30))}, &etltest.System{HookId: 0x0404})
		b.WriteBuffer(etltest.Buffer{SequenceNumber: 8, SavedOffset: etltest.Ptr(uint32(0x2000))}, &etltest.System{HookId: 0x0405})
		return b.Err()
	})
	require.NoError(t, err)
	_, recs, errs := readAll(t, out)
	type got struct {
		buffer int
		hook   uint16
		cpu    uint16
	}
	var g []got
	for _, r := range recs[1:] {
		g = append(g, got{r.BufferIndex, r.HookId, r.ProcessorNumber})
	}
	assert.Equal(t, []got{
		{2, 0x0501, 0}, {3, 0x0501, 0},
		{4, 0x0401, 0x100}, // PROC_INDEX: the index is masked with 0x7FF
		// buffer 5: Offset 0 means no records
		{6, 0x0403, 0}, // the record after the one with 17 items is still read
		{8, 0x0405, 0}, // SavedOffset is not trusted
	}, g)
	require.Len(t, errs, 2)
	assert.True(t, errors.Is(errs[0], buffer.ErrMalformed), "17 extended items: %v", errs[0])
	assert.True(t, errors.Is(errs[1], buffer.ErrMalformed), "Offset inside the buffer header: %v", errs[1])
}
