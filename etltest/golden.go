package etltest

import (
	"github.com/google/uuid"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
)

// GoldenTrace is one of the small traces committed under testdata/etl. The
// reader's tests assert what they hold; fuzz tests use them as seeds.
type GoldenTrace struct {
	Name        string // file name
	Description string // what the trace covers, for the README
	session     func() Session
	build       func(b *Builder) error
}

// Build writes the trace to memory.
func (g GoldenTrace) Build() ([]byte, Stats, error) { return Build(g.session(), g.build) }

// Session returns the session the trace is written with.
func (g GoldenTrace) Session() Session { return g.session() }

// GoldenTraces lists the committed traces in a fixed order.
func GoldenTraces() []GoldenTrace {
	return []GoldenTrace{
		goldenKernel64(),
		goldenClassic32(),
		goldenManifest64(),
		goldenTraceLogging(),
		goldenWPP(),
		goldenCompressed(),
		goldenClock("clock-systemtime.etl", ClockSystemTime),
		goldenClock("clock-cpucycle.etl", ClockCPUCycle),
		goldenDamaged(),
		goldenZeroTail(),
	}
}

// Kernel group GUIDs and provider GUIDs used by the golden traces.
var (
	guidEventTrace = uuid.MustParse("68fdd900-4a3e-11d1-84f4-0000f80464e3")
	guidProcess    = uuid.MustParse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c")
	guidThread     = uuid.MustParse("3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c")
	guidDiskIo     = uuid.MustParse("3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c")

	guidManifest    = uuid.MustParse("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716") // Microsoft-Windows-Kernel-Process
	guidManifest2   = uuid.MustParse("70eb4f03-c1de-4f73-a051-33d13d5413bd")
	guidTLProvider  = uuid.MustParse("d1a4c2b7-55e0-5c3a-9c31-8f5d2a6b7e10")
	guidTLProvider2 = uuid.MustParse("7a1b2c3d-4e5f-5061-8293-a4b5c6d7e8f9")
	guidTLGroup     = uuid.MustParse("4f50731a-89cf-4782-b3e0-dce8c90476ba")
	guidDecode      = uuid.MustParse("b3a0f1c2-d4e5-4f60-8172-839405a6b7c8")
	guidWPP         = uuid.MustParse("9e6a1e2f-3b4c-4d5e-8f70-a1b2c3d4e5f6")
	guidActivity    = uuid.MustParse("00000001-0002-0003-0405-060708090a0b")
	guidRelated     = uuid.MustParse("10000001-2002-3003-4405-560708090a0b")
	guidInstParent  = uuid.MustParse("c0ffee00-1111-2222-3333-444455556666")
)

const (
	buildLab = "22621.1.amd64fre.ni_release.220506-1250"
	qpcStart = 1_000_000_000 // header record timestamp of the QPC traces
)

// headerExtension is the EventTrace HeaderExtension payload: eight group
// masks and the kernel event version.
func headerExtension() []byte {
	p := new(Payload)
	for _, m := range [8]uint32{0x20000407, 0, 0x00000001, 0, 0, 0, 0, 0x80000000} {
		p.U32(m)
	}
	return p.U32(0x24).Bytes()
}

func processStart(ptr int, pid, ppid uint32, image, cmd string) []byte {
	p := new(Payload).Ptr(ptr, 0xFFFF_A000_0000_0000|uint64(pid)<<4).U32(pid).U32(ppid).U32(1).I32(259).
		Ptr(ptr, 0x1AB000+uint64(pid)<<12).U32(0)
	// TOKEN_USER header (SID pointer and attributes), then the SID itself.
	p.Ptr(ptr, 0xFFFF_C000_0000_1000).Ptr(ptr, 0)
	p.SID(1, 5, 21, 1111, 2222, 3333, 1001)
	return p.AnsiZ(image).UTF16Z(cmd).UTF16Z("").UTF16Z("").Bytes()
}

func cswitch(newTid, oldTid uint32) []byte {
	return new(Payload).U32(newTid).U32(oldTid).I8(8).I8(9).U8(1).I8(0).I8(6).I8(1).I8(5).I8(0).U32(12).U32(0).Bytes()
}

func sampledProfile(ptr int, ip uint64, tid uint32) []byte {
	return new(Payload).Ptr(ptr, ip).U32(tid).U16(1).U16(0).Bytes()
}

func diskRead(ptr int, n uint32) []byte {
	return new(Payload).U32(n%4).U32(0x60).U32(0x1000*(n+1)).U32(0).U64(0x10000*uint64(n)).
		Ptr(ptr, 0xFFFF_B000_0000_0000+uint64(n)*0x100).Ptr(ptr, 0xFFFF_B100_0000_0000).U64(250).Bytes()
}

func imageLoad(ptr int, base uint64, name string) []byte {
	return new(Payload).Ptr(ptr, base).Ptr(ptr, 0x3C000).U32(0x1A2C).U32(0x4F1D2).U32(0x61A2B3C4).U32(0).
		Ptr(ptr, base).U32(0).U32(0).U32(0).U32(0).UTF16Z(name).Bytes()
}

