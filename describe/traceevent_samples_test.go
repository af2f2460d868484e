package describe_test

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
)

// The expected file lists the first events of each type as TraceEvent
// prints them:
//
//	EVENT <ms since the trace start>: Provider/Task/Opcode PID=..; TID=..; PName=..; ProceNum=..; DataLen=..; F=V; ...
//
// Lines are matched to records by time (to the printed microsecond, from
// the first record) and processor, preferring the same process and thread,
// and compared as the shared perfview-compare tool does.

type listedEvent struct {
	ms            float64
	name          string
	pid, tid, cpu int64
	fields        [][2]string
}

var listedEventRE = regexp.MustCompile(`^EVENT ([\d,]+\.\d+): (\S.*?) PID=(-?\d+); TID=(-?\d+); PName=[^;]*; ProceNum=(\d+); DataLen=\d+; (.*)$`)
var listedFieldRE = regexp.MustCompile(`; (?:[A-Za-z_][\w.]*=)`)

func readListing(t *testing.T, path string) []listedEvent {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []listedEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := listedEventRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ms, _ := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		pid, _ := strconv.ParseInt(m[3], 10, 64)
		tid, _ := strconv.ParseInt(m[4], 10, 64)
		cpu, _ := strconv.ParseInt(m[5], 10, 64)
		ev := listedEvent{ms: ms, name: strings.TrimSpace(m[2]), pid: pid, tid: tid, cpu: cpu}
		rest := strings.TrimRight(m[6], "; ")
		// Split at "; Name=" boundaries only: values may hold "; ".
		var parts []string
		for {
			loc := listedFieldRE.FindStringIndex(rest)
			if loc == nil {
				parts = append(parts, rest)
				break
			}
			parts = append(parts, rest[:loc[0]])
			rest = rest[loc[0]+2:]
		}
		for _, p := range parts {
			if k, v, ok := strings.Cut(p, "="); ok {
				ev.fields = append(ev.fields, [2]string{k, v})
			}
		}
		out = append(out, ev)
	}
	require.NoError(t, sc.Err())
	return out
}

// seenRecord is what the comparison keeps of a record the trace's
// metadata describes.
type seenRecord struct {
	pid, tid  int64
	name      string
	fields    map[string][]string // lower-cased name: the value as text, and its number
	fromTrace bool
}

func seen(d *describe.Description, fromTrace bool, pid, tid uint32) seenRecord {
	s := seenRecord{pid: int64(pid), tid: int64(tid), name: d.ProviderName + "/" + d.EventName, fromTrace: fromTrace,
		fields: map[string][]string{}}
	for _, v := range d.Fields {
		k := strings.ToLower(v.Name())
		vs := []string{v.String()}
		switch v.Kind() {
		case payload.KindInt:
			vs = append(vs, strconv.FormatInt(v.Int(), 10))
		case payload.KindUint:
			vs = append(vs, strconv.FormatUint(v.Uint(), 10))
		case payload.KindBool:
			vs = append(vs, strconv.FormatBool(v.Bool()))
		}
		s.fields[k] = vs
	}
	return s
}

var listedDateRE = regexp.MustCompile(`^(\d\d)/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)\.(\d+)`)

func listedNumber(s string) (*big, bool) {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		u, err := strconv.ParseUint(h, 16, 64)
		return &big{i: int64(u), f: float64(u)}, err == nil
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return &big{i: i, f: float64(i)}, true
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return &big{i: int64(u), f: float64(u)}, true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return &big{f: f, float: true}, true
	}
	return nil, false
}

type big struct {
	i     int64
	f     float64
	float bool
}

// sameValue reports whether our value prints as TraceEvent's listed one.
func sameValue(listed, ours string) bool {
	if listed == "True" || listed == "False" {
		return strings.EqualFold(listed, ours) || (ours == "1") == (listed == "True") && (ours == "0" || ours == "1")
	}
	b, cut := strings.CutSuffix(listed, "...")
	if m := listedDateRE.FindStringSubmatch(b); m != nil {
		tm, err := time.Parse(time.RFC3339Nano, ours)
		if err != nil {
			return false
		}
		want := fmt.Sprintf("%s-%s-%sT%s:%s:%s.%s", m[1], m[2], m[3], m[4], m[5], m[6], m[7])
		return strings.HasPrefix(tm.UTC().Format("06-01-02T15:04:05.0000000"), want)
	}
	if cut {
		return strings.HasPrefix(strings.ToLower(ours), strings.ToLower(b))
	}
	if strings.EqualFold(b, ours) {
		return true
	}
	if bn, ok := listedNumber(b); ok {
		if on, ok := listedNumber(ours); ok {
			if bn.float || on.float {
				return math.Abs(bn.f-on.f) <= 1e-6*math.Max(1, math.Abs(bn.f))
			}
			return bn.i == on.i || uint32(bn.i) == uint32(on.i)
		}
	}
	return false
}

