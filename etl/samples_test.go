package etl_test

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
)

// sampleCounts is the samples README table: records per header type.
var sampleCounts = map[string]map[header.Type]int{
	"amsi-tracelogging.etl":            {header.TypeSystem64: 2, header.TypeEventHeader64: 19},
	"shutdown-kernel.etl":              {header.TypeSystem64: 8433, header.TypePerfInfo64: 8645},
	"lxcore-tracelogging.etl":          {header.TypeSystem64: 2, header.TypeEventHeader64: 2},
	"selfdescribing-compressed.etl":    {header.TypeSystem64: 4, header.TypeFull64: 18, header.TypeEventHeader64: 1},
	"gcevents-manifest.etl":            {header.TypeSystem64: 2, header.TypeEventHeader64: 69},
	"gcrundown-manifest.etl":           {header.TypeSystem64: 2, header.TypeEventHeader64: 110},
	"primitive-types-tracelogging.etl": {header.TypeSystem64: 2, header.TypeEventHeader64: 5},
	"net452-x64-merged-compressed.etl": {header.TypeSystem64: 3189, header.TypePerfInfo64: 100157, header.TypeFull64: 7956,
		header.TypeEventHeader32: 33378, header.TypeEventHeader64: 34765, header.TypeFull32: 27, header.TypeSystem32: 2},
	"small-32bit-compressed.etl":      {header.TypeSystem32: 1, header.TypeEventHeader32: 1},
	"diaghub-classic.etl":             {header.TypeSystem64: 1, header.TypeFull64: 62378},
	"diaghub-kernel.etl":              {header.TypeSystem64: 1035, header.TypePerfInfo64: 15299, header.TypeEventHeader64: 1},
	"diaghub-user-injected.etl":       {header.TypeSystem64: 1, header.TypeEventHeader64: 3},
	"diaghub-user-paged.etl":          {header.TypeSystem64: 1, header.TypeEventHeader64: 22034},
	"powershell-manifest.etl":         {header.TypeSystem64: 2, header.TypeEventHeader64: 112},
	"sonde-tracelogging.etl":          {header.TypeSystem64: 4, header.TypePerfInfo64: 2, header.TypeFull64: 97, header.TypeEventHeader64: 9},
	"hw3d-tracelogging.etl":           {header.TypeSystem64: 2, header.TypeEventHeader64: 1},
	"win7-relogged-classic.etl":       {header.TypeSystem64: 1, header.TypeFull64: 109, header.TypeEventHeader64: 4},
	"win7-user-manifest.etl":          {header.TypeSystem64: 1, header.TypeEventHeader64: 5},
	"win7-netdiag-diagnose.etl":       {header.TypeSystem64: 1, header.TypeEventHeader64: 95},
	"win7-netdiag-repair-append.etl":  {header.TypeSystem64: 1, header.TypeEventHeader64: 9},
	"win7-explorer-startup.etl":       {header.TypeSystem64: 1, header.TypeEventHeader64: 106},
	"win7-explorer-runonce-32bit.etl": {header.TypeSystem32: 1, header.TypeEventHeader32: 35},
	"win10-explorer-startup.etl":      {header.TypeSystem64: 1, header.TypeEventHeader64: 4792},
	"win11-sih.etl":                   {header.TypeSystem64: 2, header.TypeEventHeader64: 10},
	"win11-waasmedic.etl":             {header.TypeSystem64: 2, header.TypePerfInfo64: 2, header.TypeEventHeader64: 17},
	"win11-waasmedic.etl.gz":          {header.TypeSystem64: 2, header.TypePerfInfo64: 2, header.TypeEventHeader64: 17},
	"win11-waasmedic.etl.zst":         {header.TypeSystem64: 2, header.TypePerfInfo64: 2, header.TypeEventHeader64: 17},
	"win11-waasmedic.etl.bz2":         {header.TypeSystem64: 2, header.TypePerfInfo64: 2, header.TypeEventHeader64: 17},
	"win11-onedrive-cldflt0.etlgz":    {header.TypeSystem64: 2, header.TypePerfInfo64: 2, header.TypeMessage: 13},
	"win11-onedrive-cldflt1.etlgz":    {header.TypeSystem64: 2, header.TypePerfInfo64: 2, header.TypeMessage: 3},
}

