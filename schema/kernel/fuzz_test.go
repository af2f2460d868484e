package kernel

import (
	"bytes"
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
)

// fuzzEvent is one event with a payload layout, and an opcode it has.
type fuzzEvent struct {
	e      *schema.Event
	opcode uint8
}

// fuzzEvents lists every event of the tables with a payload layout, each
// schema once (the kernel classes and the classic events), in a fixed
// order.
func fuzzEvents() []fuzzEvent {
	buildIndex()
	seen := map[*payload.Schema]bool{}
	var out []fuzzEvent
	add := func(e *schema.Event, op uint8) {
		if e.Payload != nil && !seen[e.Payload] {
			seen[e.Payload] = true
			out = append(out, fuzzEvent{e, op})
		}
	}
	for g := range table {
		for op, t := range table[g] {
			if t != nil {
				for _, e := range t.events {
					add(e, uint8(op))
				}
			}
		}
	}
	for _, c := range classic {
		for op, e := range c.events {
			if e != nil {
				add(e, uint8(op))
			}
		}
	}
	slices.SortFunc(out, func(a, b fuzzEvent) int {
		return cmp.Or(strings.Compare(a.e.FullName(), b.e.FullName()), strings.Compare(a.e.Payload.Name, b.e.Payload.Name),
			cmp.Compare(a.opcode, b.opcode))
	})
	return out
}

// fuzzSeed is a payload and the index in fuzzEvents of the event it is.
type fuzzSeed struct {
	which uint16
	p     []byte
}

// fuzzSeeds are payloads of kernel and classic records with the event
// they are: from the golden traces, and a few of each kind from the
// samples when they are there; and an empty payload for every event.
func fuzzSeeds(tb testing.TB, events []fuzzEvent) []fuzzSeed {
	at := map[*payload.Schema]uint16{}
	var seeds []fuzzSeed
	for i, ev := range events {
		at[ev.e.Payload] = uint16(i)
		seeds = append(seeds, fuzzSeed{uint16(i), nil})
	}
	read := func(r *etl.Reader) {
		kinds := map[[3]uint16]int{}
		for rec, err := range r.Records() {
			if err != nil {
				return
			}
			if !rec.HeaderType.IsKernel() && !rec.HeaderType.IsClassic() {
				continue
			}
			e, _, ok := LookupRecord(rec)
			if !ok || e.Payload == nil {
				continue
			}
			k := [3]uint16{rec.HookId, uint16(rec.EventDescriptor.Opcode), uint16(rec.EventDescriptor.Version)}
			if kinds[k]++; kinds[k] <= 2 && len(rec.UserData) <= 1024 {
				seeds = append(seeds, fuzzSeed{at[e.Payload], bytes.Clone(rec.UserData)})
			}
		}
	}
	for _, g := range etltest.GoldenTraces() {
		data, _, err := g.Build()
		if err != nil {
			tb.Fatal(err)
		}
		if r, err := etl.NewReader(bytes.NewReader(data), int64(len(data))); err == nil {
			read(r)
		}
	}
	if dir := samples.Dir(); dir != "" {
		for _, name := range []string{"net452-x64-merged-compressed.etl", "shutdown-kernel.etl", "diaghub-kernel.etl",
			"diaghub-classic.etl", "sonde-tracelogging.etl", "win7-explorer-runonce-32bit.etl"} {
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err != nil {
				continue
			}
			f, err := etl.Open(p)
			if err != nil {
				tb.Fatal(err)
			}
			read(f.Reader)
			f.Close()
		}
	}
	return seeds
}

// FuzzKernelClasses decodes arbitrary payloads with the events of the
// tables (which names the event: every one with a payload layout, kernel
// classes and classic events, is reached by some value) at both pointer
// sizes, works out the computed fields and the file names, and renders
// them: a payload that does not fit gives a DecodeError inside the
// payload, never a panic or a read past it. Each input takes one event so
// that the fuzzer runs fast and its coverage tells the events apart; the
// seeds give every event its real payloads from the samples.
func FuzzKernelClasses(f *testing.F) {
	events := fuzzEvents()
	for _, s := range fuzzSeeds(f, events) {
		f.Add(s.which, s.p)
	}
	clock := header.NewClock(&header.LogfileHeader{PerfFreq: 10_000_000, ReservedFlags: header.ClockQPC}, 0)
	var state State
	var vals []payload.Value
	var out []byte
	f.Fuzz(func(t *testing.T, which uint16, p []byte) {
		before := bytes.Clone(p)
		// The payload as a file object's name and as SysConfig's volume
		// mapping and system paths, for the State to learn from.
		for _, r := range []record.Record{
			{HeaderType: header.TypeSystem64, HookId: groupFileIO << 8, UserData: p},
			{HeaderType: header.TypeSystem32, HookId: groupFileIO<<8 | opFileNameRundown,
				EventDescriptor: header.EventDescriptor{Opcode: opFileNameRundown}, UserData: p},
			{HeaderType: header.TypeFull64, ProviderId: SysConfigTask,
				EventDescriptor: header.EventDescriptor{Opcode: opVolumeMapping}, UserData: p},
			{HeaderType: header.TypeFull64, ProviderId: SysConfigTask,
				EventDescriptor: header.EventDescriptor{Opcode: opSystemPaths}, UserData: p},
			// And as a disk read's completion, on the disk its first bytes
			// name.
			{HeaderType: header.TypeSystem64, HookId: groupDiskIo<<8 | opDiskRead, Clock: &clock, RawTimeStamp: 1 << 40,
				EventDescriptor: header.EventDescriptor{Opcode: opDiskRead}, UserData: p},
		} {
			state.Learn(&r)
		}
		{
			ev := events[int(which)%len(events)]
			for _, ptr := range [...]int{4, 8} {
				r := record.Record{HeaderType: header.TypeSystem64, Clock: &clock, RawTimeStamp: 1 << 40,
					HasThreadProcess: true, ThreadId: 8, ProcessId: 4, UserData: p,
					EventDescriptor: header.EventDescriptor{Opcode: ev.opcode}}
				if ptr == 4 {
					r.HeaderType = header.TypeSystem32
				}
				var err error
				vals, err = ev.e.Payload.Decode(p, ptr, vals[:0])
				if err != nil {
					var de *payload.DecodeError
					if !errors.As(err, &de) || de.Offset < 0 || de.Offset > len(p) {
						t.Fatalf("%s: error %v is no DecodeError inside the %d-byte payload", ev.e.Name, err, len(p))
					}
					if !payload.IsTrailing(err) {
						if len(vals) != 0 {
							t.Fatalf("%s: error %v with %d values", ev.e.Name, err, len(vals))
						}
						continue
					}
				}
				for i := range vals {
					if len(vals[i].Raw()) > len(p) {
						t.Fatalf("%s: value %d holds %d bytes of a %d-byte payload", ev.e.Name, i, len(vals[i].Raw()), len(p))
					}
				}
				if ev.e.Computed != nil {
					vals = ev.e.Computed(&r, vals)
				}
				vals = state.Rewrite(ev.e, vals)
				out = payload.AppendJSONObject(out[:0], vals)
				out = payload.AppendTextFields(out, vals, " ")
			}
		}
		if !bytes.Equal(before, p) {
			t.Fatal("decoding changed the payload")
		}
	})
}
