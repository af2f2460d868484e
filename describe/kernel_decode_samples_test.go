package describe_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema/kernel"
)

// decodeTally counts, per event name, the records of a trace and those
// whose payload decoded with no error at all.
type decodeTally struct {
	all, clean int
	firstErr   string
}

// tallyKernel describes every kernel record of a sample and calls check
// with the ones it decoded.
func tallyKernel(t *testing.T, name string, check func(event string, fields []payload.Value)) (map[string]*decodeTally, int, int) {
	f, err := etl.Open(samples.Path(t, name))
	require.NoError(t, err)
	defer f.Close()
	z := describe.New(describe.Options{})
	var d describe.Description
	tally := map[string]*decodeTally{}
	all, clean := 0, 0
	for r, err := range f.Events() {
		require.NoError(t, err)
		z.Describe(r, &d, true)
		if !d.Kernel && d.ProviderName != kernel.TraceControlName && d.ProviderName != kernel.ProviderName {
			continue
		}
		c := tally[d.EventName]
		if c == nil {
			c = &decodeTally{}
			tally[d.EventName] = c
		}
		c.all++
		all++
		if d.Decoded && d.Err == nil {
			c.clean++
			clean++
			if check != nil {
				check(d.EventName, d.Fields)
			}
		} else if c.firstErr == "" {
			c.firstErr = fmt.Sprintf("decoded=%v err=%v", d.Decoded, d.Err)
		}
	}
	return tally, all, clean
}

// reportTally logs the tally per event name, misses first.
func reportTally(t *testing.T, tally map[string]*decodeTally) {
	names := make([]string, 0, len(tally))
	for n := range tally {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := tally[n]
		if c.clean < c.all {
			t.Logf("%-40s %6d/%6d decoded cleanly; first miss: %s", n, c.clean, c.all, c.firstErr)
		}
	}
	for _, n := range names {
		if c := tally[n]; c.clean == c.all {
			t.Logf("%-40s %6d/%6d decoded cleanly", n, c.clean, c.all)
		}
	}
}

func fieldText(fields []payload.Value, name string) string {
	v, ok := payload.Lookup(fields, name)
	if !ok {
		return "<missing>"
	}
	return string(v.AppendText(nil))
}

// TestShutdownKernelDecodes decodes every kernel record of a Windows 10
// shutdown trace (Process, Thread and Image groups, with SYSTEM and
// PERFINFO headers) and checks chosen values.
func TestShutdownKernelDecodes(t *testing.T) {
	got := map[string][]string{}
	keep := func(key string, fields []payload.Value, names ...string) {
		if _, done := got[key]; done {
			return
		}
		for _, n := range names {
			got[key] = append(got[key], n+"="+fieldText(fields, n))
		}
	}
	tally, all, clean := tallyKernel(t, "shutdown-kernel.etl", func(event string, fields []payload.Value) {
		switch {
		case event == "Process/DCStart" && fieldText(fields, "ProcessID") == "600":
			keep("services", fields, "ImageFileName", "CommandLine", "ParentID", "SessionID", "Flags", "UserSID")
		case event == "Process/Defunct":
			keep("defunct", fields, "ProcessID", "ImageFileName", "ExitTime")
		case event == "Image/DCStart" && fieldText(fields, "FileName") == `\Device\HarddiskVolume3\Windows\System32\ntdll.dll`:
			keep("ntdll", fields, "ImageBase", "ImageSize", "ProcessID", "SignatureLevel")
		case event == "Thread/DCStart" && fieldText(fields, "ThreadID") == "560":
			keep("raw input thread", fields, "ProcessID", "ThreadName", "BasePriority", "ParentThreadID")
		case event == "Thread/Start":
			keep("thread start", fields, "ProcessID", "ThreadID", "ParentThreadID", "ParentProcessID")
		}
	})
	reportTally(t, tally)
	t.Logf("shutdown-kernel.etl: %d of %d kernel records decoded cleanly", clean, all)
	assert.Equal(t, 17078, all)
	assert.Equal(t, all, clean, "every record decodes")
	assert.Equal(t, map[string][]string{
		"services": {"ImageFileName=services.exe", `CommandLine=C:\Windows\system32\services.exe`, "ParentID=504",
			"SessionID=0", "Flags=Protected", "UserSID=S-1-5-18"},
		"defunct": {"ProcessID=496", "ImageFileName=svchost.exe", "ExitTime=2020-02-28T17:15:51.4816615Z"},
		"ntdll":   {"ImageBase=0x7FF993B80000", "ImageSize=2031616", "ProcessID=4", "SignatureLevel=12"},
		"raw input thread": {"ProcessID=428", "ThreadName=Win32k Raw Input Thread", "BasePriority=16",
			"ParentThreadID=-1"},
		// Thread/Start is logged by the creating thread, 6532 of process 504.
		"thread start": {"ProcessID=504", "ThreadID=5060", "ParentThreadID=6532", "ParentProcessID=504"},
	}, got)
}

