package filter

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

var benchStart = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// benchRecords is a deterministic mix shaped like a merged trace: mostly
// EVENT_HEADER records from a handful of providers, some kernel and
// classic ones, levels 0-5 and keywords with provider and reserved bits.
func benchRecords(n int) []*record.Record {
	g := gen{rand.New(rand.NewPCG(7, 8))}
	provs := []uuid.UUID{provA, provB, provC, provD, kernelProcess}
	types := []header.Type{header.TypeEventHeader64, header.TypeEventHeader64, header.TypeEventHeader64,
		header.TypeEventHeader32, header.TypePerfInfo64, header.TypeSystem64, header.TypeFull64}
	out := make([]*record.Record, n)
	for i := range out {
		out[i] = at(&record.Record{
			HeaderType: types[g.r.IntN(len(types))],
			ProviderId: provs[g.r.IntN(len(provs))],
			EventDescriptor: header.EventDescriptor{
				Id: uint16(g.r.IntN(8)), Opcode: uint8(g.r.IntN(4)), Task: uint16(g.r.IntN(4)),
				Level: uint8(g.r.IntN(6)), Keyword: g.keyword(),
			},
			ProcessId:        uint32(4 + g.r.IntN(4)),
			HasThreadProcess: g.r.IntN(8) != 0,
		}, benchStart.Add(time.Duration(i)*time.Microsecond))
	}
	return out
}

// benchFilters are the shapes measured: the command line's level and
// keywords, and a richer union of three sessions with provider entries by
// GUID, name and group, event-id, process and opcode filters and a time
// range.
func benchFilters(tb testing.TB) []struct {
	name string
	f    *Filter
} {
	st := stub()
	opts := Options{TraceStart: benchStart, Lookup: st.lookup()}
	rich := []Session{
		{Providers: []ProviderSpec{
			{ID: provA, Level: LevelWarning, MatchAny: 0x5, EventIDs: IDFilter{IDs: []uint16{3}, Exclude: true}},
			{Name: "Contoso.Beta", Level: LevelInformation, MatchAny: 0x1, MatchAll: 0x1},
			{Group: true, ID: group1, Level: LevelError, Disallow: []uuid.UUID{provA}},
		}, ProcessIDs: []uint32{4, 5, 6}},
		{Providers: []ProviderSpec{{ID: kernelProcess}}, Opcodes: []uint8{1, 2},
			From: TimeBound{Offset: 100 * time.Microsecond, Relative: true}},
		{Level: LevelCritical, MatchAny: 1 << 63, IgnoreKeyword0: true},
	}
	return []struct {
		name string
		f    *Filter
	}{
		{"level3-any5", mustCompile(tb, opts, Session{Level: 3, MatchAny: 0x5})},
		{"level3-any5-all4-ign0", mustCompile(tb, opts, Session{Level: 3, MatchAny: 0x5, MatchAll: 0x4, IgnoreKeyword0: true})},
		{"three-providers", mustCompile(tb, opts, Session{Providers: []ProviderSpec{
			{ID: provA, Level: 3, MatchAny: 0x5}, {ID: provB, Level: 5}, {ID: kernelProcess}}})},
		{"rich-union", mustCompile(tb, opts, rich...)},
	}
}

func BenchmarkMatch(b *testing.B) {
	recs := benchRecords(1024)
	for _, bf := range benchFilters(b) {
		b.Run(bf.name, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for i := 0; b.Loop(); i++ {
				if bf.f.Match(recs[i&1023]) {
					n++
				}
			}
			if n == 0 {
				b.Fatal("no record passed")
			}
		})
	}
}

func TestMatchAllocatesNothing(t *testing.T) {
	recs := benchRecords(256)
	for _, bf := range benchFilters(t) {
		passed := 0
		allocs := testing.AllocsPerRun(10, func() {
			passed = 0
			for _, r := range recs {
				if bf.f.Match(r) {
					passed++
				}
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per %d records, want 0", bf.name, allocs, len(recs))
		}
		if passed == 0 || passed == len(recs) {
			t.Errorf("%s: %d of %d records passed: the mix does not exercise the filter", bf.name, passed, len(recs))
		}
	}
}
