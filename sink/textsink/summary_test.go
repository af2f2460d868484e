package textsink

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
)

// TestSummary counts the committed TraceLogging trace: 19 records, 9 of
// each provider and the kernel's header event, and says the same in text
// and JSON.
func TestSummary(t *testing.T) {
	f, err := etl.Open("../../testdata/etl/tracelogging.etl")
	require.NoError(t, err)
	defer f.Close()
	names := describe.New(describe.Options{})
	sum := NewSummary()
	var d describe.Description
	for r, err := range f.Events() {
		require.NoError(t, err)
		names.Describe(r, &d, false)
		sum.Add(r, &d)
	}
	sum.AddInput(f)
	sum.SetOrder("time", f.Stats().Order)

	var rep struct {
		Files       []string
		Records     int
		Buffers     int
		HeaderTypes map[string]int
		Providers   []struct {
			ProviderId, ProviderName string
			Records                  int
		}
		Events []struct {
			ProviderName, EventName string
			Records                 int
		}
		Order       string
		First, Last string
		ErrorCount  int
	}
	js := sum.AppendJSON(nil)
	require.True(t, strings.HasSuffix(string(js), "}\n"))
	require.NoError(t, json.Unmarshal(js, &rep))
	assert.Equal(t, []string{"../../testdata/etl/tracelogging.etl"}, rep.Files)
	assert.Equal(t, 19, rep.Records)
	assert.Equal(t, 2, rep.Buffers)
	assert.Equal(t, map[string]int{"SYSTEM64": 1, "EVENT_HEADER32": 2, "EVENT_HEADER64": 16}, rep.HeaderTypes)
	require.Len(t, rep.Providers, 3)
	assert.Equal(t, "MySource", rep.Providers[0].ProviderName)
	assert.Equal(t, 9, rep.Providers[0].Records)
	assert.Equal(t, "Windows Kernel", rep.Providers[2].ProviderName)
	assert.Len(t, rep.Events, 19)
	assert.Equal(t, "time", rep.Order)
	assert.Equal(t, "2024-01-17T21:20:00.0000000Z", rep.First)
	assert.Equal(t, "2024-01-17T21:20:00.0013986Z", rep.Last)
	assert.Zero(t, rep.ErrorCount)

	text := string(sum.AppendText(nil))
	assert.Contains(t, text, "Records:        19\n")
	assert.Contains(t, text, "          16  EVENT_HEADER64\n")
	assert.Contains(t, text, "           9  d1a4c2b7-55e0-5c3a-9c31-8f5d2a6b7e10  Etlkit.Test.Provider\n")
	assert.Contains(t, text, "           1  Etlkit.Test.Provider/Tagged\n")
	assert.Equal(t, string(sum.AppendJSON(nil)), string(js), "a summary reports the same twice")
}

// TestHeader: the logfile header as text and as JSON, the same fields.
func TestHeader(t *testing.T) {
	f, err := etl.Open("../../testdata/etl/tracelogging.etl")
	require.NoError(t, err)
	defer f.Close()
	var h map[string]any
	js := AppendHeaderJSON(nil, f)
	require.NoError(t, json.Unmarshal(js, &h))
	assert.Equal(t, "TLTest", h["LoggerName"])
	assert.Equal(t, "2024-01-17T21:20:00.0000000Z", h["StartTime"])
	assert.Equal(t, float64(8192), h["BufferSize"])
	text := string(AppendHeaderText(nil, f))
	assert.Contains(t, text, "LoggerName:         TLTest\n")
	assert.Contains(t, text, "StartTime:          2024-01-17T21:20:00.0000000Z (FILETIME 133500000000000000)\n")
	assert.Equal(t, len(h), strings.Count(text, "\n"), "one line a field")
}
