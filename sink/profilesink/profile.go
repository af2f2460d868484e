// Package profilesink writes the samples a stacks.Joiner joins as CPU (or
// event) profiles: pprof (github.com/google/pprof/profile, read by go tool
// pprof, the pprof web UI, Pyroscope and others), speedscope's file format
// (opens in a browser), and folded stacks (flamegraph.pl, inferno).
//
// A Profile gathers the samples as the Joiner emits them (Add, from
// stacks.Options.Emit); once the Joiner is closed, its writers name the
// frames and write the profile. It keeps one count per distinct stack and
// thread, and for speedscope, which shows samples in time order, one entry
// per sample.
package profilesink

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/stacks"
)

// Options configure a Profile.
type Options struct {
	// Name names the profile (the input file), for speedscope and the
	// pprof comments.
	Name string
	// Clock converts the samples' raw timestamps to wall time; nil leaves
	// the profile without times.
	Clock *header.Clock
	// Timeline keeps every sample in time order, which speedscope needs.
	Timeline bool
	// ByProcess makes one speedscope profile per process instead of one
	// per thread.
	ByProcess bool
}

// aggKey keys the counts: a stack and the thread it ran on.
type aggKey struct {
	stack    stacks.StackID
	pid, tid uint32
	pidKnown bool
}

type aggValue struct {
	count      int64
	cpu        int64 // CPU samples among count
	interval   int64 // their intervals summed, 100-ns units, for those that had one
	noInterval int64 // CPU samples emitted before the trace stated its interval
	process    string
	thread     string
}

// point is one sample of the timeline.
type point struct {
	time  int64
	stack stacks.StackID
	agg   int32 // index of the sample's entry in Profile.keys and Profile.vals
}

// Profile gathers samples.
type Profile struct {
	opts   Options
	j      *stacks.Joiner
	counts map[aggKey]int32
	vals   []aggValue
	keys   []aggKey
	points []point
	first  int64
	last   int64
	n      int64
}

// New returns a Profile of the samples of j.
func New(j *stacks.Joiner, opts Options) *Profile {
	return &Profile{opts: opts, j: j, counts: make(map[aggKey]int32)}
}

// Add counts a sample; hand it every sample the Joiner emits that the
// profile is to show.
func (p *Profile) Add(s *stacks.Sample) {
	k := aggKey{stack: s.Stack, pid: s.PID, tid: s.TID, pidKnown: s.PIDKnown}
	i, ok := p.counts[k]
	if !ok {
		i = int32(len(p.vals))
		p.counts[k] = i
		p.vals = append(p.vals, aggValue{})
		p.keys = append(p.keys, k)
	}
	v := &p.vals[i]
	v.count++
	if s.CPUSample {
		v.cpu++
		if s.Interval != 0 {
			v.interval += int64(s.Interval)
		} else {
			v.noInterval++
		}
	}
	v.process, v.thread = s.Process, s.Thread
	if p.n == 0 || s.Time < p.first {
		p.first = s.Time
	}
	if p.n == 0 || s.Time > p.last {
		p.last = s.Time
	}
	p.n++
	if p.opts.Timeline {
		p.points = append(p.points, point{time: s.Time, stack: s.Stack, agg: i})
	}
}

// Samples is the number of samples added.
func (p *Profile) Samples() int64 { return p.n }

// cpuNanos is the CPU time of entry v in nanoseconds.
func (p *Profile) cpuNanos(v *aggValue) int64 {
	return (v.interval + v.noInterval*int64(p.j.Interval())) * 100
}

// hasCPU reports whether any sample is a CPU sample.
func (p *Profile) hasCPU() bool {
	for i := range p.vals {
		if p.vals[i].cpu > 0 {
			return true
		}
	}
	return false
}

// span is the wall time of the first sample and the time to the last.
func (p *Profile) span() (time.Time, time.Duration) {
	if p.opts.Clock == nil || p.n == 0 {
		return time.Time{}, 0
	}
	return p.opts.Clock.UTC(p.first), p.opts.Clock.Duration(uint64(p.last - p.first))
}

// processLabel is how a sample's process is shown: its image name, else
// "pid N", else "?" when the trace never says.
func processLabel(k aggKey, v *aggValue) string {
	switch {
	case v.process != "":
		return v.process
	case k.pidKnown:
		return fmt.Sprintf("pid %d", k.pid)
	}
	return "?"
}

// entries returns the indices of the entries ordered by process, thread
// and stack, so that the output does not depend on map order.
func (p *Profile) entries() []int {
	idx := make([]int, len(p.keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		ka, kb := p.keys[a], p.keys[b]
		return cmp.Or(cmp.Compare(ka.pid, kb.pid), cmp.Compare(ka.tid, kb.tid), cmp.Compare(ka.stack, kb.stack),
			boolCmp(ka.pidKnown, kb.pidKnown))
	})
	return idx
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
