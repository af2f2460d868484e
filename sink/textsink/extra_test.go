package textsink

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/kernel"
)

// TestExtra: the subject shows in text where it is not the header's, and
// in JSONL and CSV as SubjectProcessId and ProcessName where the header
// names no process or another; a record about its header's process reads
// as without an Extra. The File column comes first.
func TestExtra(t *testing.T) {
	sample := &record.Record{HeaderType: header.TypePerfInfo64, HookId: 0x0F2E, ProviderId: record.KernelGroupGUID(0x0F, 46)}
	own := &record.Record{HeaderType: header.TypeSystem64, HookId: 0x0310, ProcessId: 12, ThreadId: 13, HasThreadProcess: true,
		ProviderId: record.KernelGroupGUID(0x03, 1)}
	start := &record.Record{HeaderType: header.TypeSystem64, HookId: 0x0501, ProcessId: 4, ThreadId: 8, HasThreadProcess: true,
		ProviderId: record.KernelGroupGUID(0x05, 1)}
	sampleX := &Extra{File: "a b.etl", Subject: kernel.Subject{ProcessID: 1980, ThreadID: 584, HasProcess: true, HasThread: true}, ProcessName: "Test.x64.exe"}
	ownX := &Extra{File: "c.etl", Subject: kernel.Subject{ProcessID: 12, ThreadID: 13, HasProcess: true, HasThread: true}, ProcessName: "own.exe"}
	startX := &Extra{File: "c.etl", Subject: kernel.Subject{ProcessID: 1980, ThreadID: 700, HasProcess: true, HasThread: true}}
	unknownX := &Extra{Subject: kernel.Subject{ThreadID: 999, HasThread: true}}
	var d describe.Description

	enc := func(opts Options) *Encoder {
		e, err := NewEncoder(opts)
		require.NoError(t, err)
		return e
	}
	field := func(line string, i int) string { return strings.Fields(line)[i] }

	text := enc(Options{})
	assert.Equal(t, "1980/584", field(string(text.AppendExtra(nil, sample, &d, sampleX)), 2))
	assert.Equal(t, "12/13", field(string(text.AppendExtra(nil, own, &d, ownX)), 2))
	assert.Equal(t, "1980/700", field(string(text.AppendExtra(nil, start, &d, startX)), 2))
	assert.Equal(t, "-/999", field(string(text.AppendExtra(nil, sample, &d, unknownX)), 2))
	for _, r := range []*record.Record{sample, own, start} {
		assert.Equal(t, string(text.Append(nil, r, &d)), string(text.AppendExtra(nil, r, &d, nil)))
		assert.Equal(t, string(text.Append(nil, r, &d)), string(text.AppendExtra(nil, r, &d, &Extra{File: "x"})))
	}
	assert.Equal(t, string(text.Append(nil, own, &d)), string(text.AppendExtra(nil, own, &d, ownX)), "a record about its header's process")
	withFile := enc(Options{FileColumn: true})
	line := string(withFile.AppendExtra(nil, sample, &d, sampleX))
	assert.True(t, strings.HasPrefix(line, "a_b.etl "+field(string(text.AppendExtra(nil, sample, &d, sampleX)), 0)+" "), line)

	jsonl := enc(Options{Format: JSONL})
	obj := func(b []byte) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m), string(b))
		return m
	}
	m := obj(jsonl.AppendExtra(nil, sample, &d, sampleX))
	assert.EqualValues(t, 1980, m["SubjectProcessId"])
	assert.Equal(t, "Test.x64.exe", m["ProcessName"])
	assert.NotContains(t, m, "ProcessId")
	assert.NotContains(t, m, "File")
	assert.Equal(t, string(jsonl.Append(nil, own, &d)), string(jsonl.AppendExtra(nil, own, &d, ownX)), "a record about its header's process gains nothing")
	m = obj(jsonl.AppendExtra(nil, start, &d, startX))
	assert.EqualValues(t, 1980, m["SubjectProcessId"])
	assert.EqualValues(t, 4, m["ProcessId"])
	assert.NotContains(t, m, "ProcessName", "an unknown name is left out")
	assert.NotContains(t, obj(jsonl.AppendExtra(nil, sample, &d, unknownX)), "SubjectProcessId")
	b := enc(Options{Format: JSONL, FileColumn: true}).AppendExtra(nil, sample, &d, sampleX)
	assert.True(t, strings.HasPrefix(string(b), `{"File":"a b.etl","TimeStamp":`), string(b))

	for _, file := range []bool{false, true} {
		c := enc(Options{Format: CSV, FileColumn: file})
		out := c.Begin(nil)
		for _, p := range []struct {
			r *record.Record
			x *Extra
		}{{sample, sampleX}, {own, ownX}, {start, startX}} {
			out = c.AppendExtra(out, p.r, &d, p.x)
		}
		rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
		require.NoError(t, err)
		require.Len(t, rows, 4)
		col := map[string]int{}
		for i, n := range rows[0] {
			col[n] = i
		}
		assert.Equal(t, file, col["File"] == 0 && rows[0][0] == "File")
		if file {
			assert.Equal(t, "a b.etl", rows[1][0])
		}
		assert.Equal(t, col["ThreadId"]+1, col["SubjectProcessId"])
		assert.Equal(t, col["ThreadId"]+2, col["ProcessName"])
		assert.Equal(t, []string{"", "", "1980", "Test.x64.exe"}, []string{rows[1][col["ProcessId"]], rows[1][col["ThreadId"]], rows[1][col["SubjectProcessId"]], rows[1][col["ProcessName"]]})
		assert.Equal(t, []string{"12", "13", "", ""}, []string{rows[2][col["ProcessId"]], rows[2][col["ThreadId"]], rows[2][col["SubjectProcessId"]], rows[2][col["ProcessName"]]})
		assert.Equal(t, []string{"4", "8", "1980", ""}, []string{rows[3][col["ProcessId"]], rows[3][col["ThreadId"]], rows[3][col["SubjectProcessId"]], rows[3][col["ProcessName"]]})
	}

	x := string(enc(Options{Format: XML, FileColumn: true}).AppendExtra(nil, sample, &d, sampleX))
	assert.Contains(t, x, "\t\t<File>a b.etl</File>\n\t</System>\n")
	assert.NotContains(t, string(enc(Options{Format: XML}).AppendExtra(nil, sample, &d, sampleX)), "<File>")
}
