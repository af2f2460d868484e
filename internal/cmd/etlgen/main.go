// Command etlgen writes the synthetic benchmark trace used for whole-process
// measurements: etlgen [-size BYTES] [-cpus N] [-compress] FILE; with
// -packets pktmon|ndis, a packet capture of that provider instead.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/packettest"
)

func main() {
	size := flag.Int64("size", 1<<30, "approximate size of the trace in bytes")
	cpus := flag.Int("cpus", 16, "number of processors")
	compress := flag.Bool("compress", false, "compress the data buffers")
	capture := flag.String("packets", "", "write a packet capture instead: pktmon or ndis")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: etlgen [-size BYTES] [-cpus N] [-compress] [-packets pktmon|ndis] FILE")
		os.Exit(2)
	}
	f, err := os.Create(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "etlgen:", err)
		os.Exit(1)
	}
	var opts []etltest.BenchOption
	if *compress {
		opts = append(opts, etltest.BenchCompress())
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var summary string
	if *capture != "" {
		var res packettest.CaptureResult
		res, err = packettest.WriteCapture(w, *size, *capture, *cpus)
		summary = fmt.Sprintf("%d bytes, %d packet records, %d packets", res.Bytes, res.Records, res.Packets)
	} else {
		var res etltest.BenchResult
		res, err = etltest.WriteBenchmarkTrace(w, *size, *cpus, opts...)
		summary = fmt.Sprintf("%d bytes, %d buffers, %d records", res.Bytes, res.Buffers, res.Records)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "etlgen:", err)
		os.Exit(1)
	}
	fmt.Println(summary)
}