// kernelRecord makes the i-th record of a kernel CPU stream: a rotation
// through every kernel header kind and the PEBS/PMC extensions.
func kernelRecord(i int, cpu int, ts int64) Record {
	tid := uint32(0x1000 + cpu*0x10 + i%3)
	pid := uint32(0x400 + cpu)
	switch i % 12 {
	case 0:
		return &System{Version: 4, HookId: 0x0301, ThreadId: tid, ProcessId: pid, TimeStamp: ts, KernelTime: uint32(i), UserTime: 2,
			Payload: processStart(8, pid, 0x4, "notepad.exe", `"C:\Windows\notepad.exe" a.txt`)}
	case 1:
		return &Compact{Version: 4, HookId: 0x0524, ThreadId: tid, ProcessId: pid, TimeStamp: ts, Payload: cswitch(tid, tid+1)}
	case 2:
		return &PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: ts, Payload: sampledProfile(8, 0xFFFFF800_12340000+uint64(i)*0x10, tid)}
	case 3:
		return &PerfInfo{Version: 4, HookId: 0x0524, TimeStamp: ts, HasPEBS: true, PEBSIndex: 0x5000 + uint64(i), Payload: cswitch(tid, tid+2)}
	case 4:
		return &PerfInfo{Version: 2, HookId: 0x0F2F, TimeStamp: ts, PMC: []uint64{1000 + uint64(i), 2000 + uint64(i)},
			Payload: sampledProfile(8, 0x7FF6_0000_1000+uint64(i), tid)}
	case 5:
		return &PerfInfo{Version: 4, HookId: 0x0524, TimeStamp: ts, HasPEBS: true, PEBSIndex: 0x6000 + uint64(i),
			PMC: []uint64{1, 2, 3, 4}, Payload: cswitch(tid, tid+3)}
	case 6:
		return &System{Version: 3, HookId: 0x010A, ThreadId: tid, ProcessId: pid, TimeStamp: ts, KernelTime: 7, UserTime: 0, Payload: diskRead(8, uint32(i))}
	case 7:
		return &System{Bits32: true, Version: 3, HookId: 0x140A, ThreadId: tid, ProcessId: pid, TimeStamp: ts, KernelTime: 1, UserTime: 1,
			Payload: imageLoad(4, 0x77000000, `\Windows\SysWOW64\ntdll.dll`)}
	case 8:
		return &Compact{Bits32: true, Version: 2, HookId: 0x0501, ThreadId: tid, ProcessId: pid, TimeStamp: ts,
			Payload: new(Payload).U32(pid).U32(tid).Bytes()}
	case 9:
		return &PerfInfo{Bits32: true, Version: 2, HookId: 0x0F2E, TimeStamp: ts, Payload: sampledProfile(4, 0x7710_2000+uint64(i), tid)}
	case 10:
		return &System{Version: 2, HookId: 0x0524, ThreadId: tid, ProcessId: pid, TimeStamp: ts, PMC: []uint64{0xABC}, Payload: cswitch(tid, tid+4)}
	default:
		return &Compact{Version: 2, HookId: 0x0F2E, ThreadId: tid, ProcessId: pid, TimeStamp: ts, HasPEBS: true, PEBSIndex: 9,
			PMC: []uint64{7}, Payload: sampledProfile(8, 0xFFFFF800_55550000, tid)}
	}
}

