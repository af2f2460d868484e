package etltest

import (
	"fmt"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
)

// Sizes of TRACE_LOGFILE_HEADER in its 32- and 64-bit forms.
const (
	LogfileHeaderSize32 = header.LogfileHeaderSize32
	LogfileHeaderSize64 = header.LogfileHeaderSize64
)

// Clock types for Session.ClockType (TRACE_LOGFILE_HEADER.ReservedFlags).
const (
	ClockRaw        = header.ClockRaw
	ClockQPC        = header.ClockQPC
	ClockSystemTime = header.ClockSystemTime
	ClockCPUCycle   = header.ClockCPUCycle
)

// LogFileMode bits used by the traces this package writes.
const (
	ModeFileSequential          = header.ModeFileSequential
	ModeRelog                   = header.ModeRelog
	ModeSystemLogger            = header.ModeSystemLogger
	ModeCompressed              = header.ModeCompressed
	ModeNoPerProcessorBuffering = header.ModeNoPerProcessorBuffering
)

// BuffersWrittenOffset is the file offset of TRACE_LOGFILE_HEADER.BuffersWritten:
// the header buffer's first record starts at 0x48, its 0x20-byte SYSTEM
// header is followed by the logfile header, where the field is at 0x24 in
// both forms.
const BuffersWrittenOffset = buffer.HeaderSize + header.SystemHeaderSize + 0x24

// SystemTime is the Windows SYSTEMTIME structure, as header decodes it.
type SystemTime = header.SystemTime

func appendSystemTime(b []byte, t SystemTime) []byte {
	for _, v := range [...]uint16{t.Year, t.Month, t.DayOfWeek, t.Day, t.Hour, t.Minute, t.Second, t.Milliseconds} {
		b = le.AppendUint16(b, v)
	}
	return b
}

// TimeZone is TIME_ZONE_INFORMATION (172 bytes), as header decodes it.
// Names longer than 32 UTF-16 units are cut when written; a name of exactly
// 32 units has no terminator, as the fixed-size field allows.
type TimeZone = header.TimeZone

func appendTimeZone(b []byte, tz *TimeZone) []byte {
	b = le.AppendUint32(b, uint32(tz.Bias))
	b = appendFixedUTF16(b, tz.StandardName, 32)
	b = appendSystemTime(b, tz.StandardDate)
	b = le.AppendUint32(b, uint32(tz.StandardBias))
	b = appendFixedUTF16(b, tz.DaylightName, 32)
	b = appendSystemTime(b, tz.DaylightDate)
	return le.AppendUint32(b, uint32(tz.DaylightBias))
}

// appendFixedUTF16 writes s as UTF-16LE into a field of n units: cut when
// longer, zero-filled when shorter.
func appendFixedUTF16(b []byte, s string, n int) []byte {
	end := len(b) + 2*n
	b = appendUTF16(b, s, false)
	if len(b) > end {
		b = b[:end]
	}
	return append(b, make([]byte, end-len(b))...)
}

// Session describes the trace session: the logfile header written as the
// first record of the file, and the defaults for data buffers. Fields are
// written as they are; only those documented otherwise are derived.
type Session struct {
	// Bits32 selects a 32-bit session: a SYSTEM32 header record and the
	// 0x110-byte TRACE_LOGFILE_HEADER. Otherwise SYSTEM64 and 0x118 bytes.
	Bits32 bool

	// Header record (SYSTEM_TRACE_HEADER with HookId 0).
	HeaderVersion   uint16 // 0 means 2
	HeaderThreadId  uint32
	HeaderProcessId uint32
	HeaderTimeStamp int64 // raw session clock; the anchor of time conversion

	BufferSize uint32 // bytes; also the default size of every buffer
	// Version: OS major/minor and the log-format version (SubVersion.SubMinorVersion).
	OSMajor, OSMinor               uint8
	SubVersion, SubMinorVersion    uint8
	ProviderVersion                uint32 // OS build
	NumberOfProcessors             uint32
	EndTime                        int64 // FILETIME
	TimerResolution                uint32
	MaximumFileSize                uint32
	LogFileMode                    uint32
	BuffersWritten                 *uint32 // nil: the number of buffers written, counted by the Builder
	StartBuffers                   uint32
	PointerSize                    uint32 // 0 means 4 or 8 from Bits32
	EventsLost                     uint32
	CPUSpeedInMHz                  uint32
	TimerSource, PerfCounterSource uint64 // the former LoggerName/LogFileName pointer slots
	TimeZone                       TimeZone
	BootTime, PerfFreq, StartTime  int64
	ClockType                      uint32 // ReservedFlags
	BuffersLost                    uint32
	LoggerName, LogFileName        string

	// HeaderBuffer, when set, replaces the defaults of the header buffer
	// (type HEADER, FLUSH_MARKER, state 3, processor 0, sequence 0,
	// session BufferSize). Relogged files have small header buffers, and
	// their SavedOffset is short or zero.
	HeaderBuffer *Buffer
	// DataBuffer is the template of the buffers that CPU streams fill:
	// processor encoding, flags, type, state, compression. Its CPU,
	// SequenceNumber and TimeStamp are set per buffer.
	DataBuffer Buffer
}

