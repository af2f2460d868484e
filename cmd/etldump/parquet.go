package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/sink/parquetsink"
)

// parquetMemoryLimit is the soft memory limit of a Parquet conversion
// when GOMEMLIMIT does not set one. The writer holds a row group's pages
// and a few chunks; with payloads that do not compress, the heap's growth
// allowance (GOGC) alone would double that. The limit makes the collector
// work harder there instead; trace data that compresses stays far below.
const parquetMemoryLimit = 200 << 20

// limitParquetMemory sets the soft memory limit for the conversions a run
// does at once, unless GOMEMLIMIT sets one, and returns what restores the
// limit before.
func limitParquetMemory(opts *options) func() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	n := 1
	if isDirOutput(opts.output) {
		n = max(1, min(runtime.GOMAXPROCS(0), len(opts.files)))
	}
	old := debug.SetMemoryLimit(int64(n) * parquetMemoryLimit)
	return func() { debug.SetMemoryLimit(old) }
}

// parquet writes the records that pass the filters as one Parquet file to
// d.w. With several inputs a File column names the input of each row.
func (d *dumper) parquet() {
	multi := len(d.opts.files) > 1
	pw, err := parquetsink.NewWriter(d.w, parquetsink.Options{FileColumn: multi})
	if err != nil {
		d.err = err
		return
	}
	var ds describe.Description
	var dec parquetsink.Decoded
	// The payload is rendered straight into the writer's column.
	appendPayload := func(dst []byte) []byte { return payload.AppendJSONObject(dst, ds.Fields) }
	d.each(func(r *record.Record) bool {
		d.describe.describe(r, &ds)
		dec = parquetsink.Decoded{ProviderName: ds.ProviderName, EventName: ds.EventName}
		if ds.Decoded {
			dec.AppendPayload = appendPayload
		}
		if multi {
			if i := d.set.Origin(); i >= 0 && i < len(d.inputs) {
				dec.File = d.inputs[i].name
			}
		}
		if err := pw.Write(r, &dec); err != nil {
			d.err = err
			return false
		}
		return true
	})
	// Close also after an error: it stops the writer's goroutines. On
	// damaged input the file still ends with a footer, a valid Parquet
	// file of the records read.
	if err := pw.Close(); err != nil && d.err == nil {
		d.err = err
	}
}

// isDirOutput reports whether -o names a directory: it ends with a path
// separator, or is one already.
func isDirOutput(out string) bool {
	if out == "" || out == "-" {
		return false
	}
	if strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(os.PathSeparator)) {
		return true
	}
	st, err := os.Stat(out)
	return err == nil && st.IsDir()
}

// parquetPerInput converts every input to its own Parquet file in the
// directory -o names, several at once (one per core). Each file is what
// `-o FILE` gives for that input alone: its own filters' time origin, no
// File column. Messages come out in input order once all are done, and the
// exit status is the worst of them.
func parquetPerInput(opts *options, stderr io.Writer) int {
	dir := opts.output
	if err := os.MkdirAll(dir, 0o777); err != nil {
		fmt.Fprintf(stderr, "etldump: -o %s: %v\n", dir, pathReason(err))
		return exitFatal
	}
	outs := parquetNames(dir, opts.files)
	msgs := make([]bytes.Buffer, len(opts.files))
	status := make([]int, len(opts.files))
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, in := range opts.files {
		one := *opts
		one.files = []string{in}
		one.output = outs[i]
		one.progress = "never"
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			// An input that cannot be read at all gets no file, rather
			// than one that would break a glob over the directory.
			status[i] = write(&one, io.Discard, &msgs[i])
		}()
	}
	wg.Wait()
	worst := exitOK
	for i := range msgs {
		stderr.Write(msgs[i].Bytes())
		worst = max(worst, status[i])
	}
	return worst
}

// parquetNames gives each input its file in dir: the input's name without
// its directory and its .etl and compression extensions, with .parquet;
// inputs of the same name get -2, -3, … in the order given.
func parquetNames(dir string, inputs []string) []string {
	used := map[string]bool{}
	outs := make([]string, len(inputs))
	for i, in := range inputs {
		stem := filepath.Base(in)
		for {
			ext := strings.ToLower(filepath.Ext(stem))
			switch ext {
			case ".etl", ".etlgz", ".gz", ".zst", ".bz2", ".xz", ".zip":
				stem = stem[:len(stem)-len(ext)]
				continue
			}
			break
		}
		if stem == "" || stem == "." || stem == string(os.PathSeparator) {
			stem = "trace"
		}
		name := stem + ".parquet"
		for n := 2; used[name]; n++ {
			name = stem + "-" + strconv.Itoa(n) + ".parquet"
		}
		used[name] = true
		outs[i] = filepath.Join(dir, name)
	}
	return outs
}

// checkParquet refuses what --format parquet cannot do: it writes a binary
// file, so -o is required, and it writes records, not a view.
func (o *options) checkParquet() error {
	if o.format != "parquet" {
		return nil
	}
	if o.view != "" {
		return usagef("--format parquet writes records; --%s prints text or json", o.view)
	}
	if o.output == "" || o.output == "-" {
		return usagef("--format parquet writes a binary file: name it with -o FILE.parquet, or -o DIR/ for one file per input")
	}
	return nil
}
