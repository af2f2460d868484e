package profilesink

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/etlkit/etlkit/stacks"
)

// SpeedscopeSchema is the $schema of a speedscope file.
const SpeedscopeSchema = "https://www.speedscope.app/file-format-schema.json"

// The speedscope file format (its file-format-spec.ts): frames shared by
// index, and sampled profiles whose samples list frame indices root first.
type speedscopeFile struct {
	Schema   string              `json:"$schema"`
	Exporter string              `json:"exporter"`
	Name     string              `json:"name"`
	Shared   speedscopeShared    `json:"shared"`
	Profiles []speedscopeProfile `json:"profiles"`
}

type speedscopeShared struct {
	Frames []speedscopeFrame `json:"frames"`
}

type speedscopeFrame struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
}

type speedscopeProfile struct {
	Type       string    `json:"type"`
	Name       string    `json:"name"`
	Unit       string    `json:"unit"`
	StartValue int64     `json:"startValue"`
	EndValue   int64     `json:"endValue"`
	Samples    [][]int32 `json:"samples"`
	Weights    []int64   `json:"weights"`
}

// WriteSpeedscope writes a speedscope file: one sampled profile per thread
// (per process with Options.ByProcess), busiest first, its samples in time
// order with each run of equal stacks as one sample, each sample weighing
// the number of events it stands for (unit "none"), so that a profile's
// weights add up to its sample count. The Profile must keep a timeline
// (Options.Timeline).
func (p *Profile) WriteSpeedscope(w io.Writer) error {
	if !p.opts.Timeline && p.n > 0 {
		return fmt.Errorf("profilesink: speedscope needs the samples' timeline (Options.Timeline)")
	}
	type group struct {
		name   string
		points []point
		total  int64
	}
	groups := map[uint64]*group{}
	pts := slices.Clone(p.points)
	slices.SortStableFunc(pts, func(a, b point) int { return cmp.Compare(a.time, b.time) })
	for _, pt := range pts {
		k, v := p.keys[pt.agg], &p.vals[pt.agg]
		id := uint64(k.pid)<<32 | uint64(k.tid)
		if !k.pidKnown {
			id = 1<<63 | uint64(k.tid)
		}
		if p.opts.ByProcess {
			id &^= 0xFFFF_FFFF
		}
		g := groups[id]
		if g == nil {
			name := processLabel(k, v)
			if k.pidKnown {
				name += " (" + strconv.FormatUint(uint64(k.pid), 10) + ")"
			}
			if !p.opts.ByProcess {
				t := strconv.FormatUint(uint64(k.tid), 10)
				if v.thread != "" {
					t = v.thread + " (" + t + ")"
				}
				name += " / " + t
			}
			g = &group{name: name}
			groups[id] = g
		}
		g.points = append(g.points, pt)
		g.total++
	}
	ids := make([]uint64, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uint64) int {
		return cmp.Or(cmp.Compare(groups[b].total, groups[a].total), cmp.Compare(a, b))
	})

	f := speedscopeFile{Schema: SpeedscopeSchema, Exporter: "etldump", Name: p.opts.Name,
		Shared: speedscopeShared{Frames: []speedscopeFrame{}}, Profiles: []speedscopeProfile{}}
	frameIndex := map[speedscopeFrame]int32{}
	stackFrames := map[uint64][]int32{} // by stack and process: root first
	names := frameNamer{}
	for _, id := range ids {
		g := groups[id]
		prof := speedscopeProfile{Type: "sampled", Name: g.name, Unit: "none", EndValue: g.total,
			Samples: [][]int32{}, Weights: []int64{}}
		last := int64(-1)
		for _, pt := range g.points {
			k := p.keys[pt.agg]
			sk := uint64(pt.stack)
			if int64(sk) == last {
				prof.Weights[len(prof.Weights)-1]++
				continue
			}
			last = int64(sk)
			idx, ok := stackFrames[sk]
			if !ok {
				frames := names.named(p, k.stack)
				idx = make([]int32, 0, len(frames))
				for i := len(frames) - 1; i >= 0; i-- {
					fr := frames[i]
					n, ok := frameIndex[fr]
					if !ok {
						n = int32(len(f.Shared.Frames))
						f.Shared.Frames = append(f.Shared.Frames, fr)
						frameIndex[fr] = n
					}
					idx = append(idx, n)
				}
				stackFrames[sk] = idx
			}
			prof.Samples = append(prof.Samples, idx)
			prof.Weights = append(prof.Weights, 1)
		}
		f.Profiles = append(f.Profiles, prof)
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(&f); err != nil {
		return err
	}
	return bw.Flush()
}

// frameNamer names the frames of stacks for the text formats.
type frameNamer struct {
	frames []stacks.Frame
}

// named returns the frames of a stack, leaf first, with their names and
// the files of their modules.
func (n *frameNamer) named(p *Profile, id stacks.StackID) []speedscopeFrame {
	n.frames = p.j.Frames(n.frames[:0], id)
	out := make([]speedscopeFrame, len(n.frames))
	for i, f := range n.frames {
		out[i] = speedscopeFrame{Name: f.Name(), File: frameFile(f)}
	}
	return out
}

// frameFile is the file a frame's code is in: a .NET method's module, an
// image's path.
func frameFile(f stacks.Frame) string {
	switch {
	case f.Method != nil && f.Method.ModulePath != "":
		return f.Method.ModulePath
	case f.Module != nil:
		return f.Module.Path
	}
	return ""
}

// WriteFolded writes folded stacks, the input of flamegraph.pl and
// inferno: one line per distinct stack, its frames root first separated by
// semicolons after the process's name as the root frame, then a space and
// the number of samples. Semicolons in names become colons, and line
// breaks spaces, so that every line splits back into its frames. Lines are
// sorted.
func (p *Profile) WriteFolded(w io.Writer) error {
	lines := map[string]int64{}
	names := frameNamer{}
	var b strings.Builder
	for _, i := range p.entries() {
		k, v := p.keys[i], &p.vals[i]
		frames := names.named(p, k.stack)
		b.Reset()
		b.WriteString(foldedName(processLabel(k, v)))
		for j := len(frames) - 1; j >= 0; j-- {
			b.WriteByte(';')
			b.WriteString(foldedName(frames[j].Name))
		}
		lines[b.String()] += v.count
	}
	keys := make([]string, 0, len(lines))
	for k := range lines {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	bw := bufio.NewWriterSize(w, 256<<10)
	for _, k := range keys {
		bw.WriteString(k)
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatInt(lines[k], 10))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

var foldedReplacer = strings.NewReplacer(";", ":", "\r\n", " ", "\n", " ", "\r", " ")

// foldedName is a frame name made safe for a folded line.
func foldedName(s string) string {
	if !strings.ContainsAny(s, ";\r\n") {
		return s
	}
	return foldedReplacer.Replace(s)
}
