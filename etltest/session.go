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

// TimeZone is TIME_ZONE_INFORMATION (172 bytes), as header decodes it.
// Names longer than 32 UTF-16 units are cut when written; a name of exactly
// 32 units has no terminator, as the fixed-size field allows.
type TimeZone = header.TimeZone

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
	version := s.HeaderVersion
	if version == 0 {
		version = 2
	}
	written := h.BuffersWritten
	if s.BuffersWritten != nil {
		written = *s.BuffersWritten
	}
	rec := header.SystemHeader{Version: version, ThreadId: s.HeaderThreadId, ProcessId: s.HeaderProcessId, SystemTime: s.HeaderTimeStamp}
	lh := header.LogfileHeader{
		BufferSize:         s.BufferSize,
		MajorVersion:       s.OSMajor,
		MinorVersion:       s.OSMinor,
		SubVersion:         s.SubVersion,
		SubMinorVersion:    s.SubMinorVersion,
		ProviderVersion:    s.ProviderVersion,
		NumberOfProcessors: s.NumberOfProcessors,
		EndTime:            s.EndTime,
		TimerResolution:    s.TimerResolution,
		MaximumFileSize:    s.MaximumFileSize,
		LogFileMode:        s.LogFileMode,
		BuffersWritten:     written,
		StartBuffers:       s.StartBuffers,
		PointerSize:        s.pointerSize(),
		EventsLost:         s.EventsLost,
		CPUSpeedInMHz:      s.CPUSpeedInMHz,
		LoggerNameField:    s.TimerSource,
		LogFileNameField:   s.PerfCounterSource,
		TimeZone:           s.TimeZone,
		BootTime:           s.BootTime,
		PerfFreq:           s.PerfFreq,
		StartTime:          s.StartTime,
		ReservedFlags:      s.ClockType,
		BuffersLost:        s.BuffersLost,
		LoggerName:         s.LoggerName,
		LogFileName:        s.LogFileName,
		Is64:               !s.Bits32,
	}
	out, err := header.AppendLogfileRecord(dst, &rec, &lh)
	if err != nil {
		return dst, fmt.Errorf("etltest: %w", err)
	}
	return out, nil
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
