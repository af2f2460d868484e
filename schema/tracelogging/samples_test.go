package tracelogging_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	tl "github.com/etlkit/etlkit/schema/tracelogging"
)

// tlEvent is a decoded TraceLogging record, kept past the iteration.
type tlEvent struct {
	provider  string
	name      string
	pid, tid  uint32
	cpu       uint16
	dataLen   int
	channel   uint8
	opcode    uint8
	vals      []payload.Value
	decodeErr error
}

// readTL decodes every TraceLogging record of a sample. It also checks
// that only EVENT_HEADER records carry a schema, and counts the
// EVENT_HEADER records.
func readTL(t *testing.T, name string) (events []tlEvent, eventHeaders int) {
	t.Helper()
	f, err := etl.Open(samples.Path(t, name))
	require.NoError(t, err)
	defer f.Close()
	var cache tl.Cache
	var traits record.TraitsCache
	for r, err := range f.Records() {
		require.NoError(t, err)
		if r.HeaderType == header.TypeEventHeader32 || r.HeaderType == header.TypeEventHeader64 {
			eventHeaders++
		}
		it, ok := r.Extended(record.ExtEventSchemaTL)
		if !ok {
			continue
		}
		require.Contains(t, []header.Type{header.TypeEventHeader32, header.TypeEventHeader64}, r.HeaderType)
		s, err := cache.Schema(it.Data)
		require.NoError(t, err, "schema of record at offset %#x", r.FileOffset)
		vals, derr := s.Decode(r.UserData, r.PointerSize(), nil)
		ev := tlEvent{
			provider: traits.ProviderName(r), name: s.Name, pid: r.ProcessId, tid: r.ThreadId,
			cpu: r.ProcessorNumber, dataLen: len(r.UserData), channel: r.EventDescriptor.Channel,
			opcode: r.EventDescriptor.Opcode, decodeErr: derr,
		}
		for _, v := range vals {
			ev.vals = append(ev.vals, v.Clone())
		}
		events = append(events, ev)
	}
	return events, eventHeaders
}

func field(t *testing.T, ev tlEvent, name string) payload.Value {
	t.Helper()
	v, ok := payload.Lookup(ev.vals, name)
	require.True(t, ok, "event %s has no field %s", ev.name, name)
	return v
}

// TestPrimitiveTypesSample checks every field of every event against what
// TraceEvent printed for the same file.
func TestPrimitiveTypesSample(t *testing.T) {
	events, _ := readTL(t, "primitive-types-tracelogging.etl")
	dir := samples.Dir()
	fh, err := os.Open(filepath.Join(dir, "expected", "primitive-types-tracelogging.perfview.txt"))
	require.NoError(t, err)
	defer fh.Close()

	var expected [][][2]string
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "EVENT ") || !strings.Contains(line, "solar_system/PrimitiveTypesTest") {
			continue
		}
		var kv [][2]string
		for _, part := range strings.Split(line[strings.Index(line, "PID="):], "; ") {
			if k, v, ok := strings.Cut(part, "="); ok {
				kv = append(kv, [2]string{k, strings.TrimSpace(v)})
			}
		}
		expected = append(expected, kv)
	}
	require.NoError(t, sc.Err())
	require.Len(t, expected, 5)
	require.Len(t, events, 5)

	checked := 0
	for i, ev := range events {
		assert.NoError(t, ev.decodeErr)
		assert.Equal(t, "solar_system", ev.provider)
		assert.Equal(t, "PrimitiveTypesTest", ev.name)
		assert.Equal(t, uint8(record.ChannelTraceLogging), ev.channel)
		assert.Len(t, ev.vals, 12)
		var fileTime time.Time
		for _, kv := range expected[i] {
			k, want := kv[0], kv[1]
			// TraceEvent cuts long values to 20 characters and "...".
			prefix := strings.TrimSuffix(want, "...")
			cut := prefix != want
			switch k {
			case "PID":
				assert.Equal(t, want, strconv.FormatUint(uint64(ev.pid), 10))
			case "TID":
				assert.Equal(t, want, strconv.FormatUint(uint64(ev.tid), 10))
			case "ProceNum":
				assert.Equal(t, want, strconv.FormatUint(uint64(ev.cpu), 10))
			case "DataLen":
				assert.Equal(t, want, strconv.Itoa(ev.dataLen))
			case "PName":
			case "string_type":
				assert.Equal(t, want, field(t, ev, k).Str())
			case "boolean_type":
				v := field(t, ev, k)
				assert.Equal(t, payload.KindBool, v.Kind())
				assert.Equal(t, want, map[bool]string{true: "True", false: "False"}[v.Bool()])
			case "char_type", "uint16_type", "uint32_type", "uint64_type":
				assert.Equal(t, want, strconv.FormatUint(field(t, ev, k).Uint(), 10), k)
			case "int16_type", "int32_type":
				assert.Equal(t, want, strconv.FormatInt(field(t, ev, k).Int(), 10), k)
			case "int64_type":
				// The metadata declares this field UInt64 (InType 10);
				// TraceEvent shows it signed. Both read the same bits.
				v := field(t, ev, k)
				assert.Equal(t, payload.InUInt64, v.InType())
				assert.Equal(t, want, strconv.FormatInt(v.Int(), 10))
			case "guid_type":
				got := field(t, ev, k).String()
				require.True(t, cut)
				assert.True(t, strings.HasPrefix(got, prefix), "%s: %s vs %s", k, got, want)
			case "file_time_type":
				fileTime = field(t, ev, k).Time()
				got := fileTime.Format("06/01/02 15:04:05.0000000")
				assert.True(t, strings.HasPrefix(got, prefix), "%s: %s vs %s", k, got, want)
			case "system_time_type":
				// TraceEvent prints the seconds value again as the fraction
				// (…:35.03… for a SYSTEMTIME of …:35 and 799 ms), so only the
				// part up to the seconds is compared; the milliseconds are
				// checked against the FILETIME the writer took at the same
				// moment.
				st := field(t, ev, k).Time()
				got := st.Format("06/01/02 15:04:05")
				assert.Equal(t, prefix[:len(got)], got, k)
				assert.Equal(t, fileTime.Truncate(time.Millisecond), st, "SYSTEMTIME and FILETIME agree")
			default:
				t.Errorf("unexpected expected field %q", k)
				continue
			}
			checked++
		}
	}
	assert.Equal(t, 5*17, checked, "every expected value was compared")
}