type comparison struct {
	lines, names, fields, fieldsOK int
	misses                         []string
	// missed counts the fields missed by event and field name.
	missed map[string]int
}

func (c comparison) String() string {
	return fmt.Sprintf("names %d/%d (%.1f%%), fields %d/%d (%.1f%%)", c.names, c.lines, 100*float64(c.names)/float64(c.lines),
		c.fieldsOK, c.fields, 100*float64(c.fieldsOK)/float64(max(c.fields, 1)))
}

// log names every miss.
func (c comparison) log(t *testing.T, what string) {
	t.Logf("%s: %v", what, c)
	for _, m := range c.misses {
		t.Log("  ", m)
	}
}

// compareListing holds the listed events of providers with the given
// prefixes that the trace's metadata describes against our description.
func compareListing(t *testing.T, listing []listedEvent, index map[[2]int64][]seenRecord, prefixes ...string) comparison {
	c := comparison{missed: map[string]int{}}
	for _, ev := range listing {
		keep := false
		for _, p := range prefixes {
			keep = keep || strings.HasPrefix(ev.name, p)
		}
		if !keep {
			continue
		}
		us := int64(math.Round(ev.ms * 1000))
		var near []seenRecord
		for _, d := range []int64{0, -1, 1} {
			near = append(near, index[[2]int64{ev.cpu, us + d}]...)
		}
		// The records of the same provider, process and thread that the
		// trace's metadata describes; none when TraceEvent's event is not
		// one of them.
		provider, _, _ := strings.Cut(ev.name, "/")
		var cands []seenRecord
		for _, r := range near {
			p, _, _ := strings.Cut(r.name, "/")
			if uint32(r.pid) == uint32(ev.pid) && uint32(r.tid) == uint32(ev.tid) && r.fromTrace && strings.EqualFold(p, provider) {
				cands = append(cands, r)
			}
		}
		if len(cands) == 0 {
			continue
		}
		c.lines++
		c.fields += len(ev.fields)
		var named []seenRecord
		for _, r := range cands {
			if strings.EqualFold(r.name, ev.name) {
				named = append(named, r)
			}
		}
		if len(named) == 0 {
			var got []string
			for _, r := range cands {
				got = append(got, r.name)
			}
			c.misses = append(c.misses, fmt.Sprintf("%.3f %s: named %s", ev.ms, ev.name, strings.Join(got, " or ")))
			named = cands // the best match by fields counts
		} else {
			c.names++
		}
		best, bestOK := []string(nil), -1
		var bestNames []string
		for _, r := range named {
			ok := 0
			var bad, badNames []string
			for _, f := range ev.fields {
				matched := false
				for _, v := range r.fields[strings.ToLower(f[0])] {
					matched = matched || sameValue(f[1], v)
				}
				if matched {
					ok++
				} else {
					bad = append(bad, fmt.Sprintf("%s=%s (ours %v)", f[0], f[1], r.fields[strings.ToLower(f[0])]))
					badNames = append(badNames, f[0])
				}
			}
			if ok > bestOK {
				best, bestOK, bestNames = bad, ok, badNames
			}
		}
		c.fieldsOK += bestOK
		_, event, _ := strings.Cut(ev.name, "/")
		for _, f := range bestNames {
			c.missed[event+"."+f]++
		}
		if len(best) > 0 {
			c.misses = append(c.misses, fmt.Sprintf("%.3f %s: %s", ev.ms, ev.name, strings.Join(best, "; ")))
		}
	}
	return c
}

