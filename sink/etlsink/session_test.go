package etlsink_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/sink/etlsink"
)

// session builds a small trace of session s: an Extension event in the
// header buffer, then events on cpus processors from at on.
func session(t testing.TB, s etltest.Session, cpus int, at int64, id uint16) []byte {
	t.Helper()
	out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.AddToHeader(&etltest.System{Version: 2, HookId: 0x0005, TimeStamp: s.HeaderTimeStamp, Payload: make([]byte, 0x24)})
		for i := range 60 {
			b.CPU(i % cpus).Add(&etltest.Event{TimeStamp: at + int64(i*7), ProviderId: providerA, Descriptor: header.EventDescriptor{Id: id}, UserData: make([]byte, i)})
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

func inputOf(t testing.TB, name string, b []byte) etlsink.Input {
	t.Helper()
	rd, err := etl.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	return etlsink.Input{Name: name, Reader: rd}
}

// Two traces of one clock make one trace: every record, on one timeline,
// the header buffer holding both traces' header events.
func TestMergeTwoTraces(t *testing.T) {
	a := etltest.DefaultSession()
	a.BufferSize, a.NumberOfProcessors, a.EventsLost = 0x1000, 2, 1
	b := etltest.DefaultSession()
	// b starts 2 s earlier on the same counter, and its events interleave with a's.
	b.HeaderTimeStamp -= 20_000_000
	b.StartTime -= 20_000_000
	b.EndTime += 10
	b.BufferSize, b.NumberOfProcessors, b.EventsLost, b.BuffersLost = 0x2000, 4, 2, 1
	b.LoggerName = "second"
	ta := session(t, a, 2, a.HeaderTimeStamp+100, 1)
	tb := session(t, b, 4, a.HeaderTimeStamp+103, 2)

	s, err := etlsink.SessionFor(inputOf(t, "a", ta), inputOf(t, "b", tb))
	require.NoError(t, err)
	assert.Equal(t, 1, s.Base, "the trace that started first anchors the clock")
	assert.Equal(t, []time.Duration{0, 0}, s.Shifts)
	assert.EqualValues(t, 0x2000, s.Header.BufferSize)
	assert.EqualValues(t, 4, s.Header.NumberOfProcessors)
	assert.EqualValues(t, 3, s.Header.EventsLost)
	assert.EqualValues(t, 1, s.Header.BuffersLost)
	assert.Equal(t, b.EndTime, s.Header.EndTime)
	assert.Equal(t, "second", s.Header.LoggerName)
	assert.Equal(t, b.StartTime, s.Header.StartTime)

	want := expected(t, nil, ta, tb)
	out, st := relog(t, nil, etlsink.Options{}, ta, tb)
	assert.Equal(t, 2, st.Replaced)
	assert.Equal(t, 2, st.HeaderRecords)
	hdr, _, got, errs := readTrace(t, out)
	require.Zero(t, errs)
	requireSameRecords(t, want, got)
	requireWalkAgrees(t, out, want)
	assert.Equal(t, b.StartTime, hdr.StartTime)
	// The events of both interleave on one timeline.
	ids := map[byte]int{}
	switches := 0
	for i, r := range got[2:] {
		ids[r.Raw[0x28]]++
		if i > 0 && r.Raw[0x28] != got[i+1].Raw[0x28] {
			switches++
		}
	}
	assert.Equal(t, map[byte]int{1: 60, 2: 60}, ids)
	assert.Greater(t, switches, 20)
}

// A trace merged from a compressed input and a plain one is compressed,
// whichever started first; CompressNever writes it whole.
func TestMergeCompressedWithPlain(t *testing.T) {
	a := etltest.DefaultSession()
	a.BufferSize = 0x1000
	b := a
	b.LogFileMode |= etltest.ModeCompressed
	b.DataBuffer.Compress = true
	ta := session(t, a, 2, a.HeaderTimeStamp+100, 1)
	tb := session(t, b, 3, a.HeaderTimeStamp+103, 2)
	s, err := etlsink.SessionFor(inputOf(t, "a", ta), inputOf(t, "b", tb))
	require.NoError(t, err)
	require.Equal(t, 0, s.Base)
	assert.NotZero(t, s.Header.LogFileMode&header.ModeCompressed)

	want := expected(t, nil, ta, tb)
	for _, c := range []etlsink.Compression{etlsink.CompressLikeInput, etlsink.CompressNever} {
		out, st := relog(t, nil, etlsink.Options{Compression: c}, ta, tb)
		hdr, _, got, errs := readTrace(t, out)
		require.Zero(t, errs)
		requireSameRecords(t, want, got)
		w := requireWalkAgrees(t, out, want)
		if c == etlsink.CompressNever {
			assert.Zero(t, hdr.LogFileMode&header.ModeCompressed)
			assert.Zero(t, w.compressed)
		} else {
			assert.NotZero(t, hdr.LogFileMode&header.ModeCompressed)
			assert.Equal(t, st.Buffers-1, w.compressed)
		}
	}
}

func TestMergeRefusesOtherClocks(t *testing.T) {
	a := etltest.DefaultSession()
	ta := session(t, a, 1, a.HeaderTimeStamp+1, 1)

	b := etltest.DefaultSession()
	b.PerfFreq = 3_117_777
	_, err := etlsink.SessionFor(inputOf(t, "a.etl", ta), inputOf(t, "b.etl", session(t, b, 1, b.HeaderTimeStamp+1, 2)))
	var ce *etlsink.ClockError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "cannot merge traces whose clocks differ: a.etl (QPC at 10000000 Hz), b.etl (QPC at 3117777 Hz); write them to separate files", err.Error())

	c := etltest.DefaultSession()
	c.ClockType, c.PerfFreq = etltest.ClockSystemTime, 0
	c.HeaderTimeStamp = c.StartTime
	_, err = etlsink.SessionFor(inputOf(t, "a.etl", ta), inputOf(t, "c.etl", session(t, c, 1, c.HeaderTimeStamp+1, 2)))
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), "c.etl (system time)")

	// The same kind of clock, but not the same counter: another boot.
	d := etltest.DefaultSession()
	d.StartTime += int64(time.Hour / 100)
	_, err = etlsink.SessionFor(inputOf(t, "a.etl", ta), inputOf(t, "d.etl", session(t, d, 1, d.HeaderTimeStamp+1, 2)))
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, -time.Hour, ce.Shift)
	assert.Contains(t, err.Error(), "cannot merge a.etl and d.etl: both use QPC at 10000000 Hz, but not the same one")

	// A small disagreement is a rounding of the start times: merged, and said.
	e := etltest.DefaultSession()
	e.StartTime += 3
	s, err := etlsink.SessionFor(inputOf(t, "a.etl", ta), inputOf(t, "e.etl", session(t, e, 1, e.HeaderTimeStamp+1, 2)))
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{0, -300 * time.Nanosecond}, s.Shifts)
}

