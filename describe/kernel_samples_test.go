package describe_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/perfview"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema/kernel"
)

// The kernel half of what TraceEvent printed for the merged .NET sample,
// held against what we say of the same records.

// kernelProviders are the providers whose lines are held against ours.
var kernelProviders = []string{kernel.ProviderName + "/", kernel.TraceControlName + "/", kernel.SystemTraceName + "/"}

func ofKernelProvider(name string) bool {
	for _, p := range kernelProviders {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// groupOf says which part of the kernel tables an event belongs to: its
// task for kernel events, the provider for KernelTraceControl's.
func groupOf(name string) string {
	parts := strings.SplitN(name, "/", 3)
	if parts[0] == kernel.TraceControlName || len(parts) < 2 {
		return parts[0]
	}
	return parts[1]
}

// TestKernelEventsMatchTraceEvent holds every kernel EVENT line of
// TraceEvent's listing for the merged .NET sample against our record at
// the same time (to the microsecond), processor, and process and thread
// when one matches them, and counts the names and field values that
// agree, per group; every miss is logged and explained. It also holds the
// COUNT lines against our counts and explains each difference.
func TestKernelEventsMatchTraceEvent(t *testing.T) {
	listing, path := perfview.ReadSample(t, "net452-x64-merged-compressed.etl")
	events := listing.Of(kernelProviders...)
	require.Len(t, events, 186)
	x := perfview.NewIndex[payload.Value](events)

	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	// As etldump does: a first pass learns the trace's file and volume
	// names, for the events that name a file only by its object.
	l := describe.NewLearner()
	l.Scan(f.Buffers(), &f.Header().Clock)
	z := describe.New(describe.Options{KernelNames: l.KernelNames()})
	var d describe.Description
	gotCounts := map[string]int{}
	idleSamples := 0 // profile samples of the idle thread outside DPCs and ISRs
	var t0 int64
	first := true
	for r, err := range f.Events() {
		require.NoError(t, err)
		ft, _ := r.FileTime()
		if first {
			t0, first = ft, false
		}
		z.Describe(r, &d, true)
		full := d.ProviderName + "/" + d.EventName
		if !ofKernelProvider(full) {
			continue
		}
		gotCounts[full]++
		if d.EventName == "PerfInfo/Sample" && d.Decoded {
			tid, _ := payload.Lookup(d.Fields, "ThreadID")
			dpc, _ := payload.Lookup(d.Fields, "ExecutingDPC")
			isr, _ := payload.Lookup(d.Fields, "ExecutingISR")
			if tid.Uint() == 0 && !dpc.Bool() && !isr.Bool() {
				idleSamples++
			}
		}
		cpu, us := int(r.ProcessorNumber), (ft-t0)/10
		if !x.Wants(cpu, us) {
			continue
		}
		rec := &perfview.Record[payload.Value]{Name: full, PID: r.ProcessId, TID: r.ThreadId, HasIDs: r.HasThreadProcess}
		if d.Decoded {
			rec.Fields = perfview.ValueFields(d.Fields)
		}
		x.Add(cpu, us, rec)
	}

	outs := perfview.Match(events, x, perfview.ValueAgree)
	scores := map[string]*perfview.Score{}
	for i := range outs {
		g := groupOf(outs[i].Event.Name)
		if scores[g] == nil {
			scores[g] = &perfview.Score{}
		}
		scores[g].Add(&outs[i])
	}
	groups := make([]string, 0, len(scores))
	for g := range scores {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		t.Logf("%-18s %v", g, scores[g])
	}
	total := perfview.Total(outs)
	t.Logf("all kernel providers: %v", total)

	// Pinned, so that any change shows; each miss is logged, and every
	// one is in knownMisses.
	assert.Equal(t, perfview.Score{Names: 186, NamesAll: 186, Fields: 1224, FieldsAll: 1243}, total)
	misread := perfview.CheckMisses(t, outs, knownMisses)
	// The goal, for the names and for the values TraceEvent reads right.
	assert.GreaterOrEqual(t, float64(total.Names), shareGoal*float64(total.NamesAll), "names")
	assert.GreaterOrEqual(t, float64(total.Fields), shareGoal*float64(total.FieldsAll-misread),
		"field values, but for TraceEvent's %d misreadings", misread)
	t.Logf("field values agree for %.1f%% of all, %.1f%% of those TraceEvent reads right",
		100*float64(total.Fields)/float64(total.FieldsAll), 100*float64(total.Fields)/float64(total.FieldsAll-misread))

	checkCounts(t, listing.CountsOf(kernelProviders...), gotCounts, idleSamples)
}

// shareGoal is the share of names and of field values that agree with
// TraceEvent: of every value, less the ones TraceEvent itself misreads
// (knownMisses says which).
const shareGoal = 0.98

// knownMisses are the fields (and names, field "") TraceEvent prints that
// our records do not, by event, with the number of lines and the reason.
var knownMisses = func() map[perfview.MissKey]perfview.Known {
	m := perfview.MergedKernelMisses()
	// TraceEvent reads ImageID's ProcessID 4 bytes early, in the high half
	// of the pointer-sized ImageSize, and shows 0; the payload holds the
	// process (4 here, as TraceEvent's own PID column says).
	m[perfview.MissKey{Event: "KernelTraceControl/ImageID", Field: "ProcessID"}] = perfview.Known{Lines: 2, Why: perfview.Misreads}
	return m
}()

// checkCounts holds TraceEvent's COUNT lines against ours. TraceEvent
// leaves out some events; each such difference is named here.
func checkCounts(t *testing.T, want, got map[string]int, idleSamples int) {
	t.Helper()
	// Events TraceEvent does not print for this file at all.
	notPrinted := map[string]string{
		"Windows Kernel/Thread/DCStart":           "thread rundown",
		"Windows Kernel/Thread/DCStop":            "thread rundown",
		"Windows Kernel/StackWalk/Stack":          "stacks are attached to their events, not printed",
		"Windows Kernel/StackWalk/KeyDelete":      "stack keys",
		"Windows Kernel/StackWalk/KeyRundown":     "stack keys",
		"Windows Kernel/StackWalk/StackKeyKernel": "stack keys",
		"Windows Kernel/StackWalk/StackKeyUser":   "stack keys",
		"Windows Kernel/FileIO/FileCreate":        "file names are kept as state",
		"Windows Kernel/FileIO/FileDelete":        "file names are kept as state",
		"Windows Kernel/FileIO/FileRundown":       "file names are kept as state",
		"Windows Kernel/Image/HypercallPage":      "not in its tables, nor in the MOF it falls back to",
		"Windows Kernel/SystemConfig/OpticalDisk": "not in its tables",
		"Windows Kernel/SystemConfig/DPI":         "not in its tables",
	}
	for name, n := range got {
		w, listed := want[name]
		switch {
		case name == "Windows Kernel/PerfInfo/Sample":
			// TraceEvent drops the samples of the idle thread (ThreadID 0)
			// taken outside a DPC or an ISR.
			assert.Equal(t, w, n-idleSamples, "%s: %d samples, %d of the idle thread", name, n, idleSamples)
			assert.Equal(t, 73208, idleSamples)
		case !listed:
			if why, ok := notPrinted[name]; ok {
				t.Logf("count %s: %d, not printed by TraceEvent (%s)", name, n, why)
			} else {
				t.Errorf("count %s: %d, TraceEvent has no COUNT line for it", name, n)
			}
		case w != n:
			t.Errorf("count %s: TraceEvent counts %d, we %d", name, w, n)
		}
	}
	for name, w := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("count %s: TraceEvent counts %d, we have none", name, w)
		}
	}
}
