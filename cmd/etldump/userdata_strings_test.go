package main

import (
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/duckdb"
	"github.com/etlkit/etlkit/internal/samples"
)

// utf16z is s as UTF-16LE with its terminator, as ETW writes wide
// strings; utf16raw without it.
var utf16z = etltest.UTF16Z

func utf16raw(s string) []byte { return header.AppendUTF16(nil, s, false) }

// undecodedTrace holds records no schema describes, each with the strings
// it should show: a manifest event of a provider without its manifest, a
// classic MOF event of an unknown class, a WPP message without its TMF, and
// payloads without any string or without bytes.
func undecodedTrace(t *testing.T) (string, [][]string) {
	t.Helper()
	ts := etltest.DefaultSession().HeaderTimeStamp
	provider := uuid.MustParse("a0a0a0a0-1111-4222-8333-444444444444")
	class := uuid.MustParse("b0b0b0b0-1111-4222-8333-444444444444")
	wpp := uuid.MustParse("c0c0c0c0-1111-4222-8333-444444444444")
	cases := []struct {
		rec  etltest.Record
		want []string
	}{
		// UTF-16 from the first byte, ASCII to the last, with no NUL.
		{&etltest.Event{ProviderId: provider, Descriptor: header.EventDescriptor{Id: 7}, TimeStamp: ts + 1, ProcessId: 4, ThreadId: 8,
			UserData: slices.Concat(utf16z(`C:\Windows\System32\svchost.exe`), le32s(5), []byte("netsvcs"))},
			[]string{`C:\Windows\System32\svchost.exe`, "netsvcs"}},
		// An ANSI name and its NUL, then a UTF-16 one; a last UTF-16 run
		// cut by the end of the payload in the middle of a character.
		{&etltest.Full{Guid: class, Type: 12, TimeStamp: ts + 2, ProcessId: 4, ThreadId: 8,
			Payload: slices.Concat(le32s(1), []byte("ServiceName\x00"), utf16z("Schedule"), le32s(0x10), utf16raw("Parameters")[:19])},
			[]string{"ServiceName", "Schedule", "Parameter"}},
		// A WPP message of a component without a TMF: its arguments.
		{&etltest.Message{OptionFlags: header.MessageGUID | header.MessageTimestamp | header.MessageSystemInfo, MessageNumber: 10,
			Guid: wpp, TimeStamp: ts + 3, ProcessId: 4, ThreadId: 8,
			Args: slices.Concat(le32s(2), []byte(`Services\NativeWifiP\Parameters`), []byte{0}, utf16z("wwansvc"))},
			[]string{`Services\NativeWifiP\Parameters`, "wwansvc"}},
		// Runs of exactly four at both edges, three in between.
		{&etltest.Event{ProviderId: provider, Descriptor: header.EventDescriptor{Id: 8}, TimeStamp: ts + 4, ProcessId: 4, ThreadId: 8,
			UserData: slices.Concat([]byte("HKLM"), []byte{0xFF, 'a', 'b', 'c', 0xFF}, utf16raw("Tcp6"))},
			[]string{"HKLM", "Tcp6"}},
		// Bytes with no run of four, and no bytes at all.
		{&etltest.Event{ProviderId: provider, Descriptor: header.EventDescriptor{Id: 9}, TimeStamp: ts + 5, ProcessId: 4, ThreadId: 8,
			UserData: []byte{1, 0, 0, 0, 'a', 'b', 'c', 0, 0xFF}}, nil},
		{&etltest.Event{ProviderId: provider, Descriptor: header.EventDescriptor{Id: 10}, TimeStamp: ts + 6, ProcessId: 4, ThreadId: 8}, nil},
	}
	var recs []etltest.Record
	var want [][]string
	for _, c := range cases {
		recs = append(recs, c.rec)
		want = append(want, c.want)
	}
	return writeTrace(t, etltest.DefaultSession(), recs...), want
}

