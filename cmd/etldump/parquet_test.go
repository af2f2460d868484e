package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/internal/duckdb"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/sink/parquetsink"
)

// parquetColumns are the columns of a one-input file, the JSON lines'
// field names.
var parquetColumns = parquetsink.ColumnNames(false)

// jsonlView is what the JSON lines of a trace say, to hold the Parquet
// file against: the reference for column names and for NULLs.
type jsonlView struct {
	rows        int
	perProvider map[string]int // "" for records without ProviderId
	present     map[string]int // rows that carry each field
	first, last int64          // TimeStamp of the first and last row, ns since 1970
	backward    int            // rows earlier than the row before them
	payloads    []map[string]any
	eventNames  []string
}

func readJSONL(t *testing.T, paths ...string) *jsonlView {
	t.Helper()
	out, errs, code := runCmd(t, append([]string{"--format", "jsonl"}, paths...)...)
	require.Equal(t, 0, code, errs)
	v := &jsonlView{perProvider: map[string]int{}, present: map[string]int{}}
	var prev int64
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		for k := range m {
			v.present[k]++
		}
		p, _ := m["ProviderId"].(string)
		v.perProvider[p]++
		ts, err := time.Parse(time.RFC3339Nano, m["TimeStamp"].(string))
		require.NoError(t, err)
		ns := ts.UnixNano()
		if v.rows == 0 {
			v.first = ns
		} else if ns < prev {
			v.backward++
		}
		prev, v.last = ns, ns
		payload, _ := m["Payload"].(map[string]any)
		v.payloads = append(v.payloads, payload)
		name, _ := m["EventName"].(string)
		v.eventNames = append(v.eventNames, name)
		v.rows++
	}
	require.NoError(t, sc.Err())
	return v
}

// toParquet runs etldump --format parquet on the inputs into out and
// returns what it wrote on stderr.
func toParquet(t *testing.T, out string, wantCode int, inputs ...string) string {
	t.Helper()
	stdout, errs, code := runCmd(t, append([]string{"--format", "parquet", "-o", out}, inputs...)...)
	require.Equal(t, wantCode, code, errs)
	assert.Empty(t, stdout)
	return errs
}

// sqlString quotes s as a SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// asInt reads a number DuckDB's JSON rendering gave as a number or, for
// 64-bit types, as a string.
func asInt(t *testing.T, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return int64(x)
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		require.NoError(t, err)
		return n
	}
	t.Fatalf("not a number: %#v", v)
	return 0
}