func goldenKernel64() GoldenTrace {
	return GoldenTrace{
		Name: "kernel64.etl",
		Description: "64-bit NT Kernel Logger session, 4 KiB buffers, 4 CPUs. Header buffer: logfile header, " +
			"HeaderExtension (SYSTEM64 0x0005), PartitionInfo (SYSTEM64 0x0050), BuildLab and DbgIdRSDS (PERFINFO64 0x0042, 0x0040); " +
			"its SavedOffset ends after the first two records (the later ones lie beyond it, as in real files). " +
			"Eight data buffers, two per CPU, in file order (seq,cpu) = (3,2) (1,0) (2,1) (4,3) (6,1) (5,0) (7,2) (8,3); " +
			"CPUs 0 and 1 use PROC_INDEX, 2 and 3 the 8-bit processor number. Buffer (7,2) has EVENTS_LOST, (8,3) BUFFER_LOST and FLUSH_MARKER. " +
			"Records rotate through SYSTEM64/32, COMPACT64/32 and PERFINFO64/32 with PEBS only, PMC only (2 and 1), and both (PEBS + 4 PMC), " +
			"including a SYSTEM64 and a COMPACT64 record with header extensions; buffer (1,0) also holds one ERROR record. " +
			"Timestamps rise per CPU; QPC clock, 10 MHz. EventsLost 3, BuffersLost 1 in the logfile header.",
		session: func() Session {
			s := DefaultSession()
			s.BufferSize = 0x1000
			s.LogFileMode = ModeSystemLogger | ModeFileSequential
			s.LoggerName = "NT Kernel Logger"
			s.LogFileName = `C:\traces\kernel64.etl`
			s.ProviderVersion = 22621
			s.EventsLost, s.BuffersLost = 3, 1
			s.HeaderBuffer = &Buffer{Type: buffer.TypeHeader, Flags: buffer.FlagFlushMarker, SavedOffsetRecords: 2}
			return s
		},
		build: func(b *Builder) error {
			rsds := new(Payload).GUID(guidManifest2).U32(1).AnsiZ("ntkrnlmp.pdb").Bytes()
			if err := b.AddToHeader(
				&System{Version: 2, HookId: 0x0005, ThreadId: 0x1a2c, ProcessId: 0x0f10, TimeStamp: qpcStart, Payload: headerExtension()},
				&System{Version: 2, HookId: 0x0050, TimeStamp: qpcStart, Payload: make([]byte, 48)},
				&PerfInfo{Version: 2, HookId: 0x0042, TimeStamp: qpcStart, Payload: AnsiZ(buildLab)},
				&PerfInfo{Version: 2, HookId: 0x0040, TimeStamp: qpcStart, Payload: rsds},
			); err != nil {
				return err
			}
			const perBuffer = 12
			type slot struct {
				seq   int64
				cpu   int
				half  int
				flags buffer.Flag
			}
			order := []slot{{3, 2, 0, 0}, {1, 0, 0, 0}, {2, 1, 0, 0}, {4, 3, 0, 0},
				{6, 1, 1, 0}, {5, 0, 1, 0}, {7, 2, 1, buffer.FlagEventsLost}, {8, 3, 1, buffer.FlagBufferLost | buffer.FlagFlushMarker}}
			for _, sl := range order {
				var recs []Record
				var last int64
				for i := 0; i < perBuffer; i++ {
					n := sl.half*perBuffer + i
					last = qpcStart + 1000 + int64(n)*2500 + int64(sl.cpu)*37
					recs = append(recs, kernelRecord(n+sl.cpu, sl.cpu, last))
					if sl.seq == 1 && i == 5 {
						recs = append(recs, &ErrorRecord{Body: make([]byte, 0x4C)})
					}
				}
				spec := Buffer{CPU: uint16(sl.cpu), ProcIndex: sl.cpu < 2, SequenceNumber: sl.seq, TimeStamp: last + 10, Flags: sl.flags}
				if err := b.WriteBuffer(spec, recs...); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func goldenClassic32() GoldenTrace {
	return GoldenTrace{
		Name: "classic32.etl",
		Description: "32-bit session (SYSTEM32 header record, 0x110-byte logfile header, PointerSize 4) relogged on Windows 7 " +
			"(version 6.1, format 1.5, build 7601, RELOG mode, \"Relogger\" / \"[multiple files]\"), QPC at 3,117,777 Hz. " +
			"The header buffer is 0x400 bytes with SavedOffset 0 and State 0. Data buffers are 8 KiB: processor 0, and processor 3 " +
			"written as 0x0803 without PROC_INDEX (Alignment byte 0x08). Records: FULL_HEADER32 and INSTANCE32 classic events " +
			"with MOF-style payloads (4-byte pointers), class GUIDs of the Process, Thread and DiskIo groups, levels 0-5 and " +
			"several versions; instance records chain InstanceId/ParentInstanceId. Buffer TimeStamps hold FILETIMEs, as relogged files do.",
		session: func() Session {
			s := DefaultSession()
			s.Bits32 = true
			s.BufferSize = 0x2000
			s.OSMajor, s.OSMinor, s.SubVersion, s.SubMinorVersion = 6, 1, 1, 5
			s.ProviderVersion = 7601
			s.NumberOfProcessors = 4
			s.LogFileMode = ModeRelog | ModeFileSequential
			s.LoggerName, s.LogFileName = "Relogger", "[multiple files]"
			s.PerfFreq = 3_117_777
			s.CPUSpeedInMHz = 2394
			s.TimerSource, s.PerfCounterSource = 0, 0
			s.HeaderTimeStamp = 5_000_000
			state := buffer.StateFree
			s.HeaderBuffer = &Buffer{Type: buffer.TypeHeader, Flags: buffer.FlagFlushMarker, Size: 0x400,
				SavedOffset: Ptr(uint32(0)), State: &state}
			return s
		},
		build: func(b *Builder) error {
			classes := []uuid.UUID{guidProcess, guidThread, guidDiskIo}
			seq := int64(1)
			for _, cpu := range []uint16{0, 3, 0, 3} {
				var recs []Record
				for i := 0; i < 15; i++ {
					n := int(seq-1)*15 + i
					ts := int64(5_000_000 + 3_117*(n+1) + int(cpu))
					f := Full{Bits32: true, Type: uint8(1 + n%4), Level: uint8(n % 6), Version: uint16(n % 3),
						ThreadId: uint32(0x200 + n), ProcessId: 0x90, TimeStamp: ts, Guid: classes[n%3],
						KernelTime: uint32(n), UserTime: uint32(2 * n),
						Payload: new(Payload).Ptr(4, 0x8000_0000+uint64(n)).U32(uint32(n)).UTF16Z("classic").Bytes()}
					if n%3 == 2 {
						recs = append(recs, &Instance{Full: f, InstanceId: uint32(n), ParentInstanceId: uint32(n - 1), ParentGuid: guidInstParent})
					} else {
						recs = append(recs, &f)
					}
				}
				spec := Buffer{CPU: cpu, SequenceNumber: seq, TimeStamp: 129_000_000_000_000_000 + seq*10_000}
				if cpu == 3 {
					spec.Alignment = 0x08
				}
				if err := b.WriteBuffer(spec, recs...); err != nil {
					return err
				}
				seq++
			}
			return nil
		},
	}
}

// allExtItems holds one item of every extended data type, 0x01 to 0x12.
func allExtItems(i int) []ExtItem {
	n := uint64(i)
	return []ExtItem{
		ExtRelatedActivityID(guidRelated),
		ExtSID(SID(1, 5, 21, 100, 200, 300, 1001+uint32(i))),
		ExtTerminalSessionID(1 + uint32(i)),
		ExtInstanceInfo(10+uint32(i), 9, guidInstParent),
		ExtStackTrace32(0x100+n, 0x77001000, 0x77002000, 0x0040_1000),
		ExtStackTrace64(0x200+n, 0xFFFFF800_11110000, 0xFFFFF800_22220000, 0x7FF6_3333_0000, 0x7FF6_4444_0000),
		ExtPEBSIndex(0x300 + n),
		ExtPMCCounters(0x400+n, 0x401, 0x402),
		ExtPSMKey(0x500 + n),
		ExtEventKey(0x600 + n),
		ExtEventSchemaTL((&TLEvent{Name: "Schema", Fields: []TLField{{Name: "v", InType: TLUInt32}}}).MustMetadata()),
		ExtProviderTraits(ProviderTraits("Etlkit.Manifest", GroupTrait(guidTLGroup))),
		ExtProcessStartKey(0x700 + n),
		ExtControlGUID(guidManifest2),
		ExtQPCDelta(0x800 + n),
		ExtContainerID(guidInstParent),
		ExtStackKey32(0x900+n, 0x9001),
		ExtStackKey64(0xA00+n, 0xA001),
	}
}

func goldenManifest64() GoldenTrace {
	return GoldenTrace{
		Name: "manifest64.etl",
		Description: "64-bit session with manifest-style EVENT_HEADER records, filled by two automatic CPU streams (8 KiB buffers, PROC_INDEX). " +
			"CPU 0: 18 EVENT_HEADER64 events each with one extended item, types 0x01 to 0x12 in order (event id = item type), " +
			"then one event with 16 items (types 0x01-0x10, the reader's maximum) and one with 7 items (0x0D-0x12, then 0x01). " +
			"CPU 1: a STRING_ONLY event, an event with EventProperty XML|RELOGGABLE, an event with no user data, " +
			"EVENT_HEADER32 events carrying STACK_TRACE64 and STACK_TRACE32, and relogged classic FULL_HEADER64 and INSTANCE64 events (pid/tid 0). " +
			"Every EVENT_HEADER record has a distinct descriptor (id, version, channel, level, opcode, task, keyword) and an ActivityId.",
		session: func() Session {
			s := DefaultSession()
			s.BufferSize = 0x2000
			s.NumberOfProcessors = 2
			s.DataBuffer.ProcIndex = true
			return s
		},
		build: func(b *Builder) error {
			ts := int64(qpcStart)
			next := func() int64 { ts += 1234; return ts }
			ev := func(i int, ext []ExtItem) *Event {
				return &Event{ThreadId: 0x2000 + uint32(i), ProcessId: 0x300, TimeStamp: next(), ProviderId: guidManifest,
					Descriptor: header.EventDescriptor{Id: uint16(i), Version: uint8(i % 3), Channel: 16, Level: uint8(1 + i%5),
						Opcode: uint8(i % 10), Task: uint16(100 + i), Keyword: 0x8000_0000_0000_0000 | 1<<uint(i%40)},
					KernelTime: uint32(i), UserTime: uint32(i * 3), ActivityId: guidActivity,
					Ext: ext, UserData: new(Payload).U32(uint32(i)).UTF16Z("manifest").Bytes()}
			}
			items := allExtItems(0)
			for i, it := range items {
				b.CPU(0).Add(ev(i+1, []ExtItem{it}))
			}
			b.CPU(0).Add(ev(19, allExtItems(19)[:16]))
			b.CPU(0).Add(ev(20, append(allExtItems(20)[12:], items[0])))

			so := ev(21, nil)
			so.Flags = header.FlagStringOnly
			so.UserData = UTF16Z("a string-only event")
			xml := ev(22, nil)
			xml.EventProperty = header.PropertyXML | header.PropertyReloggable
			empty := ev(23, nil)
			empty.UserData = nil
			w64 := ev(24, []ExtItem{ExtStackTrace64(0x51, 0xFFFFF800_00001000, 0x7FF6_0000_2000)})
			w64.Bits32 = true
			w64.UserData = new(Payload).Ptr(4, 0x0040_2000).Bytes()
			w32 := ev(25, []ExtItem{ExtStackTrace32(0x52, 0x0040_1000, 0x0040_1100), ExtTerminalSessionID(2)})
			w32.Bits32 = true
			full := &Full{Type: 2, Level: 4, Version: 1, TimeStamp: next(), Guid: guidProcess, KernelTime: 0, UserTime: 0,
				Payload: new(Payload).Ptr(8, 0xFFFF_A000_0000_1230).U32(0x300).Bytes()}
			inst := &Instance{Full: Full{Type: 3, Level: 5, Version: 2, TimeStamp: next(), Guid: guidThread,
				Payload: new(Payload).U32(0x2001).Bytes()}, InstanceId: 7, ParentInstanceId: 6, ParentGuid: guidProcess}
			b.CPU(1).Add(so, xml, empty, w64, w32, full, inst)
			return b.Err()
		},
	}
}

// tlEvent is a TraceLogging event of the golden trace: metadata and the
// payload it describes.
type tlEvent struct {
	meta    TLEvent
	payload []byte
	level   uint8
	opcode  uint8
	keyword uint64
	bits32  bool
}

func tlEvents() []tlEvent {
	st := SystemTime{Year: 2024, Month: 2, DayOfWeek: 4, Day: 29, Hour: 13, Minute: 14, Second: 15, Milliseconds: 16}
	var out []tlEvent

	// The shape of a real self-describing sample: a struct of two strings.
	out = append(out, tlEvent{
		meta: TLEvent{Name: "TestEvent", Fields: []TLField{{Name: "a", InType: TLStruct, Members: []TLField{
			{Name: "b", InType: TLUnicodeString}, {Name: "c", InType: TLUnicodeString}}}}},
		payload: new(Payload).UTF16Z("Hello").UTF16Z("World!").Bytes(), level: 5,
	})

	scalars := TLEvent{Name: "Scalars", Fields: []TLField{
		{Name: "i8", InType: TLInt8}, {Name: "u8", InType: TLUInt8},
		{Name: "i16", InType: TLInt16}, {Name: "u16", InType: TLUInt16, OutType: TLOutPort},
		{Name: "i32", InType: TLInt32}, {Name: "u32", InType: TLUInt32, OutType: TLOutPid},
		{Name: "i64", InType: TLInt64}, {Name: "u64", InType: TLUInt64},
		{Name: "f32", InType: TLFloat}, {Name: "f64", InType: TLDouble},
		{Name: "ok", InType: TLBool32}, {Name: "guid", InType: TLGuid},
		{Name: "ptr", InType: TLPointer}, {Name: "ft", InType: TLFileTime},
		{Name: "st", InType: TLSystemTime}, {Name: "sid", InType: TLSid},
		{Name: "h32", InType: TLHexInt32}, {Name: "h64", InType: TLHexInt64},
		{Name: "ustr", InType: TLUnicodeString}, {Name: "astr", InType: TLAnsiString},
		{Name: "utf8", InType: TLAnsiString, OutType: TLOutUTF8},
		{Name: "cstr", InType: TLCountedString}, {Name: "castr", InType: TLCountedAnsiString},
		{Name: "bin", InType: TLBinary}, {Name: "cbin", InType: TLCountedBinary},
		{Name: "ip", InType: TLUInt32, OutType: TLOutIPv4}, {Name: "err", InType: TLUInt32, OutType: TLOutWin32Error},
		{Name: "hr", InType: TLInt32, OutType: TLOutHResult}, {Name: "tid", InType: TLUInt32, OutType: TLOutTid},
	}}
	sp := new(Payload).I8(-8).U8(8).I16(-16).U16(443).I32(-32).U32(4242).I64(-64).U64(64).
		F32(1.5).F64(-2.25).Bool32(true).GUID(guidActivity).Ptr(8, 0x7FF6_1234_5678).
		U64(133_500_000_000_000_000).SystemTime(st).SID(1, 5, 32, 544).
		U32(0xDEADBEEF).U64(0x0123_4567_89AB_CDEF).
		UTF16Z("wide ✓").AnsiZ("narrow").AnsiZ("utf-8 é").
		CountedUTF16("counted").Counted([]byte("counted ansi")).
		Counted([]byte{1, 2, 3}).Counted([]byte{4, 5}).
		U32(0x0100007F).U32(5).I32(-2147024891).U32(0x2001)
	out = append(out, tlEvent{meta: scalars, payload: sp.Bytes(), level: 4, opcode: 0, keyword: 0x10})

	arrays := TLEvent{Name: "Arrays", Fields: []TLField{
		{Name: "fixed", InType: TLUInt32, Arity: TLFixed, Count: 3},
		{Name: "var", InType: TLUInt16, Arity: TLVariable},
		{Name: "names", InType: TLUnicodeString, Arity: TLVariable},
		{Name: "guids", InType: TLGuid, Arity: TLFixed, Count: 2},
		{Name: "points", InType: TLStruct, Arity: TLVariable, Members: []TLField{
			{Name: "x", InType: TLInt32}, {Name: "label", InType: TLAnsiString}}},
		{Name: "empty", InType: TLUInt64, Arity: TLVariable},
	}}
	ap := new(Payload).U32(1).U32(2).U32(3).
		U16(4).U16(10).U16(20).U16(30).U16(40).
		U16(2).UTF16Z("one").UTF16Z("two").
		GUID(guidRelated).GUID(guidInstParent).
		U16(2).I32(-1).AnsiZ("left").I32(1).AnsiZ("right").
		U16(0)
	out = append(out, tlEvent{meta: arrays, payload: ap.Bytes(), level: 4, opcode: 1, keyword: 0x20})

	nested := TLEvent{Name: "Nested", Fields: []TLField{
		{Name: "outer", InType: TLStruct, Members: []TLField{
			{Name: "id", InType: TLUInt64},
			{Name: "inner", InType: TLStruct, Members: []TLField{
				{Name: "a", InType: TLUInt8}, {Name: "b", InType: TLUnicodeString}}},
			{Name: "after", InType: TLInt16}}},
		{Name: "tail", InType: TLBool32},
	}}
	np := new(Payload).U64(77).U8(1).UTF16Z("deep").I16(-2).Bool32(false)
	out = append(out, tlEvent{meta: nested, payload: np.Bytes(), level: 3, opcode: 2})

	tagged := TLEvent{Name: "Tagged", Tags: 0x0FE00000, Fields: []TLField{
		{Name: "one", InType: TLUInt32, Tags: 1},
		{Name: "big", InType: TLUInt32, OutType: TLOutHex, Tags: 0x0ABCDEF},
		{Name: "top", InType: TLUInt8, Tags: 0x0FE00000},
	}}
	out = append(out, tlEvent{meta: tagged, payload: new(Payload).U32(1).U32(0xABC).U8(0xFF).Bytes(), level: 2})

	out = append(out, tlEvent{
		meta:    TLEvent{Name: "Tags1234567", Tags: 0x1234567, Fields: []TLField{{Name: "v", InType: TLInt64}}},
		payload: new(Payload).I64(-5).Bytes(), level: 5, opcode: 9,
	})

	out = append(out, tlEvent{
		meta:    TLEvent{Name: "Wow64Pointer", Fields: []TLField{{Name: "p", InType: TLPointer}, {Name: "n", InType: TLUInt16}}},
		payload: new(Payload).Ptr(4, 0x0040_1234).U16(7).Bytes(), level: 4, bits32: true,
	})

	out = append(out, tlEvent{
		meta:    TLEvent{Name: "NoFields"},
		payload: nil, level: 1,
	})

	out = append(out, tlEvent{
		meta: TLEvent{Name: "Custom", Fields: []TLField{
			{Name: "before", InType: TLUInt16},
			{Name: "blob", InType: TLBinary, Arity: TLCustom, Schema: []byte("proto:Msg")}}},
		payload: new(Payload).U16(3).U16(4).Raw([]byte{0x08, 0x96, 0x01, 0x00}).Bytes(), level: 4,
	})
	return out
}

func goldenTraceLogging() GoldenTrace {
	return GoldenTrace{
		Name: "tracelogging.etl",
		Description: "64-bit session with TraceLogging (self-describing) EVENT_HEADER records on one CPU (8 KiB buffers). " +
			"Every event carries EVENT_SCHEMA_TL then PROV_TRAITS, channel 11. Events, in order: TestEvent (struct a{b,c} of UTF-16 strings, " +
			"as in a real sample: \"Hello\", \"World!\"); Scalars (one field of every scalar InType, OutTypes Port, Pid, UTF8, IPv4, Win32Error, HResult, Tid); " +
			"Arrays (fixed u32[3], variable u16[4], variable strings, fixed GUID[2], variable array of struct {x int32, label ansi}, empty variable u64 array); " +
			"Nested (struct in struct); Tagged (event tags 0x0FE00000, field tags 1, 0x0ABCDEF, 0x0FE00000); Tags1234567; " +
			"Wow64Pointer (EVENT_HEADER32, 4-byte Pointer field); NoFields; Custom (a custom-serializer field, not decodable). " +
			"The first nine events use provider \"Etlkit.Test.Provider\" whose traits hold a group trait (type 1), a decode GUID trait (type 2) " +
			"and an unknown trait type 0x7E; then the same nine events again from provider \"MySource\" with no traits. " +
			"Tags are encoded as TraceLoggingDynamic does: 7 bits per byte from bit 27 down, continuation bit 0x80 (tag 1 = 80 80 80 01).",
		session: func() Session {
			s := DefaultSession()
			s.BufferSize = 0x2000
			s.NumberOfProcessors = 1
			s.LoggerName = "TLTest"
			return s
		},
		build: func(b *Builder) error {
			traits := [2][]byte{
				ProviderTraits("Etlkit.Test.Provider", GroupTrait(guidTLGroup), DecodeGUIDTrait(guidDecode), Trait{Type: 0x7E, Data: []byte{1, 2, 3}}),
				ProviderTraits("MySource"),
			}
			providers := [2]uuid.UUID{guidTLProvider, guidTLProvider2}
			ts := int64(qpcStart)
			for p := 0; p < 2; p++ {
				for i, e := range tlEvents() {
					meta, err := e.meta.Metadata()
					if err != nil {
						return err
					}
					ts += 777
					b.CPU(0).Add(&Event{Bits32: e.bits32, ThreadId: 0x3000 + uint32(i), ProcessId: 0x500, TimeStamp: ts,
						ProviderId: providers[p],
						Descriptor: header.EventDescriptor{Channel: TLChannel, Level: e.level, Opcode: e.opcode, Keyword: e.keyword},
						ActivityId: guidActivity,
						Ext:        []ExtItem{ExtEventSchemaTL(meta), ExtProviderTraits(traits[p])},
						UserData:   e.payload})
				}
			}
			return b.Err()
		},
	}
}

func goldenWPP() GoldenTrace {
	return GoldenTrace{
		Name: "wpp.etl",
		Description: "64-bit session of WPP MESSAGE records (flags byte 0x90) on one CPU, 4 KiB buffers. Message i (0-63) has option " +
			"flags i (every combination of SEQUENCE, GUID, COMPONENTID, TIMESTAMP, PERFORMANCE_TIMESTAMP, SYSTEMINFO) plus POINTER32 when " +
			"i%3 == 1 and POINTER64 when i%3 == 2; MessageNumber 10+i, Sequence 1000+i, ComponentId 0x40+i, GUID fixed, " +
			"ThreadId 0x700+i, ProcessId 0x88, timestamps rising (written only with TIMESTAMP; zero bytes reserved under PERFORMANCE_TIMESTAMP alone). " +
			"Args: u32 i then UTF-16Z \"wpp\".",
		session: func() Session {
			s := DefaultSession()
			s.BufferSize = 0x1000
			s.NumberOfProcessors = 1
			s.LoggerName = "WPPSession"
			return s
		},
		build: func(b *Builder) error {
			for i := 0; i < 64; i++ {
				f := uint16(i)
				switch i % 3 {
				case 1:
					f |= header.MessagePointer32
				case 2:
					f |= header.MessagePointer64
				}
				b.CPU(0).Add(&Message{MessageNumber: uint16(10 + i), OptionFlags: f, Sequence: 1000 + uint32(i),
					ComponentId: 0x40 + uint32(i), Guid: guidWPP, TimeStamp: qpcStart + int64(i+1)*500,
					ThreadId: 0x700 + uint32(i), ProcessId: 0x88, Args: new(Payload).U32(uint32(i)).UTF16Z("wpp").Bytes()})
			}
			return b.Err()
		},
	}
}

func goldenCompressed() GoldenTrace {
	return GoldenTrace{
		Name: "compressed.etl",
		Description: "64-bit relogged session in compressed mode (LogFileMode COMPRESSED|RELOG, format 2.0), 8 KiB buffers, 3 CPUs with PROC_INDEX. " +
			"The 0x400-byte header buffer is not compressed; every data buffer is compressed with plain LZ77 XPRESS " +
			"(BufferSize = 0x48 + compressed length, SavedOffset = Offset = 0x48 + records). 300 records go round-robin to CPUs 0, 1, 2: " +
			"EVENT_HEADER64 (with a RELATED_ACTIVITYID item every 5th) and SYSTEM64 CSwitch records alternating.",
		session: func() Session {
			s := DefaultSession()
			s.BufferSize = 0x2000
			s.NumberOfProcessors = 3
			s.LogFileMode = ModeCompressed | ModeRelog
			s.SubVersion, s.SubMinorVersion = 2, 0
			s.LoggerName, s.LogFileName = "Relogger", "[multiple files]"
			s.HeaderBuffer = &Buffer{Type: buffer.TypeHeader, Flags: buffer.FlagFlushMarker, Size: 0x400}
			s.DataBuffer = Buffer{ProcIndex: true, Compress: true}
			return s
		},
		build: func(b *Builder) error {
			for i := 0; i < 300; i++ {
				cpu := i % 3
				ts := int64(qpcStart + 100*(i+1))
				var r Record
				if i%2 == 0 {
					e := &Event{ThreadId: 0x100 + uint32(cpu), ProcessId: 0x44, TimeStamp: ts, ProviderId: guidManifest,
						Descriptor: header.EventDescriptor{Id: uint16(1 + i%7), Version: 1, Level: 4, Task: 3, Keyword: 0x40},
						UserData:   new(Payload).U32(uint32(i)).UTF16Z("compressed payload text").Bytes()}
					if i%5 == 0 {
						e.Ext = []ExtItem{ExtRelatedActivityID(guidRelated)}
					}
					r = e
				} else {
					r = &System{Version: 4, HookId: 0x0524, ThreadId: 0x100 + uint32(cpu), ProcessId: 0x44, TimeStamp: ts,
						Payload: cswitch(uint32(i), uint32(i+1))}
				}
				b.CPU(cpu).Add(r)
			}
			return b.Err()
		},
	}
}

func goldenClock(name string, clock uint32) GoldenTrace {
	desc := "64-bit session with clock type 2 (system time): raw timestamps are FILETIMEs; the header record's timestamp equals StartTime. "
	if clock == ClockCPUCycle {
		desc = "64-bit session with clock type 3 (CPU cycle counter) and CpuSpeedInMHz 3000: a raw tick is 1/3000 µs; the header record's timestamp is 9,000,000,000. "
	}
	return GoldenTrace{
		Name: name,
		Description: desc + "One 4 KiB data buffer on CPU 0 with 4 EVENT_HEADER64 and 4 SYSTEM64 records, alternating, " +
			"1 ms apart starting 1 ms after the session start.",
		session: func() Session {
			s := DefaultSession()
			s.BufferSize = 0x1000
			s.NumberOfProcessors = 1
			s.ClockType = clock
			if clock == ClockSystemTime {
				s.HeaderTimeStamp = s.StartTime
			} else {
				s.CPUSpeedInMHz = 3000
				s.HeaderTimeStamp = 9_000_000_000
			}
			return s
		},
		build: func(b *Builder) error {
			s := b.Session()
			tick := int64(10_000) // 1 ms in FILETIME units
			if clock == ClockCPUCycle {
				tick = 3_000_000 // 1 ms at 3000 MHz
			}
			var recs []Record
			for i := 1; i <= 8; i++ {
				ts := s.HeaderTimeStamp + int64(i)*tick
				if i%2 == 1 {
					recs = append(recs, &Event{ThreadId: 1, ProcessId: 2, TimeStamp: ts, ProviderId: guidManifest,
						Descriptor: header.EventDescriptor{Id: uint16(i), Level: 4}, UserData: new(Payload).U32(uint32(i)).Bytes()})
				} else {
					recs = append(recs, &System{Version: 2, HookId: 0x0501, ThreadId: 1, ProcessId: 2, TimeStamp: ts,
						Payload: new(Payload).U32(2).U32(1).Bytes()})
				}
			}
			return b.WriteBuffer(Buffer{SequenceNumber: 1, TimeStamp: s.HeaderTimeStamp + 9*tick, ProcIndex: true}, recs...)
		},
	}
}

// damagedRecords are the records of one buffer of the damaged traces.
func damagedRecords(seq int, n int) []Record {
	var recs []Record
	for i := 0; i < n; i++ {
		ts := int64(qpcStart + seq*10_000 + i*100)
		if i%2 == 0 {
			recs = append(recs, &System{Version: 2, HookId: 0x0524, ThreadId: uint32(seq), ProcessId: 4, TimeStamp: ts, Payload: cswitch(1, 2)})
		} else {
			recs = append(recs, &Event{ThreadId: uint32(seq), ProcessId: 4, TimeStamp: ts, ProviderId: guidManifest,
				Descriptor: header.EventDescriptor{Id: uint16(seq*100 + i)}, UserData: new(Payload).U32(uint32(i)).Bytes()})
		}
	}
	return recs
}

// damagedSession is the session of damaged.etl and zero-tail.etl: 2 KiB
// buffers, two processors.
func damagedSession() Session {
	s := DefaultSession()
	s.BufferSize = 0x800
	s.NumberOfProcessors = 2
	return s
}

func goldenDamaged() GoldenTrace {
	return GoldenTrace{
		Name: "damaged.etl",
		Description: "64-bit session, 2 KiB buffers, damage on purpose among good buffers. Data buffers in file order (sequence numbers 1-8; " +
			"each good buffer holds 6 records alternating SYSTEM64 and EVENT_HEADER64, EVENT_HEADER ids seq*100+i): " +
			"1 good (CPU 0); 2 garbage (CPU 1): 2 good records, then a record slot with marker 0x12345678, then 2 records that only a " +
			"reader ignoring the garbage would see; 3 good (CPU 0); 4 wrong Offset (CPU 1): Offset 0x900, past its 0x800 BufferSize, over 6 records; " +
			"5 good (CPU 1); 6 bad compression (CPU 0): COMPRESSED flag over bytes that no MS-XCA algorithm decodes, Offset claims 6 records; " +
			"7 good (CPU 1); 8 truncated (CPU 0): the file ends 0x100 bytes into this 0x800-byte buffer, which holds 6 records of which the first 2 " +
			"are complete within the cut. BuffersWritten is 9. A reader that fails closed per buffer recovers 28 data records " +
			"(14 SYSTEM64, 14 EVENT_HEADER64): 6 from each good buffer, the 2 before the garbage, none from the wrong-Offset and the " +
			"bad-compression buffers, and the 2 complete ones before the cut.",
		session: damagedSession,
		build: func(b *Builder) error {
			cut := damagedRecords(2, 4)
			garbage := Raw{0x78, 0x56, 0x34, 0x12, 0x20, 0x00, 0x00, 0x00}
			buffers := []struct {
				spec Buffer
				recs []Record
			}{
				{Buffer{CPU: 0, SequenceNumber: 1}, damagedRecords(1, 6)},
				{Buffer{CPU: 1, SequenceNumber: 2}, []Record{cut[0], cut[1], garbage, cut[2], cut[3]}},
				{Buffer{CPU: 0, SequenceNumber: 3}, damagedRecords(3, 6)},
				{Buffer{CPU: 1, SequenceNumber: 4, Offset: Ptr(uint32(0x900))}, damagedRecords(4, 6)},
				{Buffer{CPU: 1, SequenceNumber: 5}, damagedRecords(5, 6)},
				{Buffer{CPU: 0, SequenceNumber: 6, BadCompression: true}, damagedRecords(6, 6)},
				{Buffer{CPU: 1, SequenceNumber: 7}, damagedRecords(7, 6)},
				{Buffer{CPU: 0, SequenceNumber: 8, Truncate: 0x100}, damagedRecords(8, 6)},
			}
			for _, x := range buffers {
				x.spec.ProcIndex = true
				if err := b.WriteBuffer(x.spec, x.recs...); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func goldenZeroTail() GoldenTrace {
	return GoldenTrace{
		Name: "zero-tail.etl",
		Description: "64-bit session, 2 KiB buffers: three good data buffers (CPUs 0, 1, 0; 6 records each, as in damaged.etl), " +
			"then 0x1000 zero bytes, the unused tail of a preallocated file (BufferSize 0 where the next buffer would start). BuffersWritten is 4.",
		session: damagedSession,
		build: func(b *Builder) error {
			for seq := 1; seq <= 3; seq++ {
				if err := b.WriteBuffer(Buffer{CPU: uint16((seq - 1) % 2), ProcIndex: true, SequenceNumber: int64(seq)}, damagedRecords(seq, 6)...); err != nil {
					return err
				}
			}
			return b.WriteZeros(0x1000)
		},
	}
}
