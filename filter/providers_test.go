package filter

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

func mustGUID(t testing.TB, s string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// stubTraits stands in for the provider traits and TraceLogging metadata,
// keyed by provider GUID and event id, so that these tests exercise the
// resolution rules without building records with extended items.
type stubTraits struct {
	names  map[uuid.UUID]string
	groups map[uuid.UUID]uuid.UUID
	events map[uint16]string
}

func (s *stubTraits) lookup() Lookup {
	return Lookup{
		ProviderName: func(r *record.Record) (string, bool) {
			n, ok := s.names[r.ProviderId]
			return n, ok
		},
		ProviderGroup: func(r *record.Record) (uuid.UUID, bool) {
			g, ok := s.groups[r.ProviderId]
			return g, ok
		},
		EventName: func(r *record.Record) (string, bool) {
			n, ok := s.events[r.EventDescriptor.Id]
			return n, ok
		},
	}
}

var (
	provA  = uuid.MustParse("aaaaaaaa-0000-0000-0000-000000000001")
	provB  = uuid.MustParse("bbbbbbbb-0000-0000-0000-000000000002")
	provC  = uuid.MustParse("cccccccc-0000-0000-0000-000000000003")
	provD  = uuid.MustParse("dddddddd-0000-0000-0000-000000000004")
	group1 = uuid.MustParse("99999999-0000-0000-0000-000000000001")
	// The kernel Process group GUID, as ProviderId of process records.
	kernelProcess = uuid.MustParse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c")
)

// fileTimeClock reads raw timestamps as FILETIMEs, so that a test record
// is given a time with at(t).
var fileTimeClock = header.NewClock(&header.LogfileHeader{ReservedFlags: header.ClockSystemTime}, 0)

// at sets r's raw timestamp and clock so that its TimeStamp is t.
func at(r *record.Record, t time.Time) *record.Record {
	r.RawTimeStamp, r.Clock = header.TimeToFileTime(t), &fileTimeClock
	return r
}

func stub() *stubTraits {
	return &stubTraits{
		names:  map[uuid.UUID]string{provA: "Contoso.Alpha", provB: "Contoso.Beta", provC: "Contoso.Gamma"},
		groups: map[uuid.UUID]uuid.UUID{provA: group1, provB: group1, provC: group1},
		events: map[uint16]string{1: "Start", 2: "Stop", 3: "Tick"},
	}
}

func evFrom(p uuid.UUID, id uint16, level uint8, keyword uint64) *record.Record {
	r := ev(level, keyword)
	r.ProviderId = p
	r.EventDescriptor.Id = id
	return r
}

func TestProviderEntries(t *testing.T) {
	st := stub()
	s := Session{Providers: []ProviderSpec{
		{ID: provA, Level: LevelWarning, MatchAny: 0x1},
		{Name: "contoso.BETA", Level: LevelVerbose}, // names compare case-insensitively
		{ID: kernelProcess},
	}}
	f := mustCompile(t, Options{Lookup: st.lookup()}, s)
	cases := []struct {
		name string
		r    *record.Record
		want bool
	}{
		{"A within its settings", evFrom(provA, 1, 3, 0x1), true},
		{"A above its level", evFrom(provA, 1, 4, 0x1), false},
		{"A outside its keywords", evFrom(provA, 1, 3, 0x2), false},
		{"B by name, verbose, any keyword", evFrom(provB, 1, 5, 0x80), true},
		{"B by name above verbose", evFrom(provB, 1, 6, 0x80), false},
		{"C not enabled", evFrom(provC, 1, 1, 0), false},
		{"D has no traits and is not enabled", evFrom(provD, 1, 1, 0), false},
		{"kernel record by its group GUID", &record.Record{HeaderType: header.TypeSystem64, ProviderId: kernelProcess}, true},
		{"other kernel group not enabled", &record.Record{HeaderType: header.TypeSystem64, ProviderId: provD}, false},
	}
	for _, c := range cases {
		if got := f.Match(c.r); got != c.want {
			t.Errorf("%s: Match = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMostSpecificEntryDecides(t *testing.T) {
	st := stub()
	// A is enabled three ways: by GUID at critical, by name at verbose, and
	// through its group at verbose. The GUID entry decides.
	s := Session{Providers: []ProviderSpec{
		{Group: true, ID: group1, Level: LevelVerbose},
		{Name: "Contoso.Alpha", Level: LevelVerbose},
		{ID: provA, Level: LevelCritical},
		{Name: "Contoso.Beta", Level: LevelError},
	}}
	f := mustCompile(t, Options{Lookup: st.lookup()}, s)
	check := func(r *record.Record, want bool, what string) {
		t.Helper()
		if got := f.Match(r); got != want {
			t.Errorf("%s: Match = %v, want %v", what, got, want)
		}
	}
	check(evFrom(provA, 1, 1, 0), true, "A critical")
	check(evFrom(provA, 1, 2, 0), false, "A error: the GUID entry (critical) decides over name and group")
	check(evFrom(provB, 1, 2, 0), true, "B error")
	check(evFrom(provB, 1, 3, 0), false, "B warning: the name entry (error) decides over the group")
	check(evFrom(provC, 1, 5, 0), true, "C verbose through the group")
}

func TestGroupsWithStubTraits(t *testing.T) {
	st := stub()
	cases := []struct {
		name string
		s    Session
		want map[uuid.UUID]bool
	}{
		{"whole group", Session{Providers: []ProviderSpec{{Group: true, ID: group1}}},
			map[uuid.UUID]bool{provA: true, provB: true, provC: true, provD: false}},
		{"group with B disallowed", Session{Providers: []ProviderSpec{{Group: true, ID: group1, Disallow: []uuid.UUID{provB}}}},
			map[uuid.UUID]bool{provA: true, provB: false, provC: true, provD: false}},
		{"disallowed B still enabled directly", Session{Providers: []ProviderSpec{
			{Group: true, ID: group1, Disallow: []uuid.UUID{provB, provC}},
			{ID: provB},
		}}, map[uuid.UUID]bool{provA: true, provB: true, provC: false, provD: false}},
		{"disallowed C still enabled by name", Session{Providers: []ProviderSpec{
			{Group: true, ID: group1, Disallow: []uuid.UUID{provC}},
			{Name: "Contoso.Gamma"},
		}}, map[uuid.UUID]bool{provA: true, provB: true, provC: true, provD: false}},
		{"other group", Session{Providers: []ProviderSpec{{Group: true, ID: provD}}},
			map[uuid.UUID]bool{provA: false, provB: false, provC: false, provD: false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := mustCompile(t, Options{Lookup: st.lookup()}, c.s)
			for p, want := range c.want {
				if got := f.Match(evFrom(p, 1, 4, 0x10)); got != want {
					t.Errorf("provider %v: Match = %v, want %v", p, got, want)
				}
			}
		})
	}
}

func TestGroupEntryLevelsAndKeywords(t *testing.T) {
	st := stub()
	f := mustCompile(t, Options{Lookup: st.lookup()}, Session{Providers: []ProviderSpec{
		{Group: true, ID: group1, Level: LevelWarning, MatchAny: 0x5, MatchAll: 0x4}}})
	for _, c := range []struct {
		level uint8
		kw    uint64
		want  bool
	}{{3, 0x4, true}, {3, 0x5, true}, {3, 0x1, false}, {4, 0x4, false}, {3, 0, true}} {
		if got := f.Match(evFrom(provC, 1, c.level, c.kw)); got != c.want {
			t.Errorf("level %d keyword %#x through the group: Match = %v, want %v", c.level, c.kw, got, c.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	st := stub()
	cases := []struct {
		name string
		s    Session
		want string
	}{
		{"event ids on a group", Session{Providers: []ProviderSpec{{Group: true, ID: group1, EventIDs: IDFilter{IDs: []uint16{1}}}}},
			"provider-group enablement"},
		{"event names on a group", Session{Providers: []ProviderSpec{{Group: true, ID: group1, EventNames: NameFilter{Names: []string{"Start"}}}}},
			"provider-group enablement"},
		{"group by name", Session{Providers: []ProviderSpec{{Group: true, Name: "Contoso"}}}, "by GUID only"},
		{"disallow without group", Session{Providers: []ProviderSpec{{ID: provA, Disallow: []uuid.UUID{provB}}}}, "provider-group entry"},
		{"no provider", Session{Providers: []ProviderSpec{{Level: 3}}}, "names no provider"},
		{"id and name", Session{Providers: []ProviderSpec{{ID: provA, Name: "Contoso.Alpha"}}}, "not both"},
		{"duplicate id", Session{Providers: []ProviderSpec{{ID: provA}, {ID: provA, Level: 2}}}, "twice"},
		{"duplicate name", Session{Providers: []ProviderSpec{{Name: "X"}, {Name: "x"}}}, "twice"},
		{"duplicate group", Session{Providers: []ProviderSpec{{Group: true, ID: group1}, {Group: true, ID: group1}}}, "twice"},
		{"session level with providers", Session{Level: 3, Providers: []ProviderSpec{{ID: provA}}}, "give them per provider"},
		{"session any with providers", Session{MatchAny: 1, Providers: []ProviderSpec{{ID: provA}}}, "give them per provider"},
		{"relative bound without start", Session{From: TimeBound{Offset: time.Second, Relative: true}}, "Options.TraceStart"},
		{"empty time range", Session{From: TimeBound{At: time.Unix(10, 0)}, To: TimeBound{At: time.Unix(10, 0)}}, "empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile(Options{Lookup: st.lookup()}, c.s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Compile error = %v, want one containing %q", err, c.want)
			}
		})
	}
	_, err := Compile(Options{}, Session{Providers: []ProviderSpec{{Group: true, ID: group1, EventIDs: IDFilter{IDs: []uint16{1}}}}})
	if !errors.Is(err, ErrGroupFilter) {
		t.Errorf("group filter error %v is not ErrGroupFilter", err)
	}
	// With several sessions the error says which one.
	_, err = Compile(Options{}, Session{}, Session{Level: 3, Providers: []ProviderSpec{{ID: provA}}})
	if err == nil || !strings.HasPrefix(err.Error(), "session 1: ") {
		t.Errorf("error %v does not name session 1", err)
	}
}
