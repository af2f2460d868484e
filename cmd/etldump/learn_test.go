package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/perfview"
	"github.com/etlkit/etlkit/internal/samples"
)

// metadataTrace writes a merged trace whose TDH metadata comes after the
// event it describes, followed by a malformed EventInfo record and half of
// an EventSource manifest.
func metadataTrace(t *testing.T) string {
	provider := uuid.MustParse("37ec75b6-b6bd-4846-bc92-f3fdc74d3ca2")
	info := etltest.EventInfo{
		Provider:     provider,
		Descriptor:   header.EventDescriptor{Id: 8, Opcode: 16, Task: 3, Level: 5},
		ProviderName: "Microsoft-Windows-Kernel-EventTracing", Task: "ETW_TASK_PROVIDER", Opcode: "ETW_OPCODE_REGISTER",
		TopLevel:   -1,
		Properties: []etltest.PropertyInfo{{Name: "ProviderName", InType: 15, OutType: 14, Count: 1, Length: 16}},
	}
	registered := uuid.MustParse("eef54e71-0661-422d-9a98-82fd4940b820")
	s := etltest.DefaultSession()
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		return b.WriteBuffer(etltest.Buffer{CPU: 0, SequenceNumber: 1},
			&etltest.Event{ProviderId: provider, Descriptor: info.Descriptor, ProcessId: 7, ThreadId: 8,
				TimeStamp: s.HeaderTimeStamp + 1, UserData: guid.AppendWindows(nil, registered)},
			&etltest.Full{Type: etltest.OpcodeEventInfo, Guid: etltest.MetaDataClass, TimeStamp: s.HeaderTimeStamp + 2, Payload: info.Bytes()},
			&etltest.Full{Type: etltest.OpcodeEventInfo, Guid: etltest.MetaDataClass, TimeStamp: s.HeaderTimeStamp + 3, Payload: []byte{1, 2, 3}},
			&etltest.Event{ProviderId: registered, Descriptor: etltest.ManifestDescriptor, ProcessId: 7, ThreadId: 8,
				TimeStamp: s.HeaderTimeStamp + 4, UserData: etltest.ManifestChunk(2, 1, []byte("</instrumentationManifest>"))},
		)
	})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "merged.etl")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

func TestLearnsTheTraceFirst(t *testing.T) {
	path := metadataTrace(t)
	var out, errOut bytes.Buffer
	code := run([]string{"--progress", "never", "--format", "jsonl", path}, &out, &errOut)
	assert.Equal(t, 0, code)
	assert.Contains(t, out.String(), `"ProviderName":"Microsoft-Windows-Kernel-EventTracing","EventName":"ETW_TASK_PROVIDER/ETW_OPCODE_REGISTER"`)
	assert.Contains(t, out.String(), `"Payload":{"ProviderName":"eef54e71-0661-422d-9a98-82fd4940b820"}`)
	warnings := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	require.Len(t, warnings, 2, errOut.String())
	assert.Regexp(t, `^etldump: .*merged.etl: MetaData/EventInfo record at file offset 0x[0-9a-f]+ \(buffer 1, offset 0x[0-9a-f]+\): TRACE_EVENT_INFO at offset 0x0: 3 bytes`, warnings[0])
	assert.Equal(t, "etldump: EventSource manifest of provider eef54e71-0661-422d-9a98-82fd4940b820 (process 7) incomplete: 1 of 2 chunks", warnings[1])

	// The names view learns too; counting without event-name filters does
	// not read the metadata at all.
	out.Reset()
	errOut.Reset()
	assert.Equal(t, 0, run([]string{"--progress", "never", "--stats", path}, &out, &errOut))
	assert.Contains(t, out.String(), "Microsoft-Windows-Kernel-EventTracing/ETW_TASK_PROVIDER/ETW_OPCODE_REGISTER")
	assert.NotEmpty(t, errOut.String())
	out.Reset()
	errOut.Reset()
	assert.Equal(t, 0, run([]string{"--progress", "never", "--count", path}, &out, &errOut))
	assert.Equal(t, "5\n", out.String(), "the trace header and four records")
	assert.Empty(t, errOut.String())
	out.Reset()
	errOut.Reset()
	assert.Equal(t, 0, run([]string{"--progress", "never", "--count", "--event-name", "ETW_TASK_PROVIDER/ETW_OPCODE_REGISTER", path}, &out, &errOut))
	assert.Equal(t, "1\n", out.String())
	assert.NotEmpty(t, errOut.String())
}

// TestTraceMetadataMatchesTraceEvent holds the events the merged .NET 4.5.2
// sample describes itself (TDH metadata for the Kernel-* providers,
// EventSource manifests for PerfView's and the .NET Framework's sources)
// to TraceEvent's listing, and names every miss.
func TestTraceMetadataMatchesTraceEvent(t *testing.T) {
	outs := compareWithPerfView(t, "net452-x64-merged-compressed.etl",
		[]string{"Microsoft-Windows-Kernel-", "PerfView/", "System.Threading.Tasks.TplEventSource/", "System.Diagnostics.Eventing.FrameworkEventSource/"})
	total := perfview.Total(outs)
	t.Logf("%v", total)
	perfview.CheckMisses(t, outs, map[perfview.MissKey]perfview.Known{
		// TraceEvent names Kernel-File Create's CreateOptions (its low 24
		// bits, FILE_* create options) with the names of file attributes:
		// 0x20, FILE_SYNCHRONOUS_IO_NONALERT, shows as
		// FILE_ATTRIBUTE_ARCHIVE.
		{Event: "Microsoft-Windows-Kernel-File/Create", Field: "CreateOptions"}: {Lines: 2, Why: perfview.Misreads},
	})
	assert.Equal(t, perfview.Score{Names: 64, NamesAll: 64, Fields: 198, FieldsAll: 200}, total)
}

func TestDiaghubUserPagedDecodes(t *testing.T) {
	// The user-mode part of a Diagnostics Hub capture: .NET runtime
	// events (built-in tables), TplEventSource's (its own manifest, in the
	// trace) and TraceLogging events. One record of a provider no source
	// knows stays raw.
	out, errs, code := runCmd(t, "--format", "jsonl", samples.Path(t, "diaghub-user-paged.etl"))
	require.Equal(t, 0, code, errs)
	assert.Empty(t, errs)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	decoded := 0
	var raw []string
	for _, l := range lines {
		if strings.Contains(l, `"EventName":`) && (strings.Contains(l, `"Payload":`) || !strings.Contains(l, `"UserData":`)) {
			decoded++
		} else {
			raw = append(raw, l[:min(len(l), 160)])
		}
	}
	assert.Equal(t, 22035, len(lines))
	assert.Equal(t, 22034, decoded)
	require.Len(t, raw, 1)
	assert.Contains(t, raw[0], `"ProviderId":"6f669bfa-816a-4204-a824-47c8e6a00474","Id":2`)
}
