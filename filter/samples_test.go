package filter_test

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/tracelogging"
)

// sampleFiles lists every trace in the samples folder, wrapped ones
// included.
func sampleFiles(t *testing.T) []string {
	return samples.All(t, ".etl", ".gz", ".zst", ".bz2", ".etlgz")
}

// notTraces are the samples a reader may refuse; every other sample must open.
var notTraces = map[string]bool{
	"corrupt-zero-bytes-replaced.etl": true,
	"rtbackup-rlfs-application.etl":   true,
	"rtbackup-rlfs-diaglog.etl":       true,
	"rtbackup-rlfs-system.etl":        true,
}

// level3Any5 is the plain reading of `--level 3 --any 0x5`, written
// without the filter package: level and keyword from where each kind of
// record keeps them, then the documented check with MatchAll 0.
func level3Any5(r *record.Record) bool {
	level, keyword := r.EventDescriptor.Level, r.EventDescriptor.Keyword
	switch r.HeaderType {
	case header.TypeEventHeader32, header.TypeEventHeader64:
	case header.TypeFull32, header.TypeFull64, header.TypeInstance32, header.TypeInstance64:
		keyword = 0
	default:
		level, keyword = 0, 0
	}
	return level <= 3 && (keyword == 0 || keyword&0x5 != 0)
}

// wantLevel3Any5 holds the records passing `--level 3 --any 0x5` and the
// records read, per sample, as the plain loop counted them.
var wantLevel3Any5 = map[string][2]int{
	"amsi-tracelogging.etl":            {2, 21},
	"diaghub-classic.etl":              {62379, 62379},
	"diaghub-kernel.etl":               {16335, 16335},
	"diaghub-user-injected.etl":        {4, 4},
	"diaghub-user-paged.etl":           {4, 22035},
	"gcevents-manifest.etl":            {2, 71},
	"gcrundown-manifest.etl":           {2, 112},
	"hw3d-tracelogging.etl":            {2, 3},
	"lxcore-tracelogging.etl":          {2, 4},
	"net452-x64-merged-compressed.etl": {111335, 179474},
	"powershell-manifest.etl":          {2, 114},
	"primitive-types-tracelogging.etl": {2, 7},
	"rtbackup-rlfs-application.etl":    {0, 1},
	"rtbackup-rlfs-diaglog.etl":        {0, 2},
	"rtbackup-rlfs-system.etl":         {0, 4},
	"selfdescribing-compressed.etl":    {22, 23},
	"shutdown-kernel.etl":              {17078, 17078},
	"small-32bit-compressed.etl":       {1, 2},
	"sonde-tracelogging.etl":           {106, 112},
	"win10-explorer-startup.etl":       {1, 4793},
	"win11-onedrive-cldflt0.etlgz":     {17, 17},
	"win11-onedrive-cldflt1.etlgz":     {7, 7},
	"win11-sih.etl":                    {2, 12},
	"win11-waasmedic.etl":              {5, 21},
	"win11-waasmedic.etl.bz2":          {5, 21},
	"win11-waasmedic.etl.gz":           {5, 21},
	"win11-waasmedic.etl.zst":          {5, 21},
	"win7-explorer-runonce-32bit.etl":  {1, 36},
	"win7-explorer-startup.etl":        {1, 107},
	"win7-netdiag-diagnose.etl":        {1, 96},
	"win7-netdiag-repair-append.etl":   {1, 10},
	"win7-relogged-classic.etl":        {114, 114},
	"win7-user-manifest.etl":           {6, 6},
}

type sampleCount struct {
	passing, total, errors int
	kinds                  map[header.Type]int // passing records by header type
}

func countSample(t *testing.T, path string, f *filter.Filter, plain func(*record.Record) bool) (got, want sampleCount, ok bool) {
	t.Helper()
	tf, err := etl.Open(path)
	if err != nil {
		if !notTraces[filepath.Base(path)] {
			t.Errorf("%s: %v", filepath.Base(path), err)
		}
		return got, want, false
	}
	defer tf.Close()
	got.kinds, want.kinds = map[header.Type]int{}, map[header.Type]int{}
	for r, err := range tf.Records() {
		if err != nil {
			got.errors++
			want.errors++
			continue
		}
		got.total++
		want.total++
		if f.Match(r) {
			got.passing++
			got.kinds[r.HeaderType]++
		}
		if plain(r) {
			want.passing++
			want.kinds[r.HeaderType]++
		}
	}
	return got, want, true
}

