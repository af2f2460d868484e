package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/duckdb"
	"github.com/etlkit/etlkit/internal/samples"
)

// textLabel is the PROVIDER/EVENT column of a text line: the fourth, one
// JSON string when it starts with a quote.
func textLabel(t *testing.T, line string) string {
	t.Helper()
	rest := line
	for range 3 {
		_, rest, _ = strings.Cut(rest, " ")
	}
	if strings.HasPrefix(rest, `"`) {
		var label string
		require.NoError(t, json.NewDecoder(strings.NewReader(rest)).Decode(&label), "%.200s", line)
		return label
	}
	label, _, _ := strings.Cut(rest, " ")
	return label
}

// xmlNames are the two places the xml names a record's provider.
type xmlNames struct {
	System    string
	Rendering string
}

// xmlProviderNames reads the provider names of every <Event> by scanning
// the text: the samples' xml runs to hundreds of megabytes, which
// encoding/xml takes seconds over. The names are unescaped as XML escapes
// them.
func xmlProviderNames(t *testing.T, out string) []xmlNames {
	t.Helper()
	unescape := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&amp;", "&")
	between := func(s, from, to string) string {
		_, rest, ok := strings.Cut(s, from)
		if !ok {
			return ""
		}
		v, _, ok := strings.Cut(rest, to)
		require.True(t, ok, "%s without %s", from, to)
		return unescape.Replace(v)
	}
	events := strings.Split(out, "<Event xmlns=")[1:]
	names := make([]xmlNames, 0, len(events))
	for _, e := range events {
		system, rest, ok := strings.Cut(e, "</System>")
		require.True(t, ok)
		provider, _, _ := strings.Cut(system, "/>")
		names = append(names, xmlNames{between(provider, ` Name="`, `"`), between(rest, "<Provider>", "</Provider>")})
	}
	return names
}

// TestProviderNameSameInEveryFormat: every record of every shared sample
// names its provider with the same string in text, jsonl, csv, xml and
// Parquet (read by DuckDB); "Windows Kernel" is not "Windows_Kernel" in
// text. A record without a name has none in any format, and text shows its
// GUID.
func TestProviderNameSameInEveryFormat(t *testing.T) {
	t.Setenv("TRACE_FORMAT_SEARCH_PATH", "")
	var inputs []string
	for _, p := range samples.All(t, ".etl", ".etlgz", ".gz", ".zst", ".bz2") {
		inputs = append(inputs, p)
	}
	require.NotEmpty(t, inputs)
	dir := t.TempDir()
	type sampleNames struct {
		name      string
		providers []string // jsonl's ProviderName of each record, "" for none
		parquet   string
	}
	var all []sampleNames
	spaced, records := 0, 0
	for _, in := range inputs {
		s := sampleNames{name: filepath.Base(in)}
		t.Run(s.name, func(t *testing.T) {
			run := func(format string) (string, int) {
				out, errs, code := runCmd(t, "--format", format, in)
				require.Less(t, code, 2, "%s: %s", format, errs)
				return out, code
			}
			if _, errs, code := runCmd(t, "--count", in); code == 2 {
				t.Skipf("not a trace etldump reads: %s", errs)
			}
			out, code := run("jsonl")
			var ids []string
			for _, m := range jsonLines(t, out) {
				name, _ := m["ProviderName"].(string)
				id, _ := m["ProviderId"].(string)
				s.providers = append(s.providers, name)
				ids = append(ids, id)
				if strings.Contains(name, " ") {
					spaced++
				}
			}
			records += len(s.providers)

			text, textCode := run("text")
			require.Equal(t, code, textCode)
			lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			if text == "" {
				lines = nil
			}
			require.Len(t, lines, len(s.providers), "text lines")
			for i, l := range lines {
				label := textLabel(t, l)
				switch {
				case s.providers[i] != "":
					require.True(t, strings.HasPrefix(label, s.providers[i]+"/"), "record %d: %q in text, %q in jsonl", i, label, s.providers[i])
				case ids[i] != "":
					require.True(t, strings.HasPrefix(label, ids[i]+"/"), "record %d: %q in text, GUID %s", i, label, ids[i])
				}
			}

			out, _ = run("csv")
			r := csv.NewReader(strings.NewReader(out))
			rows, err := r.ReadAll()
			require.NoError(t, err)
			require.Len(t, rows, len(s.providers)+1, "csv rows")
			col := -1
			for j, h := range rows[0] {
				if h == "ProviderName" {
					col = j
				}
			}
			require.GreaterOrEqual(t, col, 0)
			for i, row := range rows[1:] {
				require.Equal(t, s.providers[i], row[col], "record %d in csv", i)
			}

			out, _ = run("xml")
			xs := xmlProviderNames(t, out)
			require.Len(t, xs, len(s.providers), "xml events")
			for i, x := range xs {
				require.Equal(t, xmlNames{s.providers[i], s.providers[i]}, x, "record %d in xml", i)
			}

			s.parquet = filepath.Join(dir, fmt.Sprintf("%d.parquet", len(all)))
			_, errs, pqCode := runCmd(t, "--format", "parquet", "-o", s.parquet, in)
			require.Equal(t, code, pqCode, errs)
			all = append(all, s)
		})
	}
	assert.Greater(t, spaced, 100000, "records of a provider whose name has a space")
	t.Logf("%d records of %d inputs, %d of them with a space in the provider's name", records, len(all), spaced)

	duckdb.Require(t)
	var stmts []string
	for _, s := range all {
		stmts = append(stmts, "SELECT ProviderName FROM read_parquet("+sqlString(s.parquet)+", file_row_number = true) ORDER BY file_row_number")
	}
	res := duckdb.Query(t, stmts...)
	for k, s := range all {
		got := res[k].Column("ProviderName")
		require.Len(t, got, len(s.providers), s.name)
		for i, name := range s.providers {
			require.Equal(t, nilIfEmpty(name), got[i], "%s record %d in Parquet", s.name, i)
		}
	}
}