func TestParquetReadBackByDuckDB(t *testing.T) {
	duckdb.Require(t)
	names := []string{
		"net452-x64-merged-compressed.etl", // kernel + .NET, 32- and 64-bit records
		"win11-waasmedic.etl",              // TraceLogging
		"primitive-types-tracelogging.etl", // TraceLogging, every primitive type
		"diaghub-user-paged.etl",           // manifest + TraceLogging
		"shutdown-kernel.etl",              // kernel only
		"win7-relogged-classic.etl",        // classic + manifest
	}
	counts := readmeCounts(t)
	dir := t.TempDir()
	var stmts []string
	type fileCase struct {
		name, out string
		view      *jsonlView
		first     int // index of the file's first statement
	}
	var cases []fileCase
	for _, name := range names {
		in := samples.Path(t, name)
		out := filepath.Join(dir, strings.TrimSuffix(name, ".etl")+".parquet")
		toParquet(t, out, 0, in)
		f := sqlString(out)
		var counted []string
		for _, c := range parquetColumns {
			counted = append(counted, fmt.Sprintf("count(%q) AS %q", c, c))
		}
		cases = append(cases, fileCase{name: name, out: out, view: readJSONL(t, in), first: len(stmts)})
		stmts = append(stmts,
			"SELECT count(*) AS n, "+strings.Join(counted, ", ")+" FROM read_parquet("+f+")",
			"SELECT coalesce(ProviderId, '') AS p, count(*) AS n FROM read_parquet("+f+") GROUP BY ALL ORDER BY p",
			"SELECT epoch_ns(arg_min(TimeStamp, file_row_number)) AS first, epoch_ns(arg_max(TimeStamp, file_row_number)) AS last FROM read_parquet("+f+", file_row_number = true)",
			"SELECT count(*) AS n FROM (SELECT TimeStamp < lag(TimeStamp) OVER (ORDER BY file_row_number) AS back FROM read_parquet("+f+", file_row_number = true)) WHERE back",
			"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet("+f+"))",
			"SELECT EventName, json_extract_string(Payload, '$.string_type') AS s, CAST(json_extract(Payload, '$.int32_type') AS INTEGER) AS i, "+
				"json_extract_string(Payload, '$.m') AS m FROM read_parquet("+f+", file_row_number = true) ORDER BY file_row_number",
		)
	}
	res := duckdb.Query(t, stmts...)
	wantTypes := map[string]string{
		"TimeStamp": "TIMESTAMP_NS", "RawTimeStamp": "BIGINT", "HeaderType": "VARCHAR",
		"ProviderId": "VARCHAR", "ProviderName": "VARCHAR", "EventName": "VARCHAR",
		"Id": "USMALLINT", "Version": "UTINYINT", "Channel": "UTINYINT", "Level": "UTINYINT",
		"Opcode": "UTINYINT", "Task": "USMALLINT", "Keyword": "UBIGINT",
		"ProcessId": "INTEGER", "ThreadId": "INTEGER", "SubjectProcessId": "INTEGER", "ProcessName": "VARCHAR",
		"ProcessorNumber": "USMALLINT", "ActivityId": "VARCHAR", "RelatedActivityId": "VARCHAR", "Flags": "USMALLINT",
		"Payload": "JSON", "UserData": "BLOB", "UserDataStrings": "VARCHAR[]",
	}
	tlChecked := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := res[c.first:]
			v := c.view
			// Rows: the independent count, and every field present in
			// exactly the rows the JSON lines carry it in.
			require.EqualValues(t, counts[c.name], asInt(t, r[0].Rows[0][0]))
			require.Equal(t, counts[c.name], v.rows)
			for i, col := range parquetColumns {
				assert.EqualValues(t, v.present[col], asInt(t, r[0].Rows[0][i+1]), "non-NULL %s", col)
			}
			// Rows per provider.
			got := map[string]int{}
			for _, row := range r[1].Rows {
				got[row[0].(string)] = int(asInt(t, row[1]))
			}
			assert.Equal(t, v.perProvider, got)
			// First and last TimeStamp, to the 100 ns.
			assert.Equal(t, v.first, asInt(t, r[2].Rows[0][0]), "first TimeStamp")
			assert.Equal(t, v.last, asInt(t, r[2].Rows[0][1]), "last TimeStamp")
			// Rows in time order.
			assert.Zero(t, v.backward)
			assert.EqualValues(t, 0, asInt(t, r[3].Rows[0][0]), "rows earlier than the row before")
			// Column types.
			types := map[string]string{}
			var order []string
			for _, row := range r[4].Rows {
				types[row[0].(string)] = row[1].(string)
				order = append(order, row[0].(string))
			}
			assert.Equal(t, parquetColumns, order)
			assert.Equal(t, wantTypes, types)
			// TraceLogging payload values through json_extract, row by
			// row against the JSON lines.
			require.Len(t, r[5].Rows, v.rows)
			for i, row := range r[5].Rows {
				assert.Equal(t, nilIfEmpty(v.eventNames[i]), row[0], "row %d EventName", i)
				p := v.payloads[i]
				if s, ok := p["string_type"].(string); ok {
					assert.Equal(t, s, row[1], "row %d string_type", i)
					assert.EqualValues(t, p["int32_type"], row[2], "row %d int32_type", i)
					tlChecked++
				}
				if m, ok := p["m"].(string); ok {
					assert.Equal(t, m, row[3], "row %d m", i)
					tlChecked++
				}
			}
		})
	}
	assert.GreaterOrEqual(t, tlChecked, 10, "TraceLogging payload values checked through json_extract")
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// parquetRows reads the row count from a Parquet file's footer, with the
// library's reader: a check that needs no DuckDB.
func parquetRows(t *testing.T, path string) int64 {
	t.Helper()
	rdr, err := file.OpenParquetFile(path, false)
	require.NoError(t, err, "%s is not a valid Parquet file", path)
	defer rdr.Close()
	return rdr.NumRows()
}

