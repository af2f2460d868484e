package profilesink

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/etlkit/etlkit/stacks"
)

// Sample types of the pprof profile: every sample counts once, and a CPU
// sample also stands for its sampling interval of CPU time, as Go's own
// CPU profiles have it.
var (
	samplesType = &profile.ValueType{Type: "samples", Unit: "count"}
	cpuType     = &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}
)

// jitFile is the file of the mappings that hold .NET JIT code: a name in
// brackets, which pprof's symbolizers leave alone.
const jitFile = "[jit]"

// pprofBuilder builds the pprof tables, one entry per distinct mapping,
// location and function.
type pprofBuilder struct {
	p         *profile.Profile
	mappings  map[*stacks.Module]*profile.Mapping
	jit       map[uint32]*profile.Mapping // by process
	locations map[locKey]*profile.Location
	functions map[funcKey]*profile.Function
	frames    []stacks.Frame
	name      []byte
}

type locKey struct {
	m    *profile.Mapping
	addr uint64
	fn   *profile.Function
}

type funcKey struct{ name, file string }

// Pprof builds the pprof profile: sample types samples/count and, when
// there are CPU samples, cpu/nanoseconds (the default), with the
// sampling interval as the period; one sample per stack and thread, with
// the labels process and thread (names), pid and tid (decimal: pprof
// drops a numeric label of value 0, which the idle threads have); one
// mapping per image (file, address range, build id: the PDB identity) and
// per process's JIT code; a function per frame name (see stacks.Frame).
// The mapping of the busiest process's executable comes first, since
// pprof names a profile after its first mapping.
func (p *Profile) Pprof() (*profile.Profile, error) {
	hasCPU := p.hasCPU()
	pr := &profile.Profile{SampleType: []*profile.ValueType{samplesType}, DefaultSampleType: samplesType.Type}
	if hasCPU {
		pr.SampleType = append(pr.SampleType, cpuType)
		pr.DefaultSampleType = cpuType.Type
		pr.PeriodType = &profile.ValueType{Type: cpuType.Type, Unit: cpuType.Unit}
		pr.Period = int64(p.j.Interval()) * 100
	} else {
		pr.PeriodType = &profile.ValueType{Type: samplesType.Type, Unit: samplesType.Unit}
		pr.Period = 1
	}
	if start, d := p.span(); !start.IsZero() {
		pr.TimeNanos, pr.DurationNanos = start.UnixNano(), int64(d)
	}
	b := &pprofBuilder{p: pr, mappings: map[*stacks.Module]*profile.Mapping{}, jit: map[uint32]*profile.Mapping{},
		locations: map[locKey]*profile.Location{}, functions: map[funcKey]*profile.Function{}}
	busiest, names := map[uint32]int64{}, map[uint32]string{}
	for _, i := range p.entries() {
		k, v := p.keys[i], &p.vals[i]
		b.frames = p.j.Frames(b.frames[:0], k.stack)
		s := &profile.Sample{Value: []int64{v.count}}
		if hasCPU {
			s.Value = append(s.Value, p.cpuNanos(v))
		}
		for _, f := range b.frames {
			s.Location = append(s.Location, b.location(f, k.pid))
		}
		s.Label = map[string][]string{"process": {processLabel(k, v)}}
		if v.thread != "" {
			s.Label["thread"] = []string{v.thread}
		}
		s.Label["tid"] = []string{strconv.FormatUint(uint64(k.tid), 10)}
		if k.pidKnown {
			s.Label["pid"] = []string{strconv.FormatUint(uint64(k.pid), 10)}
			busiest[k.pid] += v.count
			names[k.pid] = v.process
		}
		pr.Sample = append(pr.Sample, s)
	}
	b.orderMappings(p.j, busiest, names)
	pr.Comments = p.comments(b)
	if err := pr.CheckValid(); err != nil {
		return nil, fmt.Errorf("profilesink: pprof profile: %w", err)
	}
	return pr, nil
}

// WritePprof writes the pprof profile, gzipped, as pprof files are.
func (p *Profile) WritePprof(w io.Writer) error {
	pr, err := p.Pprof()
	if err != nil {
		return err
	}
	return pr.Write(w)
}

