package textsink

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
)

// writeAll writes every record of the trace at path in format, in time
// order, named and decoded from what the trace carries.
func writeAll(t *testing.T, path string, format Format) string {
	t.Helper()
	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	d := describe.New(describe.Options{})
	var out bytes.Buffer
	w, err := NewWriter(&out, Options{Format: format})
	require.NoError(t, err)
	var desc describe.Description
	for r, err := range f.Events() {
		require.NoError(t, err)
		d.Describe(r, &desc, true)
		require.NoError(t, w.Write(r, &desc))
	}
	require.NoError(t, w.Close())
	return out.String()
}

// The CSV, XML and JSON outputs of a real TraceLogging trace must parse
// with the standard decoders and agree with each other.
func TestFormatsParseAndAgree(t *testing.T) {
	path := samples.Path(t, "win11-waasmedic.etl")
	jsonl := writeAll(t, path, JSONL)
	var objs []map[string]any
	dec := json.NewDecoder(strings.NewReader(jsonl))
	for {
		var m map[string]any
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		objs = append(objs, m)
	}
	require.Len(t, objs, 21)

	csvOut := writeAll(t, path, CSV)
	rows, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 22)
	head := rows[0]
	assert.Equal(t, strings.Split(strings.TrimSpace(csvColumns), ","), head)
	assert.Equal(t, "TimeStamp", head[0])
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for i, m := range objs {
		row := rows[i+1]
		for _, name := range []string{"TimeStamp", "HeaderType", "ProviderId", "ProviderName", "EventName", "Keyword", "UserData"} {
			want, _ := m[name].(string)
			assert.Equal(t, want, row[col[name]], "record %d %s", i, name)
		}
		if p, ok := m["Payload"].(map[string]any); ok {
			// The CSV payload cell is the jsonl Payload object.
			var cell map[string]any
			require.NoError(t, json.Unmarshal([]byte(row[col["Payload"]]), &cell), "record %d", i)
			assert.Equal(t, p, cell, "record %d", i)
		}
	}

	xmlOut := writeAll(t, path, XML)
	var doc struct {
		Events []struct {
			System struct {
				Provider struct {
					Name string `xml:",attr"`
					Guid string `xml:",attr"`
				}
				EventID     int
				Level       int
				TimeCreated struct {
					SystemTime string `xml:",attr"`
				}
			}
			Data []struct {
				Name  string `xml:",attr"`
				Value string `xml:",chardata"`
			} `xml:"EventData>Data"`
			Binary string `xml:"BinaryEventData"`
		} `xml:"Event"`
	}
	require.NoError(t, xml.NewDecoder(bytes.NewReader([]byte(xmlOut))).Decode(&doc))
	require.Len(t, doc.Events, 21)
	for i, e := range doc.Events {
		m := objs[i]
		assert.Equal(t, "{"+m["ProviderId"].(string)+"}", e.System.Provider.Guid)
		assert.Equal(t, m["TimeStamp"], e.System.TimeCreated.SystemTime)
		if p, ok := m["Payload"].(map[string]any); ok {
			require.Len(t, e.Data, len(p))
			for _, d := range e.Data {
				if s, ok := p[d.Name].(string); ok {
					assert.Equal(t, s, d.Value, "record %d field %s", i, d.Name)
				} else {
					assert.Contains(t, p, d.Name)
				}
			}
		} else {
			assert.Equal(t, m["UserData"], e.Binary)
		}
	}
}
