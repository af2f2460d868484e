package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/filter"
)

// options is the parsed command line.
type options struct {
	files    []string
	format   string
	output   string
	help     bool
	view     string // "", "header", "stats", "count" or "activities"
	order    string // time, file or sorted
	window   window
	progress string // auto, always or never

	// The session the filter flags describe, and whether any was given.
	session  filter.Session
	filtered bool

	// The level and keyword flags; with --provider they are the defaults
	// of the entries that leave those fields out.
	level    uint8
	matchAny uint64
	matchAll uint64
	groups   []filter.ProviderSpec
	disallow []uuid.UUID
}

// window is the reorder window of --order sorted: a duration of trace time
// or a number of records.
type window struct {
	dur   time.Duration
	count int
}

func parseOptions(args []string) (*options, *parser, error) {
	o := &options{format: "text", order: "time", progress: "auto"}
	setView := func(v string) func(string) error {
		return func(string) error {
			if o.view != "" && o.view != v {
				return usagef("--%s and --%s cannot be combined: pick one view", o.view, v)
			}
			o.view = v
			return nil
		}
	}
	defs := []*flagDef{
		{name: "level", arg: "N|NAME", help: "keep records up to this level: 1-255 or critical, error, warning, information, verbose",
			set: func(v string) error {
				l, err := filter.ParseLevel(v)
				o.level, o.filtered = l, true
				return err
			}},
		{name: "any", arg: "MASK", help: "keep records with any of these keyword bits (0x hex or decimal)",
			set: func(v string) error {
				k, err := filter.ParseKeyword(v)
				o.matchAny, o.filtered = k, true
				return err
			}},
		{name: "all", arg: "MASK", help: "keep records with all of these keyword bits",
			set: func(v string) error {
				k, err := filter.ParseKeyword(v)
				o.matchAll, o.filtered = k, true
				return err
			}},
		{name: "ignore-keyword0", help: "drop records with keyword 0 (kernel, classic and WPP records among them)",
			set: func(string) error { o.session.IgnoreKeyword0, o.filtered = true, true; return nil }},
		{name: "provider", arg: "NAME|GUID[:ANY[:LEVEL[:ALL]]]", help: "keep this provider only (repeatable); level and keywords as given, else from --level/--any/--all",
			set: func(v string) error {
				p, err := filter.ParseProviderSpec(v)
				if err != nil {
					return err
				}
				o.session.Providers = append(o.session.Providers, p)
				o.filtered = true
				return nil
			}},
		{name: "group", arg: "GUID[:ANY[:LEVEL[:ALL]]]", help: "keep the providers of this provider group (repeatable)",
			set: func(v string) error {
				p, err := filter.ParseProviderSpec(v)
				if err != nil {
					return err
				}
				if p.ID == uuid.Nil {
					return fmt.Errorf("%q: a provider group is named by its GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", v)
				}
				p.Group = true
				o.groups = append(o.groups, p)
				o.filtered = true
				return nil
			}},
		{name: "disallow", arg: "GUID", help: "with --group: a provider not to take through the group (repeatable)",
			set: func(v string) error {
				id, err := uuid.Parse(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("%q: want a provider GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", v)
				}
				o.disallow = append(o.disallow, id)
				return nil
			}},
		{name: "id", arg: "N[,N...]", help: "keep these event ids (repeatable)",
			set: func(v string) error { return o.addIDs(v, false) }},
		{name: "exclude-id", arg: "N[,N...]", help: "drop these event ids (repeatable)",
			set: func(v string) error { return o.addIDs(v, true) }},
		{name: "event-name", arg: "NAME", help: "keep events of this name, as EventName shows it (Process/Start, GC/Start, a TraceLogging name; repeatable)",
			set: func(v string) error { return o.addName(v, false) }},
		{name: "exclude-event-name", arg: "NAME", help: "drop events of this name (repeatable)",
			set: func(v string) error { return o.addName(v, true) }},
		{name: "pid", arg: "N[,N...]", help: "keep records of these process ids (repeatable)",
			set: func(v string) error {
				return eachNumber(v, 32, "a process id (decimal or 0x hex)", func(n uint64) {
					o.session.ProcessIDs = append(o.session.ProcessIDs, uint32(n))
					o.filtered = true
				})
			}},
		{name: "opcode", arg: "N[,N...]", help: "keep records with these opcodes (0-255, repeatable)",
			set: func(v string) error {
				return eachNumber(v, 8, "an opcode 0-255", func(n uint64) {
					o.session.Opcodes = append(o.session.Opcodes, uint8(n))
					o.filtered = true
				})
			}},
		{name: "from", arg: "TIME", help: "keep records at or after TIME: RFC 3339 (2024-05-01T12:00:00Z) or an offset from the trace start (1.5s, 250ms)",
			set: func(v string) error {
				b, err := filter.ParseTimeBound(v)
				o.session.From, o.filtered = b, true
				return err
			}},
		{name: "to", arg: "TIME", help: "keep records before TIME, in the same forms as --from",
			set: func(v string) error {
				b, err := filter.ParseTimeBound(v)
				o.session.To, o.filtered = b, true
				return err
			}},
		{name: "order", arg: "MODE", help: "time (default: one timeline, exact), file (as stored), sorted (time order within --window)",
			set: oneOf(&o.order, "time, file or sorted", "time", "file", "sorted")},
		{name: "window", arg: "DURATION|COUNT", help: "with --order sorted: how far records may be out of order, as trace time (2s, 500ms) or a record count (100000)",
			set: func(v string) error {
				w, err := parseWindow(v)
				o.window = w
				return err
			}},
		{name: "format", arg: "FORMAT", help: "text (default), jsonl, csv or xml; text or json for --header, --stats and --activities",
			set: oneOf(&o.format, "text, jsonl, csv, xml, or json for --header, --stats and --activities",
				"text", "jsonl", "csv", "xml", "json")},
		{name: "output", short: "o", arg: "FILE", help: "write to FILE instead of standard output",
			set: func(v string) error { o.output = v; return nil }},
		{name: "header", help: "print the logfile header of each file instead of records",
			set: setView("header")},
		{name: "stats", help: "print counts: records, buffers, header types, providers, events, losses, time span",
			set: setView("stats")},
		{name: "count", help: "print the number of records that pass the filters",
			set: setView("count")},
		{name: "activities", help: "print the activity tree: START/STOP pairs by activity id, children by related id, with durations",
			set: setView("activities")},
		{name: "progress", arg: "WHEN", help: "progress bar on standard error: auto (when it is a terminal), always, never",
			set: oneOf(&o.progress, "auto, always or never", "auto", "always", "never")},
		{name: "help", short: "h", help: "print this help",
			set: func(string) error { o.help = true; return nil }},
	}
	p := newParser(defs)
	files, err := p.parse(args)
	if err != nil {
		return nil, p, err
	}
	o.files = files
	if o.help {
		return o, p, nil
	}
	return o, p, o.check()
}