// describedIndex describes every record of a sample, in time order, with
// what a Learner took from it, and indexes those the trace's metadata
// describes by processor and microsecond since the first record.
func describedIndex(t *testing.T, name string, l *describe.Learner) map[[2]int64][]seenRecord {
	f, err := etl.Open(samples.Path(t, name))
	require.NoError(t, err)
	defer f.Close()
	z := describe.New(describe.Options{Trace: l.Set()})
	index := map[[2]int64][]seenRecord{}
	var d describe.Description
	var t0 int64
	first := true
	for r, err := range f.Events() {
		require.NoError(t, err)
		ft, _ := r.FileTime()
		if first {
			t0, first = ft, false
		}
		z.Describe(r, &d, true)
		fromTrace := false
		if d.Event != nil {
			e, _ := l.Set().Lookup(keyOf(r, &d))
			fromTrace = e == d.Event
		}
		if !fromTrace {
			continue
		}
		k := [2]int64{int64(r.ProcessorNumber), (ft - t0) / 10}
		index[k] = append(index[k], seen(&d, fromTrace, r.ProcessId, r.ThreadId))
	}
	return index
}

// TestNet452AgainstTraceEvent holds the events the trace's TDH metadata
// describes against TraceEvent's listing, and names every miss.
func TestNet452AgainstTraceEvent(t *testing.T) {
	const name = "net452-x64-merged-compressed.etl"
	path := samples.Path(t, name)
	listing := readListing(t, filepath.Join(filepath.Dir(path), "expected", "net452-x64-merged-compressed.perfview.txt"))
	l := learnSamples(t, nil, name)
	index := describedIndex(t, name, l)

	kernel := compareListing(t, listing, index, "Microsoft-Windows-Kernel-")
	kernel.log(t, "Microsoft-Windows-Kernel-*")
	// Every name; the field misses are all Kernel-File/Create, which
	// TraceEvent decodes with its kernel FileIo/Create class, not with
	// the metadata: IrpPtr and FileAttributes for Irp and CreateAttributes,
	// CreateOptions split into CreateOptions and CreateDisposition,
	// ShareAccess by name, and the file name as a DOS path.
	assert.Equal(t, 22, kernel.lines)
	assert.Equal(t, 22, kernel.names)
	assert.Equal(t, 76, kernel.fields)
	assert.Equal(t, 46, kernel.fieldsOK)
	assert.Equal(t, map[string]int{
		"Create.IrpPtr": 5, "Create.CreateOptions": 5, "Create.CreateDisposition": 5,
		"Create.FileAttributes": 5, "Create.ShareAccess": 5, "Create.FileName": 5,
	}, kernel.missed)

	dotnet := compareListing(t, listing, index, "Microsoft-Windows-DotNETRuntime")
	dotnet.log(t, "Microsoft-Windows-DotNETRuntime* described by the trace")
	// TDH carries the manifest's raw task and opcode names
	// ("GarbageCollection/GCAllocationTick"), TraceEvent its own
	// ("GC/AllocationTick"): only events its parser does not know, which
	// it names from the metadata too, have the same name. Learner.Defer
	// leaves these events to the built-in .NET tables.
	assert.Equal(t, 160, dotnet.lines)
	assert.Equal(t, 14, dotnet.names)
	assert.Equal(t, 861, dotnet.fields)
	assert.Equal(t, 777, dotnet.fieldsOK)
	// Every field missed is one TraceEvent's own parser adds: fields of
	// later versions than the record's (shown as 0), values it works out
	// (ModuleILFileName from the path, HeapStats' totals, a finalized
	// object's type name from BulkType), BulkType's array flattened into
	// TypeID_0, …, and "None" for a flag enum's 0.
	assert.Equal(t, map[string]int{
		"GC/AllocationTick.ObjectSize": 5, "GC/Start.ClientSequenceNumber": 3,
		"Method/LoadVerbose.ReJITID": 5, "Method/LoadVerbose.OptimizationTier": 5,
		"Method/UnloadVerbose.ReJITID": 5, "Method/UnloadVerbose.OptimizationTier": 5,
		"GC/HeapStats.TotalHeapSize": 5, "GC/HeapStats.TotalPromoted": 5, "GC/HeapStats.Depth": 5,
		"GC/HeapStats.GenerationSize4": 5, "GC/HeapStats.TotalPromotedSize4": 5,
		"GC/FinalizeObject.TypeName": 5, "Type/BulkType.TypeID_0": 5, "Type/BulkType.TypeName_0": 5,
		"Loader/ModuleLoad.ModuleILFileName": 2, "Loader/ModuleUnload.ModuleILFileName": 2,
		"Loader/ModuleDCStop.ModuleILFileName": 5,
		"Loader/AssemblyLoad.AssemblyFlags":    1, "Loader/AssemblyUnload.AssemblyFlags": 1,
		"Loader/AssemblyDCStop.AssemblyFlags": 5,
	}, dotnet.missed)
}
