package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/etlkit/etlkit/etl"
)

// dumper runs one invocation: it opens the inputs, walks their records and
// hands each to the encoder.
type dumper struct {
	opts   *options
	stderr io.Writer
	w      *bufio.Writer
	line   []byte // reused for every record
	err    error  // the first write error
	status int
}

func (d *dumper) fail(status int) {
	d.status = max(d.status, status)
}

func (d *dumper) dump() int {
	var enc encoder
	switch d.opts.format {
	case "jsonl", "json":
		enc = jsonlEncoder{}
	default:
		enc = textEncoder{}
	}
	d.line = make([]byte, 0, 4096)
	if !d.write(enc.begin(d.line[:0])) {
		return d.status
	}
	var ds desc
	for _, name := range d.opts.files {
		f, err := etl.Open(name)
		if err != nil {
			fmt.Fprintln(d.stderr, fileMessage(name, err))
			d.fail(exitFatal)
			continue
		}
		stopped := false
		for r, err := range f.Records() {
			if err != nil {
				continue
			}
			if !d.write(enc.record(d.line[:0], r, &ds)) {
				stopped = true
				break
			}
		}
		if !stopped {
			d.reportDamage(name, f.Stats())
		}
		f.Close()
		if stopped {
			return d.status
		}
	}
	d.write(enc.end(d.line[:0]))
	return d.status
}

// write hands one encoded piece to the buffered writer and keeps the grown
// buffer for the next record. It reports false once output has failed.
func (d *dumper) write(b []byte) bool {
	if cap(b) > cap(d.line) {
		d.line = b[:0]
	}
	if d.err != nil {
		return false
	}
	if len(b) == 0 {
		return true
	}
	if _, err := d.w.Write(b); err != nil {
		d.err = err
		return false
	}
	return true
}

// reportDamage writes the one-line summary of what a file lost, and marks
// the run as damaged.
func (d *dumper) reportDamage(name string, st *etl.Stats) {
	if !st.Damaged() {
		return
	}
	d.fail(exitDamaged)
	fmt.Fprintln(d.stderr, damageSummary(name, st))
}

// damageSummary says in one line how much was lost and where the first
// damage is, so that a user can look there with a hex viewer.
func damageSummary(name string, st *etl.Stats) string {
	var parts []string
	plural := func(n int, one, many string) {
		if n == 1 {
			parts = append(parts, "1 "+one)
		} else if n > 1 {
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	plural(st.BuffersSkipped, "buffer skipped", "buffers skipped")
	plural(st.RecordsSkipped, "record skipped", "records skipped")
	plural(st.BuffersCut, "buffer cut short", "buffers cut short")
	if st.Truncated {
		parts = append(parts, "the file ends inside its last buffer")
	}
	if len(parts) == 0 {
		plural(st.ErrorCount, "error", "errors")
	}
	var off int64
	first := ""
	if len(st.Errors) > 0 {
		fe := st.Errors[0]
		off = fe.Offset
		first = fe.Reason
		if fe.Buffer >= 0 {
			first = fmt.Sprintf("buffer %d: %s", fe.Buffer, first)
		}
		if fe.Err != nil {
			first += ": " + fe.Err.Error()
		}
	}
	msg := fmt.Sprintf("etldump: %s: offset 0x%x: damaged: %s; %d records read", name, off, strings.Join(parts, ", "), st.Records)
	if first != "" {
		msg += "; first: " + first
	}
	return msg
}
