package header

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"

	"github.com/etlkit/etlkit/buffer"
)

// Sizes of TRACE_LOGFILE_HEADER in its two forms; the logger and log-file
// names follow as NUL-terminated UTF-16LE strings.
const (
	LogfileHeaderSize32 = 0x110
	LogfileHeaderSize64 = 0x118
	timeZoneSize        = 172
)

// Clock types (ReservedFlags).
const (
	ClockRaw        = 0 // before Vista: system time unless PerfFreq says QPC
	ClockQPC        = 1
	ClockSystemTime = 2
	ClockCPUCycle   = 3
)

// LogFileMode bits we name (EVENT_TRACE_*_MODE and friends).
const (
	ModeFileSequential          = 0x00000001
	ModeFileCircular            = 0x00000002
	ModeFileAppend              = 0x00000004
	ModeFileNewFile             = 0x00000008
	ModeFilePrealloc            = 0x00000020
	ModeNonStoppable            = 0x00000040
	ModeSecure                  = 0x00000080
	ModeRealTime                = 0x00000100
	ModeDelayOpenFile           = 0x00000200
	ModeBuffering               = 0x00000400
	ModePrivateLogger           = 0x00000800
	ModeAddHeader               = 0x00001000
	ModeUseKBytesForSize        = 0x00002000
	ModeUseGlobalSequence       = 0x00004000
	ModeUseLocalSequence        = 0x00008000
	ModeRelog                   = 0x00010000
	ModePrivateInProc           = 0x00020000
	ModeUsePagedMemory          = 0x01000000
	ModeSystemLogger            = 0x02000000
	ModeCompressed              = 0x04000000
	ModeIndependentSession      = 0x08000000
	ModeNoPerProcessorBuffering = 0x10000000
)

// SystemTime mirrors the Windows SYSTEMTIME structure.
type SystemTime struct {
	Year, Month, DayOfWeek, Day, Hour, Minute, Second, Milliseconds uint16
}

func parseSystemTime(b []byte) SystemTime {
	le := binary.LittleEndian
	return SystemTime{le.Uint16(b), le.Uint16(b[2:]), le.Uint16(b[4:]), le.Uint16(b[6:]),
		le.Uint16(b[8:]), le.Uint16(b[10:]), le.Uint16(b[12:]), le.Uint16(b[14:])}
}

// TimeZone mirrors TIME_ZONE_INFORMATION (172 bytes).
type TimeZone struct {
	Bias         int32 // minutes, UTC = local + Bias
	StandardName string
	StandardDate SystemTime
	StandardBias int32
	DaylightName string
	DaylightDate SystemTime
	DaylightBias int32
}

// LogfileHeader is TRACE_LOGFILE_HEADER, in either form, with the names
// that follow it.
type LogfileHeader struct {
	BufferSize         uint32
	Version            uint32 // the VersionDetail union as one value
	MajorVersion       uint8  // OS major
	MinorVersion       uint8  // OS minor
	SubVersion         uint8  // log-format major
	SubMinorVersion    uint8  // log-format minor
	ProviderVersion    uint32 // OS build
	NumberOfProcessors uint32
	EndTime            int64 // FILETIME
	TimerResolution    uint32
	MaximumFileSize    uint32
	LogFileMode        uint32
	BuffersWritten     uint32
	StartBuffers       uint32
	PointerSize        uint32
	EventsLost         uint32
	CPUSpeedInMHz      uint32
	// LoggerNameField and LogFileNameField are pointers before Windows 7 and
	// clock-source values since; they are not string pointers in files.
	LoggerNameField  uint64
	LogFileNameField uint64
	TimeZone         TimeZone
	BootTime         int64 // FILETIME
	PerfFreq         int64
	StartTime        int64  // FILETIME
	ReservedFlags    uint32 // clock type
	BuffersLost      uint32
	LoggerName       string
	LogFileName      string
	// Is64 says which form was read: the 0x118-byte form of SYSTEM64 header records.
	Is64 bool
}

