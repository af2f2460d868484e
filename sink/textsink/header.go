package textsink

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/digits"
	"github.com/etlkit/etlkit/payload"
)

// kv is one line of the header: the JSON value, and the text a person
// reads when that differs from it.
type kv struct {
	key  string
	val  any
	text string
}

// modeNames are the EVENT_TRACE_*_MODE names of LogFileMode's bits.
var modeNames = []struct {
	bit  uint32
	name string
}{
	{header.ModeFileSequential, "FILE_MODE_SEQUENTIAL"},
	{header.ModeFileCircular, "FILE_MODE_CIRCULAR"},
	{header.ModeFileAppend, "FILE_MODE_APPEND"},
	{header.ModeFileNewFile, "FILE_MODE_NEWFILE"},
	{header.ModeFilePrealloc, "FILE_MODE_PREALLOCATE"},
	{header.ModeNonStoppable, "NONSTOPPABLE_MODE"},
	{header.ModeSecure, "SECURE_MODE"},
	{header.ModeRealTime, "REAL_TIME_MODE"},
	{header.ModeDelayOpenFile, "DELAY_OPEN_FILE_MODE"},
	{header.ModeBuffering, "BUFFERING_MODE"},
	{header.ModePrivateLogger, "PRIVATE_LOGGER_MODE"},
	{header.ModeAddHeader, "ADD_HEADER_MODE"},
	{header.ModeUseKBytesForSize, "USE_KBYTES_FOR_SIZE"},
	{header.ModeUseGlobalSequence, "USE_GLOBAL_SEQUENCE"},
	{header.ModeUseLocalSequence, "USE_LOCAL_SEQUENCE"},
	{header.ModeRelog, "RELOG_MODE"},
	{header.ModePrivateInProc, "PRIVATE_IN_PROC"},
	{header.ModeUsePagedMemory, "USE_PAGED_MEMORY"},
	{header.ModeSystemLogger, "SYSTEM_LOGGER_MODE"},
	{header.ModeCompressed, "COMPRESSED_MODE"},
	{header.ModeIndependentSession, "INDEPENDENT_SESSION_MODE"},
	{header.ModeNoPerProcessorBuffering, "NO_PER_PROCESSOR_BUFFERING"},
}

func modeText(m uint32) string {
	var names []string
	rest := m
	for _, n := range modeNames {
		if m&n.bit != 0 {
			names = append(names, n.name)
			rest &^= n.bit
		}
	}
	if rest != 0 {
		names = append(names, fmt.Sprintf("0x%x", rest))
	}
	if len(names) == 0 {
		return fmt.Sprintf("0x%08x", m)
	}
	return fmt.Sprintf("0x%08x (%s)", m, strings.Join(names, " | "))
}

func clockName(k uint32) string {
	switch k {
	case header.ClockRaw:
		return "0 (unset: QPC when PerfFreq is set, else system time)"
	case header.ClockQPC:
		return "1 (QPC)"
	case header.ClockSystemTime:
		return "2 (system time)"
	case header.ClockCPUCycle:
		return "3 (CPU cycle counter)"
	}
	return fmt.Sprintf("%d (unknown)", k)
}

// fileTime renders a FILETIME as RFC 3339 UTC; 0 means "not set".
func fileTime(ft int64) string {
	if ft == 0 {
		return ""
	}
	return string(payload.AppendTime(nil, header.FileTimeToTime(ft)))
}

// systemTimeText shows a SYSTEMTIME as a decoded payload shows it (a date,
// or the yearly rule of a time-zone transition), and "" for the zero value,
// which in a TIME_ZONE_INFORMATION means the zone has no such transition.
func systemTimeText(t header.SystemTime) string {
	if t == (header.SystemTime{}) {
		return ""
	}
	return string(payload.AppendSystemTime(nil, [8]uint16{t.Year, t.Month, t.DayOfWeek, t.Day, t.Hour, t.Minute, t.Second, t.Milliseconds}))
}

