package main

import (
	"strings"
)

// options is the parsed command line.
type options struct {
	files  []string
	format string
	output string
	help   bool
}

func parseOptions(args []string) (*options, *parser, error) {
	o := &options{format: "text"}
	defs := []*flagDef{
		{name: "format", arg: "FORMAT", help: "output format: text (default), jsonl, csv, xml; json for --header and --stats",
			set: func(v string) error {
				switch f := strings.ToLower(v); f {
				case "text", "jsonl", "csv", "xml", "json":
					o.format = f
					return nil
				}
				return usagef("--format %q: want text, jsonl, csv, xml or json", v)
			}},
		{name: "output", short: "o", arg: "FILE", help: "write the output to FILE instead of standard output",
			set: func(v string) error { o.output = v; return nil }},
		{name: "help", short: "h", help: "print this help",
			set: func(string) error { o.help = true; return nil }},
	}
	p := newParser(defs)
	files, err := p.parse(args)
	if err != nil {
		return nil, p, err
	}
	o.files = files
	return o, p, nil
}