// TestUndecodedPayloadStrings: every format shows the readable strings of
// a payload no schema decodes beside its hex, in order, and nothing for
// one that holds none: text as strings=[…], jsonl as UserDataStrings, csv
// as the last cell, xml as <String> elements, Parquet as a list (read by
// DuckDB).
func TestUndecodedPayloadStrings(t *testing.T) {
	t.Setenv("TRACE_FORMAT_SEARCH_PATH", "")
	path, want := undecodedTrace(t)

	// jsonl: the array, and none when there are no strings.
	objs := recordLines(t, path)
	require.Len(t, objs, len(want))
	for i, o := range objs {
		if want[i] == nil {
			assert.NotContains(t, o, "UserDataStrings", "record %d", i)
			continue
		}
		assert.Contains(t, o, "UserData", "record %d", i)
		assert.Equal(t, toAny(want[i]), o["UserDataStrings"], "record %d", i)
	}

	// text: strings=[…] after data=0x…, at the end of the line.
	out, errs, code := runCmd(t, path)
	require.Equal(t, 0, code, errs)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")[1:]
	require.Len(t, lines, len(want))
	for i, l := range lines {
		_, arr, found := strings.Cut(l, " strings=")
		if want[i] == nil {
			assert.False(t, found, "line %d: %s", i, l)
			continue
		}
		require.True(t, found, "line %d: %s", i, l)
		assert.Contains(t, l, " data=0x", "line %d", i)
		var got []string
		require.NoError(t, json.Unmarshal([]byte(arr), &got), "line %d: %s", i, l)
		assert.Equal(t, want[i], got, "line %d", i)
	}

	// csv: the UserDataStrings column, after UserData.
	out, errs, code = runCmd(t, "--format", "csv", path)
	require.Equal(t, 0, code, errs)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"UserData", "UserDataStrings"}, rows[0][len(rows[0])-2:])
	rows = rows[2:]
	require.Len(t, rows, len(want))
	for i, row := range rows {
		cell := row[len(row)-1]
		if want[i] == nil {
			assert.Empty(t, cell, "row %d", i)
			continue
		}
		var got []string
		require.NoError(t, json.Unmarshal([]byte(cell), &got), "row %d: %s", i, cell)
		assert.Equal(t, want[i], got, "row %d", i)
	}

	// xml: <String> elements under RenderingInfo/UserDataStrings.
	out, errs, code = runCmd(t, "--format", "xml", path)
	require.Equal(t, 0, code, errs)
	var doc struct {
		Events []struct {
			Binary  string   `xml:"BinaryEventData"`
			Strings []string `xml:"RenderingInfo>UserDataStrings>String"`
		} `xml:"Event"`
	}
	require.NoError(t, xml.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Events, len(want)+1)
	for i, e := range doc.Events[1:] {
		assert.Equal(t, want[i], e.Strings, "event %d", i)
	}

	// Parquet, read back by DuckDB as a list of strings.
	pq := filepath.Join(t.TempDir(), "u.parquet")
	toParquet(t, pq, 0, path)
	duckdb.Require(t)
	res := duckdb.Query(t, "SELECT UserDataStrings FROM read_parquet("+sqlString(pq)+", file_row_number = true) ORDER BY file_row_number")
	got := res[0].Column("UserDataStrings")[1:]
	require.Len(t, got, len(want))
	for i := range want {
		if want[i] == nil {
			assert.Nil(t, got[i], "row %d", i)
		} else {
			assert.Equal(t, toAny(want[i]), got[i], "row %d", i)
		}
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// TestStringsOfEventsWithoutTheirManifest: on real traces read without
// the manifests or TMFs of their providers, the strings are what the
// events are about: the folder of a Shell-Core event, the registry key
// and service of a WPP message of the network setup service.
func TestStringsOfEventsWithoutTheirManifest(t *testing.T) {
	t.Setenv("TRACE_FORMAT_SEARCH_PATH", "")
	for _, c := range []struct {
		sample, provider string
		id               float64
		want             []string
	}{
		{"win10-explorer-startup.etl", "Microsoft-Windows-Shell-Core", 19501,
			[]string{`C:\Users\Malacorr\AppData\Local\Microsoft\Windows\Application Shortcuts`}},
		{"wpp-netsetup-append.etl", "", -1, []string{`Services\NativeWifiP\Parameters`}},
	} {
		t.Run(c.sample, func(t *testing.T) {
			objs := recordLines(t, samples.Path(t, c.sample))
			found := 0
			for _, o := range objs {
				if name, _ := o["ProviderName"].(string); name != c.provider {
					continue
				}
				if id, ok := o["Id"].(float64); c.id >= 0 && (!ok || id != c.id) {
					continue
				}
				got, _ := o["UserDataStrings"].([]any)
				if slices.Equal(got, toAny(c.want)) {
					found++
				}
			}
			assert.NotZero(t, found, "no record of %s shows %q", c.provider, c.want)
		})
	}
}