// check settles what depends on several flags.
func (o *options) check() error {
	if o.window != (window{}) && o.order != "sorted" {
		return usagef("--window applies to --order sorted only")
	}
	if o.order == "sorted" && o.window == (window{}) {
		return usagef("--order sorted needs --window DURATION|COUNT (for example --window 2s or --window 100000)")
	}
	switch o.view {
	case "header", "stats", "activities":
		if o.format != "text" && o.format != "json" {
			return usagef("--format %s: --%s prints text or json", o.format, o.view)
		}
	case "count":
	default:
		if o.format == "json" {
			o.format = "jsonl"
		}
	}
	if len(o.disallow) > 0 && len(o.groups) == 0 {
		return usagef("--disallow applies to --group: name the provider group with --group GUID")
	}
	if len(o.session.Providers) > 0 || len(o.groups) > 0 {
		// Entries take the level and keyword flags as defaults: zero in a
		// spec means the field was left empty.
		for i := range o.session.Providers {
			o.applyDefaults(&o.session.Providers[i])
		}
		for _, g := range o.groups {
			o.applyDefaults(&g)
			g.Disallow = o.disallow
			o.session.Providers = append(o.session.Providers, g)
		}
	} else {
		o.session.Level, o.session.MatchAny, o.session.MatchAll = o.level, o.matchAny, o.matchAll
	}
	return nil
}

func (o *options) applyDefaults(p *filter.ProviderSpec) {
	if p.Level == 0 {
		p.Level = o.level
	}
	if p.MatchAny == 0 {
		p.MatchAny = o.matchAny
	}
	if p.MatchAll == 0 {
		p.MatchAll = o.matchAll
	}
}

func (o *options) addIDs(v string, exclude bool) error {
	f := &o.session.EventIDs
	if len(f.IDs) > 0 && f.Exclude != exclude {
		return usagef("--id and --exclude-id cannot be combined: keep a list or drop one")
	}
	f.Exclude = exclude
	return eachNumber(v, 16, "an event id 0-65535", func(n uint64) {
		f.IDs = append(f.IDs, uint16(n))
		o.filtered = true
	})
}

func (o *options) addName(v string, exclude bool) error {
	f := &o.session.EventNames
	if len(f.Names) > 0 && f.Exclude != exclude {
		return usagef("--event-name and --exclude-event-name cannot be combined")
	}
	if v == "" {
		return fmt.Errorf("empty name: want the TraceLogging event name, as it is written")
	}
	f.Exclude = exclude
	f.Names = append(f.Names, v)
	o.filtered = true
	return nil
}

// oneOf is the setter of a flag whose value is one of words, in any case:
// it stores the word in lower case, or says what is wanted.
func oneOf(dst *string, want string, words ...string) func(string) error {
	return func(v string) error {
		if w := strings.ToLower(v); slices.Contains(words, w) {
			*dst = w
			return nil
		}
		return fmt.Errorf("%q: want %s", v, want)
	}
}

// eachNumber reads a comma-separated list of numbers of the given width.
func eachNumber(v string, bits int, what string, add func(uint64)) error {
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		var n uint64
		var err error
		if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
			n, err = strconv.ParseUint(h, 16, bits)
		} else {
			n, err = strconv.ParseUint(s, 10, bits)
		}
		if err != nil {
			return fmt.Errorf("%q: want %s, or several separated by commas", s, what)
		}
		add(n)
	}
	return nil
}

func parseWindow(v string) (window, error) {
	s := strings.TrimSpace(v)
	if n, err := strconv.Atoi(s); err == nil {
		if n <= 0 {
			return window{}, fmt.Errorf("%q: a record count must be positive", v)
		}
		return window{count: n}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return window{}, fmt.Errorf("%q: want a positive duration (2s, 500ms, 1m) or a record count (100000)", v)
	}
	return window{dur: d}, nil
}
