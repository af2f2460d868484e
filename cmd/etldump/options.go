package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/guid"
)

// options is the parsed command line.
type options struct {
	files    []string
	format   string
	output   string
	help     bool
	version  bool
	view     string // "", "header", "stats", "count" or "activities"
	order    string // time, file or sorted
	window   window
	progress string // auto, always or never
	// maxUnwrapped is --max-unwrapped: the bound on a wrapped input's
	// content (etl.Options.MaxUnwrapped).
	maxUnwrapped int64

	// manifests are the --manifest paths; message is --message.
	manifests []string
	message   bool
	// tmf are the --tmf paths.
	tmf []string
	// firstAppearance is --first-appearance (--format pcapng).
	firstAppearance bool
	// profile holds the flags of the profile formats (profile.go).
	profile profileOptions

	// The session the filter flags describe, and whether any was given.
	session  filter.Session
	filtered bool
	// limit is -n: the records out at most, 0 for all.
	limit int

	// The level and keyword flags; with --provider they are the defaults
	// of the entries that leave those fields out.
	level    uint8
	matchAny uint64
	matchAll uint64
	// entries are --provider and --group in command-line order, read again
	// once every flag is known, since the defaults may come after them.
	entries []entryFlag
}

// entryFlag is one --provider or --group with the --disallow that follow it.
type entryFlag struct {
	spec     string
	group    bool
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
		{name: "level", arg: "N|NAME", help: "keep records up to this level: 0-255 (0, as when left out, keeps every level) or critical, error, warning (warn), information (informational, info), verbose",
			set: func(v string) error {
				l, err := filter.ParseLevel(v)
				o.level, o.filtered = l, true
				return err
			}},
		{name: "any", arg: "MASK", help: "keep records with any of these keyword bits (0x hex or decimal; 0, as when left out, keeps every keyword)",
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
		{name: "ignore-keyword0", help: "drop records with keyword 0 (kernel, classic and WPP records among them); for one provider, see --provider",
			set: func(string) error { o.session.IgnoreKeyword0, o.filtered = true, true; return nil }},
		{name: "provider", arg: "NAME|GUID[:ANY[:LEVEL[:ALL[:ignore-keyword0]]]]", help: "keep this provider only (repeatable); a field left empty takes --any/--level/--all, a field given (0 too) is kept; ignore-keyword0 drops its keyword-0 records",
			set: func(v string) error {
				if _, err := filter.ParseProviderSpec(v); err != nil {
					return err
				}
				o.entries = append(o.entries, entryFlag{spec: v})
				o.filtered = true
				return nil
			}},
		{name: "group", arg: "GUID[:ANY[:LEVEL[:ALL[:ignore-keyword0]]]]", help: "keep the providers of this provider group (repeatable); fields as for --provider",
			set: func(v string) error {
				p, err := filter.ParseProviderSpec(v)
				if err != nil {
					return err
				}
				if p.ID == uuid.Nil {
					return fmt.Errorf("%q: a provider group is named by its GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", v)
				}
				o.entries = append(o.entries, entryFlag{spec: v, group: true})
				o.filtered = true
				return nil
			}},
		{name: "disallow", arg: "GUID", help: "after --group: a provider not to take through that group (repeatable)",
			set: func(v string) error {
				g := o.lastGroup()
				if g == nil {
					return usagef("--disallow follows the --group it applies to: --group GUID --disallow GUID")
				}
				id, err := guid.Parse(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("%q: want a provider GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)", v)
				}
				g.disallow = append(g.disallow, id)
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
		{name: "pid", arg: "N[,N...]", help: "keep records about these processes: the header's, or the one a kernel event's payload names or its thread belongs to (repeatable)",
			set: func(v string) error {
				return eachNumber(v, 32, "a process id (decimal or 0x hex)", func(n uint64) {
					o.session.ProcessIDs = append(o.session.ProcessIDs, uint32(n))
					o.filtered = true
				})
			}},
		{name: "process", arg: "NAME[,NAME...]", help: "keep records about processes of this image name, in any case, .exe optional (repeatable)",
			set: func(v string) error {
				for _, n := range strings.Split(v, ",") {
					if n = strings.TrimSpace(n); n == "" || strings.EqualFold(n, ".exe") {
						return fmt.Errorf("%q: want an image name (notepad.exe, or notepad)", v)
					}
					o.session.ProcessNames = append(o.session.ProcessNames, n)
				}
				o.filtered = true
				return nil
			}},
		{name: "tid", arg: "N[,N...]", help: "keep records about these threads, as --pid finds their thread (repeatable)",
			set: func(v string) error {
				return eachNumber(v, 32, "a thread id (decimal or 0x hex)", func(n uint64) {
					o.session.ThreadIDs = append(o.session.ThreadIDs, uint32(n))
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
		{name: "from", arg: "TIME", help: "keep records at or after TIME: RFC 3339 as text prints times (2020-07-29T00:07:01.5Z; without a zone, UTC), or an offset from the trace start in seconds (1.5) or as a duration (1m30s, 250ms)",
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
		{name: "limit", short: "n", arg: "N", help: "stop after N records out (after the filters, in the chosen order)",
			set: func(v string) error {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || n <= 0 {
					return fmt.Errorf("%q: want a positive number of records", v)
				}
				o.limit = n
				return nil
			}},
		{name: "order", arg: "MODE", help: "time (default: one timeline, exact), file (as stored), sorted (time order within --window)",
			set: oneOf(&o.order, "time, file or sorted", "time", "file", "sorted")},
		{name: "window", arg: "DURATION|COUNT", help: "with --order sorted: how far records may be out of order, as trace time (2s, 500ms) or a record count (100000)",
			set: func(v string) error {
				w, err := parseWindow(v)
				o.window = w
				return err
			}},
		{name: "format", arg: "FORMAT", help: "text (default), jsonl, csv, xml, etl (a new trace, with -o), parquet (with -o), pcapng (the packets of NDIS-PacketCapture and PktMon, with -o), or a CPU profile: pprof (with -o), speedscope, folded; text or json for --header, --stats and --activities",
			set: oneOf(&o.format, "text, jsonl, csv, xml, etl, parquet, pcapng, pprof, speedscope, folded, or json for --header, --stats and --activities",
				"text", "jsonl", "csv", "xml", "json", "etl", "parquet", "pcapng", "pprof", "speedscope", "folded")},
		{name: "manifest", arg: "PATH", help: "decode events with this instrumentation manifest (.man or .xml), or with every one in this directory (repeatable)",
			set: func(v string) error { o.manifests = append(o.manifests, v); return nil }},
		tmfFlag(o),
		{name: "message", help: "with --format text: print the event's message with its %1...%n filled in place of the fields, for events whose manifest gives one",
			set: func(string) error { o.message = true; return nil }},
		{name: "output", short: "o", arg: "FILE", help: "write to FILE instead of standard output; with --format parquet, -o DIR/ writes one file per input",
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
		{name: "max-unwrapped", arg: "SIZE", help: "read a gzip, zstd, bzip2, xz or zip input up to this much content (64GiB by default; bytes, or KiB, MiB, GiB, TiB): past it, the trace is read up to the limit and reported as damaged, which stops a decompression bomb",
			set: func(v string) error {
				n, err := parseByteSize(v)
				o.maxUnwrapped = n
				return err
			}},
		{name: "help", short: "h", help: "print this help",
			set: func(string) error { o.help = true; return nil }},
		{name: "version", help: "print the version",
			set: func(string) error { o.version = true; return nil }},
	}
	defs = append(defs, profileFlags(o)...)
	defs = append(defs, pcapngFlags(o)...)
	p := newParser(defs)
	files, err := p.parse(args)
	if err != nil {
		return nil, p, err
	}
	o.files = files
	if o.help || o.version {
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
	if err := o.checkETL(); err != nil {
		return err
	}
	if err := o.checkProfile(); err != nil {
		return err
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
	if o.message && (o.format != "text" || o.view != "") {
		return usagef("--message applies to the records of --format text (--format xml always carries the message)")
	}
	if err := o.checkParquet(); err != nil {
		return err
	}
	if err := o.checkPcapng(); err != nil {
		return err
	}
	if len(o.entries) == 0 {
		o.session.Level, o.session.MatchAny, o.session.MatchAll = o.level, o.matchAny, o.matchAll
		return nil
	}
	// Entries take the level and keyword flags for the fields they leave
	// empty, and keep those they give, 0 included: 0 is then, as for the
	// flags, a setting that keeps all.
	def := filter.Enablement{Level: o.level, MatchAny: o.matchAny, MatchAll: o.matchAll}
	for _, e := range o.entries {
		p, err := filter.ParseProviderSpecWith(e.spec, def)
		if err != nil {
			return err
		}
		p.Group, p.Disallow = e.group, e.disallow
		o.session.Providers = append(o.session.Providers, p)
	}
	return nil
}

// lastGroup is the last --group given so far, which a --disallow belongs to.
func (o *options) lastGroup() *entryFlag {
	for i := len(o.entries) - 1; i >= 0; i-- {
		if o.entries[i].group {
			return &o.entries[i]
		}
	}
	return nil
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

// parseByteSize reads a size in bytes: a whole number, with a binary unit
// or none (KiB, MiB, GiB, TiB; K, M, G, T and KB, MB, GB, TB mean the same).
func parseByteSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToUpper(strings.TrimSpace(s[len(num):]))
	shift := -1
	for i, names := range [][]string{{"", "B"}, {"K", "KB", "KIB"}, {"M", "MB", "MIB"}, {"G", "GB", "GIB"}, {"T", "TB", "TIB"}} {
		if slices.Contains(names, unit) {
			shift = 10 * i
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || shift < 0 || n <= 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("%q: want a size such as 64GiB, 512MiB or 1048576 (bytes)", v)
	}
	return n << shift, nil
}
