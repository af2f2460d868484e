package order_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/order"
)

// ev is a PERFINFO record whose payload is its tag, so that a test can tell
// every record apart in the output.
func ev(tag uint64, ts int64) etltest.Record {
	return &etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: ts, Payload: binary.LittleEndian.AppendUint64(nil, tag)}
}

// buf is one data buffer of a synthetic trace, in file order.
type buf struct {
	spec etltest.Buffer
	recs []etltest.Record
}

// session is a QPC session at 10 MHz, where one tick is one FILETIME unit:
// raw timestamp base+n is StartTime+n.
func session() etltest.Session {
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	return s
}

// base is the raw timestamp of the logfile header, which stands for StartTime.
const base = 1_000_000_000

func build(t testing.TB, s etltest.Session, header []etltest.Record, bufs ...buf) []byte {
	t.Helper()
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		if len(header) > 0 {
			if err := b.AddToHeader(header...); err != nil {
				return err
			}
		}
		for _, x := range bufs {
			if err := b.WriteBuffer(x.spec, x.recs...); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	return data
}

// source describes a synthetic trace to package order, as package etl
// would for the same file.
func source(data []byte, s etltest.Session) order.Source {
	lh := header.LogfileHeader{StartTime: s.StartTime, PerfFreq: s.PerfFreq, ReservedFlags: s.ClockType, CPUSpeedInMHz: s.CPUSpeedInMHz}
	clock := header.NewClock(&lh, s.HeaderTimeStamp)
	return order.Source{
		NewWalker: func() *buffer.Walker {
			w := buffer.NewWalker(bytes.NewReader(data), int64(len(data)))
			if s.LogFileMode&etltest.ModeCompressed == 0 {
				w.SessionBufferSize = s.BufferSize
			}
			return w
		},
		Size:         int64(len(data)),
		Clock:        &clock,
		HeaderBuffer: true,
		SingleStream: s.LogFileMode&etltest.ModeNoPerProcessorBuffering != 0,
	}
}

// out is one delivered item.
type out struct {
	tag    uint64 // 0 for records without a tag (the header buffer's)
	ft     int64  // FILETIME
	cpu    uint16
	buffer int // buffer index in file order
	offset int // position in the buffer
	src    int
	// procIdx: the record carries EVENT_HEADER_FLAG_PROCESSOR_INDEX.
	procIdx bool
	err     error
}

func (o out) String() string {
	if o.err != nil {
		return "error"
	}
	return fmt.Sprintf("%d", o.tag)
}

func collect(t testing.TB, opts order.Options, srcs ...order.Source) ([]out, *order.Stats) {
	t.Helper()
	m := order.New(opts, srcs...)
	var got []out
	for rec, err := range m.Records() {
		if err != nil {
			got = append(got, out{err: err, src: m.Source()})
			continue
		}
		o := out{ft: header.TimeToFileTime(rec.TimeStamp()), cpu: rec.ProcessorNumber, buffer: rec.BufferIndex, offset: rec.BufferOffset, src: m.Source(),
			procIdx: rec.Flags&header.FlagProcessorIndex != 0}
		if rec.HookId == 0x0F2E && len(rec.UserData) == 8 {
			o.tag = binary.LittleEndian.Uint64(rec.UserData)
		}
		got = append(got, o)
	}
	return got, m.Stats()
}

// tags lists the tags of the tagged records delivered, in order.
func tags(got []out) []uint64 {
	var t []uint64
	for _, o := range got {
		if o.err == nil && o.tag != 0 {
			t = append(t, o.tag)
		}
	}
	return t
}

// every mode, with read-ahead off, on and deep, for the tests that must not
// depend on how buffers are read.
var readModes = []struct {
	name string
	opts order.Options
}{
	{"sync", order.Options{ReadAhead: -1}},
	{"ahead1x1", order.Options{ReadAhead: 1, Workers: 1}},
	{"default", order.Options{}},
	{"ahead5x3", order.Options{ReadAhead: 5, Workers: 3}},
	// Decoding ahead two records of each buffer, the rest when reached.
	{"decode2", order.Options{ReadAhead: 2, Workers: 2, DecodeAhead: 2}},
	{"decodeAll", order.Options{ReadAhead: 1, Workers: 2, DecodeAhead: 1000}},
	// The merge on a goroutine of its own, with the buffers read there or
	// ahead on workers.
	{"mergeAhead", order.Options{MergeAhead: true}},
	{"mergeAhead3x2", order.Options{MergeAhead: true, ReadAhead: 3, Workers: 2}},
}
