package filter_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

var (
	groupA = uuid.MustParse("5a5a5a5a-0000-4000-8000-00000000000a")
	groupB = uuid.MustParse("5b5b5b5b-0000-4000-8000-00000000000b")

	alpha   = uuid.MustParse("a1a1a1a1-1111-4111-8111-111111111111") // group A
	beta    = uuid.MustParse("b2b2b2b2-2222-4222-8222-222222222222") // group A, decode-GUID trait first
	gamma   = uuid.MustParse("c3c3c3c3-3333-4333-8333-333333333333") // group B
	delta   = uuid.MustParse("d4d4d4d4-4444-4444-8444-444444444444") // traits with a name only
	epsilon = uuid.MustParse("e5e5e5e5-5555-4555-8555-555555555555") // manifest: no traits
	// A kernel group GUID (Process) and a classic event class.
	kernelProc   = uuid.MustParse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c")
	classicClass = uuid.MustParse("f0f0f0f0-6666-4666-8666-666666666666")
)

// groupProvider is a provider of the synthetic trace with what its traits say.
type groupProvider struct {
	id     uuid.UUID
	name   string
	group  uuid.UUID
	traits []byte
}

var groupProviders = []groupProvider{
	{alpha, "Contoso.Alpha", groupA, etltest.ProviderTraits("Contoso.Alpha", etltest.GroupTrait(groupA))},
	{beta, "Contoso.Beta", groupA, etltest.ProviderTraits("Contoso.Beta",
		etltest.DecodeGUIDTrait(uuid.MustParse("0b0b0b0b-0000-4000-8000-000000000000")), etltest.GroupTrait(groupA))},
	{gamma, "Contoso.Gamma", groupB, etltest.ProviderTraits("Contoso.Gamma", etltest.GroupTrait(groupB))},
	{delta, "Contoso.Delta", uuid.Nil, etltest.ProviderTraits("Contoso.Delta")},
	{epsilon, "", uuid.Nil, nil},
}

// event is one record of the synthetic trace as the test wrote it.
type event struct {
	kind     header.Type
	provider uuid.UUID
	id       uint16
	level    uint8
	keyword  uint64
	name     string // TraceLogging event name, "" for none
}