// DefaultSession returns a 64-bit Windows 10 QPC session with 64 KiB buffers
// and fixed, plausible values in every field.
func DefaultSession() Session {
	return Session{
		HeaderVersion:      2,
		HeaderThreadId:     0x1a2c,
		HeaderProcessId:    0x0f10,
		HeaderTimeStamp:    1_000_000_000,
		BufferSize:         0x10000,
		OSMajor:            10,
		OSMinor:            0,
		SubVersion:         1,
		SubMinorVersion:    5,
		ProviderVersion:    19045,
		NumberOfProcessors: 4,
		EndTime:            133_500_000_600_000_000,
		TimerResolution:    156250,
		MaximumFileSize:    100,
		LogFileMode:        ModeFileSequential,
		StartBuffers:       0,
		CPUSpeedInMHz:      2995,
		TimerSource:        5,
		PerfCounterSource:  6,
		TimeZone: TimeZone{
			Bias:         -60,
			StandardName: "@tzres.dll,-322",
			StandardDate: SystemTime{Month: 10, Day: 5, Hour: 3},
			DaylightName: "@tzres.dll,-321",
			DaylightDate: SystemTime{Month: 3, Day: 5, Hour: 2},
			DaylightBias: -60,
		},
		BootTime:    133_499_990_000_000_000,
		PerfFreq:    10_000_000,
		StartTime:   133_500_000_000_000_000,
		ClockType:   ClockQPC,
		LoggerName:  "etlkit-test",
		LogFileName: `C:\traces\etlkit-test.etl`,
	}
}

func (s *Session) pointerSize() uint32 {
	if s.PointerSize != 0 {
		return s.PointerSize
	}
	if s.Bits32 {
		return 4
	}
	return 8
}

// LogfileHeader is the first record of a trace: a SYSTEM32/64 record with
// HookId 0 whose payload is TRACE_LOGFILE_HEADER and the two names. The
// Builder writes it from the Session; it is exported so that tests can
// also place a second one (as merged traces hold) or encode it alone.
type LogfileHeader struct {
	Session        *Session
	BuffersWritten uint32 // used when Session.BuffersWritten is nil
}

// AppendRecord implements Record.
func (h LogfileHeader) AppendRecord(dst []byte) ([]byte, error) {
	s := h.Session
	start := len(dst)
	typ, ptr, size := uint8(0x02), 8, LogfileHeaderSize64
	if s.Bits32 {
		typ, ptr, size = 0x01, 4, LogfileHeaderSize32
	}
	version := s.HeaderVersion
	if version == 0 {
		version = 2
	}
	dst = le.AppendUint16(dst, version)
	dst = append(dst, typ, 0xC0)
	dst = le.AppendUint16(dst, 0) // size, patched below
	dst = le.AppendUint16(dst, 0) // HookId 0: EventTrace group, Header type
	dst = le.AppendUint32(dst, s.HeaderThreadId)
	dst = le.AppendUint32(dst, s.HeaderProcessId)
	dst = le.AppendUint64(dst, uint64(s.HeaderTimeStamp))
	dst = le.AppendUint64(dst, 0) // kernel and user time

	lh := len(dst)
	written := h.BuffersWritten
	if s.BuffersWritten != nil {
		written = *s.BuffersWritten
	}
	dst = le.AppendUint32(dst, s.BufferSize)
	dst = append(dst, s.OSMajor, s.OSMinor, s.SubVersion, s.SubMinorVersion)
	dst = le.AppendUint32(dst, s.ProviderVersion)
	dst = le.AppendUint32(dst, s.NumberOfProcessors)
	dst = le.AppendUint64(dst, uint64(s.EndTime))
	dst = le.AppendUint32(dst, s.TimerResolution)
	dst = le.AppendUint32(dst, s.MaximumFileSize)
	dst = le.AppendUint32(dst, s.LogFileMode)
	dst = le.AppendUint32(dst, written)
	dst = le.AppendUint32(dst, s.StartBuffers)
	dst = le.AppendUint32(dst, s.pointerSize())
	dst = le.AppendUint32(dst, s.EventsLost)
	dst = le.AppendUint32(dst, s.CPUSpeedInMHz)
	if ptr == 8 {
		dst = le.AppendUint64(dst, s.TimerSource)
		dst = le.AppendUint64(dst, s.PerfCounterSource)
	} else {
		dst = le.AppendUint32(dst, uint32(s.TimerSource))
		dst = le.AppendUint32(dst, uint32(s.PerfCounterSource))
	}
	dst = appendTimeZone(dst, &s.TimeZone)
	// The 4-byte pad keeps BootTime 8-byte aligned; MOF calls the zone 176 bytes.
	dst = append(dst, 0, 0, 0, 0)
	dst = le.AppendUint64(dst, uint64(s.BootTime))
	dst = le.AppendUint64(dst, uint64(s.PerfFreq))
	dst = le.AppendUint64(dst, uint64(s.StartTime))
	dst = le.AppendUint32(dst, s.ClockType)
	dst = le.AppendUint32(dst, s.BuffersLost)
	if len(dst)-lh != size {
		panic(fmt.Sprintf("etltest: logfile header is 0x%x bytes, want 0x%x", len(dst)-lh, size))
	}
	dst = appendUTF16(dst, s.LoggerName, true)
	dst = appendUTF16(dst, s.LogFileName, true)
	return patchSize(dst, start, 4)
}

func (h LogfileHeader) timeStamp() (int64, bool) { return h.Session.HeaderTimeStamp, true }

// patchSize stores the record size (len(dst)-start) as a u16 at start+at.
func patchSize(dst []byte, start, at int) ([]byte, error) {
	n := len(dst) - start
	if n > header.MaxRecordSize {
		return dst[:start], fmt.Errorf("etltest: record of %d bytes exceeds the 0x%X maximum", n, header.MaxRecordSize)
	}
	le.PutUint16(dst[start+at:], uint16(n))
	return dst, nil
}
