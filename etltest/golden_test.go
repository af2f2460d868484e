package etltest_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
)

var update = flag.Bool("update", false, "rewrite testdata/etl from the builder")

const goldenDir = "../testdata/etl"

// TestGolden checks that the committed traces and their README are exactly
// what the builder writes today; run with -update to rewrite them.
func TestGolden(t *testing.T) {
	traces := etltest.GoldenTraces()
	files := map[string][]byte{}
	var stats []etltest.Stats
	for _, g := range traces {
		out, st, err := g.Build()
		require.NoError(t, err, g.Name)
		assert.Less(t, len(out), 128<<10, "%s should stay small", g.Name)
		files[g.Name] = out
		stats = append(stats, st)
	}
	files["README.md"] = []byte(goldenReadme(traces, stats))

	if *update {
		require.NoError(t, os.MkdirAll(goldenDir, 0o755))
		for name, b := range files {
			require.NoError(t, os.WriteFile(filepath.Join(goldenDir, name), b, 0o644))
		}
		return
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(goldenDir, name))
		require.NoError(t, err, "run go test ./etltest -run TestGolden -update")
		assert.True(t, bytes.Equal(want, got), "%s differs from the builder's output; run go test ./etltest -run TestGolden -update", name)
	}
}

func TestGoldenDeterministic(t *testing.T) {
	for _, g := range etltest.GoldenTraces() {
		a, _, err := g.Build()
		require.NoError(t, err, g.Name)
		b, _, err := g.Build()
		require.NoError(t, err, g.Name)
		assert.True(t, bytes.Equal(a, b), g.Name)
	}
}

func goldenReadme(traces []etltest.GoldenTrace, stats []etltest.Stats) string {
	var b strings.Builder
	b.WriteString(`# Synthetic ETL traces

Written by package etltest; do not edit by hand. Regenerate the traces and
this file with

    go test ./etltest -run TestGolden -update

and TestGolden fails whenever they drift from the builder's output.

Common to all traces unless said otherwise: QPC clock at 10 MHz
(PerfFreq 10,000,000), StartTime 133,500,000,000,000,000 (FILETIME), header
record timestamp 1,000,000,000, Windows 10.0 build 19045 format 1.5, header
buffer of type HEADER with FLUSH_MARKER and sequence number 0, data buffers
of state 3 with the 0xFF fill after their records, every record 8-byte
aligned. GUIDs are written in Windows byte order.

Record counts are per header kind as the builder wrote them, the logfile
header record included (it is the first SYSTEM32 or SYSTEM64 record).
"In damaged buffers" counts the records written inside buffers damaged on
purpose (or after garbage in a buffer): a reader recovers none or only some
of them, as each description says.
`)
	for i, g := range traces {
		st := stats[i]
		s := g.Session()
		bits := "64-bit"
		if s.Bits32 {
			bits = "32-bit"
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", g.Name, g.Description)
		fmt.Fprintf(&b, "- %d bytes, %d buffers (header buffer included), %s session, BufferSize 0x%X, clock type %d, NumberOfProcessors %d\n\n",
			st.Bytes, st.Buffers, bits, s.BufferSize, s.ClockType, s.NumberOfProcessors)
		b.WriteString("| Header kind | Records | In damaged buffers |\n|---|---:|---:|\n")
		total, damaged := 0, 0
		for _, k := range st.Kinds() {
			fmt.Fprintf(&b, "| %s | %d | %d |\n", k, st.Records[k], st.Damaged[k])
			total += st.Records[k]
			damaged += st.Damaged[k]
		}
		fmt.Fprintf(&b, "| total | %d | %d |\n", total, damaged)
	}
	return b.String()
}
