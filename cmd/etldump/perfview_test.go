package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/internal/duckdb"
	"github.com/etlkit/etlkit/internal/perfview"
	"github.com/etlkit/etlkit/internal/samples"
)

// compareWithPerfView runs etldump --format jsonl (with extra flags) on a
// sample and holds the records of the EVENT lines of its TraceEvent
// listing whose names start with one of the prefixes against them, as
// package perfview matches them.
func compareWithPerfView(t *testing.T, trace string, prefixes []string, extra ...string) []perfview.Outcome {
	t.Helper()
	listing, path := perfview.ReadSample(t, trace)
	events := listing.Of(prefixes...)
	require.NotEmpty(t, events)
	out, errs, code := runCmd(t, append(append([]string{"--format", "jsonl"}, extra...), path)...)
	require.Equal(t, 0, code, errs)

	// Only the records at the listed times are decoded in full: the
	// output of a large trace is mostly other records.
	x := perfview.NewIndex[any](events)
	var t0 int64
	first := true
	for line := range strings.Lines(out) {
		ts, cpu, ok := jsonTimeAndCPU(line)
		require.True(t, ok, "no TimeStamp or ProcessorNumber in %.200s", line)
		if first {
			t0, first = ts, false
		}
		us := (ts - t0) / 10
		if !x.Wants(cpu, us) {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var m map[string]any
		require.NoError(t, dec.Decode(&m))
		prov, _ := m["ProviderName"].(string)
		if prov == "" {
			prov, _ = m["ProviderId"].(string)
		}
		ev, _ := m["EventName"].(string)
		pid, hasPID := jsonInt(m["ProcessId"])
		tid, hasTID := jsonInt(m["ThreadId"])
		r := &perfview.Record[any]{Name: prov + "/" + ev, PID: uint32(pid), TID: uint32(tid), HasIDs: hasPID && hasTID,
			Fields: map[string]any{}}
		if p, ok := m["Payload"].(map[string]any); ok {
			for k, v := range p {
				r.Fields[strings.ToLower(k)] = v
			}
		}
		x.Add(cpu, us, r)
	}
	require.False(t, first, "no records")
	return perfview.Match(events, x, perfview.JSONAgree)
}

// jsonTimeAndCPU reads TimeStamp (as 100 ns ticks) and ProcessorNumber
// from a jsonl line without decoding the rest.
func jsonTimeAndCPU(line string) (ts int64, cpu int, ok bool) {
	_, rest, ok := strings.Cut(line, `"TimeStamp":"`)
	if !ok {
		return 0, 0, false
	}
	stamp, _, ok := strings.Cut(rest, `"`)
	if !ok {
		return 0, 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		return 0, 0, false
	}
	_, rest, ok = strings.Cut(line, `"ProcessorNumber":`)
	if !ok {
		return 0, 0, false
	}
	end := 0
	for end < len(rest) && '0' <= rest[end] && rest[end] <= '9' {
		end++
	}
	n, err := json.Number(rest[:end]).Int64()
	return t.UnixNano() / 100, int(n), err == nil
}

func jsonInt(v any) (int64, bool) {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i, true
		}
	}
	return 0, false
}

// dotNetPrefix selects the .NET runtime's providers in a listing.
var dotNetPrefix = []string{"Microsoft-Windows-DotNETRuntime"}

// TestDotNetMatchesTraceEvent holds the .NET runtime events of the
// manifest samples, decoded with the built-in tables, to TraceEvent's
// listings: names and fields match at 98% or more, and every miss is named
// here.
func TestDotNetMatchesTraceEvent(t *testing.T) {
	for _, c := range []struct {
		trace  string
		score  perfview.Score
		misses map[perfview.MissKey]perfview.Known
	}{
		{"gcevents-manifest.etl", perfview.Score{Names: 51, NamesAll: 51, Fields: 275, FieldsAll: 275, EmptyAbsent: 4}, nil},
		{"gcrundown-manifest.etl", perfview.Score{Names: 24, NamesAll: 24, Fields: 173, FieldsAll: 174}, map[perfview.MissKey]perfview.Known{
			// A bit map of GC settings the manifest does not give.
			{Event: "Microsoft-Windows-DotNETRuntimeRundown/GC/SettingsRundown", Field: "BitSettings"}: {Lines: 1, Why: perfview.Unnamed},
		}},
	} {
		t.Run(c.trace, func(t *testing.T) {
			outs := compareWithPerfView(t, c.trace, dotNetPrefix)
			total := perfview.Total(outs)
			t.Logf("%s: %v; %d fields TraceEvent prints empty are absent", c.trace, total, total.EmptyAbsent)
			perfview.CheckMisses(t, outs, c.misses)
			assert.Equal(t, c.score, total)
			assert.GreaterOrEqual(t, float64(total.Names), 0.98*float64(total.NamesAll), "names")
			assert.GreaterOrEqual(t, float64(total.Fields), 0.98*float64(total.FieldsAll), "fields")
		})
	}
}