// groupTrace writes every provider's events at levels 1-5 with keywords
// 0, 0x1, 0x2 and 0x8000000000000004, plus kernel and classic records, and
// returns the events in file order with the trace.
func groupTrace(t *testing.T) ([]event, *etl.Reader) {
	t.Helper()
	var events []event
	var recs []etltest.Record
	ts := int64(1_000_000_100)
	for pi, p := range groupProviders {
		id := uint16(1)
		for level := uint8(1); level <= 5; level++ {
			for _, kw := range []uint64{0, 0x1, 0x2, 0x8000000000000004} {
				ev := event{kind: header.TypeEventHeader64, provider: p.id, id: id, level: level, keyword: kw}
				e := &etltest.Event{ProviderId: p.id, ProcessId: uint32(100 + pi), ThreadId: 7, TimeStamp: ts,
					Descriptor: header.EventDescriptor{Id: id, Level: level, Keyword: kw}}
				if p.traits != nil {
					ev.name = fmt.Sprintf("%s.E%d", p.name, id)
					meta := (&etltest.TLEvent{Name: ev.name}).MustMetadata()
					e.Ext = []etltest.ExtItem{etltest.ExtEventSchemaTL(meta), etltest.ExtProviderTraits(p.traits)}
				}
				events = append(events, ev)
				recs = append(recs, e)
				id++
				ts += 10
			}
		}
	}
	for i := range 3 {
		recs = append(recs,
			&etltest.System{HookId: 0x0301, ThreadId: 7, ProcessId: 4, TimeStamp: ts},
			&etltest.Full{Guid: classicClass, Type: uint8(i), Level: uint8(2 * i), ThreadId: 7, ProcessId: 4, TimeStamp: ts + 1})
		events = append(events,
			event{kind: header.TypeSystem64, provider: kernelProc},
			event{kind: header.TypeFull64, provider: classicClass, level: uint8(2 * i)})
		ts += 10
	}
	data, _, err := etltest.Build(etltest.DefaultSession(), func(b *etltest.Builder) error {
		b.CPU(0).Add(recs...)
		return b.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return events, r
}

func providerOf(id uuid.UUID) groupProvider {
	for _, p := range groupProviders {
		if p.id == id {
			return p
		}
	}
	return groupProvider{id: id}
}

// documentedPass is the level and keyword check written out for one
// enablement given as the test states it (0 = every level / keyword).
func documentedPass(e event, level uint8, matchAny, matchAll uint64) bool {
	lvl, kw := e.level, e.keyword
	if e.kind != header.TypeEventHeader64 {
		kw = 0
	}
	return (level == 0 || lvl <= level) && (kw == 0 || (matchAny == 0 || kw&matchAny != 0) && kw&matchAll == matchAll)
}

// matched runs f over the trace's data records (the logfile header record
// left out) and returns the indexes of the passing ones.
func matched(t *testing.T, r *etl.Reader, f *filter.Filter, n int) []int {
	t.Helper()
	var out []int
	i := -1
	for rec, err := range r.Records() {
		if err != nil {
			t.Fatal(err)
		}
		if i >= 0 && f.Match(rec) {
			out = append(out, i)
		}
		i++
	}
	if i != n {
		t.Fatalf("read %d data records, wrote %d", i, n)
	}
	return out
}

// checkMatched compiles sessions and requires them to pass exactly the
// events of the trace that want accepts.
func checkMatched(t *testing.T, events []event, r *etl.Reader, want func(event) bool, sessions ...filter.Session) {
	t.Helper()
	f, err := filter.Compile(filter.Options{}, sessions...)
	if err != nil {
		t.Fatal(err)
	}
	var wantIdx []int
	for i, e := range events {
		if want(e) {
			wantIdx = append(wantIdx, i)
		}
	}
	if got := matched(t, r, f, len(events)); !slices.Equal(got, wantIdx) {
		t.Errorf("passing records %v, want %v", got, wantIdx)
	}
}

// cloned reads the trace's records, the logfile header's included, into
// copies that outlive the iteration.
func cloned(t *testing.T, r *etl.Reader) []*record.Record {
	t.Helper()
	var recs []*record.Record
	for rec, err := range r.Records() {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec.Clone())
	}
	return recs
}

func TestGroupsOnSyntheticTrace(t *testing.T) {
	events, reader := groupTrace(t)
	inGroup := func(e event, g uuid.UUID) bool {
		return e.kind == header.TypeEventHeader64 && providerOf(e.provider).group == g
	}
	cases := []struct {
		name     string
		sessions []filter.Session
		want     func(e event) bool
	}{
		{"group A",
			[]filter.Session{{Providers: []filter.ProviderSpec{{Group: true, ID: groupA}}}},
			func(e event) bool { return inGroup(e, groupA) }},
		{"group A at warning, keyword 0x4",
			[]filter.Session{{Providers: []filter.ProviderSpec{{Group: true, ID: groupA, Level: 3, MatchAny: 0x4}}}},
			func(e event) bool { return inGroup(e, groupA) && documentedPass(e, 3, 0x4, 0) }},
		{"group A, beta disallowed",
			[]filter.Session{{Providers: []filter.ProviderSpec{{Group: true, ID: groupA, Disallow: []uuid.UUID{beta}}}}},
			func(e event) bool { return inGroup(e, groupA) && e.provider != beta }},
		{"group A, beta disallowed but enabled directly at error with keyword 0x2",
			[]filter.Session{{Providers: []filter.ProviderSpec{
				{Group: true, ID: groupA, Level: 5, Disallow: []uuid.UUID{beta}},
				{ID: beta, Level: 2, MatchAny: 0x2},
			}}},
			func(e event) bool {
				if e.provider == beta {
					return e.kind == header.TypeEventHeader64 && documentedPass(e, 2, 0x2, 0)
				}
				return inGroup(e, groupA)
			}},
		{"every provider of group A disallowed",
			[]filter.Session{{Providers: []filter.ProviderSpec{{Group: true, ID: groupA, Disallow: []uuid.UUID{alpha, beta}}}}},
			func(event) bool { return false }},
		{"group B and delta by name",
			[]filter.Session{{Providers: []filter.ProviderSpec{{Group: true, ID: groupB}, {Name: "CONTOSO.DELTA", Level: 1}}}},
			func(e event) bool {
				return inGroup(e, groupB) || e.provider == delta && documentedPass(e, 1, 0, 0)
			}},
		{"union: group A critical in one session, group B with reserved keyword in another",
			[]filter.Session{
				{Providers: []filter.ProviderSpec{{Group: true, ID: groupA, Level: 1}}},
				{Providers: []filter.ProviderSpec{{Group: true, ID: groupB, MatchAny: 0x8000000000000000}}},
			},
			func(e event) bool {
				return inGroup(e, groupA) && documentedPass(e, 1, 0, 0) ||
					inGroup(e, groupB) && documentedPass(e, 0, 0x8000000000000000, 0)
			}},
		{"kernel and classic records by their GUIDs alongside a group",
			[]filter.Session{{Providers: []filter.ProviderSpec{{Group: true, ID: groupB}, {ID: kernelProc}, {ID: classicClass, Level: 2}}}},
			func(e event) bool {
				return inGroup(e, groupB) || e.provider == kernelProc || e.provider == classicClass && e.level <= 2
			}},
		{"a group the trace's providers do not declare",
			[]filter.Session{{Providers: []filter.ProviderSpec{{Group: true, ID: uuid.MustParse("5c5c5c5c-0000-4000-8000-00000000000c")}}}},
			func(event) bool { return false }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkMatched(t, events, reader, c.want, c.sessions...) })
	}
}