func TestSampleRecordCounts(t *testing.T) {
	for name, want := range sampleCounts {
		t.Run(name, func(t *testing.T) {
			f, err := etl.Open(samples.Path(t, name))
			require.NoError(t, err)
			defer f.Close()
			got := map[header.Type]int{}
			first := true
			for r, err := range f.Records() {
				require.NoError(t, err)
				if first {
					// The logfile-header record comes first.
					assert.Equal(t, uint16(0), r.HookId)
					assert.Contains(t, []header.Type{header.TypeSystem32, header.TypeSystem64}, r.HeaderType)
					first = false
				}
				got[r.HeaderType]++
			}
			assert.Equal(t, want, got)
			st := f.Stats()
			total := 0
			for _, n := range want {
				total += n
			}
			assert.Equal(t, total, st.Records)
			assert.Zero(t, st.ErrorCount)
			assert.False(t, st.Damaged())
		})
	}
}

// digest summarises everything a record delivers, to compare two reads.
func digest(t *testing.T, f *etl.File) string {
	h := sha256.New()
	n := 0
	for r, err := range f.Records() {
		require.NoError(t, err)
		fmt.Fprintf(h, "%v|%v|%v|%d|%d|%d|%x|", r.HeaderType, r.ProviderId, r.TimeStamp(), r.ProcessorNumber, r.ThreadId, r.ProcessId, r.Raw)
		n++
	}
	return fmt.Sprintf("%d:%x", n, h.Sum(nil))
}

func TestWrappedSamplesEqualPlain(t *testing.T) {
	plain, err := etl.Open(samples.Path(t, "win11-waasmedic.etl"))
	require.NoError(t, err)
	defer plain.Close()
	want := digest(t, plain)
	for name, wrapper := range map[string]etl.Wrapper{
		"win11-waasmedic.etl.gz": etl.WrapperGzip, "win11-waasmedic.etl.zst": etl.WrapperZstd, "win11-waasmedic.etl.bz2": etl.WrapperBzip2,
	} {
		f, err := etl.Open(samples.Path(t, name))
		require.NoError(t, err, name)
		assert.Equal(t, wrapper, f.Wrapper, name)
		assert.Equal(t, want, digest(t, f), name)
		assert.Equal(t, plain.Header().LogfileHeader, f.Header().LogfileHeader, name)
		f.Close()
	}
}

func TestCorruptSampleIsReportedNotRead(t *testing.T) {
	_, err := etl.Open(samples.Path(t, "corrupt-zero-bytes-replaced.etl"))
	require.Error(t, err)
	assert.ErrorIs(t, err, etl.ErrNotETL)
	var fe *etl.FormatError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, int64(0x48), fe.Offset)
	assert.Contains(t, err.Error(), "offset 0x48")
}

func TestRealTimeBackupFilesAreRead(t *testing.T) {
	cases := []struct {
		name          string
		records       int
		first, last   string
		assumed       bool
		firstProvider string
	}{
		// System-time clock: the raw stamps are FILETIMEs.
		{"rtbackup-rlfs-application.etl", 1, "2016-04-20T17:02:00.2945210Z", "2016-04-20T17:02:00.2945210Z", false, "67d07935-283a-4791-8f8d-fa9117f3e6f2"},
		{"rtbackup-rlfs-system.etl", 4, "2016-04-20T17:02:03.1254340Z", "2016-04-20T17:02:04.3432352Z", false, "11cd958a-c507-4ef3-b3f2-5fd9dfbd2c78"},
		// QPC clock with the frequency assumed.
		{"rtbackup-rlfs-diaglog.etl", 2, "2016-04-20T16:54:02.2574947Z", "2016-04-20T16:54:07.4814409Z", true, "4cb314df-c11f-47d7-9c04-65fb0051561b"},
	}
	for _, c := range cases {
		f, err := etl.Open(samples.Path(t, c.name))
		require.NoError(t, err, c.name)
		h := f.Header()
		require.NotNil(t, h.RealTimeBackup, c.name)
		assert.Equal(t, c.assumed, h.ClockAssumed, c.name)
		var times []string
		var providers []string
		for r, err := range f.Records() {
			require.NoError(t, err, c.name)
			assert.Equal(t, header.TypeEventHeader64, r.HeaderType)
			times = append(times, r.TimeStamp().Format("2006-01-02T15:04:05.0000000Z"))
			providers = append(providers, r.ProviderId.String())
			if c.name == "rtbackup-rlfs-application.etl" {
				it, ok := r.Extended(record.ExtSID)
				require.True(t, ok)
				sid, err := it.SID()
				require.NoError(t, err)
				assert.Equal(t, "S-1-5-19", sid.String())
				assert.Equal(t, uint16(10004), r.EventDescriptor.Id)
				assert.Equal(t, uint32(948), r.ProcessId)
			}
		}
		require.Len(t, times, c.records, c.name)
		assert.Equal(t, c.first, times[0], c.name)
		assert.Equal(t, c.last, times[len(times)-1], c.name)
		assert.Equal(t, c.firstProvider, providers[0], c.name)
		assert.False(t, f.Stats().Damaged(), c.name)
		f.Close()
	}
}

