package etl_test

import (
	"bytes"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
)

// The record fields a session decides how to read, read through the
// reader as a trace holds them.

// readBothOrders builds a trace of recs on CPU 0 and reads it back, in file order
// (Records) and in time order (Events), which decode through different
// paths: the record as both give it must be the same.
func readBothOrders(t *testing.T, s etltest.Session, recs ...etltest.Record) []*record.Record {
	t.Helper()
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.CPU(0).Add(recs...)
		return b.Err()
	})
	require.NoError(t, err)
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	var inFile, inTime []*record.Record
	for rec, err := range r.Records() {
		require.NoError(t, err)
		inFile = append(inFile, rec.Clone())
	}
	for rec, err := range r.Events() {
		require.NoError(t, err)
		inTime = append(inTime, rec.Clone())
	}
	require.Len(t, inTime, len(inFile))
	for i := range inFile {
		assert.Equal(t, inFile[i].ClassVersion, inTime[i].ClassVersion, "record %d", i)
		assert.Equal(t, inFile[i].HasProcessorTime, inTime[i].HasProcessorTime, "record %d", i)
	}
	require.Len(t, inFile, len(recs)+1, "the logfile header record, then ours")
	return inFile[1:]
}

// TestClassVersionKeepsSixteenBits: the classic header's Class.Version is a
// USHORT that selects the MOF class, and the kernel headers' Version is 16
// bits with the PEBS/PMC extension bits in it. The descriptor keeps the
// byte ProcessTrace gives; ClassVersion keeps the whole version.
func TestClassVersionKeepsSixteenBits(t *testing.T) {
	class := uuid.MustParse("f0f0f0f0-6666-4666-8666-666666666666")
	ts := int64(1_000_000_100)
	recs := []etltest.Record{
		&etltest.Full{Version: 0x0102, Guid: class, TimeStamp: ts},
		&etltest.Full{Bits32: true, Version: 0xFFFF, Guid: class, TimeStamp: ts + 1},
		&etltest.Instance{Full: etltest.Full{Version: 0x1234, Guid: class, TimeStamp: ts + 2}},
		// Without extension bits the fast path decodes these; with them, Decode.
		&etltest.System{Version: 0x0803, HookId: 0x0301, TimeStamp: ts + 3},
		&etltest.System{Version: 0x0803, HookId: 0x0301, TimeStamp: ts + 4, HasPEBS: true, PMC: []uint64{1, 2}},
		&etltest.Compact{Version: 0x4005, HookId: 0x0524, TimeStamp: ts + 5, PMC: []uint64{7}},
		&etltest.PerfInfo{Version: 0x7802, HookId: 0x0F2E, TimeStamp: ts + 6, HasPEBS: true},
		&etltest.PerfInfo{Version: 0x0002, HookId: 0x0F2E, TimeStamp: ts + 7},
		&etltest.Event{ProviderId: class, Descriptor: header.EventDescriptor{Id: 1, Version: 7}, TimeStamp: ts + 8},
		&etltest.Message{Guid: class, MessageNumber: 3, OptionFlags: header.MessageGUID | header.MessageTimestamp, TimeStamp: ts + 9},
	}
	want := []struct {
		class uint16
		desc  uint8
	}{{0x0102, 0x02}, {0xFFFF, 0xFF}, {0x1234, 0x34}, {0x0803, 0x03}, {0x0803, 0x03}, {0x4005, 0x05}, {0x7802, 0x02}, {2, 2}, {7, 7}, {0, 0}}
	got := readBothOrders(t, etltest.DefaultSession(), recs...)
	for i, r := range got {
		assert.Equal(t, want[i].class, r.ClassVersion, "%v record %d: ClassVersion", r.HeaderType, i)
		assert.Equal(t, want[i].desc, r.EventDescriptor.Version, "%v record %d: descriptor Version", r.HeaderType, i)
	}
}

// TestPrivateSessionProcessorTime: in a private logger's file the classic
// and EVENT_HEADER records hold one 64-bit ProcessorTime where others hold
// KernelTime and UserTime (EVENT_TRACE_HEADER: "If you are using a private
// session, use the value in the ProcessorTime member instead"); the SYSTEM
// header keeps its two fields.
func TestPrivateSessionProcessorTime(t *testing.T) {
	class := uuid.MustParse("f0f0f0f0-6666-4666-8666-666666666666")
	ts := int64(1_000_000_100)
	recs := []etltest.Record{
		&etltest.Event{ProviderId: class, TimeStamp: ts, KernelTime: 0xDCBF0E1E, UserTime: 48},
		&etltest.Full{Guid: class, TimeStamp: ts + 1, KernelTime: 5, UserTime: 1},
		&etltest.Instance{Full: etltest.Full{Guid: class, TimeStamp: ts + 2, KernelTime: 6, UserTime: 2}},
		&etltest.System{HookId: 0x0301, TimeStamp: ts + 3, KernelTime: 2, UserTime: 1},
		&etltest.PerfInfo{HookId: 0x0F2E, TimeStamp: ts + 4},
	}
	for _, mode := range []uint32{header.ModePrivateLogger, header.ModePrivateLogger | header.ModePrivateInProc, header.ModePrivateInProc, 0} {
		s := etltest.DefaultSession()
		s.LogFileMode |= mode
		private := mode != 0
		got := readBothOrders(t, s, recs...)
		for i, r := range got[:3] {
			assert.Equal(t, private, r.HasProcessorTime, "mode %#x, %v: HasProcessorTime", mode, r.HeaderType)
			assert.Equal(t, !private, r.HasCPUTime, "mode %#x, %v: HasCPUTime", mode, r.HeaderType)
			assert.Equal(t, uint64(r.UserTime)<<32|uint64(r.KernelTime), r.ProcessorTime(), "record %d", i)
		}
		assert.Equal(t, uint64(48)<<32|0xDCBF0E1E, got[0].ProcessorTime())
		sys, perf := got[3], got[4]
		assert.True(t, sys.HasCPUTime, "mode %#x: SYSTEM keeps KernelTime and UserTime", mode)
		assert.False(t, sys.HasProcessorTime)
		assert.Equal(t, []uint32{2, 1}, []uint32{sys.KernelTime, sys.UserTime})
		assert.False(t, perf.HasCPUTime || perf.HasProcessorTime, "PERFINFO has no CPU time")
	}
}

// TestPrivateLoggerSample: win7-explorer-startup.etl is Explorer's private
// logger (LogFileMode PRIVATE_LOGGER_MODE | PRIVATE_IN_PROC); its events
// carry a cycle count, which read as two 32-bit halves gave KernelTime
// 3703553566 and UserTime 48.
func TestPrivateLoggerSample(t *testing.T) {
	f, err := etl.Open(samples.Path(t, "win7-explorer-startup.etl"))
	require.NoError(t, err)
	defer f.Close()
	require.NotZero(t, f.Header().LogFileMode&header.ModePrivateLogger)
	var events, system int
	var first uint64
	for r, err := range f.Events() {
		require.NoError(t, err)
		switch r.HeaderType {
		case header.TypeEventHeader64:
			require.True(t, r.HasProcessorTime)
			require.False(t, r.HasCPUTime)
			if events == 0 {
				first = r.ProcessorTime()
			}
			events++
		case header.TypeSystem64:
			require.True(t, r.HasCPUTime)
			require.False(t, r.HasProcessorTime)
			system++
		}
	}
	assert.Equal(t, 106, events, "the samples README count")
	assert.Equal(t, 1, system)
	assert.Equal(t, uint64(48)<<32|3703553566, first)
}