// TestDiaghubKernelDecodes does the same for a Diagnostics Hub kernel
// trace, which adds SystemConfig records.
func TestDiaghubKernelDecodes(t *testing.T) {
	got := map[string][]string{}
	tally, all, clean := tallyKernel(t, "diaghub-kernel.etl", func(event string, fields []payload.Value) {
		if _, done := got[event]; done {
			return
		}
		var names []string
		switch event {
		case "Process/Start":
			names = []string{"ProcessID", "ParentID", "ImageFileName", "CommandLine", "Flags"}
		case "Image/Load":
			names = []string{"ImageBase", "ImageSize", "ProcessID", "TimeDateStamp", "BuildTime", "FileName"}
		case "Image/KernelBase":
			names = []string{"ImageBase"}
		}
		for _, n := range names {
			got[event] = append(got[event], n+"="+fieldText(fields, n))
		}
	})
	reportTally(t, tally)
	t.Logf("diaghub-kernel.etl: %d of %d kernel records decoded cleanly", clean, all)
	assert.Equal(t, 16334, all)
	assert.Equal(t, map[string][]string{
		"Process/Start": {"ProcessID=13540", "ParentID=13160", "ImageFileName=VsDebugConsole.exe",
			`CommandLine="C:\Program Files (x86)\Microsoft Visual Studio\2019\Preview\Common7\IDE\CommonExtensions\Platform\Debugger\VsDebugConsole.exe" \\.\pipe\Microsoft-VisualStudio-Debug-Console-13160 Local\{65C7D2C9-C49C-421C-A4D9-DF00C53A1A42}`,
			"Flags=Wow64"},
		"Image/Load": {"ImageBase=0x7FF7A5170000", "ImageSize=192512", "ProcessID=2140", "TimeDateStamp=1595365293",
			"BuildTime=2020-07-21T21:01:33.0000000Z",
			`FileName=\Device\HarddiskVolume1\Users\liha.REDMOND\Desktop\TestCase25\locProject\bin\Debug\netcoreapp3.1\locProject.exe`},
		"Image/KernelBase": {"ImageBase=0xFFFFF8016AA00000"},
	}, got)
	assert.Equal(t, all, clean, "every record decodes")
}

// TestNet452KernelDecodes: every kernel and KernelTraceControl record of
// the merged .NET sample decodes with no error, but for the TDH metadata,
// whose payloads are read where the trace's schemas are learned, and
// SysConfig/Opcode(37), whose layout nobody gives.
func TestNet452KernelDecodes(t *testing.T) {
	var reads []string
	tally, all, clean := tallyKernel(t, "net452-x64-merged-compressed.etl", func(event string, fields []payload.Value) {
		// The first disk read, and the first whose file was named before
		// it (by a FileIO/FileCreate), its name a DOS path.
		if event == "DiskIO/Read" && (len(reads) == 0 || len(reads) == 3 && fieldText(fields, "FileName") != "<missing>") {
			for _, n := range []string{"TransferSize", "ByteOffset", "FileName"} {
				reads = append(reads, n+"="+fieldText(fields, n))
			}
		}
	})
	assert.Equal(t, []string{"TransferSize=16384", "ByteOffset=849788928", "FileName=<missing>",
		"TransferSize=32768", "ByteOffset=13480976384", `FileName=C:\Windows\Microsoft.NET\Framework64\v4.0.30319\mscorrc.dll`}, reads)
	reportTally(t, tally)
	t.Logf("net452-x64-merged-compressed.etl: %d of %d kernel records decoded cleanly", clean, all)
	for name, c := range tally {
		switch name {
		case "MetaData/EventInfo", "MetaData/EventMapInfo", "SysConfig/Opcode(37)":
			assert.Zero(t, c.clean, name)
		default:
			assert.Equal(t, c.all, c.clean, name)
		}
	}
	assert.Equal(t, 111331, all)
	assert.Equal(t, all-61-24-1, clean)
}
