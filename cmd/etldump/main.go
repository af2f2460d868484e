// Command etldump prints the records of Windows ETW trace logs (.etl) as
// text, JSON lines, CSV or tracerpt-style XML, filtered the way an ETW
// session would have filtered them, with several files merged onto one
// timeline.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/etlkit/etlkit/internal/outfile"
)

// Exit statuses.
const (
	exitOK      = 0
	exitDamaged = 1
	exitFatal   = 2
)

// outputBuffer is the size of the output buffer; record lines are handed to
// it in blocks at least this large.
const outputBuffer = 256 << 10

func main() {
	// With SIGPIPE ignored a write to a closed pipe returns EPIPE instead
	// of killing the process, so that `etldump x.etl | head -1` ends with
	// status 0 and no message.
	signal.Ignore(syscall.SIGPIPE)
	// Ctrl-C (or a kill) leaves no partial output behind: the file being
	// written is removed, and the one under the name asked for, if any, is
	// as it was.
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-interrupts
		outfile.RemovePending()
		if s == syscall.SIGTERM {
			os.Exit(128 + 15)
		}
		os.Exit(128 + 2)
	}()
	if os.Getenv("GOGC") == "" {
		// Most of the heap lives to the end of a run: the schema tables
		// and the buffers the first pass keeps for the second. Collecting
		// each time it doubles from the runtime's 4 MiB start only walks
		// them again; letting it triple keeps the heap within three times
		// what is live, and saves most of those walks.
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// gcPercent is etldump's GOGC unless the environment sets one.
const gcPercent = 200

// run is the whole program with its streams passed in, so that tests drive
// it in-process.
func run(args []string, stdout, stderr io.Writer) int {
	opts, p, err := parseOptions(args)
	if err != nil {
		fmt.Fprintf(stderr, "etldump: %v\n", err)
		return exitFatal
	}
	if opts.help {
		io.WriteString(stdout, p.usage())
		return exitOK
	}
	if len(opts.files) == 0 {
		fmt.Fprintln(stderr, "etldump: no input file: etldump [flags] FILE... (etldump --help lists the flags)")
		return exitFatal
	}
	if err := checkOutputs(opts); err != nil {
		fmt.Fprintf(stderr, "etldump: -o %v\n", err)
		return exitFatal
	}
	if opts.format == "parquet" {
		defer limitParquetMemory(opts)()
		if isDirOutput(opts.output) {
			return parquetPerInput(opts, stderr)
		}
	}
	return write(opts, stdout, stderr)
}

// checkOutputs refuses, before anything is opened for writing, an output
// that is an input: a trace (standard input's file included) or a
// manifest, also one that --manifest DIR reads.
func checkOutputs(opts *options) error {
	if opts.output == "" || opts.output == "-" {
		return nil
	}
	outputs := []string{opts.output}
	if opts.format == "parquet" && isDirOutput(opts.output) {
		outputs = parquetNames(opts.output, opts.files)
	}
	inputs := slices.Clone(opts.files)
	for _, m := range opts.manifests {
		inputs = append(inputs, m)
		if st, err := os.Stat(m); err == nil && st.IsDir() {
			filepath.WalkDir(m, func(path string, e fs.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					inputs = append(inputs, path)
				}
				return nil
			})
		}
	}
	var in *os.File
	if f, ok := stdin.(*os.File); ok {
		in = f
	}
	for _, out := range outputs {
		if err := outfile.CheckNotInput(out, in, inputs...); err != nil {
			return err
		}
	}
	return nil
}

// write runs one invocation whose options are settled, to -o or stdout.
func write(opts *options, stdout, stderr io.Writer) int {
	out := stdout
	var file *outfile.File
	if opts.output != "" && opts.output != "-" && opts.format != "etl" && opts.format != "pcapng" {
		f, err := outfile.Create(opts.output, outfile.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "etldump: -o %s: %v\n", opts.output, pathReason(err))
			return exitFatal
		}
		// The file takes the name only once complete, and only when the
		// run got to write it: a run that fails before leaves a file of
		// that name as it was.
		defer f.Abort()
		file, out = f, f
	}
	d := &dumper{opts: opts, stderr: stderr, w: bufio.NewWriterSize(out, outputBuffer)}
	status := d.dump()
	if err := d.w.Flush(); err != nil && !isClosedPipe(err) && d.err == nil {
		d.err = err
	}
	if file != nil && d.err == nil && d.writing && !(status == exitFatal && isEmpty(file)) {
		if err := file.Commit(); err != nil {
			d.err = err
		}
	}
	if d.err != nil && !isClosedPipe(d.err) {
		fmt.Fprintf(stderr, "etldump: writing output: %v\n", d.err)
		return exitFatal
	}
	return status
}

// isEmpty reports an output that nothing was written to: a run that
// failed without writing leaves no empty file in place of one that was.
func isEmpty(f *outfile.File) bool {
	st, err := f.File().Stat()
	return err == nil && st.Size() == 0
}

// isClosedPipe reports the error a write gets once the reader has gone,
// which ends the run quietly: `| head` wanted no more.
func isClosedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe)
}

// pathReason strips the path an *fs.PathError repeats, since every message
// already starts with the file name; the context around it stays.
func pathReason(err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err
	}
	if err == error(pe) {
		return pe.Err
	}
	return errors.New(strings.Replace(err.Error(), pe.Error(), pe.Err.Error(), 1))
}

// fileMessage is the one-line report of a file that cannot be read: the
// file name and the cause, once. A *FormatError names the place in the
// file; an error that is not about a place in it (the file is missing, a
// wrapper does not decompress) has no offset.
func fileMessage(name string, err error) string {
	return fmt.Sprintf("etldump: %s: %v", name, pathReason(err))
}