// perfviewEvent is one EVENT line of an expected/*.perfview.txt file.
type perfviewEvent struct {
	ms       string // relative time in ms as printed, without thousands separators
	name     string
	pid, tid int64
	cpu      int
	fields   map[string]string
}

var eventLine = regexp.MustCompile(`^EVENT ([\d,]+\.\d+): (.*?) PID=(-?\d+); TID=(-?\d+); PName=[^;]*; ProceNum=(\d+); (.*)$`)

func readPerfView(t *testing.T, name string) []perfviewEvent {
	fh, err := os.Open(samples.Path(t, "expected/"+name))
	require.NoError(t, err)
	defer fh.Close()
	var out []perfviewEvent
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := eventLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ev := perfviewEvent{ms: strings.ReplaceAll(m[1], ",", ""), name: m[2], fields: map[string]string{}}
		ev.pid, _ = strconv.ParseInt(m[3], 10, 64)
		ev.tid, _ = strconv.ParseInt(m[4], 10, 64)
		ev.cpu, _ = strconv.Atoi(m[5])
		for _, kv := range strings.Split(m[6], "; ") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				ev.fields[k] = strings.TrimSuffix(v, ";")
			}
		}
		out = append(out, ev)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out)
	return out
}

// perfviewTime renders a FILETIME the way the expected files print dates:
// yy/MM/dd HH:mm:ss.ff followed by "...".
func perfviewTime(ft int64) string {
	return header.FileTimeToTime(ft).Format("06/01/02 15:04:05.00") + "..."
}

