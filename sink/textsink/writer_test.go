package textsink

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/record"
)

type described struct {
	r *record.Record
	d *describe.Description
}

// records reads every record of a trace, cloned, with what describe says
// of it.
func records(t *testing.T, path string) []described {
	t.Helper()
	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	names := describe.New(describe.Options{})
	var out []described
	for r, err := range f.Events() {
		require.NoError(t, err)
		d := &describe.Description{}
		names.Describe(r, d, true)
		d.Fields = append(d.Fields[:0:0], d.Fields...)
		for i := range d.Fields {
			d.Fields[i] = d.Fields[i].Clone()
		}
		out = append(out, described{r.Clone(), d})
	}
	return out
}

func TestWriterWithoutRecords(t *testing.T) {
	for format, want := range map[Format]string{
		Text:  "",
		JSONL: "",
		CSV:   csvColumns,
		XML:   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Events>\n</Events>\n",
	} {
		var out bytes.Buffer
		w, err := NewWriter(&out, Options{Format: format})
		require.NoError(t, err)
		require.NoError(t, w.Close())
		assert.Equal(t, want, out.String(), format)
		require.NoError(t, w.Close(), "a second Close")
	}
	_, err := NewWriter(&bytes.Buffer{}, Options{Format: "yaml"})
	assert.ErrorContains(t, err, `unknown format "yaml"`)
}

// countingWriter counts the writes it is given.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}

// The Writer gives what the Encoder appends, Begin to End, in blocks of
// about flushSize.
func TestWriterIsEncoder(t *testing.T) {
	recs := records(t, "../../testdata/etl/tracelogging.etl")
	require.NotEmpty(t, recs)
	for _, format := range Formats() {
		enc, err := NewEncoder(Options{Format: format})
		require.NoError(t, err)
		want := enc.Begin(nil)
		var out countingWriter
		w, err := NewWriter(&out, Options{Format: format})
		require.NoError(t, err)
		for len(want) < 3*flushSize {
			for _, rd := range recs {
				want = enc.Append(want, rd.r, rd.d)
				require.NoError(t, w.Write(rd.r, rd.d))
			}
		}
		want = enc.End(want)
		require.NoError(t, w.Close())
		assert.Equal(t, string(want), out.String(), format)
		assert.GreaterOrEqual(t, out.writes, 3, format)
		assert.LessOrEqual(t, out.writes, 4, format)
		assert.ErrorIs(t, w.Write(recs[0].r, recs[0].d), ErrClosed)
		assert.ErrorIs(t, w.Flush(), ErrClosed)
	}
}

// failingWriter fails every write.
type failingWriter struct{ n int }

var errFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) { f.n++; return 0, errFull }

// The first write error is returned then, by every later Write, and by
// Close, which then writes nothing more.
func TestWriterKeepsTheFirstError(t *testing.T) {
	recs := records(t, "../../testdata/etl/tracelogging.etl")
	var fw failingWriter
	w, err := NewWriter(&fw, Options{Format: XML})
	require.NoError(t, err)
	for err == nil {
		for _, rd := range recs {
			if err = w.Write(rd.r, rd.d); err != nil {
				break
			}
		}
	}
	assert.ErrorIs(t, err, errFull)
	assert.Equal(t, 1, fw.n)
	assert.ErrorIs(t, w.Write(recs[0].r, recs[0].d), errFull)
	assert.ErrorIs(t, w.Flush(), errFull)
	assert.ErrorIs(t, w.Close(), errFull)
	assert.Equal(t, 1, fw.n, "no write after the first failed")
}
