package header

import (
	"encoding/binary"
	"fmt"
	"unicode/utf16"
)

// Append appends h as TRACE_LOGFILE_HEADER in the form h.Is64 names (0x118
// bytes, or 0x110 for the 32-bit form), then the logger and log-file names
// as NUL-terminated UTF-16LE: the inverse of ParseLogfileHeader. The
// version is written from its four byte fields (MajorVersion …
// SubMinorVersion); the Version field, which ParseLogfileHeader fills with
// the same bytes, is not read. Time-zone names longer than their 32 UTF-16
// units are cut, as the fixed-size fields require.
func (h *LogfileHeader) Append(dst []byte) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, h.BufferSize)
	dst = append(dst, h.MajorVersion, h.MinorVersion, h.SubVersion, h.SubMinorVersion)
	dst = le.AppendUint32(dst, h.ProviderVersion)
	dst = le.AppendUint32(dst, h.NumberOfProcessors)
	dst = le.AppendUint64(dst, uint64(h.EndTime))
	dst = le.AppendUint32(dst, h.TimerResolution)
	dst = le.AppendUint32(dst, h.MaximumFileSize)
	dst = le.AppendUint32(dst, h.LogFileMode)
	dst = le.AppendUint32(dst, h.BuffersWritten)
	dst = le.AppendUint32(dst, h.StartBuffers)
	dst = le.AppendUint32(dst, h.PointerSize)
	dst = le.AppendUint32(dst, h.EventsLost)
	dst = le.AppendUint32(dst, h.CPUSpeedInMHz)
	if h.Is64 {
		dst = le.AppendUint64(dst, h.LoggerNameField)
		dst = le.AppendUint64(dst, h.LogFileNameField)
	} else {
		dst = le.AppendUint32(dst, uint32(h.LoggerNameField))
		dst = le.AppendUint32(dst, uint32(h.LogFileNameField))
	}
	dst = appendTimeZone(dst, &h.TimeZone)
	// The pad keeps BootTime 8-byte aligned (MOF calls the zone 176 bytes).
	dst = append(dst, 0, 0, 0, 0)
	dst = le.AppendUint64(dst, uint64(h.BootTime))
	dst = le.AppendUint64(dst, uint64(h.PerfFreq))
	dst = le.AppendUint64(dst, uint64(h.StartTime))
	dst = le.AppendUint32(dst, h.ReservedFlags)
	dst = le.AppendUint32(dst, h.BuffersLost)
	dst = AppendUTF16(dst, h.LoggerName, true)
	return AppendUTF16(dst, h.LogFileName, true)
}

// AppendLogfileRecord appends the first record of a trace: a SYSTEM64
// header (SYSTEM32 when lh.Is64 is false) with HookId 0 whose Version,
// ThreadId, ProcessId, SystemTime, KernelTime and UserTime come from sh,
// then lh as Append writes it. The record's size is set; it fails when the
// record would exceed MaxRecordSize, which only very long names can cause.
func AppendLogfileRecord(dst []byte, sh *SystemHeader, lh *LogfileHeader) ([]byte, error) {
	le := binary.LittleEndian
	start := len(dst)
	typ := TypeSystem32
	if lh.Is64 {
		typ = TypeSystem64
	}
	dst = le.AppendUint16(dst, sh.Version)
	dst = append(dst, uint8(typ), MarkerTraceHeader|MarkerEventTrace)
	dst = le.AppendUint16(dst, 0) // size, set below
	dst = le.AppendUint16(dst, 0) // HookId 0: group 0 (EventTrace), type 0 (Header)
	dst = le.AppendUint32(dst, sh.ThreadId)
	dst = le.AppendUint32(dst, sh.ProcessId)
	dst = le.AppendUint64(dst, uint64(sh.SystemTime))
	dst = le.AppendUint32(dst, sh.KernelTime)
	dst = le.AppendUint32(dst, sh.UserTime)
	dst = lh.Append(dst)
	n := len(dst) - start
	if n > MaxRecordSize {
		return dst[:start], fmt.Errorf("logfile-header record of %d bytes exceeds the 0x%X maximum (logger name %d and log-file name %d characters)",
			n, MaxRecordSize, len(lh.LoggerName), len(lh.LogFileName))
	}
	le.PutUint16(dst[start+4:], uint16(n))
	return dst, nil
}

// AppendUTF16 appends s as UTF-16LE, with a NUL terminator when nul is set.
func AppendUTF16(dst []byte, s string, nul bool) []byte {
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			dst = append(dst, byte(r1), byte(r1>>8), byte(r2), byte(r2>>8))
			continue
		}
		dst = append(dst, byte(r), byte(r>>8))
	}
	if nul {
		dst = append(dst, 0, 0)
	}
	return dst
}

// Append appends t as the 16-byte SYSTEMTIME.
func (t *SystemTime) Append(dst []byte) []byte {
	le := binary.LittleEndian
	for _, v := range [...]uint16{t.Year, t.Month, t.DayOfWeek, t.Day, t.Hour, t.Minute, t.Second, t.Milliseconds} {
		dst = le.AppendUint16(dst, v)
	}
	return dst
}

// appendTimeZone appends TIME_ZONE_INFORMATION (172 bytes). A name of
// exactly 32 units has no terminator, as the fixed-size field allows.
func appendTimeZone(dst []byte, tz *TimeZone) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, uint32(tz.Bias))
	dst = appendFixedUTF16(dst, tz.StandardName, 32)
	dst = tz.StandardDate.Append(dst)
	dst = le.AppendUint32(dst, uint32(tz.StandardBias))
	dst = appendFixedUTF16(dst, tz.DaylightName, 32)
	dst = tz.DaylightDate.Append(dst)
	return le.AppendUint32(dst, uint32(tz.DaylightBias))
}

// appendFixedUTF16 writes s into a field of n UTF-16 units: cut when
// longer, zero-filled when shorter.
func appendFixedUTF16(dst []byte, s string, n int) []byte {
	end := len(dst) + 2*n
	dst = AppendUTF16(dst, s, false)
	if len(dst) > end {
		dst = dst[:end]
	}
	return append(dst, make([]byte, end-len(dst))...)
}
