package stacks_test

import (
	"bytes"
	"testing"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/stacktest"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/stacks"
)

// fuzzScript turns bytes into a trace: each step is an opcode byte and an
// argument byte, for samples, stack records (whole, kernel and user parts,
// for events present or not), stack-cache references and definitions
// (keys from a small set, so that they meet and are reused), thread ends,
// image loads and unloads, .NET methods, .NET events and their stacks, and
// events with stacks in their extended data. Threads, processors and
// addresses come from small sets too, so that the steps meet each other.
func fuzzScript(script []byte) (*stacktest.Trace, int) {
	tr := stacktest.New()
	tr.ProcessRundown(0, 1, pid, "app.exe")
	for i := range uint32(4) {
		tr.ThreadRundown(0, 2+int64(i), pid, tid+4*i)
	}
	now := int64(100)
	var times []int64 // the times of events so far, for stack records to name
	samples := 0
	frames := func(arg byte, n int) []uint64 {
		out := make([]uint64, 0, n)
		for i := range n {
			if arg>>uint(i%8)&1 != 0 {
				out = append(out, k1+uint64(i)*0x100+uint64(arg&3))
			} else {
				out = append(out, u1+uint64(i)*0x100+uint64(arg&3))
			}
		}
		return out
	}
	for len(script) >= 2 {
		op, arg := script[0], script[1]
		script = script[2:]
		now += 1 + int64(arg&7)
		cpu := int(arg>>3) & 3
		t := tid + 4*uint32(arg>>5&3)
		if arg&0x80 != 0 && op%3 == 0 {
			t = 0
		}
		p := uint32(pid)
		if t == 0 {
			p = 0
		}
		ev := now - 1
		if len(times) > 0 {
			ev = times[int(arg)%len(times)]
		}
		key := 0xFFFFFA80_0000_0000 + uint64(arg&3)*0x10
		switch op % 12 {
		case 0, 1:
			tr.Sample(cpu, now, t, k1+uint64(arg))
			times = append(times, now)
			samples++
		case 2:
			tr.Stack(cpu, now, ev, p, t, frames(arg, 1+int(arg>>6))...)
		case 3:
			tr.KeyRef(cpu, now, ev, true, p, t, key)
		case 4:
			tr.KeyRef(cpu, now, ev, false, p, t, key)
		case 5:
			tr.KeyDef(cpu, now, 34+arg%3, key, frames(arg, 1+int(arg>>6))...)
		case 6:
			tr.ThreadEnd(cpu, now, p, t)
		case 7:
			tr.Image(cpu, now, []uint8{10, 2, 3, 4}[arg&3], p, 0x7FF6_0000_0000+uint64(arg>>2&3)*0x8000, 0x10000, `\x\a.dll`)
		case 8:
			tr.Method(cpu, now, arg&1 != 0, 143+uint16(arg>>1&1), arg&4 != 0, p, t, u1+uint64(arg>>3&3)*0x80, 0x100, "N", "M", "()")
		case 9:
			tr.CLREvent(cpu, now, arg&1 != 0, p, t)
		case 10:
			tr.CLRStack(cpu, now, arg&1 != 0, p, t, frames(arg, 1+int(arg>>6))...)
		case 11:
			ext := etltest.ExtStackTrace64(uint64(arg&1), frames(arg, 2)...)
			switch arg >> 6 {
			case 1:
				ext = etltest.ExtStackKey64(uint64(arg&1), key)
			case 2:
				ext = etltest.ExtStackTrace32(uint64(arg&1), 0x7790_0000, 0x7790_1000)
			}
			tr.Add(cpu, &etltest.Event{ThreadId: t, ProcessId: p, TimeStamp: t0 + now, ProviderId: stacktest.CLRRundown,
				Descriptor: header.EventDescriptor{Id: 9999}, Ext: []etltest.ExtItem{ext}})
		}
	}
	return tr, samples
}

