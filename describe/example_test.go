package describe_test

import (
	"fmt"
	"strings"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/payload"
)

// Name and decode every record of a trace: ForTrace reads the trace once
// to learn what it says of itself, then describes each record from every
// source. Here the events of two TraceLogging providers, after the
// kernel's header event; each line gives a record's names and the names
// of its decoded fields.
func ExampleForTrace() {
	f, err := etl.Open("../testdata/etl/tracelogging.etl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	names, _ := describe.ForTrace(nil, f.Reader)
	var d describe.Description
	for r, err := range f.Events() {
		if err != nil {
			fmt.Println(err) // a damaged buffer or record; the rest is read
			continue
		}
		names.Describe(r, &d, true)
		var fields []string
		for _, v := range d.Fields {
			fields = append(fields, v.Name())
		}
		if len(fields) > 4 {
			fields = append(fields[:4], "…")
		}
		fmt.Printf("%s/%s(%s)\n", d.ProviderName, d.EventName, strings.Join(fields, " "))
	}
	// Output:
	// Windows Kernel/EventTrace(BufferSize Version ProviderVersion NumberOfProcessors …)
	// Etlkit.Test.Provider/TestEvent(a)
	// Etlkit.Test.Provider/Scalars(i8 u8 i16 u16 …)
	// Etlkit.Test.Provider/Arrays(fixed var names guids …)
	// Etlkit.Test.Provider/Nested(outer tail)
	// Etlkit.Test.Provider/Tagged(one big top)
	// Etlkit.Test.Provider/Tags1234567(v)
	// Etlkit.Test.Provider/Wow64Pointer(p n)
	// Etlkit.Test.Provider/NoFields()
	// Etlkit.Test.Provider/Custom(before blob)
	// MySource/TestEvent(a)
	// MySource/Scalars(i8 u8 i16 u16 …)
	// MySource/Arrays(fixed var names guids …)
	// MySource/Nested(outer tail)
	// MySource/Tagged(one big top)
	// MySource/Tags1234567(v)
	// MySource/Wow64Pointer(p n)
	// MySource/NoFields()
	// MySource/Custom(before blob)
}

// The same with an instrumentation manifest that describes the user's own
// provider: its events get their names and fields, where without it they
// would be known by their id only and keep their payload as bytes.
func ExampleForTrace_manifest() {
	f, err := etl.Open("../testdata/etl/manifest64.etl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	manifests, err := describe.LoadManifests(nil, "testdata/example.man")
	if err != nil {
		fmt.Println(err)
		return
	}
	names, _ := describe.ForTrace(&describe.TraceOptions{Manifests: manifests}, f.Reader)
	var d describe.Description
	for r, err := range f.Events() {
		if err != nil {
			fmt.Println(err)
			continue
		}
		names.Describe(r, &d, true)
		if r.EventDescriptor.Id > 3 || d.Kernel {
			continue
		}
		if d.Decoded {
			fmt.Printf("%s/%s %s\n", d.ProviderName, d.EventName, payload.AppendTextFields(nil, d.Fields, " "))
		} else {
			fmt.Printf("%s/EventID(%d) %d bytes\n", d.ProviderName, r.EventDescriptor.Id, len(r.UserData))
		}
	}
	// Output:
	// Microsoft-Windows-Kernel-Process/Sample/Start Number=1 Source=manifest
	// Microsoft-Windows-Kernel-Process/Other/Stop Number=2 Source=manifest
	// Microsoft-Windows-Kernel-Process/EventID(3) 22 bytes
}