// ClockType is ReservedFlags under its meaning.
func (h *LogfileHeader) ClockType() uint32 { return h.ReservedFlags }

// ParseLogfileHeader decodes TRACE_LOGFILE_HEADER and the two names from b,
// the payload of the logfile-header record. is64 picks the form and must come
// from the record's header type (SYSTEM64), not from the PointerSize field.
func ParseLogfileHeader(b []byte, is64 bool) (LogfileHeader, error) {
	size, ptr := LogfileHeaderSize32, 4
	if is64 {
		size, ptr = LogfileHeaderSize64, 8
	}
	if len(b) < size {
		return LogfileHeader{}, fmt.Errorf("%w: TRACE_LOGFILE_HEADER needs 0x%x bytes, record has 0x%x", buffer.ErrTruncated, size, len(b))
	}
	le := binary.LittleEndian
	h := LogfileHeader{
		BufferSize:         le.Uint32(b[0x00:]),
		Version:            le.Uint32(b[0x04:]),
		MajorVersion:       b[0x04],
		MinorVersion:       b[0x05],
		SubVersion:         b[0x06],
		SubMinorVersion:    b[0x07],
		ProviderVersion:    le.Uint32(b[0x08:]),
		NumberOfProcessors: le.Uint32(b[0x0C:]),
		EndTime:            int64(le.Uint64(b[0x10:])),
		TimerResolution:    le.Uint32(b[0x18:]),
		MaximumFileSize:    le.Uint32(b[0x1C:]),
		LogFileMode:        le.Uint32(b[0x20:]),
		BuffersWritten:     le.Uint32(b[0x24:]),
		StartBuffers:       le.Uint32(b[0x28:]),
		PointerSize:        le.Uint32(b[0x2C:]),
		EventsLost:         le.Uint32(b[0x30:]),
		CPUSpeedInMHz:      le.Uint32(b[0x34:]),
		Is64:               is64,
	}
	pos := 0x38
	readPtr := func() uint64 {
		var v uint64
		if ptr == 8 {
			v = le.Uint64(b[pos:])
		} else {
			v = uint64(le.Uint32(b[pos:]))
		}
		pos += ptr
		return v
	}
	h.LoggerNameField = readPtr()
	h.LogFileNameField = readPtr()
	tz := b[pos : pos+timeZoneSize]
	h.TimeZone = TimeZone{
		Bias:         int32(le.Uint32(tz)),
		StandardName: utf16Fixed(tz[0x04:0x44]),
		StandardDate: parseSystemTime(tz[0x44:]),
		StandardBias: int32(le.Uint32(tz[0x54:])),
		DaylightName: utf16Fixed(tz[0x58:0x98]),
		DaylightDate: parseSystemTime(tz[0x98:]),
		DaylightBias: int32(le.Uint32(tz[0xA8:])),
	}
	pos += timeZoneSize + 4 // 4-byte pad aligns BootTime to 8
	h.BootTime = int64(le.Uint64(b[pos:]))
	h.PerfFreq = int64(le.Uint64(b[pos+8:]))
	h.StartTime = int64(le.Uint64(b[pos+16:]))
	h.ReservedFlags = le.Uint32(b[pos+24:])
	h.BuffersLost = le.Uint32(b[pos+28:])
	rest := b[size:]
	var n int
	h.LoggerName, n = UTF16Z(rest)
	h.LogFileName, _ = UTF16Z(rest[n:])
	return h, nil
}

// UTF16Z decodes a NUL-terminated UTF-16LE string at the start of b and
// returns it with the number of bytes consumed (terminator included). An
// unterminated string runs to the end of b.
func UTF16Z(b []byte) (string, int) {
	n := 0
	for n+1 < len(b) && (b[n] != 0 || b[n+1] != 0) {
		n += 2
	}
	s := decodeUTF16(b[:n])
	if n+1 < len(b) {
		n += 2
	} else {
		n = len(b)
	}
	return s, n
}

func utf16Fixed(b []byte) string {
	s, _ := UTF16Z(b)
	return s
}

func decodeUTF16(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}
