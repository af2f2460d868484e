package parquetsink

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// convert writes every record of the trace at path, in time order, and
// returns the file and the records (cloned) with the Decoded each got.
func convert(t testing.TB, path string, opts Options) ([]byte, []*record.Record, []Decoded) {
	t.Helper()
	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out bytes.Buffer
	w, err := NewWriter(&out, opts)
	require.NoError(t, err)
	var recs []*record.Record
	var decs []Decoded
	var traits record.TraitsCache
	for r, err := range f.Events() {
		if err != nil {
			continue
		}
		d := Decoded{ProviderName: traits.ProviderName(r), File: filepath.Base(path)}
		// Every third record gets a payload, so that both Payload and
		// UserData are exercised on every kind of record.
		if len(recs)%3 == 0 {
			d.Payload = fmt.Appendf(nil, `{"i":%d}`, len(recs))
			d.EventName = "Event" + r.HeaderType.String()
		}
		written := d
		if len(recs)%6 == 3 {
			// Half of those with a payload rendered in place through
			// AppendPayload, which Write must prefer to Payload.
			js := d.Payload
			written.Payload = []byte("not read")
			written.AppendPayload = func(dst []byte) []byte { return append(dst, js...) }
		}
		require.NoError(t, w.Write(r, &written))
		recs = append(recs, r.Clone())
		decs = append(decs, d)
	}
	require.NoError(t, w.Close())
	require.EqualValues(t, len(recs), w.Rows())
	return out.Bytes(), recs, decs
}

// expectRow is what a row must hold for record r: the rules of the JSON
// lines, NULL where they leave a field out.
func expectRow(r *record.Record, d *Decoded, fileColumn bool) map[string]any {
	fs := record.DescriptorFieldsOf(r.HeaderType)
	ed := r.EventDescriptor
	opt := func(v any, ok bool) any {
		if ok {
			return v
		}
		return nil
	}
	str := func(s string) any { return opt(s, s != "") }
	ft, hasTime := r.FileTime()
	rel, hasRel := r.RelatedActivity()
	m := map[string]any{
		"TimeStamp":         opt((ft-header.FileTimeEpochDelta)*100, hasTime),
		"RawTimeStamp":      r.RawTimeStamp,
		"HeaderType":        r.HeaderType.String(),
		"ProviderId":        opt(r.ProviderId.String(), r.HasProvider()),
		"ProviderName":      str(d.ProviderName),
		"EventName":         str(d.EventName),
		"Id":                opt(int64(ed.Id), fs&record.FieldID != 0),
		"Version":           opt(int64(ed.Version), fs&record.FieldVersion != 0),
		"Channel":           opt(int64(ed.Channel), fs&record.FieldChannel != 0),
		"Level":             opt(int64(ed.Level), fs&record.FieldLevel != 0),
		"Opcode":            opt(int64(ed.Opcode), fs&record.FieldOpcode != 0),
		"Task":              opt(int64(ed.Task), fs&record.FieldTask != 0),
		"Keyword":           opt(int64(ed.Keyword), fs&record.FieldKeyword != 0),
		"ProcessId":         opt(int64(int32(r.ProcessId)), r.HasThreadProcess),
		"ThreadId":          opt(int64(int32(r.ThreadId)), r.HasThreadProcess),
		"ProcessorNumber":   int64(r.ProcessorNumber),
		"ActivityId":        opt(r.ActivityId.String(), fs&record.FieldActivityID != 0),
		"RelatedActivityId": opt(rel.String(), hasRel),
		"Flags":             int64(r.Flags),
		"Payload":           opt(string(d.Payload), d.Payload != nil),
		"UserData":          opt(string(r.UserData), d.Payload == nil && len(r.UserData) > 0),
	}
	if fileColumn {
		m["File"] = d.File
	}
	return m
}