// TestSignedIDsAndUnsetTimes: a header thread id of 0xFFFFFFFF is -1 in
// text, jsonl, csv and Parquet (xml keeps the unsigned number its schema
// types ThreadID as), and a FILETIME of 0 (the EndTime of a trace whose
// session had not stopped) is no time in every format rather than
// 1601-01-01.
func TestSignedIDsAndUnsetTimes(t *testing.T) {
	s := etltest.DefaultSession()
	s.EndTime = 0
	path := writeTrace(t, s, &etltest.Full{Guid: classicClass, TimeStamp: s.HeaderTimeStamp + 1, ProcessId: 4, ThreadId: 0xFFFFFFFF})

	objs := jsonLines(t, mustRun(t, "--format", "jsonl", path))
	require.Len(t, objs, 2)
	assert.Nil(t, objs[0]["Payload"].(map[string]any)["EndTime"])
	assert.Contains(t, objs[0]["Payload"], "EndTime")
	assert.EqualValues(t, -1, objs[1]["ThreadId"])
	assert.EqualValues(t, 4, objs[1]["ProcessId"])

	text := strings.Split(mustRun(t, path), "\n")
	assert.Contains(t, text[0], " EndTime=- ")
	assert.Contains(t, text[1], " 4/-1 ")

	out := mustRun(t, "--format", "csv", path)
	assert.Contains(t, out, `""EndTime"":null`)
	assert.Contains(t, out, ",4,-1,")

	out = mustRun(t, "--format", "xml", path)
	assert.Contains(t, out, `<Data Name="EndTime"></Data>`)
	assert.Contains(t, out, `ProcessID="4" ThreadID="4294967295"`)
	assert.NotContains(t, out, "1601-01-01")

	pq := filepath.Join(t.TempDir(), "s.parquet")
	toParquet(t, pq, 0, path)
	duckdb.Require(t)
	res := duckdb.Query(t, "SELECT ThreadId, Payload->>'EndTime' AS e, json_type(Payload, '$.EndTime') AS k FROM read_parquet("+
		sqlString(pq)+", file_row_number = true) ORDER BY file_row_number")
	assert.Equal(t, []any{nil, "NULL"}, res[0].Rows[0][1:])
	assert.EqualValues(t, -1, res[0].Rows[1][0])
}

// mustRun runs etldump and returns its output, failing on a non-zero exit.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := runCmd(t, args...)
	require.Equal(t, 0, code, errs)
	return out
}
