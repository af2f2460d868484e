package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/duckdb"
	"github.com/etlkit/etlkit/schema/wpp/wpptest"
)

var wppGUID = uuid.MustParse("aaaaaaaa-0000-3000-0000-000000000001")

// wppTMF is the TMF of the test driver; its message 12 has an argument
// line that cannot be read.
const wppTMF = `// PDB:  drv.pdb
aaaaaaaa-0000-3000-0000-000000000001 drv // SRC=io.c MJ= MN=
#typev io_c10 10 "%0 [%!FUNC!] opened %10!s! status=%11!s!" //   LEVEL=TRACE_LEVEL_ERROR FLAGS=TRACE_IO FUNC=DrvOpen
{
name, ItemString -- 10
status, ItemNTSTATUS -- 11
}
#typev io_c20 11 "%0 [%!FUNC!] tick %10!u!%nnext" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=TRACE_PNP FUNC=DrvTick
{
n, ItemLong -- 10
}
#typev io_c30 12 "%0 broken" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=TRACE_PNP FUNC=DrvBroken
{
this is not an argument
}
`

// wppTrace writes a trace of WPP messages (two the TMF knows, one it does
// not, one cut short) and a manifest event, and a TMF directory holding
// the TMF, a PDB that defines the control GUID's flags, and a damaged PDB.
func wppTrace(t *testing.T) (trace, tmfDir string) {
	dir := t.TempDir()
	s := etltest.DefaultSession()
	opts := uint16(header.MessageSequence | header.MessageGUID | header.MessageTimestamp | header.MessageSystemInfo | header.MessagePointer64)
	le := binary.LittleEndian
	msg := func(i int, number uint16, args []byte) *etltest.Message {
		return &etltest.Message{MessageNumber: number, OptionFlags: opts, Sequence: uint32(i), Guid: wppGUID,
			TimeStamp: s.HeaderTimeStamp + int64(10*i), ThreadId: 0xAB, ProcessId: 0x1F0, Args: args}
	}
	open := append([]byte("C:\\x y\x00"), le.AppendUint32(nil, 0xC0000034)...)
	out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.CPU(1).Add(
			msg(1, 10, open),
			msg(2, 11, le.AppendUint32(nil, 7)),
			msg(3, 99, []byte{1, 2}),
			msg(4, 10, []byte("ab")),
			&etltest.Event{TimeStamp: s.HeaderTimeStamp + 50, ProviderId: uuid.MustParse("bbbbbbbb-0000-0000-0000-000000000001"),
				Descriptor: header.EventDescriptor{Id: 1, Level: 4}, UserData: []byte{9}},
		)
		return nil
	})
	require.NoError(t, err)
	trace = filepath.Join(dir, "wpp.etl")
	require.NoError(t, os.WriteFile(trace, out, 0o644))

	tmfDir = filepath.Join(dir, "tmf")
	require.NoError(t, os.Mkdir(tmfDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tmfDir, wppGUID.String()+".tmf"), []byte(wppTMF), 0o644))
	syms := wpptest.NewSymbols()
	syms.Proc("DriverEntry")
	syms.Annotation("TMC:", "586aa8b1-53a6-404f-9b3e-14483e514a2c", "DrvTraceGuid", "ALL_INFO", "TRACE_IO", "TRACE_PNP")
	syms.End()
	pdb := wpptest.BuildPDB(4096, []wpptest.Module{{Name: "init.obj", Symbols: syms.Bytes()}}, false)
	require.NoError(t, os.WriteFile(filepath.Join(tmfDir, "drv.pdb"), pdb, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tmfDir, "bad.pdb"), pdb[:5000], 0o644))
	return trace, tmfDir
}