func TestSamplesLevel3Any5(t *testing.T) {
	f, err := filter.Compile(filter.Options{}, filter.Session{Level: 3, MatchAny: 0x5})
	if err != nil {
		t.Fatal(err)
	}
	opened := 0
	for _, path := range sampleFiles(t) {
		name := filepath.Base(path)
		got, want, ok := countSample(t, path, f, level3Any5)
		if !ok {
			continue
		}
		opened++
		t.Logf("%-36s %6d/%-6d pass --level 3 --any 0x5", name, got.passing, got.total)
		if got.passing != want.passing || got.total != want.total {
			t.Errorf("%s: filter passes %d of %d records, the plain loop %d of %d", name, got.passing, got.total, want.passing, want.total)
		}
		for k, n := range want.kinds {
			if got.kinds[k] != n {
				t.Errorf("%s: %v records passing: filter %d, plain loop %d", name, k, got.kinds[k], n)
			}
		}
		if exp, known := wantLevel3Any5[name]; known && (exp != [2]int{got.passing, got.total}) {
			t.Errorf("%s: %d/%d records pass, want %d/%d", name, got.passing, got.total, exp[0], exp[1])
		}
	}
	if opened == 0 {
		t.Fatal("no sample opened")
	}
}

// Every kernel record carries level 0 and keyword 0, so a kernel-only
// trace passes whole through any level and keywords, and not at all with
// IGNORE_KEYWORD_0.
func TestKernelSamplePassesWhole(t *testing.T) {
	path := samples.Path(t, "shutdown-kernel.etl")
	strict, err := filter.Compile(filter.Options{}, filter.Session{Level: 1, MatchAny: 0x1, MatchAll: 0x1})
	if err != nil {
		t.Fatal(err)
	}
	got, _, ok := countSample(t, path, strict, func(*record.Record) bool { return true })
	if !ok {
		t.Fatal("shutdown-kernel.etl did not open")
	}
	if got.total != 17078 || got.passing != got.total {
		t.Errorf("strict session passes %d of %d kernel records, want all 17078", got.passing, got.total)
	}
	ign, err := filter.Compile(filter.Options{}, filter.Session{IgnoreKeyword0: true})
	if err != nil {
		t.Fatal(err)
	}
	got, _, _ = countSample(t, path, ign, func(*record.Record) bool { return true })
	if got.passing != 0 {
		t.Errorf("IgnoreKeyword0 passes %d kernel records, want none", got.passing)
	}
}

