package header_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/header"
)

func sampleLogfileHeader(is64 bool) header.LogfileHeader {
	return header.LogfileHeader{
		BufferSize: 0x10000, Version: 0x0501000A, MajorVersion: 10, SubVersion: 1, SubMinorVersion: 5,
		ProviderVersion: 22621, NumberOfProcessors: 8, EndTime: 133500000600000000, TimerResolution: 156250,
		MaximumFileSize: 100, LogFileMode: header.ModeFileSequential | header.ModeRelog, BuffersWritten: 6,
		StartBuffers: 1, PointerSize: 8, EventsLost: 3, CPUSpeedInMHz: 1992, LoggerNameField: 9, LogFileNameField: 6,
		TimeZone: header.TimeZone{Bias: -60, StandardName: "@tzres.dll,-302", StandardDate: header.SystemTime{Month: 10, Day: 5, Hour: 3},
			DaylightName: "@tzres.dll,-301 😀", DaylightDate: header.SystemTime{Month: 3, Day: 5, Hour: 2}, DaylightBias: -60},
		BootTime: 133499990000000000, PerfFreq: 10_000_000, StartTime: 133500000000000000, ReservedFlags: header.ClockQPC,
		BuffersLost: 1, LoggerName: "Relogger", LogFileName: `C:\traces\out.etl`, Is64: is64,
	}
}

func TestLogfileHeaderAppendParse(t *testing.T) {
	for _, is64 := range []bool{false, true} {
		h := sampleLogfileHeader(is64)
		if !is64 {
			h.PointerSize = 4
		}
		b := h.Append(nil)
		size := header.LogfileHeaderSize32
		if is64 {
			size = header.LogfileHeaderSize64
		}
		assert.Len(t, b, size+2*(len("Relogger")+1)+2*(len(`C:\traces\out.etl`)+1))
		got, err := header.ParseLogfileHeader(b, is64)
		require.NoError(t, err)
		assert.Equal(t, h, got)
	}
}

func TestAppendLogfileRecord(t *testing.T) {
	h := sampleLogfileHeader(true)
	sh := header.SystemHeader{Version: 2, ThreadId: 24116, ProcessId: 34264, SystemTime: 2745263251517, KernelTime: 1, UserTime: 2}
	b, err := header.AppendLogfileRecord([]byte{0xAA}, &sh, &h)
	require.NoError(t, err)
	rec := b[1:]
	p, end, err := header.ParsePrefix(rec)
	require.NoError(t, err)
	require.False(t, end)
	assert.Equal(t, header.Prefix{Type: header.TypeSystem64, Size: len(rec)}, p)
	got, err := header.ParseSystemHeader(rec)
	require.NoError(t, err)
	assert.Equal(t, uint16(0), got.HookId)
	assert.Equal(t, sh.SystemTime, got.SystemTime)
	assert.Equal(t, sh.ThreadId, got.ThreadId)
	assert.Equal(t, sh.ProcessId, got.ProcessId)
	assert.Equal(t, sh.KernelTime, got.KernelTime)
	assert.Equal(t, sh.UserTime, got.UserTime)
	assert.Equal(t, sh.Version, got.Version)
	lh, err := header.ParseLogfileHeader(rec[got.DataOffset:], true)
	require.NoError(t, err)
	assert.Equal(t, h, lh)

	h.LogFileName = strings.Repeat("x", 0x8000)
	b, err = header.AppendLogfileRecord([]byte{0xAA}, &sh, &h)
	assert.ErrorContains(t, err, "exceeds")
	assert.Equal(t, []byte{0xAA}, b)
}

func TestTimeZoneNamesAreCut(t *testing.T) {
	h := sampleLogfileHeader(true)
	h.TimeZone.StandardName = strings.Repeat("ab", 20) // 40 units: cut to 32, no terminator
	got, err := header.ParseLogfileHeader(h.Append(nil), true)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("ab", 16), got.TimeZone.StandardName)
	assert.Equal(t, h.TimeZone.DaylightName, got.TimeZone.DaylightName)
	assert.Equal(t, h.BootTime, got.BootTime)
}
