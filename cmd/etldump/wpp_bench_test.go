package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
)

// benchTMF holds messages shaped like those of real drivers: status codes,
// pointers, strings and numbers (in the shared TMFs, 36%, 28%, 12% and 11%
// of the arguments), and messages without arguments.
const benchTMF = `// PDB:  bench.pdb
dddddddd-0000-3000-0000-000000000001 benchdrv // SRC=Device.c MJ= MN=
#typev Device_c10 10 "%0 [%!FUNC!] <-- Exit <status=%10!s!>" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=TRACE_DEVICE FUNC=DeviceAdd
{
status, ItemNTSTATUS -- 10
}
#typev Device_c20 11 "%0 [%!FUNC!]>> Bulk IN transfer (PipeHandle: 0x%10!p!)" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=TRACE_QUEUE FUNC=EvtIoInternalDeviceControl
{
urb->UrbBulkOrInterruptTransfer.PipeHandle, ItemPtr -- 10
}
#typev Device_c30 12 "%0 [%!FUNC!] Device %10!s! in state %11!d! (context 0x%12!p!)" //   LEVEL=TRACE_LEVEL_INFORMATION FLAGS=TRACE_DEVICE FUNC=DeviceStateChange
{
name, ItemString -- 10
state, ItemLong -- 11
ctx, ItemPtr -- 12
}
#typev Device_c40 13 "%0 [%!FUNC!] --> Entry" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=TRACE_DEVICE FUNC=DeviceAdd
{
}
#typev Device_c50 14 "%0 [%!FUNC!] ERROR:WdfRequestRetrieveInputBuffer failed with status %10!s!" //   LEVEL=TRACE_LEVEL_ERROR FLAGS=TRACE_QUEUE FUNC=EvtIoInternalDeviceControl
{
status, ItemNTSTATUS -- 10
}
#typev Device_c60 15 "%0 [%!FUNC!] Length %10!u! Offset 0x%11!08X!" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=TRACE_QUEUE FUNC=EvtIoRead
{
length, ItemLong -- 10
offset, ItemLong -- 11
}
`

var (
	wppBenchOnce               sync.Once
	wppBenchTrace, wppBenchTMF string
	wppBenchErr                error
)

// wppBenchRecords is the number of WPP messages of the benchmark trace.
const wppBenchRecords = 1_000_000

// wppBench writes, once per test binary run, a trace of a million WPP
// messages of benchTMF's shapes over 4 processors, and the TMF.
func wppBench(b *testing.B) (trace, tmf string) {
	wppBenchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "etldump-wpp-bench-")
		if err != nil {
			wppBenchErr = err
			return
		}
		wppBenchTMF = filepath.Join(dir, "dddddddd-0000-3000-0000-000000000001.tmf")
		if wppBenchErr = os.WriteFile(wppBenchTMF, []byte(benchTMF), 0o644); wppBenchErr != nil {
			return
		}
		wppBenchTrace = filepath.Join(dir, "wpp.etl")
		wppBenchErr = writeWPPBench(wppBenchTrace)
	})
	if wppBenchErr != nil {
		b.Fatal(wppBenchErr)
	}
	return wppBenchTrace, wppBenchTMF
}

func writeWPPBench(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s := etltest.DefaultSession()
	s.LoggerName = "wpp-bench"
	s.DataBuffer = etltest.Buffer{ProcIndex: true}
	bld, err := etltest.NewBuilder(f, s)
	if err != nil {
		return err
	}
	g := uuid.MustParse("dddddddd-0000-3000-0000-000000000001")
	opts := uint16(header.MessageSequence | header.MessageGUID | header.MessageTimestamp | header.MessageSystemInfo | header.MessagePointer64)
	le := binary.LittleEndian
	args := [][]byte{
		le.AppendUint32(nil, 0xC0000001),
		le.AppendUint64(nil, 0xFFFF95820BE02120),
		append(append([]byte("USB\\VID_054C&PID_0268\x00"), le.AppendUint32(nil, 3)...), le.AppendUint64(nil, 0xFFFF95820BE03000)...),
		nil,
		le.AppendUint32(nil, 0xC0000034),
		append(le.AppendUint32(nil, 512), le.AppendUint32(nil, 0x1000)...),
	}
	for i := 0; i < wppBenchRecords; i++ {
		k := i % len(args)
		bld.CPU(i % 4).Add(&etltest.Message{MessageNumber: uint16(10 + k), OptionFlags: opts, Sequence: uint32(i), Guid: g,
			TimeStamp: s.HeaderTimeStamp + int64(i), ThreadId: 0x100 + uint32(i%7), ProcessId: 4, Args: args[k]})
		if err := bld.Err(); err != nil {
			return err
		}
	}
	return bld.Close()
}

// BenchmarkWPP runs the whole program on a million WPP messages, with and
// without their TMF, in ns per record, to hold the cost of decoding them
// against BenchmarkRun/jsonl's, the cost of other decoded events:
//
//	go test ./cmd/etldump -run XXX -bench 'WPP|Run/jsonl' -count 5
func BenchmarkWPP(b *testing.B) {
	trace, tmf := wppBench(b)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"count", []string{"--count"}},
		{"jsonl-plain", []string{"--format", "jsonl"}},
		{"jsonl-tmf", []string{"--format", "jsonl", "--tmf", tmf}},
		{"text-tmf", []string{"--tmf", tmf}},
	} {
		b.Run(c.name, func(b *testing.B) {
			runBench(b, trace, c.args)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*wppBenchRecords), "ns/record")
		})
	}
}