// TestDotNetMergedTraceMatchesTraceEvent compares the .NET runtime events
// of the merged .NET 4.5.2 sample, decoded with the built-in tables, to
// TraceEvent's listing, and names every miss: fields TraceEvent shows
// that the record does not hold (those of a later version of the event
// than the record's, printed as 0 or Unknown), the first element of an
// array printed as fields of their own, and the private provider's
// GC/PerHeapHistory, which TraceEvent reads with the public provider's
// template (its own template declares no fields: we keep the record's
// bytes as TrailingData).
func TestDotNetMergedTraceMatchesTraceEvent(t *testing.T) {
	outs := compareWithPerfView(t, "net452-x64-merged-compressed.etl", dotNetPrefix)
	total := perfview.Total(outs)
	t.Logf("%v; %d fields TraceEvent prints empty are absent", total, total.EmptyAbsent)
	const (
		public  = "Microsoft-Windows-DotNETRuntime/"
		private = "Microsoft-Windows-DotNETRuntimePrivate/"
	)
	known := map[perfview.MissKey]perfview.Known{
		{Event: public + "Method/LoadVerbose", Field: "ReJITID"}:            {Lines: 5, Why: perfview.NotInRecord},
		{Event: public + "Method/LoadVerbose", Field: "OptimizationTier"}:   {Lines: 5, Why: perfview.NotInRecord},
		{Event: public + "Method/UnloadVerbose", Field: "ReJITID"}:          {Lines: 5, Why: perfview.NotInRecord},
		{Event: public + "Method/UnloadVerbose", Field: "OptimizationTier"}: {Lines: 5, Why: perfview.NotInRecord},
		{Event: public + "GC/AllocationTick", Field: "ObjectSize"}:          {Lines: 5, Why: perfview.NotInRecord},
		{Event: public + "GC/Start", Field: "ClientSequenceNumber"}:         {Lines: 3, Why: perfview.NotInRecord},
		{Event: public + "GC/HeapStats", Field: "GenerationSize4"}:          {Lines: 5, Why: perfview.NotInRecord},
		{Event: public + "GC/HeapStats", Field: "TotalPromotedSize4"}:       {Lines: 5, Why: perfview.NotInRecord},
		{Event: public + "Type/BulkType", Field: "TypeID_0"}:                {Lines: 5, Why: perfview.Flattened},
		{Event: public + "Type/BulkType", Field: "TypeName_0"}:              {Lines: 5, Why: perfview.Flattened},
	}
	for _, f := range []string{"ClrInstanceID", "HeapIndex", "ExtraGen0Commit", "CompactMechanisms", "ExpandMechanisms",
		"CondemnReasons0", "CondemnReasons1", "MemoryPressure"} {
		known[perfview.MissKey{Event: private + "GC/PerHeapHistory", Field: f}] = perfview.Known{Lines: 5, Why: perfview.Misreads}
	}
	misread := perfview.CheckMisses(t, outs, known)
	assert.Equal(t, perfview.Score{Names: 218, NamesAll: 218, Fields: 1125, FieldsAll: 1213, EmptyAbsent: 70}, total)
	assert.GreaterOrEqual(t, float64(total.Names), 0.98*float64(total.NamesAll), "names")
	t.Logf("fields agree for %.1f%% of those TraceEvent reads right", 100*float64(total.Fields)/float64(total.FieldsAll-misread))
}

// TestTrailingDataInEveryFormat: the private provider's GC/PerHeapHistory
// v2 has a template with no fields, and its records carry 433 bytes:
// every format shows them, as TrailingData, rather than an empty payload.
func TestTrailingDataInEveryFormat(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	filter := []string{"--provider", "763fd754-7086-4dfe-95eb-c01a46faf4ca", "--event-name", "GC/PerHeapHistory"} // DotNETRuntimePrivate
	run := func(format string) string {
		out, errs, code := runCmd(t, append(append([]string{"--format", format}, filter...), path)...)
		require.Equal(t, 0, code, errs)
		return out
	}
	jsonl := strings.Split(strings.TrimSuffix(run("jsonl"), "\n"), "\n")
	require.Len(t, jsonl, 264)
	var first struct{ Payload map[string]string }
	require.NoError(t, json.Unmarshal([]byte(jsonl[0]), &first))
	rest := first.Payload["TrailingData"]
	require.Len(t, rest, 2+2*433, "%v", first.Payload)
	assert.Len(t, first.Payload, 1)
	for format, want := range map[string]string{
		"text": " TrailingData=" + rest + "\n",
		"csv":  `"{""TrailingData"":""` + rest + `""}"`,
		"xml":  `<Data Name="TrailingData">` + rest + `</Data>`,
	} {
		assert.Contains(t, run(format), want, format)
	}
	out := filepath.Join(t.TempDir(), "p.parquet")
	toParquet(t, out, 0, append(filter, path)...)
	duckdb.Require(t)
	res := duckdb.Query(t, "SELECT Payload->>'TrailingData' AS rest, UserData IS NULL AS raw FROM read_parquet("+sqlString(out)+") LIMIT 1")
	assert.Equal(t, [][]any{{rest, true}}, res[0].Rows)
}
