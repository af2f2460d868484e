package filter_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
)

// sampleRecords keeps n records spread evenly over a sample, in file
// order, so that the benchmark sees a real trace's mix of providers and
// kinds rather than only its first buffers.
func sampleRecords(b *testing.B, name string, n int) ([]*record.Record, time.Time) {
	f, err := etl.Open(samples.Path(b, name))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	total := 0
	for _, err := range f.Records() {
		if err == nil {
			total++
		}
	}
	stride := max(1, total/n)
	var out []*record.Record
	i := 0
	for r, err := range f.Records() {
		if err != nil {
			continue
		}
		if i%stride == 0 && len(out) < n {
			out = append(out, r.Clone())
		}
		i++
	}
	return out, header.FileTimeToTime(f.Header().StartTime)
}

func BenchmarkMatchSample(b *testing.B) {
	const n = 4096 // a power of two, so that the loop masks instead of dividing
	diagSource := uuid.MustParse("adb401e1-5296-51f8-c125-5fda75826144")
	clr := uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	for _, c := range []struct {
		sample, name string
		sessions     []filter.Session
	}{
		{"net452-x64-merged-compressed.etl", "level3-any5", []filter.Session{{Level: 3, MatchAny: 0x5}}},
		{"diaghub-user-paged.etl", "level3-any5", []filter.Session{{Level: 3, MatchAny: 0x5}}},
		{"diaghub-user-paged.etl", "rich", []filter.Session{
			{Providers: []filter.ProviderSpec{
				{ID: clr, Level: 5, MatchAny: 0x10, EventIDs: filter.IDFilter{IDs: []uint16{145}, Exclude: true}},
				{Name: "System.Threading.Tasks.TplEventSource", Level: 4, MatchAny: 0x2},
				{Group: true, ID: telemetryGroup},
			}, ProcessIDs: []uint32{4, 2140, 9999}},
			{Providers: []filter.ProviderSpec{{ID: diagSource, EventNames: filter.NameFilter{Names: []string{"Activity2Start"}}}},
				From: filter.TimeBound{Offset: time.Millisecond, Relative: true}},
		}},
	} {
		b.Run(c.sample+"/"+c.name, func(b *testing.B) {
			recs, start := sampleRecords(b, c.sample, n)
			if len(recs) < n {
				b.Fatalf("%s has %d records, want %d", c.sample, len(recs), n)
			}
			f, err := filter.Compile(filter.Options{TraceStart: start}, c.sessions...)
			if err != nil {
				b.Fatal(err)
			}
			passed := 0
			for _, r := range recs {
				if f.Match(r) {
					passed++
				}
			}
			if passed == 0 || passed == n {
				b.Fatalf("%d of %d records pass: the filter is not exercised", passed, n)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				f.Match(recs[i&(n-1)])
			}
			// After the loop, which would discard it.
			b.ReportMetric(float64(passed)/n, "passing")
		})
	}
}
