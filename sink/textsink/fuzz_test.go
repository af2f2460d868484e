package textsink_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"io"
	"testing"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/seeds"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/sink/textsink"
)

// FuzzTrace names, decodes and writes the records of arbitrary trace bytes
// in every format, with what the trace says of itself learned first (TDH
// metadata, EventSource manifests, kernel names): no panic, every JSON
// line is one valid JSON value, every text line holds one record, the CSV
// has a row of 24 fields per record, and the XML is well-formed.
func FuzzTrace(f *testing.F) {
	for _, b := range seeds.SmallFiles() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
		if err != nil {
			return
		}
		names, _ := describe.ForTrace(nil, r)
		var d describe.Description
		for _, format := range textsink.Formats() {
			enc, err := textsink.NewEncoder(textsink.Options{Format: format, Message: format == textsink.Text})
			if err != nil {
				t.Fatal(err)
			}
			out := enc.Begin(nil)
			n := 0
			for rec, err := range r.EventsWith(order.Options{ReadAhead: -1}) {
				if err != nil {
					continue
				}
				if n++; n > 2000 {
					break
				}
				names.Describe(rec, &d, true)
				mark := len(out)
				out = enc.Append(out, rec, &d)
				line := out[mark:]
				if (format == textsink.JSONL || format == textsink.Text) && (len(line) == 0 || bytes.IndexByte(line, '\n') != len(line)-1) {
					t.Fatalf("a record's %s is not one line: %q", format, line)
				}
				if format == textsink.JSONL && !json.Valid(line) {
					t.Fatalf("not one JSON value: %q", line)
				}
			}
			out = enc.End(out)
			if format == textsink.CSV {
				// The header row and every record: 24 fields each.
				rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
				if err != nil {
					t.Fatalf("CSV: %v", err)
				}
				if len(rows) != min(n, 2000)+1 {
					t.Fatalf("CSV: %d rows for %d records", len(rows), min(n, 2000))
				}
				for _, row := range rows {
					if len(row) != 24 {
						t.Fatalf("CSV: a row of %d fields: %q", len(row), row)
					}
				}
			}
			if format == textsink.XML {
				dec := xml.NewDecoder(bytes.NewReader(out))
				for {
					if _, err := dec.Token(); err == io.EOF {
						break
					} else if err != nil {
						t.Fatalf("XML: %v", err)
					}
				}
			}
		}
	})
}