func TestGroupEnablementSeenByProviders(t *testing.T) {
	f, err := filter.Compile(filter.Options{},
		filter.Session{Providers: []filter.ProviderSpec{{Group: true, ID: groupA, Level: 2, MatchAny: 0x1, Disallow: []uuid.UUID{beta}}}},
		filter.Session{Providers: []filter.ProviderSpec{{Name: "Contoso.Beta", Level: 4, MatchAny: 0x2, MatchAll: 0x2}}},
		filter.Session{Providers: []filter.ProviderSpec{{Group: true, ID: groupA, Level: 3, MatchAny: 0x4, MatchAll: 0x4}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		p    groupProvider
		want filter.Enablement
	}{
		// Alpha: sessions 0 and 2 through the group.
		{groupProviders[0], filter.Enablement{Level: 3, MatchAny: 0x5, MatchAll: 0}},
		// Beta: disallowed in session 0, by name in 1, through the group in 2.
		{groupProviders[1], filter.Enablement{Level: 4, MatchAny: 0x6, MatchAll: 0}},
		// Gamma is in another group.
		{groupProviders[2], filter.Enablement{}},
	}
	for _, c := range cases {
		got, ok := f.Enablement(filter.Provider{ID: c.p.id, Name: c.p.name, Group: c.p.group})
		if ok != (c.want != filter.Enablement{}) || got != c.want {
			t.Errorf("%s: Enablement = %+v, %v; want %+v", c.p.name, got, ok, c.want)
		}
	}
}

func TestGroupEntriesRefuseEventFilters(t *testing.T) {
	for _, p := range []filter.ProviderSpec{
		{Group: true, ID: groupA, EventIDs: filter.IDFilter{IDs: []uint16{1}}},
		{Group: true, ID: groupA, EventIDs: filter.IDFilter{IDs: []uint16{1}, Exclude: true}},
		{Group: true, ID: groupA, EventNames: filter.NameFilter{Names: []string{"Contoso.Alpha.E1"}}},
	} {
		_, err := filter.Compile(filter.Options{}, filter.Session{Providers: []filter.ProviderSpec{p}})
		if !errors.Is(err, filter.ErrGroupFilter) {
			t.Errorf("%+v: error %v, want ErrGroupFilter", p, err)
		}
	}
}

// The event filters that groups refuse work on the providers themselves.
func TestEventFiltersOnSyntheticTrace(t *testing.T) {
	events, reader := groupTrace(t)
	cases := []struct {
		name    string
		session filter.Session
		want    func(e event) bool
	}{
		{"alpha ids 3 and 5", filter.Session{Providers: []filter.ProviderSpec{{ID: alpha, EventIDs: filter.IDFilter{IDs: []uint16{3, 5}}}}},
			func(e event) bool { return e.provider == alpha && (e.id == 3 || e.id == 5) }},
		{"gamma without id 1", filter.Session{Providers: []filter.ProviderSpec{{ID: gamma, EventIDs: filter.IDFilter{IDs: []uint16{1}, Exclude: true}}}},
			func(e event) bool { return e.provider == gamma && e.id != 1 }},
		{"names across providers", filter.Session{EventNames: filter.NameFilter{Names: []string{"Contoso.Alpha.E2", "Contoso.Delta.E20"}}},
			func(e event) bool { return e.name == "Contoso.Alpha.E2" || e.name == "Contoso.Delta.E20" }},
		{"every name but one", filter.Session{EventNames: filter.NameFilter{Names: []string{"Contoso.Beta.E7"}, Exclude: true}},
			func(e event) bool { return e.name != "Contoso.Beta.E7" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkMatched(t, events, reader, c.want, c.session) })
	}
}

// Judging records read from a file allocates nothing, with the default
// lookups reading real provider traits and TraceLogging metadata.
func TestMatchOnDecodedRecordsAllocatesNothing(t *testing.T) {
	_, reader := groupTrace(t)
	recs := cloned(t, reader)
	f, err := filter.Compile(filter.Options{},
		filter.Session{Providers: []filter.ProviderSpec{
			{Group: true, ID: groupA, Level: 3, Disallow: []uuid.UUID{beta}},
			{Name: "Contoso.Delta", EventNames: filter.NameFilter{Names: []string{"Contoso.Delta.E4"}}},
			{ID: gamma, EventIDs: filter.IDFilter{IDs: []uint16{2}}},
		}},
		filter.Session{EventNames: filter.NameFilter{Names: []string{"Contoso.Beta.E1"}}, ProcessIDs: []uint32{101}},
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs { // fill the schema cache
		f.Match(r)
	}
	passed := 0
	allocs := testing.AllocsPerRun(20, func() {
		passed = 0
		for _, r := range recs {
			if f.Match(r) {
				passed++
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per pass over %d records, want 0", allocs, len(recs))
	}
	// Alpha at levels 1-3 (12), Delta's E4, Gamma's id 2, Beta's E1.
	if passed != 15 {
		t.Errorf("%d records passed, want 15", passed)
	}
}

// One Filter judges records from several goroutines alike.
func TestMatchConcurrently(t *testing.T) {
	_, reader := groupTrace(t)
	recs := cloned(t, reader)
	f, err := filter.Compile(filter.Options{}, filter.Session{Providers: []filter.ProviderSpec{
		{Group: true, ID: groupA, Level: 4, Disallow: []uuid.UUID{alpha}},
		{Name: "Contoso.Delta", EventNames: filter.NameFilter{Names: []string{"Contoso.Delta.E4", "Contoso.Delta.E5"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	const workers = 4
	counts := make(chan int, workers)
	for range workers {
		go func() {
			n := 0
			for range 50 {
				for _, r := range recs {
					if f.Match(r) {
						n++
					}
				}
			}
			counts <- n
		}()
	}
	// Beta at levels 1-4 (16 records) and Delta's E4 and E5, 50 times over.
	for range workers {
		if n := <-counts; n != 50*18 {
			t.Errorf("a goroutine counted %d passing records, want %d", n, 50*18)
		}
	}
}