func (b *pprofBuilder) location(f stacks.Frame, pid uint32) *profile.Location {
	var m *profile.Mapping
	switch {
	case f.Module != nil:
		m = b.mapping(f.Module)
	case f.Method != nil:
		m = b.jitMapping(pid, f.Method)
	}
	b.name = f.AppendName(b.name[:0])
	file := ""
	switch {
	case f.Method != nil:
		file = f.Method.ModulePath
	case f.Module != nil:
		file = f.Module.Path
	}
	fn := b.function(b.name, file)
	k := locKey{m, f.Address, fn}
	if l, ok := b.locations[k]; ok {
		return l
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: m, Address: f.Address,
		Line: []profile.Line{{Function: fn}}}
	b.p.Location = append(b.p.Location, l)
	b.locations[k] = l
	return l
}

func (b *pprofBuilder) function(name []byte, file string) *profile.Function {
	if fn, ok := b.functions[funcKey{string(name), file}]; ok {
		return fn
	}
	n := string(name)
	fn := &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: n, SystemName: n, Filename: file}
	b.p.Function = append(b.p.Function, fn)
	b.functions[funcKey{n, file}] = fn
	return fn
}

// mapping is the mapping of an image: its load address and size, offset
// 0 and the absolute addresses in the locations (pprof's convention for
// PE images), the build id a symbol server finds its PDB by. Its frames
// have names (module!+0xRVA, or a .NET method's), so HasFunctions is set:
// pprof then does not look for the image on the local disk, unless asked
// to with -symbolize=local:force.
func (b *pprofBuilder) mapping(mod *stacks.Module) *profile.Mapping {
	if m, ok := b.mappings[mod]; ok {
		return m
	}
	file := mod.Path
	if file == "" {
		file = mod.Name
	}
	m := &profile.Mapping{ID: uint64(len(b.p.Mapping) + 1), Start: mod.Base, Limit: mod.Base + mod.Size,
		File: file, BuildID: mod.BuildID(), HasFunctions: true}
	b.p.Mapping = append(b.p.Mapping, m)
	b.mappings[mod] = m
	return m
}

// jitMapping is the mapping of a process's JIT code, grown to hold each
// method met; its functions are the methods' names.
func (b *pprofBuilder) jitMapping(pid uint32, meth *stacks.Method) *profile.Mapping {
	end := meth.Start + uint64(meth.Size)
	m, ok := b.jit[pid]
	if !ok {
		m = &profile.Mapping{ID: uint64(len(b.p.Mapping) + 1), Start: meth.Start, Limit: end, File: jitFile,
			HasFunctions: true}
		b.p.Mapping = append(b.p.Mapping, m)
		b.jit[pid] = m
		return m
	}
	m.Start, m.Limit = min(m.Start, meth.Start), max(m.Limit, end)
	return m
}

// orderMappings puts first the executable of the process with the most
// samples (pprof names a profile after its first mapping), and numbers
// the mappings again.
func (b *pprofBuilder) orderMappings(j *stacks.Joiner, busiest map[uint32]int64, names map[uint32]string) {
	var top uint32
	best := int64(0)
	for pid, n := range busiest {
		if pid != 0 && pid != 4 && names[pid] != "" && (n > best || n == best && pid < top) {
			top, best = pid, n
		}
	}
	if best > 0 {
		for _, mod := range j.Modules(top) {
			if strings.EqualFold(mod.Name, names[top]) && mod.Load != stacks.After {
				m := b.mapping(mod)
				i := slices.Index(b.p.Mapping, m)
				copy(b.p.Mapping[1:i+1], b.p.Mapping[:i])
				b.p.Mapping[0] = m
				break
			}
		}
	}
	for i, m := range b.p.Mapping {
		m.ID = uint64(i + 1)
	}
}

// comments are the profile's notes: its source, how the stacks were
// joined, and the PDB file name of each image with a PDB identity, which
// pprof has no field for (those start with "#", which pprof's reports
// leave out of their headers).
func (p *Profile) comments(b *pprofBuilder) []string {
	st := p.j.Stats()
	out := []string{
		"etldump profile of " + p.opts.Name,
		fmt.Sprintf("sampling interval %d00 ns", p.j.Interval()),
		fmt.Sprintf("stacks: %d events, %d complete, %d kernel part only, %d without stack; %d user parts joined late; %d stack records matched no event; %d stack keys never defined",
			st.Events, st.Complete, st.KernelOnly, st.NoStack, st.Deferred, st.Orphans, st.UndefinedKeys),
	}
	for mod, m := range b.mappings {
		if mod.PDB.Name != "" {
			out = append(out, fmt.Sprintf("# pdb %s %s %s", m.File, m.BuildID, mod.PDB.Name))
		}
	}
	slices.Sort(out[3:])
	return out
}