func perfviewNumber(v uint64) string {
	s := strconv.FormatUint(v, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func perfviewString(s string) string {
	if r := []rune(s); len(r) > 20 {
		return string(r[:20]) + "..."
	}
	return s
}

var perfviewFiles = map[string]string{
	"gcevents-manifest.etl":            "gcevents-manifest.perfview.txt",
	"gcrundown-manifest.etl":           "gcrundown-manifest.perfview.txt",
	"net452-x64-merged-compressed.etl": "net452-x64-merged-compressed.perfview.txt",
	"primitive-types-tracelogging.etl": "primitive-types-tracelogging.perfview.txt",
}

func TestLogfileHeaderMatchesTraceEvent(t *testing.T) {
	for file, expected := range perfviewFiles {
		t.Run(file, func(t *testing.T) {
			events := readPerfView(t, expected)
			hdr := events[0]
			require.Equal(t, "Windows Kernel/EventTrace", hdr.name)
			f, err := etl.Open(samples.Path(t, file))
			require.NoError(t, err)
			defer f.Close()
			h := f.Header()
			got := map[string]string{
				"BufferSize":         perfviewNumber(uint64(h.BufferSize)),
				"Version":            perfviewNumber(uint64(h.Version)),
				"ProviderVersion":    perfviewNumber(uint64(h.ProviderVersion)),
				"NumberOfProcessors": perfviewNumber(uint64(h.NumberOfProcessors)),
				"EndTime":            perfviewTime(h.EndTime),
				"TimerResolution":    perfviewNumber(uint64(h.TimerResolution)),
				"MaxFileSize":        perfviewNumber(uint64(h.MaximumFileSize)),
				"LogFileMode":        perfviewNumber(uint64(h.LogFileMode)),
				"BuffersWritten":     perfviewNumber(uint64(h.BuffersWritten)),
				"StartBuffers":       perfviewNumber(uint64(h.StartBuffers)),
				"PointerSize":        perfviewNumber(uint64(h.PointerSize)),
				"EventsLost":         perfviewNumber(uint64(h.EventsLost)),
				"CPUSpeed":           perfviewNumber(uint64(h.CPUSpeedInMHz)),
				"BootTime":           perfviewTime(h.BootTime),
				"PerfFreq":           perfviewNumber(uint64(h.PerfFreq)),
				"StartTime":          perfviewTime(h.StartTime),
				"ReservedFlags":      perfviewNumber(uint64(h.ReservedFlags)),
				"BuffersLost":        perfviewNumber(uint64(h.BuffersLost)),
				"SessionName":        perfviewString(h.LoggerName),
				"LogFileName":        perfviewString(h.LogFileName),
				"UtcOffsetMinutes":   strconv.Itoa(int(h.TimeZone.Bias)),
			}
			for k, v := range got {
				assert.Equal(t, hdr.fields[k], v, "field %s", k)
			}
			assert.Equal(t, hdr.pid, int64(h.ProcessId))
			assert.Equal(t, hdr.tid, int64(h.ThreadId))
		})
	}
}

// TestRelativeTimesMatchTraceEvent checks that every event TraceEvent printed
// exists among our records with the same process, thread, processor and
// time after the session start (printed in ms with 3 decimals).
func TestRelativeTimesMatchTraceEvent(t *testing.T) {
	for file, expected := range perfviewFiles {
		t.Run(file, func(t *testing.T) {
			events := readPerfView(t, expected)
			f, err := etl.Open(samples.Path(t, file))
			require.NoError(t, err)
			defer f.Close()
			start := header.FileTimeToTime(f.Header().StartTime)
			type key struct {
				ms       string
				pid, tid int64
				cpu      int
			}
			have := map[key]bool{}
			// TraceEvent gives kernel events the ids it finds in their
			// payload or infers from context switches (PERFINFO records have
			// none in their header); those are matched on time and processor.
			haveTimeCPU := map[key]bool{}
			for r, err := range f.Records() {
				require.NoError(t, err)
				d := r.TimeStamp().Sub(start)
				require.Zero(t, d%100, "times are whole 100 ns units")
				pid, tid := int64(-1), int64(-1)
				if r.HasThreadProcess {
					pid, tid = int64(int32(r.ProcessId)), int64(int32(r.ThreadId))
				}
				have[key{msString(d), pid, tid, int(r.ProcessorNumber)}] = true
				if r.HeaderType.IsKernel() {
					haveTimeCPU[key{ms: msString(d), cpu: int(r.ProcessorNumber)}] = true
				}
			}
			missing := 0
			for _, ev := range events {
				if have[key{ev.ms, ev.pid, ev.tid, ev.cpu}] {
					continue
				}
				if strings.HasPrefix(ev.name, "Windows Kernel/") && haveTimeCPU[key{ms: ev.ms, cpu: ev.cpu}] {
					continue
				}
				{
					missing++
					if missing < 5 {
						t.Errorf("no record at %s ms pid %d tid %d cpu %d (%s)", ev.ms, ev.pid, ev.tid, ev.cpu, ev.name)
					}
				}
			}
			assert.Zero(t, missing, "of %d events", len(events))
		})
	}
}

// msString renders a duration in ms with 3 decimals, rounding half away from zero.
func msString(d time.Duration) string {
	us := d / time.Microsecond
	if rem := d % time.Microsecond; rem >= 500*time.Nanosecond {
		us++
	} else if rem <= -500*time.Nanosecond {
		us--
	}
	sign := ""
	if us < 0 {
		sign, us = "-", -us
	}
	return fmt.Sprintf("%s%d.%03d", sign, us/1000, us%1000)
}

func TestOpenMissingFile(t *testing.T) {
	_, err := etl.Open("does-not-exist.etl")
	require.Error(t, err)
	assert.True(t, errors.Is(err, os.ErrNotExist))
}
