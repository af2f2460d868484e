package main

import (
	"fmt"
	"os"

	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/wpp"
)

// tmfSearchPath is the variable tracefmt takes TMF directories from when
// no path is given (-p); etldump reads it when no --tmf is given.
const tmfSearchPath = "TRACE_FORMAT_SEARCH_PATH"

// tmfFlag is --tmf, which adds a TMF source to o.tmf.
func tmfFlag(o *options) *flagDef {
	return &flagDef{name: "tmf", arg: "PATH",
		help: "decode WPP messages with this TMF file, private PDB, or directory of them (repeatable); without it, the directories of $" + tmfSearchPath,
		set:  func(v string) error { o.tmf = append(o.tmf, v); return nil }}
}

// wppOptions are what describing WPP messages needs: the TMF messages
// (nil for none) and the pointer size of messages whose header does not
// give it.
type wppOptions struct {
	set         *wpp.Set
	pointerSize int
}

// loadTMF reads the --tmf sources, or those of TRACE_FORMAT_SEARCH_PATH,
// into d.wpp. A --tmf path that cannot be read, or sources that hold no
// message at all, stop the run; lines and PDBs that cannot be used are
// reported and cost only themselves. It reports false when the run stops.
func (d *dumper) loadTMF() bool {
	paths, fromEnv := d.opts.tmf, false
	if len(paths) == 0 {
		paths, fromEnv = wpp.SearchPath(os.Getenv(tmfSearchPath)), true
	}
	if len(paths) == 0 {
		return true
	}
	set := wpp.NewSet()
	for _, p := range paths {
		if err := set.Load(p); err != nil {
			if fromEnv {
				fmt.Fprintf(d.stderr, "etldump: %s: %v\n", tmfSearchPath, err)
				continue
			}
			fmt.Fprintf(d.stderr, "etldump: --tmf %s: %v\n", p, pathReason(err))
			d.fail(exitFatal)
			return false
		}
	}
	warns := set.Warnings()
	for i, w := range warns {
		if i == maxLearnWarnings {
			fmt.Fprintf(d.stderr, "etldump: %d more TMF lines or PDBs could not be used\n", len(warns)-i)
			break
		}
		fmt.Fprintf(d.stderr, "etldump: %v\n", w)
	}
	if set.Len() == 0 {
		if fromEnv {
			return true
		}
		fmt.Fprintln(d.stderr, "etldump: --tmf: no WPP messages in the files given")
		d.fail(exitFatal)
		return false
	}
	d.wpp.set = set
	for _, in := range d.inputs {
		if ps := int(in.f.Header().PointerSize); ps == 4 || ps == 8 {
			d.wpp.pointerSize = ps
			break
		}
	}
	return true
}

// wppLevel is the filters' lookup of a WPP message's level and flag bit,
// from its TMF entry.
func (w wppOptions) wppLevel(r *record.Record) (uint8, uint64, bool) {
	if !r.Message.HasGUID() {
		return 0, 0, false
	}
	m := w.set.Lookup(r.ProviderId, r.Message.MessageNumber)
	if m == nil {
		return 0, 0, false
	}
	return m.LevelValue, m.Keyword, true
}
