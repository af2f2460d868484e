package textsink_test

import (
	"fmt"
	"os"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/sink/textsink"
)

// An event of a TraceLogging trace as a JSON line, named and decoded from
// the schema the record carries.
func Example() {
	f, err := etl.Open("../../testdata/etl/tracelogging.etl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	names, _ := describe.ForTrace(nil, f.Reader)
	w, err := textsink.NewWriter(os.Stdout, textsink.Options{Format: textsink.JSONL})
	if err != nil {
		fmt.Println(err)
		return
	}
	var d describe.Description
	for r, err := range f.Events() {
		if err != nil {
			continue
		}
		names.Describe(r, &d, true)
		if d.ProviderName == "Etlkit.Test.Provider" && d.EventName == "Tagged" {
			if err := w.Write(r, &d); err != nil {
				fmt.Println(err)
				return
			}
		}
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"TimeStamp":"2024-01-17T21:20:00.0003885Z","RawTimeStamp":1000003885,"HeaderType":"EVENT_HEADER64","ProviderId":"d1a4c2b7-55e0-5c3a-9c31-8f5d2a6b7e10","ProviderName":"Etlkit.Test.Provider","EventName":"Tagged","Id":0,"Version":0,"Channel":11,"Level":2,"Opcode":0,"Task":0,"Keyword":"0x0000000000000000","ProcessId":1280,"ThreadId":12292,"ProcessorNumber":0,"ActivityId":"00000001-0002-0003-0405-060708090a0b","Flags":65,"Payload":{"one":1,"big":"0xABC","top":255}}
}

// The text format: one line per record, for people and for awk. An
// Encoder appends the lines to a byte slice.
func ExampleEncoder() {
	f, err := etl.Open("../../testdata/etl/tracelogging.etl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	names, _ := describe.ForTrace(nil, f.Reader)
	enc, err := textsink.NewEncoder(textsink.Options{Format: textsink.Text})
	if err != nil {
		fmt.Println(err)
		return
	}
	var d describe.Description
	var line []byte
	for r, err := range f.Events() {
		if err != nil {
			continue
		}
		names.Describe(r, &d, true)
		if d.ProviderName == "Etlkit.Test.Provider" && (d.EventName == "Nested" || d.EventName == "Tagged") {
			line = enc.Append(line[:0], r, &d)
			os.Stdout.Write(line)
		}
	}
	// Output:
	// 2024-01-17T21:20:00.0003108Z 0 1280/12291 Etlkit.Test.Provider/Nested WARNING 0x0 outer={"id":77,"inner":{"a":1,"b":"deep"},"after":-2} tail=false
	// 2024-01-17T21:20:00.0003885Z 0 1280/12292 Etlkit.Test.Provider/Tagged ERROR 0x0 one=1 big=0xABC top=255
}
