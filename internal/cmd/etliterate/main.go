// Command etliterate iterates every record of a trace in file order and
// prints the count: the whole-process measure of the reader's hot path,
// to be compared with cat of the same file.
package main

import (
	"flag"
	"fmt"
	"iter"
	"os"
	"runtime/pprof"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/record"
)

func main() {
	serial := flag.Bool("serial", false, "file order on the calling goroutine only (EventsWith in order.FileOrder mode, ReadAhead -1)")
	withTime := flag.Bool("time", false, "also convert every record's TimeStamp to UTC")
	ordered := flag.Bool("events", false, "iterate in time order (Events) instead of file order")
	fileOrder := flag.Bool("fileorder", false, "iterate with EventsWith in order.FileOrder mode (as etldump --order file)")
	readAhead := flag.Int("readahead", 0, "with -events: order.Options.ReadAhead")
	workers := flag.Int("workers", 0, "with -events: order.Options.Workers")
	decodeAhead := flag.Int("decodeahead", 0, "with -events: order.Options.DecodeAhead")
	mergeAhead := flag.Bool("mergeahead", false, "with -events: order.Options.MergeAhead")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: etliterate [-serial] [-time] [-events] FILE")
		os.Exit(2)
	}
	if p := os.Getenv("ETLITERATE_CPUPROFILE"); p != "" {
		out, err := os.Create(p)
		if err == nil {
			pprof.StartCPUProfile(out)
			defer pprof.StopCPUProfile()
		}
	}
	f, err := etl.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "etliterate:", err)
		os.Exit(2)
	}
	defer f.Close()
	var n, errs int
	var last int64
	records := f.Records
	opts := order.Options{ReadAhead: *readAhead, Workers: *workers, DecodeAhead: *decodeAhead, MergeAhead: *mergeAhead}
	if *ordered {
		records = func() iter.Seq2[*record.Record, error] { return f.EventsWith(opts) }
	}
	if *fileOrder || *serial {
		opts.Mode = order.FileOrder
		if *serial {
			opts.ReadAhead = -1
		}
		records = func() iter.Seq2[*record.Record, error] { return f.EventsWith(opts) }
	}
	for rec, err := range records() {
		if err != nil {
			errs++
			continue
		}
		n++
		last ^= rec.RawTimeStamp
		if *withTime {
			last ^= rec.TimeStamp().UnixNano()
		}
	}
	fmt.Printf("%d records, %d errors, %d bytes (%x)\n", n, errs, f.Stats().Bytes, last&1)
}