// Inputs whose buffers lie out of sequence order in the file are to be
// copied in time order; SessionFor says which.
func TestStreamOrder(t *testing.T) {
	s := etltest.DefaultSession()
	in := session(t, s, 2, s.HeaderTimeStamp+1, 1)
	got, err := etlsink.SessionFor(inputOf(t, "in", in))
	require.NoError(t, err)
	assert.True(t, got.StreamOrder)

	swapped, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.WriteBuffer(etltest.Buffer{CPU: 1, SequenceNumber: 2}, &etltest.System{Version: 2, HookId: 0x0524, TimeStamp: s.HeaderTimeStamp + 5})
		b.WriteBuffer(etltest.Buffer{CPU: 0, SequenceNumber: 3}, &etltest.System{Version: 2, HookId: 0x0524, TimeStamp: s.HeaderTimeStamp + 6})
		return b.WriteBuffer(etltest.Buffer{CPU: 1, SequenceNumber: 1}, &etltest.System{Version: 2, HookId: 0x0524, TimeStamp: s.HeaderTimeStamp + 4})
	})
	require.NoError(t, err)
	got, err = etlsink.SessionFor(inputOf(t, "swapped", swapped))
	require.NoError(t, err)
	assert.False(t, got.StreamOrder)
	out, _ := relog(t, nil, etlsink.Options{}, swapped)
	_, _, recs, _ := readTrace(t, out)
	requireSameRecords(t, expected(t, nil, swapped), recs)
}

// A buffer larger than the session's buffer size raises the written size.
func TestSessionForFitsTheLargestBuffer(t *testing.T) {
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	in, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		return b.WriteBuffer(etltest.Buffer{Size: 0x3000, SequenceNumber: 1},
			&etltest.Event{TimeStamp: s.HeaderTimeStamp + 1, ProviderId: providerA, UserData: make([]byte, 0x2400)})
	})
	require.NoError(t, err)
	got, err := etlsink.SessionFor(inputOf(t, "in", in))
	require.NoError(t, err)
	assert.EqualValues(t, 0x3000, got.Header.BufferSize)
	out, _ := relog(t, nil, etlsink.Options{}, in)
	_, _, recs, _ := readTrace(t, out)
	requireSameRecords(t, expected(t, nil, in), recs)
}