func TestParquetDirOneFilePerInput(t *testing.T) {
	names := []string{"win11-waasmedic.etl", "amsi-tracelogging.etl", "win7-relogged-classic.etl", "shutdown-kernel.etl"}
	var inputs []string
	for _, n := range names {
		inputs = append(inputs, samples.Path(t, n))
	}
	// The gzip copy of waasmedic has the same stem: it gets a -2 name.
	inputs = append(inputs, samples.Path(t, "win11-waasmedic.etl.gz"))
	dir := filepath.Join(t.TempDir(), "out") + string(os.PathSeparator)
	toParquet(t, dir, 0, inputs...)

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{"amsi-tracelogging.parquet", "shutdown-kernel.parquet", "win11-waasmedic-2.parquet", "win11-waasmedic.parquet", "win7-relogged-classic.parquet"}
	sort.Strings(got)
	require.Equal(t, want, got)

	counts := readmeCounts(t)
	for i, in := range inputs {
		single := filepath.Join(t.TempDir(), "single.parquet")
		toParquet(t, single, 0, in)
		wantBytes, err := os.ReadFile(single)
		require.NoError(t, err)
		name := parquetNames(dir, inputs)[i]
		gotBytes, err := os.ReadFile(name)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(wantBytes, gotBytes), "%s differs from the single-file conversion of %s", name, in)
		base := filepath.Base(in)
		if n, ok := counts[base]; ok {
			assert.EqualValues(t, n, parquetRows(t, name), name)
		}
	}
	assert.EqualValues(t, 21, parquetRows(t, filepath.Join(dir, "win11-waasmedic-2.parquet")))
}

func TestParquetDirLeavesNoFileForUnreadableInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out") + "/"
	errs := toParquet(t, dir, exitFatal, samples.Path(t, "corrupt-zero-bytes-replaced.etl"), samples.Path(t, "win11-sih.etl"))
	assert.Contains(t, errs, "corrupt-zero-bytes-replaced.etl: offset 0x48:")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the readable input has a file, so that a glob over the directory reads")
	assert.Equal(t, "win11-sih.parquet", entries[0].Name())
	assert.EqualValues(t, 12, parquetRows(t, filepath.Join(dir, "win11-sih.parquet")))
}

func TestParquetSeveralInputsFileColumn(t *testing.T) {
	a, b := samples.Path(t, "win11-waasmedic.etl"), samples.Path(t, "amsi-tracelogging.etl")
	out := filepath.Join(t.TempDir(), "both.parquet")
	toParquet(t, out, 0, a, b)
	assert.EqualValues(t, 21+21, parquetRows(t, out))
	duckdb.Require(t)
	res := duckdb.Query(t,
		"SELECT File, count(*) AS n FROM read_parquet("+sqlString(out)+") GROUP BY File ORDER BY File",
		"SELECT count(*) AS n FROM (SELECT TimeStamp < lag(TimeStamp) OVER (ORDER BY file_row_number) AS back FROM read_parquet("+sqlString(out)+", file_row_number = true)) WHERE back",
	)
	want := [][]any{{b, "21"}, {a, "21"}}
	if a < b {
		want = [][]any{{a, "21"}, {b, "21"}}
	}
	assert.Equal(t, want, res[0].Rows)
	// The order of the JSON lines: each file's header buffer, then one
	// timeline across the files.
	v := readJSONL(t, a, b)
	assert.Equal(t, 1, v.backward, "the second file's header records come before the first's events")
	assert.Equal(t, [][]any{{strconv.Itoa(v.backward)}}, res[1].Rows)
}