func TestSelfDescribingSample(t *testing.T) {
	events, _ := readTL(t, "selfdescribing-compressed.etl")
	require.Len(t, events, 1)
	ev := events[0]
	require.NoError(t, ev.decodeErr)
	assert.Equal(t, "MySource", ev.provider)
	assert.Equal(t, "TestEvent", ev.name)
	require.Len(t, ev.vals, 1)
	a := field(t, ev, "a")
	assert.Equal(t, payload.KindStruct, a.Kind())
	b, _ := a.Member("b")
	c, _ := a.Member("c")
	assert.Equal(t, "Hello", b.Str())
	assert.Equal(t, "World!", c.Str())
	assert.Equal(t, `{"a":{"b":"Hello","c":"World!"}}`, string(payload.AppendJSONObject(nil, ev.vals)))
}

func TestTraceLoggingSamples(t *testing.T) {
	cases := []struct {
		file string
		// events per "provider/event"; every EVENT_HEADER record of these
		// files is a TraceLogging event, so the total also matches the
		// samples README.
		counts map[string]int
		check  func(t *testing.T, events []tlEvent)
	}{
		{"amsi-tracelogging.etl", map[string]int{"AmsiTrace/AmsiScript": 19}, func(t *testing.T, evs []tlEvent) {
			engines := map[string]int{}
			for _, ev := range evs {
				engines[field(t, ev, "Engine").Str()]++
				// "Raw Script" is the script again as UTF-16 code units.
				raw := field(t, ev, "Raw Script")
				assert.Equal(t, payload.CountPrefixed, raw.Field().Arity)
				units := make([]uint16, len(raw.Elems()))
				for i, e := range raw.Elems() {
					units[i] = uint16(e.Uint())
				}
				assert.Equal(t, field(t, ev, "Script").Str(), string(utf16.Decode(units)))
				assert.True(t, raw.IsText())
				assert.Equal(t, field(t, ev, "Script").Str(), raw.Str())
			}
			assert.Equal(t, map[string]int{
				`PowerShell_C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe_10.0.18362.1`: 15,
				"VBScript": 4,
			}, engines)
			assert.Equal(t, "Get-Alias", field(t, evs[2], "Script").Str())
		}},
		{"lxcore-tracelogging.etl", map[string]int{"Microsoft.Windows.Subsystem.LxCore/BreakPoint": 2}, func(t *testing.T, evs []tlEvent) {
			ev := evs[0]
			assert.Equal(t, uint64(2), field(t, ev, "ErrorLevel").Uint())
			assert.Equal(t, int64(-1), field(t, ev, "LxPid").Int())
			assert.Equal(t, "", field(t, ev, "ExecutablePath").Str())
			assert.Equal(t, "LxpInstanceStart", field(t, ev, "Function").Str())
			assert.Equal(t, uint64(2659), field(t, ev, "Line").Uint())
			assert.Equal(t, "[0xc0000034] LxpInstanceInitialize\n", field(t, ev, "Message").Str())
			assert.Equal(t, "LxpDrvFsTypeMount", field(t, evs[1], "Function").Str())
		}},
		{"win11-waasmedic.etl", map[string]int{"Microsoft.Windows.WaaSMedic.Local/Info": 16, "Microsoft.Windows.WaaSMedic.Local/Warning": 1}, func(t *testing.T, evs []tlEvent) {
			assert.Equal(t, "** Service starting **", field(t, evs[0], "m").Str())
			assert.Equal(t, "WaaSMedic service module version: 10.0.22621.5547", field(t, evs[1], "m").Str())
		}},
		{"win11-sih.etl", map[string]int{"SIHTraceLogging/SIH": 10}, func(t *testing.T, evs []tlEvent) {
			assert.Equal(t, "wmain", field(t, evs[0], "Info").Str())
			assert.Equal(t, "DNS Resiliency Feature is switched ON.", field(t, evs[3], "Info").Str())
		}},
		{"sonde-tracelogging.etl", map[string]int{
			`sonde-gateway/event crates\sonde-gateway\src\modem.rs:583`:  3,
			`sonde-gateway/event crates\sonde-gateway\src\engine.rs:581`: 2,
			`sonde-gateway/event crates\sonde-gateway\src\engine.rs:586`: 2,
			`sonde-gateway/event crates\sonde-gateway\src\engine.rs:707`: 2,
		}, func(t *testing.T, evs []tlEvent) {
			ev := evs[0]
			tm := field(t, ev, "time")
			assert.Equal(t, payload.InSystemTime, tm.InType())
			assert.Equal(t, payload.OutDateTimeUTC, tm.OutType())
			assert.Equal(t, time.Date(2026, 3, 27, 3, 57, 13, 336e6, time.UTC), tm.Time())
			msg := field(t, ev, "message")
			assert.Equal(t, payload.OutUTF8, msg.OutType())
			assert.Equal(t, "modem health poll failed", msg.Str())
			assert.Equal(t, "session created", field(t, evs[1], "message").Str())
			assert.Equal(t, uint64(629728878295337597), field(t, evs[1], "seq").Uint())
			assert.Equal(t, uint64(3300), field(t, evs[2], "battery_mv").Uint())
		}},
		{"hw3d-tracelogging.etl", map[string]int{"Atum-Hw3d/WinMain": 1}, func(t *testing.T, evs []tlEvent) {
			assert.Equal(t, `{"lpCmdLine":"","nCmdShow":10}`, string(payload.AppendJSONObject(nil, evs[0].vals)))
		}},
		{"diaghub-user-paged.etl", map[string]int{
			"Microsoft-Diagnostics-DiagnosticSource/Message":               80,
			"Microsoft-Diagnostics-DiagnosticSource/NewDiagnosticListener": 8,
			"Microsoft-Diagnostics-DiagnosticSource/Activity1Start":        1,
			"Microsoft-Diagnostics-DiagnosticSource/Activity1Stop":         2,
			"Microsoft-Diagnostics-DiagnosticSource/Activity2Start":        110,
			"Microsoft-Diagnostics-DiagnosticSource/Activity2Stop":         55,
		}, func(t *testing.T, evs []tlEvent) {
			structArrays := 0
			for _, ev := range evs {
				if ev.name != "Activity1Start" {
					continue
				}
				// Arguments is a variable array of {Key, Value} structs.
				assert.Equal(t, uint8(1), ev.opcode)
				assert.Equal(t, "Microsoft.EntityFrameworkCore", field(t, ev, "SourceName").Str())
				assert.Equal(t, "Microsoft.EntityFrameworkCore.Database.Transaction.TransactionStarting", field(t, ev, "EventName").Str())
				assert.Equal(t, `[{"Key":"TransactionId","Value":"6abc0ead-1705-4f4a-9d77-9d210a4a9b5c"},{"Key":"IsAsync","Value":"False"}]`,
					field(t, ev, "Arguments").String())
				structArrays++
			}
			assert.Equal(t, 1, structArrays)
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			events, eventHeaders := readTL(t, c.file)
			got := map[string]int{}
			total := 0
			for _, ev := range events {
				assert.NoError(t, ev.decodeErr, "%s/%s", ev.provider, ev.name)
				assert.NotEmpty(t, ev.provider)
				assert.NotEmpty(t, ev.name)
				assert.NotEmpty(t, ev.vals)
				assert.Equal(t, uint8(record.ChannelTraceLogging), ev.channel)
				got[ev.provider+"/"+ev.name]++
				total++
			}
			assert.Equal(t, c.counts, got)
			if c.file != "diaghub-user-paged.etl" {
				assert.Equal(t, eventHeaders, total, "every EVENT_HEADER record is TraceLogging")
			}
			c.check(t, events)
		})
	}
}