func TestRowsMatchRecords(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/etl/*.etl")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	kinds := map[header.Type]int{}
	for _, path := range paths {
		for _, fileColumn := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/file=%v", filepath.Base(path), fileColumn), func(t *testing.T) {
				b, recs, decs := convert(t, path, Options{FileColumn: fileColumn})
				tb := readTable(t, b)
				require.Equal(t, ColumnNames(fileColumn), tb.names)
				require.Equal(t, len(recs), tb.rows())
				for i, r := range recs {
					kinds[r.HeaderType]++
					want := expectRow(r, &decs[i], fileColumn)
					for _, name := range tb.names {
						require.Equal(t, want[name], tb.cols[name][i], "row %d (%s) column %s", i, r.HeaderType, name)
					}
				}
			})
		}
	}
	// The committed traces cover every kind of header the NULL rules tell
	// apart.
	for _, typ := range []header.Type{header.TypeSystem64, header.TypePerfInfo64, header.TypeFull32, header.TypeEventHeader64, header.TypeMessage} {
		assert.NotZero(t, kinds[typ], "no %s record in testdata/etl", typ)
	}
}

// TestRowsMatchRecordsAcrossChunks checks every value of a trace whose rows
// span many chunks and row groups, and of payloads larger than the room a
// chunk is made with, which its column must grow past.
func TestRowsMatchRecordsAcrossChunks(t *testing.T) {
	path := benchTrace(t, 2<<20)
	b, recs, decs := convert(t, path, Options{RowGroupRows: 5000})
	require.Greater(t, len(recs), 4*chunkRows, "the trace is too small for the test")
	tb := readTable(t, b)
	require.Equal(t, len(recs), tb.rows())
	for i, r := range recs {
		want := expectRow(r, &decs[i], false)
		for _, name := range tb.names {
			require.Equal(t, want[name], tb.cols[name][i], "row %d column %s", i, name)
		}
	}

	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out bytes.Buffer
	w, err := NewWriter(&out, Options{})
	require.NoError(t, err)
	var payloads []string
	for r, err := range f.Events() {
		require.NoError(t, err)
		// 0.7 MiB: the second of a chunk passes the room it was made with.
		p := fmt.Sprintf(`{"i":%d,"s":"%s"}`, len(payloads), strings.Repeat(string(rune('a'+len(payloads)%26)), 700<<10))
		require.NoError(t, w.Write(r, &Decoded{Payload: []byte(p)}))
		payloads = append(payloads, p)
		if len(payloads) == 5 {
			break
		}
	}
	require.NoError(t, w.Close())
	tb = readTable(t, out.Bytes())
	require.Equal(t, len(payloads), tb.rows())
	for i, p := range payloads {
		assert.Equal(t, p, tb.cols["Payload"][i], "row %d", i)
	}
}

func TestSchemaTypes(t *testing.T) {
	b, _, _ := convert(t, "../../testdata/etl/tracelogging.etl", Options{FileColumn: true})
	tb := readTable(t, b)
	for name, want := range map[string]string{
		"TimeStamp":       "Timestamp(isAdjustedToUTC=false, timeUnit=nanoseconds",
		"HeaderType":      "String",
		"ProviderId":      "String",
		"Id":              "Int(bitWidth=16, isSigned=false)",
		"Version":         "Int(bitWidth=8, isSigned=false)",
		"Keyword":         "Int(bitWidth=64, isSigned=false)",
		"ProcessId":       "Int(bitWidth=32, isSigned=false)",
		"ProcessorNumber": "Int(bitWidth=16, isSigned=false)",
		"Payload":         "JSON",
		"UserData":        "None",
		"File":            "String",
	} {
		assert.True(t, strings.HasPrefix(tb.logical[name], want), "%s: %s, want %s", name, tb.logical[name], want)
	}
}

// benchTrace is a synthetic trace of about size bytes in memory, written
// to a temporary file.
func benchTrace(t testing.TB, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bench.etl")
	var buf bytes.Buffer
	_, err := etltest.WriteBenchmarkTrace(&buf, size, 4)
	require.NoError(t, err)
	require.NoError(t, writeFile(path, buf.Bytes()))
	return path
}

func TestRowGroupsCutByRowsAndBytes(t *testing.T) {
	path := benchTrace(t, 4<<20)
	b, recs, _ := convert(t, path, Options{RowGroupRows: 5000})
	tb := readTable(t, b)
	require.Equal(t, len(recs), tb.rows())
	require.Greater(t, len(recs), 3*5000, "the trace is too small for the test")
	for i, n := range tb.rowGroups {
		if i < len(tb.rowGroups)-1 {
			assert.EqualValues(t, 5000, n, "row group %d", i)
		} else {
			assert.LessOrEqual(t, n, int64(5000))
		}
	}

	b, recs, _ = convert(t, path, Options{RowGroupBytes: 1 << 20})
	tb = readTable(t, b)
	require.Equal(t, len(recs), tb.rows())
	assert.Greater(t, len(tb.rowGroups), 3, "4 MiB of records in row groups of 1 MiB")

	b, recs, _ = convert(t, path, Options{})
	tb = readTable(t, b)
	require.Equal(t, len(recs), tb.rows())
	assert.Len(t, tb.rowGroups, (len(recs)+DefaultRowGroupRows-1)/DefaultRowGroupRows)
}

func TestEmptyFileIsValid(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(&out, Options{})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	tb := readTable(t, out.Bytes())
	assert.Equal(t, ColumnNames(false), tb.names)
	assert.Zero(t, tb.rows())
	assert.Empty(t, tb.rowGroups)
}

func TestRecordWithoutClockHasNullTime(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(&out, Options{})
	require.NoError(t, err)
	r := &record.Record{HeaderType: header.TypeEventHeader64, RawTimeStamp: 42, UserData: []byte{1, 2}}
	require.NoError(t, w.Write(r, &Decoded{}))
	require.NoError(t, w.Close())
	tb := readTable(t, out.Bytes())
	require.Equal(t, 1, tb.rows())
	assert.Nil(t, tb.cols["TimeStamp"][0])
	assert.Equal(t, int64(42), tb.cols["RawTimeStamp"][0])
	assert.Equal(t, "\x01\x02", tb.cols["UserData"][0])
	assert.Nil(t, tb.cols["Payload"][0])
}

// failingWriter fails once more than limit bytes were written.
type failingWriter struct{ n, limit int }

var errFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.n+len(p) > f.limit {
		return 0, errFull
	}
	f.n += len(p)
	return len(p), nil
}

func TestWriterErrorIsReported(t *testing.T) {
	path := benchTrace(t, 2<<20)
	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	w, err := NewWriter(&failingWriter{limit: 64 << 10}, Options{RowGroupRows: 2000})
	require.NoError(t, err)
	var writeErr error
	for r, err := range f.Events() {
		if err != nil {
			continue
		}
		if writeErr = w.Write(r, &Decoded{}); writeErr != nil {
			break
		}
	}
	closeErr := w.Close()
	require.Error(t, closeErr)
	assert.ErrorIs(t, closeErr, errFull)
	if writeErr != nil {
		assert.ErrorIs(t, writeErr, errFull)
	}
	assert.ErrorIs(t, w.Write(&record.Record{}, &Decoded{}), ErrClosed)
}