func TestParquetDamagedInputStillValid(t *testing.T) {
	src, err := os.ReadFile(samples.Path(t, "win10-explorer-startup.etl"))
	require.NoError(t, err)
	// Cut inside a buffer, past the first few.
	cut := filepath.Join(t.TempDir(), "cut.etl")
	require.NoError(t, os.WriteFile(cut, src[:len(src)*2/3+1000], 0o666))
	out := filepath.Join(t.TempDir(), "cut.parquet")
	errs := toParquet(t, out, exitDamaged, cut)
	assert.Contains(t, errs, "damaged")
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)

	countOut, _, code := runCmd(t, "--count", cut)
	require.Equal(t, exitDamaged, code)
	n, err := strconv.Atoi(strings.TrimSpace(countOut))
	require.NoError(t, err)
	require.Greater(t, n, 100)
	require.Less(t, n, 4793)
	assert.EqualValues(t, n, parquetRows(t, out), "a valid Parquet file of the records read")
	assert.Contains(t, errs, fmt.Sprintf("; %d records read", n))
}

// TestParquetDamagedBuffers converts the committed trace whose buffers are
// damaged in the middle: the records around the damage are in the file.
func TestParquetDamagedBuffers(t *testing.T) {
	in := "../../testdata/etl/damaged.etl"
	out := filepath.Join(t.TempDir(), "damaged.parquet")
	errs := toParquet(t, out, exitDamaged, in)
	assert.Contains(t, errs, "etldump: "+in+": offset 0x")
	countOut, _, code := runCmd(t, "--count", in)
	require.Equal(t, exitDamaged, code)
	n, err := strconv.Atoi(strings.TrimSpace(countOut))
	require.NoError(t, err)
	require.Positive(t, n)
	assert.EqualValues(t, n, parquetRows(t, out))
}

func TestParquetNeedsOutput(t *testing.T) {
	path := samples.Path(t, "win11-sih.etl")
	for _, args := range [][]string{
		{"--format", "parquet", path},
		{"--format", "parquet", "-o", "-", path},
		{"--format", "parquet", "--stats", "-o", "x.parquet", path},
	} {
		out, errs, code := runCmd(t, args...)
		assert.Equal(t, exitFatal, code, "%v", args)
		assert.Empty(t, out)
		assert.True(t, strings.HasPrefix(errs, "etldump: --"), errs)
		assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	}
}

func TestParquetNames(t *testing.T) {
	assert.Equal(t, []string{
		filepath.Join("d", "a.parquet"), filepath.Join("d", "a-2.parquet"), filepath.Join("d", "b.parquet"),
		filepath.Join("d", "c.parquet"), filepath.Join("d", "a-3.parquet"), filepath.Join("d", "trace.parquet"),
	}, parquetNames("d", []string{"x/a.etl", "y/a.etl.gz", "b.ETL", "c.etlgz", "a.zip", ".etl"}))
}

// TestParquetReadmeQueries runs the DuckDB queries the README shows on a
// directory of converted samples: they must run, and the first, events per
// provider, must count every row.
func TestParquetReadmeQueries(t *testing.T) {
	duckdb.Require(t)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## Parquet\n")
	require.True(t, ok)
	_, block, ok := strings.Cut(section, "```sql\n")
	require.True(t, ok)
	block, _, _ = strings.Cut(block, "```")
	var stmts []string
	for _, s := range strings.Split(block, ";") {
		var lines []string
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 {
			stmts = append(stmts, strings.Join(lines, " "))
		}
	}
	require.Len(t, stmts, 3)

	dir := t.TempDir() + string(os.PathSeparator)
	toParquet(t, dir, 0, samples.Path(t, "win11-waasmedic.etl"), samples.Path(t, "amsi-tracelogging.etl"))
	glob := sqlString(filepath.Join(dir, "*.parquet"))
	for i, s := range stmts {
		require.Contains(t, s, "'traces/*.parquet'")
		stmts[i] = strings.ReplaceAll(s, "'traces/*.parquet'", glob)
	}
	res := duckdb.Query(t, stmts...)
	total := int64(0)
	for _, row := range res[0].Rows {
		total += asInt(t, row[2])
	}
	assert.EqualValues(t, 21+21, total)
	assert.Equal(t, []string{"message", "count_star()"}, res[2].Columns)
	assert.NotEmpty(t, res[2].Rows, "waasmedic has Warning events with a message")
}