// TestWPPText: a known message prints as tracefmt prints it, the prefix
// in front; an unknown one, and the other records, as without TMFs; a
// record shorter than its TMF marks what is missing and keeps the bytes.
// What could not be loaded is reported, and the run goes on.
func TestWPPText(t *testing.T) {
	trace, tmf := wppTrace(t)
	out, errs, code := runCmd(t, trace, "--tmf", tmf)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, ".tmf:14: message io_c30: argument line \"this is not an argument\"")
	assert.Contains(t, errs, "bad.pdb: offset 0x28: 8 blocks of 4096 bytes need 32768 bytes, the file has 5000")
	before, _, code := runCmd(t, trace)
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	old := strings.Split(strings.TrimSuffix(before, "\n"), "\n")
	require.Len(t, lines, len(old))
	var wppLines []string
	for i, l := range lines {
		if strings.HasPrefix(l, "[") {
			wppLines = append(wppLines, l)
			assert.True(t, strings.Contains(old[i], wppGUID.String()+"/EventID("), old[i])
			continue
		}
		assert.Equal(t, old[i], l, "records the TMFs do not describe print as before")
	}
	require.Len(t, wppLines, 3)
	stamp := func(l string) string { return l[len("[1]01F0.00AB::") : len("[1]01F0.00AB::")+28] }
	assert.Equal(t, "[1]01F0.00AB::"+stamp(wppLines[0])+` [drv] [DrvOpen] opened C:\x y status=0xc0000034(STATUS_OBJECT_NAME_NOT_FOUND)`, wppLines[0])
	assert.Equal(t, "[1]01F0.00AB::"+stamp(wppLines[1])+` [drv] [DrvTick] tick 7 next`, wppLines[1], "the line break of %n is a space")
	assert.Equal(t, "[1]01F0.00AB::"+stamp(wppLines[2])+` [drv] [DrvOpen] opened <missing> status=<missing> TrailingData=0x6162`, wppLines[2])
	assert.Contains(t, out, wppGUID.String()+"/EventID(99) - - data=0x0102\n")

	// TRACE_FORMAT_SEARCH_PATH in place of --tmf, as tracefmt reads it.
	t.Setenv(tmfSearchPath, filepath.Join(t.TempDir(), "absent")+";"+tmf)
	env, errs, code := runCmd(t, trace)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, out, env)
	assert.Contains(t, errs, tmfSearchPath+": ")
}

// TestWPPJSONL: jsonl names the message by module and function and gives
// its text, level, flags and arguments as payload fields; csv the same
// cells.
func TestWPPJSONL(t *testing.T) {
	trace, tmf := wppTrace(t)
	out, errs, code := runCmd(t, trace, "--tmf", tmf, "--format", "jsonl")
	require.Equal(t, 0, code, errs)
	var rows []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		if m["HeaderType"] == "MESSAGE" {
			rows = append(rows, m)
		}
	}
	require.Len(t, rows, 4)
	assert.Equal(t, "drv", rows[0]["ProviderName"])
	assert.Equal(t, "DrvOpen", rows[0]["EventName"])
	assert.Equal(t, map[string]any{
		"Message": `[DrvOpen] opened C:\x y status=0xc0000034(STATUS_OBJECT_NAME_NOT_FOUND)`,
		"Level":   "TRACE_LEVEL_ERROR", "Flags": "TRACE_IO",
		"name": `C:\x y`, "status": "0xC0000034", "statusName": "STATUS_OBJECT_NAME_NOT_FOUND",
	}, rows[0]["Payload"])
	assert.Equal(t, map[string]any{"Message": "[DrvTick] tick 7\r\nnext", "Level": "TRACE_LEVEL_VERBOSE", "Flags": "TRACE_PNP", "n": float64(7)}, rows[1]["Payload"])
	assert.Nil(t, rows[2]["EventName"])
	assert.Equal(t, "0102", rows[2]["UserData"])
	assert.Equal(t, map[string]any{"Message": "[DrvOpen] opened <missing> status=<missing>", "Level": "TRACE_LEVEL_ERROR",
		"Flags": "TRACE_IO", "TrailingData": "0x6162"}, rows[3]["Payload"])

	csv, errs, code := runCmd(t, trace, "--tmf", tmf, "--format", "csv")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, csv, `,drv,DrvOpen,10,`)
	assert.Contains(t, csv, `"{""Message"":""[DrvOpen] opened C:\\x y status=0xc0000034(STATUS_OBJECT_NAME_NOT_FOUND)"",""Level"":""TRACE_LEVEL_ERROR""`)
}