// FuzzJoin runs the stack-key and stitching state machine on scripted
// traces: every CPU sample comes out exactly once, nothing is in flight
// after Close, the events in flight stay within the bound per thread, and
// every stack resolves.
func FuzzJoin(f *testing.F) {
	f.Add([]byte{0, 1, 3, 1, 4, 1, 5, 0x41, 5, 2})
	f.Add([]byte{0, 0x20, 2, 0x61, 0, 0x20, 2, 0x20, 6, 0x20})
	f.Add([]byte{9, 1, 10, 1, 11, 0x40, 11, 0x81, 0, 0x80, 2, 0x80})
	f.Add([]byte{7, 0, 8, 0, 0, 1, 2, 2, 7, 1, 8, 2, 0, 3, 2, 4})
	const maxWaiting = 3
	f.Fuzz(func(t *testing.T, script []byte) {
		if len(script) > 4096 {
			return
		}
		tr, samples := fuzzScript(script)
		b := tr.Bytes(t)
		r, err := etl.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		emitted := 0
		var ids []stacks.StackID
		j := stacks.NewJoiner(stacks.Options{MaxWaiting: maxWaiting, Emit: func(s *stacks.Sample) {
			emitted++
			ids = append(ids, s.Stack)
		}})
		// Threads: 4 plus the idle and unnamed ones of 4 processors; each
		// holds at most two fresh events and maxWaiting waiting ones.
		const bound = (4 + 4 + 4) * (2 + maxWaiting)
		for rec, err := range r.Events() {
			if err != nil {
				t.Fatal(err)
			}
			j.Add(rec)
			if n, _ := j.InFlight(); n > bound {
				t.Fatalf("%d events in flight, more than %d", n, bound)
			}
		}
		j.Close()
		if n, th := j.InFlight(); n != 0 || th != 0 {
			t.Fatalf("%d events of %d threads in flight after Close", n, th)
		}
		if emitted != samples || j.Stats().Events != samples {
			t.Fatalf("%d samples, %d emitted, %d counted", samples, emitted, j.Stats().Events)
		}
		st := j.Stats()
		if st.Complete+st.KernelOnly+st.NoStack != st.Events {
			t.Fatalf("statuses do not add up: %+v", st)
		}
		for _, id := range ids {
			for _, fr := range j.Frames(nil, id) {
				_ = fr.Name()
			}
		}
	})
}

// FuzzJoinRecords feeds the Joiner records decoded from arbitrary trace
// bytes: whatever the payloads hold, it must not panic.
func FuzzJoinRecords(f *testing.F) {
	tr, _ := fuzzScript([]byte{0, 1, 3, 1, 4, 1, 5, 0x41, 9, 1, 10, 1, 11, 0x40, 7, 0, 8, 0})
	f.Add(tr.Bytes(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := etl.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		emitted := 0
		j := stacks.NewJoiner(stacks.Options{Select: func(*record.Record) bool { return true },
			Emit: func(*stacks.Sample) { emitted++ }})
		n := 0
		for rec, err := range r.Events() {
			if err != nil {
				continue
			}
			if n++; n > 10000 {
				break
			}
			j.Add(rec)
		}
		j.Close()
		if n, th := j.InFlight(); n != 0 || th != 0 {
			t.Fatalf("%d events of %d threads in flight after Close", n, th)
		}
		st := j.Stats()
		if st.Events != emitted || st.Complete+st.KernelOnly+st.NoStack != st.Events {
			t.Fatalf("%d emitted; stats %+v do not add up", emitted, st)
		}
		for id := range j.NumStacks() {
			// Each address is one frame, named somehow.
			addrs := j.Addresses(nil, stacks.StackID(id))
			frames := j.Frames(nil, stacks.StackID(id))
			if len(frames) != len(addrs) {
				t.Fatalf("stack %d: %d frames for %d addresses", id, len(frames), len(addrs))
			}
		}
	})
}
