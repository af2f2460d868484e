package main

import (
	"fmt"
	"strings"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/kernel"
	"github.com/etlkit/etlkit/sink/profilesink"
	"github.com/etlkit/etlkit/stacks"
)

// The profile formats: the CPU samples of a trace (or the events
// --stacks-of names), with their stacks, as pprof, speedscope or folded
// stacks (package sink/profilesink).
var profileFormats = []string{"pprof", "speedscope", "folded"}

func isProfileFormat(f string) bool {
	for _, p := range profileFormats {
		if f == p {
			return true
		}
	}
	return false
}

// profileOptions are the flags of the profile formats.
type profileOptions struct {
	by       string   // thread or process: one speedscope profile per
	stacksOf []string // event names whose stacks are wanted instead of the CPU samples
}

// profileFlags are the flags of the profile formats.
func profileFlags(o *options) []*flagDef {
	return []*flagDef{
		{name: "profile-by", arg: "thread|process", help: "with --format speedscope: one profile per thread (default) or per process",
			set: oneOf(&o.profile.by, "thread or process", "thread", "process")},
		{name: "stacks-of", arg: "EVENTNAME", help: "with --format pprof, speedscope or folded: profile the stacks of these events (CSwitch, FileIO/Create, GC/AllocationTick; repeatable), each weighing 1, instead of the CPU samples",
			set: func(v string) error {
				if strings.TrimSpace(v) == "" {
					return fmt.Errorf("empty name: want an event name as EventName shows it (CSwitch, GC/AllocationTick)")
				}
				o.profile.stacksOf = append(o.profile.stacksOf, strings.TrimSpace(v))
				return nil
			}},
	}
}

// checkProfile settles the flags of the profile formats: one input read
// whole in time order, since every kind of record (images, threads, the
// .NET runtime's methods, stacks) goes into the profile; --pid, --process,
// --tid, --from and --to choose the samples.
func (o *options) checkProfile() error {
	if !isProfileFormat(o.format) {
		switch {
		case o.profile.by != "":
			return usagef("--profile-by applies to --format speedscope")
		case len(o.profile.stacksOf) > 0:
			return usagef("--stacks-of applies to --format pprof, speedscope and folded")
		}
		return nil
	}
	s := &o.session
	switch {
	case o.view != "":
		return usagef("--format %s writes a profile; it cannot be combined with --%s", o.format, o.view)
	case len(o.files) > 1:
		return usagef("--format %s profiles one trace: give one input", o.format)
	case o.order != "time":
		return usagef("--format %s joins stacks in time order; --order %s cannot be combined with it", o.format, o.order)
	case o.message:
		return usagef("--message applies to --format text")
	case o.profile.by != "" && o.format != "speedscope":
		return usagef("--profile-by applies to --format speedscope")
	case len(o.entries) > 0 || o.level != 0 || o.matchAny != 0 || o.matchAll != 0 || s.IgnoreKeyword0 ||
		len(s.EventIDs.IDs) > 0 || len(s.EventNames.Names) > 0 || len(s.Opcodes) > 0:
		return usagef("--format %s reads every record to join stacks and name frames: of the filters it takes --pid, --process, --tid, --from and --to, which choose the samples", o.format)
	case o.limit != 0:
		return usagef("--format %s writes the profile of every sample the filters choose; -n cannot be combined with it", o.format)
	case o.format == "pprof" && o.output == "":
		// As the other binary formats: nothing a terminal would show.
		return usagef("--format pprof writes a binary file (gzip-compressed protobuf): name it with -o FILE.pb.gz, or -o - for standard output")
	}
	return nil
}

