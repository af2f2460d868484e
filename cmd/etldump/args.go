package main

import (
	"errors"
	"fmt"
	"strings"
)

// usageError is a mistake on the command line: exit status 2, one line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// flagDef is one command-line flag. Users type flags after the file names
// (`etldump trace.etl --level 3`), which the standard flag package stops
// at, so the command line is read here: flags and files may interleave,
// values come as `--flag value` or `--flag=value`, and `--` ends the flags.
type flagDef struct {
	name  string // without dashes
	short string // one-letter alias, or ""
	arg   string // placeholder of the value; "" for a switch
	help  string
	set   func(v string) error
}

type parser struct {
	defs  []*flagDef
	byKey map[string]*flagDef
}

func newParser(defs []*flagDef) *parser {
	p := &parser{defs: defs, byKey: make(map[string]*flagDef)}
	for _, d := range defs {
		p.byKey[d.name] = d
		if d.short != "" {
			p.byKey[d.short] = d
		}
	}
	return p
}

// parse applies the flags in args and returns the positional arguments.
func (p *parser) parse(args []string) ([]string, error) {
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			files = append(files, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			files = append(files, a)
			continue
		}
		key := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		val, hasVal := "", false
		if k, v, ok := strings.Cut(key, "="); ok {
			key, val, hasVal = k, v, true
		}
		d := p.byKey[key]
		if d == nil {
			return nil, usagef("unknown flag %s (etldump --help lists the flags)", a)
		}
		if d.arg == "" {
			if hasVal {
				switch strings.ToLower(val) {
				case "true", "1", "yes":
				case "false", "0", "no":
					continue
				default:
					return nil, usagef("--%s takes no value, or =true or =false; got %q", d.name, val)
				}
			}
			if err := d.set(""); err != nil {
				return nil, flagError(d, err)
			}
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, usagef("--%s needs a value: --%s %s", d.name, d.name, d.arg)
			}
			i++
			val = args[i]
		}
		if err := d.set(val); err != nil {
			return nil, flagError(d, err)
		}
	}
	return files, nil
}

func flagError(d *flagDef, err error) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	return usagef("--%s: %v", d.name, err)
}

// examples end the help; a test runs each of them on the shared samples.
var examples = []struct{ what, command string }{
	{"warnings and errors of one provider, named as the output names it",
		"etldump trace.etl --level warning --provider Microsoft-Windows-DotNETRuntime"},
	{"one process's records (CPU samples and stacks included) in a time window, as JSON lines",
		"etldump trace.etl --process Test.x64 --from 1.5 --to 3s --format jsonl"},
	{"the first 1000 events as CSV, decoded with a manifest",
		"etldump trace.etl --manifest ClrEtwAll.man --format csv -n 1000 -o events.csv"},
	{"a new trace of what follows an instant (UTC, as text prints times)",
		"etldump trace.etl --from 2020-07-29T00:07:02 --format etl -o cut.etl"},
	{"one Parquet file per input, into a directory",
		"etldump first.etl second.etl --format parquet -o parquet/"},
	{"the CPU profile of one process, for go tool pprof",
		"etldump trace.etl --pid 3676 --format pprof -o cpu.pb.gz"},
	{"the packets of a pktmon capture, for Wireshark",
		"etldump PktMon.etl --format pcapng -o capture.pcapng"},
	{"counts by provider and event",
		"etldump trace.etl --stats"},
}

// usage writes the flag list.
func (p *parser) usage() string {
	var b strings.Builder
	b.WriteString("usage: etldump [flags] FILE...\n\n")
	b.WriteString("Reads Windows ETW trace logs (.etl, also wrapped in gzip, zstd, bzip2, xz or zip)\n")
	b.WriteString("and prints their records, merged onto one timeline. FILE - is standard input.\n\nflags:\n")
	for _, d := range p.defs {
		left := "  --" + d.name
		if d.short != "" {
			left = "  -" + d.short + ", --" + d.name
		}
		if d.arg != "" {
			left += " " + d.arg
		}
		if len(left) < 34 {
			left += strings.Repeat(" ", 34-len(left))
		} else {
			left += "\n" + strings.Repeat(" ", 34)
		}
		b.WriteString(left)
		b.WriteString(d.help)
		b.WriteByte('\n')
	}
	b.WriteString("\nexit status: 0 all read; 1 read with damage (every readable record is printed);\n2 usage error or a file that cannot be read at all.\n")
	b.WriteString("\nexamples:\n")
	for _, e := range examples {
		b.WriteString("  # " + e.what + "\n  " + e.command + "\n")
	}
	return b.String()
}
