package perfview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/payload"
)

func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.perfview.txt")
	require.NoError(t, os.WriteFile(path, []byte(
		"EVENT 1,275.943: Windows Kernel/DiskIO/Read PID=4; TID=44; PName=System; ProceNum=2; DataLen=56; DiskNumber=0; FileName=a; b; ElapsedTimeMSec=25.821; \n"+
			"something else\n"+
			"EVENT 2.5: PerfView/X PID=-1; TID=-1; PName=; ProceNum=0; DataLen=0; Empty=; \n"+
			"COUNT Windows Kernel/DiskIO/Read:5\n"), 0o644))
	l, err := Read(path)
	require.NoError(t, err)
	require.Len(t, l.Events, 2)
	e := l.Events[0]
	assert.Equal(t, 1, e.Line)
	assert.Equal(t, "Windows Kernel/DiskIO/Read", e.Name)
	assert.Equal(t, "Windows Kernel", e.Provider())
	assert.Equal(t, int64(1275943), e.Micros())
	assert.Equal(t, []Field{{"DiskNumber", "0"}, {"FileName", "a; b"}, {"ElapsedTimeMSec", "25.821"}}, e.Fields)
	assert.Equal(t, int64(-1), l.Events[1].PID)
	assert.Equal(t, []Field{{"Empty", ""}}, l.Events[1].Fields)
	assert.Equal(t, map[string]int{"Windows Kernel/DiskIO/Read": 5}, l.Counts)
	assert.Len(t, l.Of("PerfView/"), 1)
	assert.Len(t, l.Of(), 2)
}

func TestPrintedAs(t *testing.T) {
	u32 := &payload.Field{Name: "U", InType: payload.InUInt32}
	f64 := &payload.Field{Name: "F", InType: payload.InDouble}
	for _, c := range []struct {
		v    payload.Value
		want string
		ok   bool
	}{
		{payload.NewUint(u32, 849788928), "849,788,928", true},
		{payload.NewUint(u32, 0xFFFFFFFF), "-1", true},
		{payload.NewUint(u32, 0x72C61F4), "0x072c61f4", true},
		{payload.NewUint(u32, 5), "6", false},
		{payload.NewFloat(f64, 25.8208), "25.821", true},
		{payload.NewFloat(f64, 25.8208), "25.820", false},
		{payload.NewFloat(f64, 0.0005), "0.001", true},
		{payload.NewFloat(f64, 1234.5), "1,234.500", true},
		{payload.NewString(&payload.Field{Name: "S"}, []byte("System.Runtime.CompilerServices")), "System.Runtime.Compi...", true},
		{payload.NewBool(&payload.Field{Name: "B"}, true), "True", true},
		{payload.NewFileTime(&payload.Field{Name: "T"}, 132404547793510000), "20/07/29 00:06:19.351", true},
	} {
		assert.Equal(t, c.ok, PrintedAs(c.v, c.want), "%v as %q", c.v, c.want)
	}
}

func TestJSONPrintedAs(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
		ok   bool
	}{
		{json.Number("849788928"), "849,788,928", true},
		{json.Number("4294967295"), "-1", true},
		{"0x72C61F4", "0x072c61f4", true},
		{"0x72C61F4", "120,349,172", true},
		{json.Number("25.8208"), "25.821", true},
		{json.Number("25.8208"), "25.8208", true},
		{"System.Runtime.CompilerServices", "System.Runtime.Compi...", true},
		{json.Number("1"), "True", true},
		{"2020-07-29T00:06:19.3510000Z", "20/07/29 00:06:19.351", true},
		{"x", "y", false},
	} {
		assert.Equal(t, c.ok, JSONPrintedAs(c.v, c.want), "%v as %q", c.v, c.want)
	}
	ok, _ := JSONAgree("Flags", "A, B", map[string]any{"flags": json.Number("3"), "flagsname": "A, B"})
	assert.True(t, ok)
	ok, ours := JSONAgree("Gone", "", map[string]any{})
	assert.False(t, ok)
	assert.Empty(t, ours)
}

// TestMatch: the record at the event's time and processor, of its name,
// preferring its process and thread; a field printed empty that we do not
// have agrees, and is counted apart.
func TestMatch(t *testing.T) {
	events := []Event{
		{Line: 1, MS: 1.000, Name: "P/E", PID: 7, TID: 8, CPU: 1, Fields: []Field{{"A", "1"}, {"B", ""}}},
		{Line: 2, MS: 2.000, Name: "P/F", CPU: 1, Fields: []Field{{"A", "1"}}},
	}
	x := NewIndex[payload.Value](events)
	assert.True(t, x.Wants(1, 1001))
	assert.False(t, x.Wants(2, 1000))
	a := &payload.Field{Name: "A", InType: payload.InUInt32}
	x.Add(1, 1000, &Record[payload.Value]{Name: "P/E", PID: 9, TID: 9, HasIDs: true, Fields: map[string]payload.Value{"A": payload.NewUint(a, 1)}})
	x.Add(1, 1001, &Record[payload.Value]{Name: "p/e", PID: 7, TID: 8, HasIDs: true, Fields: map[string]payload.Value{"A": payload.NewUint(a, 2)}})
	x.Add(1, 2000, &Record[payload.Value]{Name: "P/G"})
	outs := Match(events, x, ValueAgree)
	require.Len(t, outs, 2)
	// The record of the same process and thread, although a field
	// agrees on the other.
	assert.Equal(t, 1, outs[0].Agreed)
	assert.Equal(t, 1, outs[0].EmptyAbsent)
	assert.Equal(t, []Miss{{"A", "1", "2"}}, outs[0].Misses)
	assert.False(t, outs[1].Named)
	assert.Equal(t, []string{"P/G"}, outs[1].There)
	assert.Equal(t, Score{Names: 1, NamesAll: 2, Fields: 1, FieldsAll: 3, EmptyAbsent: 1}, Total(outs))
	counts, lines := Misses(outs)
	assert.Equal(t, map[MissKey]int{{"P/E", "A"}: 1, {"P/F", ""}: 1}, counts)
	assert.Len(t, lines, 2)
}
