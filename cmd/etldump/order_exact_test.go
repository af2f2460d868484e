package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
)

// writeBuffers builds a trace of one-record-per-tag buffers into a file:
// bufs[i] lists the (cpu, sequence number) of buffer i and the raw
// timestamps of its records.
func writeBuffers(t *testing.T, s etltest.Session, bufs []etltest.Buffer, stamps [][]int64) string {
	t.Helper()
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		for i, spec := range bufs {
			var recs []etltest.Record
			for _, ts := range stamps[i] {
				recs = append(recs, &etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: ts, Payload: binary.LittleEndian.AppendUint64(nil, uint64(ts))})
			}
			if err := b.WriteBuffer(spec, recs...); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "trace.etl")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// TestDefaultOrderIsExact: an appended trace (sequence numbers restart) and
// traces whose clocks resolve below 100 ns come out fully sorted by raw
// timestamp, and --stats finds no inversion and no backward step.
func TestDefaultOrderIsExact(t *testing.T) {
	const base = 1_000_000_000
	appended := etltest.DefaultSession()
	appended.BufferSize = 0x1000
	appended.LogFileMode = header.ModeFileAppend
	cycles := appended
	cycles.LogFileMode = header.ModeFileSequential
	cycles.ClockType, cycles.PerfFreq, cycles.CPUSpeedInMHz = header.ClockCPUCycle, 0, 3000
	qpc := cycles
	qpc.ClockType, qpc.PerfFreq, qpc.CPUSpeedInMHz = header.ClockQPC, 24_000_000, 0
	for _, c := range []struct {
		name   string
		s      etltest.Session
		bufs   []etltest.Buffer
		stamps [][]int64
	}{
		{"append", appended,
			[]etltest.Buffer{{CPU: 0, SequenceNumber: 1}, {CPU: 0, SequenceNumber: 2}, {CPU: 0, SequenceNumber: 1}, {CPU: 0, SequenceNumber: 2}},
			[][]int64{{base + 10, base + 20}, {base + 30, base + 40}, {base + 50, base + 60}, {base + 70, base + 80}}},
		{"3GHz", cycles,
			[]etltest.Buffer{{CPU: 0, SequenceNumber: 1}, {CPU: 1, SequenceNumber: 2}},
			[][]int64{{base + 120, base + 240}, {base + 60, base + 180}}},
		{"24MHz", qpc,
			[]etltest.Buffer{{CPU: 0, SequenceNumber: 1}, {CPU: 1, SequenceNumber: 2}},
			[][]int64{{base + 2}, {base + 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.s.HeaderTimeStamp = base
			path := writeBuffers(t, c.s, c.bufs, c.stamps)
			st, errs, code := statsJSON(t, path)
			require.Equal(t, 0, code, errs)
			assert.EqualValues(t, 0, st["Inversions"])
			assert.EqualValues(t, 0, st["BackwardSteps"])

			out, errs, code := runCmd(t, "--format", "jsonl", path)
			require.Equal(t, 0, code, errs)
			var raws []int64
			for _, o := range jsonLines(t, out)[1:] {
				raws = append(raws, int64(o["RawTimeStamp"].(float64)))
			}
			var want []int64
			for _, s := range c.stamps {
				want = append(want, s...)
			}
			assert.ElementsMatch(t, want, raws)
			assert.IsNonDecreasing(t, raws)
		})
	}
}
