package parquetsink

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/stretchr/testify/require"
)

// table is a Parquet file read back whole: column name to values, nil for
// NULL, int64 for the integer columns, string for the byte columns and
// []string for a list of strings.
type table struct {
	names     []string
	logical   map[string]string
	cols      map[string][]any
	rowGroups []int64
}

// readTable reads every row of a Parquet file with the library's own
// reader; the DuckDB tests of cmd/etldump read it with an engine.
func readTable(t testing.TB, b []byte) *table {
	t.Helper()
	rdr, err := file.NewParquetReader(bytes.NewReader(b))
	require.NoError(t, err)
	defer rdr.Close()
	sc := rdr.MetaData().Schema
	tb := &table{logical: map[string]string{}, cols: map[string][]any{}}
	for j := 0; j < sc.NumColumns(); j++ {
		c := sc.Column(j)
		name := columnName(c.Path())
		tb.names = append(tb.names, name)
		tb.logical[name] = c.LogicalType().String()
		if c.MaxRepetitionLevel() > 0 {
			tb.logical[name] = "List<" + tb.logical[name] + ">"
		}
		tb.cols[name] = []any{}
	}
	for i := 0; i < rdr.NumRowGroups(); i++ {
		rg := rdr.RowGroup(i)
		n := rg.NumRows()
		tb.rowGroups = append(tb.rowGroups, n)
		for j := 0; j < sc.NumColumns(); j++ {
			cr, err := rg.Column(j)
			require.NoError(t, err)
			name := columnName(sc.Column(j).Path())
			if sc.Column(j).MaxRepetitionLevel() > 0 {
				tb.cols[name] = append(tb.cols[name], readListColumn(t, cr, n)...)
				continue
			}
			tb.cols[name] = append(tb.cols[name], readColumn(t, cr, n)...)
		}
	}
	return tb
}

func readColumn(t testing.TB, cr file.ColumnChunkReader, n int64) []any {
	t.Helper()
	defs := make([]int16, n)
	out := make([]any, 0, n)
	spread := func(levels int64, value func(i int) any) {
		k := 0
		for i := int64(0); i < levels; i++ {
			if cr.Descriptor().MaxDefinitionLevel() > 0 && defs[i] == 0 {
				out = append(out, nil)
				continue
			}
			out = append(out, value(k))
			k++
		}
	}
	for int64(len(out)) < n {
		want := n - int64(len(out))
		var levels int64
		var err error
		switch r := cr.(type) {
		case *file.Int32ColumnChunkReader:
			vals := make([]int32, want)
			levels, _, err = r.ReadBatch(want, vals, defs, nil)
			spread(levels, func(i int) any { return int64(vals[i]) })
		case *file.Int64ColumnChunkReader:
			vals := make([]int64, want)
			levels, _, err = r.ReadBatch(want, vals, defs, nil)
			spread(levels, func(i int) any { return vals[i] })
		case *file.ByteArrayColumnChunkReader:
			vals := make([]parquet.ByteArray, want)
			levels, _, err = r.ReadBatch(want, vals, defs, nil)
			spread(levels, func(i int) any { return string(vals[i]) })
		default:
			t.Fatalf("unexpected column reader %T", cr)
		}
		require.NoError(t, err)
		require.NotZero(t, levels, "column ended before its %d rows", n)
	}
	return out
}

// columnName is the top-level name of a column path (a list's strings
// are at NAME.list.element).
func columnName(path string) string {
	name, _, _ := strings.Cut(path, ".")
	return name
}

// readListColumn reads a column of lists of strings, n rows: each row's
// strings, or nil for NULL.
func readListColumn(t testing.TB, cr file.ColumnChunkReader, n int64) []any {
	t.Helper()
	r, ok := cr.(*file.ByteArrayColumnChunkReader)
	require.True(t, ok, "%T", cr)
	maxDef := cr.Descriptor().MaxDefinitionLevel()
	var out []any
	for {
		defs, reps := make([]int16, 1024), make([]int16, 1024)
		vals := make([]parquet.ByteArray, 1024)
		levels, _, err := r.ReadBatch(1024, vals, defs, reps)
		require.NoError(t, err)
		if levels == 0 {
			break
		}
		k := 0
		for i := range levels {
			if reps[i] == 0 {
				out = append(out, nil)
			}
			if defs[i] < maxDef {
				require.Zero(t, defs[i], "an empty list")
				continue
			}
			row := &out[len(out)-1]
			list, _ := (*row).([]string)
			*row = append(list, string(vals[k]))
			k++
		}
	}
	require.EqualValues(t, n, len(out))
	return out
}

func (tb *table) rows() int {
	if len(tb.names) == 0 {
		return 0
	}
	return len(tb.cols[tb.names[0]])
}