// profile writes the profile of the input to the output.
func (d *dumper) profile() {
	in := d.inputs[0]
	var timeFilter *filter.Filter
	if s := d.opts.session; s.From != (filter.TimeBound{}) || s.To != (filter.TimeBound{}) {
		var err error
		timeFilter, err = filter.Compile(filter.Options{TraceStart: d.traceStart()}, filter.Session{From: s.From, To: s.To})
		if err != nil {
			fmt.Fprintf(d.stderr, "etldump: filter: %v\n", err)
			d.fail(exitFatal)
			return
		}
	}
	bySubject, err := d.samplesBySubject()
	if err != nil {
		fmt.Fprintf(d.stderr, "etldump: filter: %v\n", err)
		d.fail(exitFatal)
		return
	}

	var sel func(r *record.Record) bool
	if names := d.opts.profile.stacksOf; len(names) > 0 {
		sel = d.eventsNamed(names)
	}
	if timeFilter != nil {
		chosen := sel
		sel = func(r *record.Record) bool {
			if chosen == nil {
				if g, ok := kernel.Group(r); !ok || g != groupPerfInfo || r.EventDescriptor.Opcode != opSample {
					return false
				}
			} else if !chosen(r) {
				return false
			}
			return timeFilter.Match(r)
		}
	}

	var prof *profilesink.Profile
	j := stacks.NewJoiner(stacks.Options{Select: sel, Emit: func(s *stacks.Sample) {
		if bySubject != nil && !bySubject(s) {
			return
		}
		prof.Add(s)
	}})
	// The first pass gives the processes of threads whose samples come
	// before any thread event names them (a trace without its start
	// rundown), as the other outputs have them.
	j.Processes().Ahead = d.learnTrace().Ahead()
	prof = profilesink.New(j, profilesink.Options{Name: in.name, Clock: &in.f.Header().Clock,
		Timeline: d.opts.format == "speedscope", ByProcess: d.opts.profile.by == "process"})
	n := 0
	d.ordered()(func(r *record.Record, err error) bool {
		if n++; n&(ticksPerRecord-1) == 0 {
			d.progress.tick(r)
		}
		if err == nil {
			j.Add(r)
		}
		return true
	})
	j.Close()
	if prof.Samples() == 0 {
		d.reportNoSamples()
	}
	switch d.opts.format {
	case "pprof":
		err = prof.WritePprof(d.w)
	case "speedscope":
		err = prof.WriteSpeedscope(d.w)
	default:
		err = prof.WriteFolded(d.w)
	}
	if err != nil && d.err == nil {
		d.err = err
	}
}

// reportNoSamples says on standard error why the profile is empty, as
// pcapng says it for a capture without packets; the run still succeeds.
func (d *dumper) reportNoSamples() {
	what := "PerfInfo/Sample records (CPU samples)"
	if names := d.opts.profile.stacksOf; len(names) > 0 {
		what = strings.Join(names, ", ") + " records"
	}
	where := "in the input"
	if d.opts.filtered { // --pid, --process, --tid, --from, --to: checkProfile refuses the others
		where = "pass the filters"
	}
	fmt.Fprintf(d.stderr, "etldump: the profile is empty: no %s %s\n", what, where)
}

// samplesBySubject chooses the samples of --pid, --process and --tid by
// the process and thread the Joiner gives them, with the filter's rules
// (image names in any case, .exe optional); nil when none is given.
func (d *dumper) samplesBySubject() (func(*stacks.Sample) bool, error) {
	s := d.opts.session
	if len(s.ProcessIDs) == 0 && len(s.ThreadIDs) == 0 && len(s.ProcessNames) == 0 {
		return nil, nil
	}
	var cur *stacks.Sample
	f, err := filter.Compile(filter.Options{Lookup: filter.Lookup{
		Process:     func(*record.Record) (uint32, bool) { return cur.PID, cur.PIDKnown },
		Thread:      func(*record.Record) (uint32, bool) { return cur.TID, true },
		ProcessName: func(*record.Record) (string, bool) { return cur.Process, cur.PIDKnown && cur.Process != "" },
	}}, filter.Session{ProcessIDs: s.ProcessIDs, ThreadIDs: s.ThreadIDs, ProcessNames: s.ProcessNames})
	if err != nil {
		return nil, err
	}
	// The filter judges the sample through the lookups; the record it is
	// given only has to pass a session that asks for every level.
	var every record.Record
	return func(sample *stacks.Sample) bool {
		cur = sample
		return f.Match(&every)
	}, nil
}

// Kernel group and opcode of PerfInfo/Sample.
const (
	groupPerfInfo = 0x0F
	opSample      = 46
)

// eventsNamed chooses the records whose event is one of names, as
// EventName shows it, alone or after its provider's name, in any case.
func (d *dumper) eventsNamed(names []string) func(r *record.Record) bool {
	z := d.newDescriber(false, true)
	want := map[string]bool{}
	for _, n := range names {
		want[strings.ToLower(n)] = true
	}
	known := map[[2]string]bool{}
	var desc describe.Description
	return func(r *record.Record) bool {
		z.describe(r, &desc)
		if desc.EventName == "" {
			return false
		}
		k := [2]string{desc.ProviderName, desc.EventName}
		hit, ok := known[k]
		if !ok {
			hit = want[strings.ToLower(desc.EventName)] || want[strings.ToLower(desc.ProviderName+"/"+desc.EventName)]
			known[k] = hit
		}
		return hit
	}
}
