package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/etlkit/etlkit/internal/digits"
	"github.com/etlkit/etlkit/internal/outfile"
	"github.com/etlkit/etlkit/packets"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/sink/pcapngsink"
)

// pcapngFlags are the flags of --format pcapng.
func pcapngFlags(o *options) []*flagDef {
	return []*flagDef{
		{name: "first-appearance", help: "with --format pcapng: keep only the first appearance of each PktMon packet (PktMon reports a packet at every component it crosses); drop reports are all kept",
			set: func(string) error { o.firstAppearance = true; return nil }},
	}
}

// checkPcapng refuses what --format pcapng cannot do: it writes packets to
// a binary file (or to standard output with -o -), not a view.
func (o *options) checkPcapng() error {
	if o.firstAppearance && o.format != "pcapng" {
		return usagef("--first-appearance applies to --format pcapng")
	}
	if o.format != "pcapng" {
		return nil
	}
	if o.view != "" {
		return usagef("--format pcapng writes packets; it cannot be combined with --%s", o.view)
	}
	if o.output == "" {
		return usagef("--format pcapng writes a binary file: name it with -o FILE.pcapng, or -o - for standard output")
	}
	return nil
}

// writePcapng writes the packets of the NDIS-PacketCapture and PktMon
// records that pass the filters as a pcapng file at -o. PktMon names its
// interfaces at the end of a capture: the interfaces go into room left at
// the start of the file once every record is read, or, to standard
// output, the packets wait in a spool file until then. The records the
// filters leave out still name the interfaces. The file takes its name
// only once complete (outfile); an -o that is an input was refused before.
func (d *dumper) writePcapng() {
	name := d.opts.output
	inputs := make([]string, len(d.inputs))
	for i, in := range d.inputs {
		inputs[i] = in.name
	}
	opts := pcapngsink.CaptureOptions{
		Packets:     packets.Options{FirstAppearance: d.opts.firstAppearance},
		Inputs:      inputs,
		Application: "etldump",
	}
	var out *outfile.File
	var w io.Writer = d.w
	if name != "-" {
		var err error
		if out, err = outfile.Create(name, outfile.Options{}); err != nil {
			fmt.Fprintf(d.stderr, "etldump: -o %s: %v\n", name, pathReason(err))
			d.fail(exitFatal)
			return
		}
		defer out.Abort()
		w = out
	}
	var c *pcapngsink.Capture
	if st, err := outputStat(out); err == nil && st.Mode().IsRegular() {
		c = pcapngsink.NewFileCapture(out.File(), opts)
	} else {
		// Standard output, a pipe or a device: the packets wait in a
		// spool file.
		spool, done, err := outfile.Scratch("etldump-pcapng-*.spool")
		if err != nil {
			fmt.Fprintf(d.stderr, "etldump: -o %s: a spool file for the packets: %v\n", name, err)
			d.fail(exitFatal)
			return
		}
		defer done()
		opts.Spool = spool
		c = pcapngsink.NewCapture(w, opts)
	}
	var werr error
	d.filteredOut = func(r *record.Record) { c.Learn(r, d.set.Origin()) }
	d.each(func(r *record.Record) bool {
		werr = c.Add(r, d.set.Origin())
		return werr == nil
	})
	var st pcapngsink.CaptureStats
	if werr == nil {
		st, werr = c.Close()
	}
	if out == nil {
		if werr != nil {
			d.err = werr
			return
		}
	} else if werr = errors.Join(werr, out.Commit()); werr != nil {
		fmt.Fprintf(d.stderr, "etldump: -o %s: %v\n", name, pathReason(werr))
		d.fail(exitFatal)
		return
	}
	d.reportPackets(name, &st)
}

// reportPackets says on standard error what the capture left out or holds
// nothing of; records too short for the packet they announce mark the run
// as damaged.
func (d *dumper) reportPackets(name string, st *pcapngsink.CaptureStats) {
	if name == "-" {
		name = "standard output"
	}
	if st.Packets == 0 {
		fmt.Fprintf(d.stderr, "etldump: no packets in the input (no NDIS-PacketCapture or PktMon packet events pass): %s is a capture with no packets\n", name)
	}
	var notes []string
	add := func(n int64, one, many string) {
		if n > 0 {
			notes = append(notes, digits.Counted(n, one, many))
		}
	}
	add(st.Malformed, "packet record shorter than the packet it announces", "packet records shorter than the packets they announce")
	add(st.Unpaired, "fragment without the rest of its packet", "fragments without the rest of their packets")
	add(st.Evicted, "packet beyond the reassembly limits", "packets beyond the reassembly limits")
	add(st.UnknownType, "PktMon packet of a type with no link layer (neither Ethernet nor IP)", "PktMon packets of types with no link layer (neither Ethernet nor IP)")
	if len(notes) > 0 {
		fmt.Fprintf(d.stderr, "etldump: %s: left out: %s\n", name, strings.Join(notes, ", "))
	}
	if st.BeforeEpoch > 0 {
		verb := "are"
		if st.BeforeEpoch == 1 {
			verb = "is"
		}
		fmt.Fprintf(d.stderr, "etldump: %s: %s dated before 1970, which pcapng cannot hold, %s written at 1970-01-01\n",
			name, digits.Counted(st.BeforeEpoch, "packet", "packets"), verb)
	}
	if st.Malformed > 0 {
		d.fail(exitDamaged)
	}
}

// outputStat is the file information of an output being written, and an
// error for none (standard output).
func outputStat(f *outfile.File) (fs.FileInfo, error) {
	if f == nil {
		return nil, fs.ErrNotExist
	}
	return f.File().Stat()
}