// headerFields lists every field of a file's logfile header.
func headerFields(f *etl.File) []kv {
	h := f.Header()
	lh := &h.LogfileHeader
	wrapper := string(f.Wrapper)
	if wrapper == "" {
		wrapper = "none"
	}
	tz := lh.TimeZone
	res := time.Duration(lh.TimerResolution) * 100
	container, headerType := "ETL", h.HeaderType.String()
	if h.RealTimeBackup != nil {
		// RlFs files have no logfile-header record: the fields below are
		// what the reader built from the container header.
		container, headerType = "RlFs real-time backup", "none"
	}
	ft := func(v int64) string {
		if v == 0 {
			return "not set (0)"
		}
		return fmt.Sprintf("%s (FILETIME %d)", fileTime(v), v)
	}
	return []kv{
		{"File", f.Name, ""},
		{"Wrapper", wrapper, ""},
		{"Container", container, ""},
		{"Size", f.Size(), digits.Counted(f.Size(), "byte", "bytes")},
		{"HeaderType", headerType, ""},
		{"LoggerName", lh.LoggerName, ""},
		{"LogFileName", lh.LogFileName, ""},
		{"StartTime", fileTime(lh.StartTime), ft(lh.StartTime)},
		{"EndTime", fileTime(lh.EndTime), ft(lh.EndTime)},
		{"BootTime", fileTime(lh.BootTime), ft(lh.BootTime)},
		{"BufferSize", lh.BufferSize, fmt.Sprintf("%d (%d KiB)", lh.BufferSize, lh.BufferSize/1024)},
		{"Version", lh.Version, fmt.Sprintf("0x%08x", lh.Version)},
		{"MajorVersion", lh.MajorVersion, ""},
		{"MinorVersion", lh.MinorVersion, ""},
		{"SubVersion", lh.SubVersion, ""},
		{"SubMinorVersion", lh.SubMinorVersion, ""},
		{"ProviderVersion", lh.ProviderVersion, fmt.Sprintf("%d (Windows %d.%d build %d)", lh.ProviderVersion, lh.MajorVersion, lh.MinorVersion, lh.ProviderVersion)},
		{"NumberOfProcessors", lh.NumberOfProcessors, ""},
		{"TimerResolution", lh.TimerResolution, fmt.Sprintf("%d (%v)", lh.TimerResolution, res)},
		{"MaximumFileSize", lh.MaximumFileSize, fmt.Sprintf("%d MiB", lh.MaximumFileSize)},
		{"LogFileMode", lh.LogFileMode, modeText(lh.LogFileMode)},
		{"BuffersWritten", lh.BuffersWritten, ""},
		{"StartBuffers", lh.StartBuffers, ""},
		{"PointerSize", lh.PointerSize, ""},
		{"EventsLost", lh.EventsLost, ""},
		{"BuffersLost", lh.BuffersLost, ""},
		{"CPUSpeedInMHz", lh.CPUSpeedInMHz, ""},
		{"PerfFreq", lh.PerfFreq, fmt.Sprintf("%d Hz", lh.PerfFreq)},
		{"ClockType", lh.ReservedFlags, clockName(lh.ReservedFlags)},
		{"ClockUsed", h.Clock.Kind, clockName(h.Clock.Kind)},
		{"ClockAssumed", h.ClockAssumed, ""},
		{"LoggerNameField", lh.LoggerNameField, fmt.Sprintf("0x%x", lh.LoggerNameField)},
		{"LogFileNameField", lh.LogFileNameField, fmt.Sprintf("0x%x", lh.LogFileNameField)},
		{"TimeZoneBias", tz.Bias, fmt.Sprintf("%d minutes (UTC = local + bias)", tz.Bias)},
		{"StandardName", tz.StandardName, ""},
		{"StandardDate", tz.StandardDate, systemTimeText(tz.StandardDate)},
		{"StandardBias", tz.StandardBias, fmt.Sprintf("%d minutes", tz.StandardBias)},
		{"DaylightName", tz.DaylightName, ""},
		{"DaylightDate", tz.DaylightDate, systemTimeText(tz.DaylightDate)},
		{"DaylightBias", tz.DaylightBias, fmt.Sprintf("%d minutes", tz.DaylightBias)},
		{"RawTimeStamp", h.RawTimeStamp, ""},
		{"ProcessId", h.ProcessId, ""},
		{"ThreadId", h.ThreadId, ""},
	}
}

// AppendHeaderText appends every field of the logfile header of f, with
// the file's name, wrapper and size and the clock the reader uses, as
// aligned "Key: value" lines; values are explained where a number alone
// says little (times, modes, clock types, the time zone).
func AppendHeaderText(dst []byte, f *etl.File) []byte { return appendKVText(dst, headerFields(f)) }

// AppendHeaderJSON appends what AppendHeaderText does as one JSON object on
// one line, keys in the same order, values as numbers and strings.
func AppendHeaderJSON(dst []byte, f *etl.File) []byte {
	return append(appendKVJSON(dst, headerFields(f)), '\n')
}

// appendKVText renders fields as aligned "Key: value" lines.
func appendKVText(dst []byte, fields []kv) []byte {
	width := 0
	for _, f := range fields {
		width = max(width, len(f.key))
	}
	for _, f := range fields {
		dst = append(dst, f.key...)
		dst = append(dst, ':')
		text := f.text
		if text == "" {
			text = fmt.Sprint(f.val)
		}
		if text != "" {
			dst = append(dst, strings.Repeat(" ", width-len(f.key)+1)...)
			dst = append(dst, text...)
		}
		dst = append(dst, '\n')
	}
	return dst
}

// appendKVJSON renders fields as one JSON object, keys in their order.
func appendKVJSON(dst []byte, fields []kv) []byte {
	dst = append(dst, '{')
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = payload.AppendJSONString(dst, f.key)
		dst = append(dst, ':')
		b, err := json.Marshal(f.val)
		if err != nil {
			b = []byte("null")
		}
		dst = append(dst, b...)
	}
	return append(dst, '}')
}