// Splitting a trace at an offset from its start puts every record on
// exactly one side.
func TestSamplesTimeSplit(t *testing.T) {
	for _, name := range []string{"win10-explorer-startup.etl", "gcevents-manifest.etl", "net452-x64-merged-compressed.etl"} {
		path := samples.Path(t, name)
		tf, err := etl.Open(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		start := header.FileTimeToTime(tf.Header().StartTime)
		var stamps []time.Time
		for r, err := range tf.Records() {
			if err == nil {
				stamps = append(stamps, r.TimeStamp())
			}
		}
		tf.Close()
		slices.SortFunc(stamps, time.Time.Compare)
		mid := stamps[len(stamps)/2].Sub(start)
		before, err := filter.Compile(filter.Options{TraceStart: start}, filter.Session{To: filter.TimeBound{Offset: mid, Relative: true}})
		if err != nil {
			t.Fatal(err)
		}
		after, err := filter.Compile(filter.Options{TraceStart: start}, filter.Session{From: filter.TimeBound{Offset: mid, Relative: true}})
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := countSample(t, path, before, func(*record.Record) bool { return true })
		a, _, _ := countSample(t, path, after, func(*record.Record) bool { return true })
		wantBefore := 0
		for _, s := range stamps {
			if s.Sub(start) < mid {
				wantBefore++
			}
		}
		if b.passing != wantBefore || a.passing != len(stamps)-wantBefore || b.total != len(stamps) {
			t.Errorf("%s split at +%v: %d before and %d after of %d records, want %d and %d",
				name, mid, b.passing, a.passing, b.total, wantBefore, len(stamps)-wantBefore)
		}
		if b.passing == 0 || a.passing == 0 {
			t.Errorf("%s split at +%v: one side is empty (%d, %d)", name, mid, b.passing, a.passing)
		}
	}
}

// traitsOf reads the provider name and group GUID from a record's
// provider-traits item by hand, for the plain loops below.
func traitsOf(r *record.Record) (name string, group uuid.UUID, hasGroup bool) {
	it, ok := r.Extended(record.ExtProviderTraits)
	if !ok {
		return "", uuid.Nil, false
	}
	b := it.Data[:binary.LittleEndian.Uint16(it.Data)]
	end := 2 + bytes.IndexByte(b[2:], 0)
	name = string(b[2:end])
	for t := b[end+1:]; len(t) >= 3; t = t[binary.LittleEndian.Uint16(t):] {
		if t[2] == 1 {
			return name, guid.FromWindows(t[3:]), true
		}
	}
	return name, uuid.Nil, false
}

// The telemetry provider group, which the LxCore provider in
// lxcore-tracelogging.etl declares in its traits.
var telemetryGroup = uuid.MustParse("4f50731a-89cf-4782-b3e0-dce8c90476ba")

func TestSamplesProviderNamesAndGroups(t *testing.T) {
	lxcore := uuid.MustParse("0cd1c309-0878-4515-83db-749843b3f5c9")
	cases := []struct {
		sample string
		s      filter.Session
		plain  func(r *record.Record) bool
		want   int
	}{
		{"win11-waasmedic.etl", filter.Session{Providers: []filter.ProviderSpec{{Name: "microsoft.windows.waasmedic.local"}}},
			func(r *record.Record) bool { n, _, _ := traitsOf(r); return n == "Microsoft.Windows.WaaSMedic.Local" }, 17},
		{"win11-waasmedic.etl", filter.Session{Providers: []filter.ProviderSpec{{Name: "Microsoft.Windows.WaaSMedic.Local", Level: 3}}},
			func(r *record.Record) bool {
				n, _, _ := traitsOf(r)
				return n == "Microsoft.Windows.WaaSMedic.Local" && r.EventDescriptor.Level <= 3
			}, 1},
		{"diaghub-user-paged.etl", filter.Session{Providers: []filter.ProviderSpec{
			{Name: "Microsoft-Diagnostics-DiagnosticSource", MatchAny: 0x1}}},
			func(r *record.Record) bool {
				n, _, _ := traitsOf(r)
				return n == "Microsoft-Diagnostics-DiagnosticSource" && r.EventDescriptor.Keyword&0x1 != 0
			}, 80},
		{"lxcore-tracelogging.etl", filter.Session{Providers: []filter.ProviderSpec{{Group: true, ID: telemetryGroup}}},
			func(r *record.Record) bool { _, g, ok := traitsOf(r); return ok && g == telemetryGroup }, 2},
		{"lxcore-tracelogging.etl", filter.Session{Providers: []filter.ProviderSpec{
			{Group: true, ID: telemetryGroup, Disallow: []uuid.UUID{lxcore}}}},
			func(*record.Record) bool { return false }, 0},
		{"lxcore-tracelogging.etl", filter.Session{Providers: []filter.ProviderSpec{
			{Group: true, ID: telemetryGroup, Disallow: []uuid.UUID{lxcore}}, {ID: lxcore, Level: 2}}},
			func(r *record.Record) bool { return r.ProviderId == lxcore && r.EventDescriptor.Level <= 2 }, 2},
		{"lxcore-tracelogging.etl", filter.Session{Providers: []filter.ProviderSpec{{Group: true, ID: telemetryGroup, Level: 1}}},
			func(*record.Record) bool { return false }, 0},
	}
	for _, c := range cases {
		f, err := filter.Compile(filter.Options{}, c.s)
		if err != nil {
			t.Fatal(err)
		}
		got, want, ok := countSample(t, samples.Path(t, c.sample), f, c.plain)
		if !ok {
			t.Fatalf("%s did not open", c.sample)
		}
		if got.passing != want.passing || got.passing != c.want {
			t.Errorf("%s with %+v: filter passes %d, plain loop %d, want %d", c.sample, c.s.Providers, got.passing, want.passing, c.want)
		}
	}
}

func TestSamplesEventNames(t *testing.T) {
	nameOf := func(r *record.Record) (string, bool) {
		it, ok := r.Extended(record.ExtEventSchemaTL)
		if !ok {
			return "", false
		}
		s, err := tracelogging.ParseSchema(it.Data)
		if err != nil {
			return "", false
		}
		return s.Name, true
	}
	cases := []struct {
		sample string
		names  filter.NameFilter
		want   int
	}{
		{"win11-waasmedic.etl", filter.NameFilter{Names: []string{"Warning"}}, 1},
		{"win11-waasmedic.etl", filter.NameFilter{Names: []string{"Info", "Warning"}}, 17},
		// Records without a name (the header and kernel records) pass an
		// exclude list.
		{"win11-waasmedic.etl", filter.NameFilter{Names: []string{"Info"}, Exclude: true}, 5},
		{"sonde-tracelogging.etl", filter.NameFilter{Names: []string{`event crates\sonde-gateway\src\modem.rs:583`}}, 3},
		{"diaghub-user-paged.etl", filter.NameFilter{Names: []string{"Activity2Start", "Activity2Stop"}}, 165},
	}
	for _, c := range cases {
		f, err := filter.Compile(filter.Options{}, filter.Session{EventNames: c.names})
		if err != nil {
			t.Fatal(err)
		}
		plain := func(r *record.Record) bool {
			n, ok := nameOf(r)
			return ok && slices.Contains(c.names.Names, n) != c.names.Exclude || !ok && c.names.Exclude
		}
		got, want, ok := countSample(t, samples.Path(t, c.sample), f, plain)
		if !ok {
			t.Fatalf("%s did not open", c.sample)
		}
		if got.passing != want.passing || got.passing != c.want {
			t.Errorf("%s with %+v: filter passes %d, plain loop %d, want %d", c.sample, c.names, got.passing, want.passing, c.want)
		}
	}
}