// TestWPPFilters: --level and --any judge WPP messages by their TMF
// entry's level and the bit the PDB's control GUID gives their flag; a
// message the TMFs do not know stays at level 0 and keyword 0.
func TestWPPFilters(t *testing.T) {
	trace, tmf := wppTrace(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"DrvOpen", "DrvTick", "EventID(99)", "DrvOpen", "EventID(1)"}},
		{[]string{"--level", "warning"}, []string{"DrvOpen", "EventID(99)", "DrvOpen"}},
		{[]string{"--any", "0x2"}, []string{"DrvOpen", "EventID(99)", "DrvOpen", "EventID(1)"}},
		{[]string{"--any", "0x4"}, []string{"DrvTick", "EventID(99)", "EventID(1)"}},
		{[]string{"--event-name", "DrvTick"}, []string{"DrvTick"}},
	} {
		out, errs, code := runCmd(t, append([]string{trace, "--tmf", tmf, "--format", "jsonl"}, c.args...)...)
		require.Equal(t, 0, code, errs)
		var got []string
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var m map[string]any
			require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
			if m["HeaderType"] == "SYSTEM64" {
				continue
			}
			name, _ := m["EventName"].(string)
			if name == "" {
				name = "EventID(" + jsonNumber(m["Id"]) + ")"
			}
			got = append(got, name)
		}
		assert.Equal(t, c.want, got, "%v", c.args)
	}
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestWPPParquet reads the Parquet file with DuckDB: the event name and
// the message text as the JSON lines give them.
func TestWPPParquet(t *testing.T) {
	duckdb.Require(t)
	trace, tmf := wppTrace(t)
	out := filepath.Join(t.TempDir(), "wpp.parquet")
	_, errs, code := runCmd(t, trace, "--tmf", tmf, "--format", "parquet", "-o", out)
	require.Equal(t, 0, code, errs)
	res := duckdb.Query(t, "SELECT EventName, json_extract_string(Payload, '$.Message') AS m, json_extract_string(Payload, '$.statusName') AS s "+
		"FROM read_parquet("+sqlString(out)+", file_row_number = true) WHERE HeaderType = 'MESSAGE' ORDER BY file_row_number")
	assert.Equal(t, [][]any{
		{"DrvOpen", `[DrvOpen] opened C:\x y status=0xc0000034(STATUS_OBJECT_NAME_NOT_FOUND)`, "STATUS_OBJECT_NAME_NOT_FOUND"},
		{"DrvTick", "[DrvTick] tick 7\r\nnext", nil},
		{nil, nil, nil},
		{"DrvOpen", "[DrvOpen] opened <missing> status=<missing>", nil},
	}, res[0].Rows)
}

// TestWPPBadTMF: a --tmf path that does not exist, or sources with no
// message at all, stop the run.
func TestWPPBadTMF(t *testing.T) {
	trace, tmf := wppTrace(t)
	_, errs, code := runCmd(t, trace, "--tmf", filepath.Join(tmf, "absent.tmf"))
	assert.Equal(t, exitFatal, code)
	assert.Contains(t, errs, "absent.tmf: no such file or directory")
	_, errs, code = runCmd(t, trace, "--tmf", filepath.Join(tmf, "bad.pdb"))
	assert.Equal(t, exitFatal, code)
	assert.Contains(t, errs, "bad.pdb: ")
	assert.Contains(t, errs, "no WPP messages")
}
