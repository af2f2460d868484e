package filter

import (
	"testing"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
)

func desc(level uint8, keyword uint64) header.EventDescriptor {
	return header.EventDescriptor{Level: level, Keyword: keyword}
}

func TestProviderStateControlCodes(t *testing.T) {
	var s ProviderState
	if s.EventEnabled(desc(0, 0)) {
		t.Fatal("a provider no session enabled writes events")
	}

	if s.Control(ControlEnable, LevelWarning, 0x5, 0x4) {
		t.Error("ENABLE asked for a state capture")
	}
	want := ProviderState{Enabled: true, Level: 3, MatchAny: 0x5, MatchAll: 0x4}
	if s != want {
		t.Fatalf("after ENABLE: %+v, want %+v", s, want)
	}
	steps := []struct {
		d    header.EventDescriptor
		want bool
	}{
		{desc(3, 0x4), true},
		{desc(3, 0x5), true},
		{desc(3, 0x1), false}, // MatchAll 0x4 missing
		{desc(4, 0x4), false},
		{desc(0, 0), true},
		{desc(5, 0), false}, // keyword 0 does not lift the level check
	}
	for _, st := range steps {
		if got := s.EventEnabled(st.d); got != st.want {
			t.Errorf("enabled at 3/0x5/0x4: EventEnabled(level %d keyword %#x) = %v, want %v", st.d.Level, st.d.Keyword, got, st.want)
		}
	}

	if !s.Control(ControlCaptureState, 5, AllKeywords, 0) {
		t.Error("CAPTURE_STATE did not ask for a state capture")
	}
	if s != want {
		t.Errorf("CAPTURE_STATE changed the state to %+v", s)
	}
	for _, code := range []uint32{3, 4, 0x80, 0xFFFFFFFF} {
		if s.Control(code, 5, AllKeywords, 0) {
			t.Errorf("unknown code %d asked for a state capture", code)
		}
		if s != want {
			t.Errorf("unknown code %d changed the state to %+v", code, s)
		}
	}

	s.Control(ControlDisable, 5, AllKeywords, 0)
	if s != (ProviderState{}) {
		t.Errorf("after DISABLE: %+v, want the zero state", s)
	}
	if s.EventEnabled(desc(0, 0)) {
		t.Error("a disabled provider writes level-0 keyword-0 events")
	}
	// CAPTURE_STATE does not enable a disabled provider.
	s.Control(ControlCaptureState, 5, AllKeywords, 0)
	if s.Enabled {
		t.Error("CAPTURE_STATE enabled the provider")
	}
}

// TestProviderStateTakesArgumentsLiterally: the ENABLECALLBACK page's
// sample checks the event's level against the Level received with no
// exception for 0, and its keyword against the keywords received.
func TestProviderStateTakesArgumentsLiterally(t *testing.T) {
	var s ProviderState
	s.Control(ControlEnable, 0, 0, 0)
	// Level 0 as received lets only level-0 events through.
	if s.EventEnabled(desc(1, 0)) || s.EventEnabled(desc(255, 0)) {
		t.Error("enabled at level 0: an event above level 0 accepted")
	}
	if !s.EventEnabled(desc(0, 0)) {
		t.Error("enabled at level 0: level-0 event rejected")
	}
	// MatchAny 0 as received lets only keyword-0 events through.
	s.Control(ControlEnable, 4, 0, 0)
	if s.EventEnabled(desc(4, 0x1)) {
		t.Error("enabled with MatchAny 0: keyworded event accepted")
	}
	if !s.EventEnabled(desc(4, 0)) {
		t.Error("enabled with MatchAny 0: keyword-0 event rejected")
	}
	// A session that set neither sends all of them, so its provider
	// writes everything.
	f := mustCompile(t, Options{}, Session{})
	e, ok := f.Enablement(Provider{ID: provA})
	if want := (Enablement{Level: 255, MatchAny: AllKeywords}); !ok || e != want {
		t.Fatalf("zero session sends %+v, %v; want %+v", e, ok, want)
	}
	s.Control(ControlEnable, e.Level, e.MatchAny, e.MatchAll)
	if !s.EventEnabled(desc(255, AllKeywords)) {
		t.Error("enabled with what a zero session sends: event rejected")
	}
}

func TestAggregate(t *testing.T) {
	cases := []struct {
		name string
		in   []Enablement
		want Enablement
	}{
		{"none", nil, Enablement{}},
		{"one", []Enablement{{Level: 3, MatchAny: 0x5, MatchAll: 0x4}}, Enablement{Level: 3, MatchAny: 0x5, MatchAll: 0x4}},
		{"max level, OR any, AND all",
			[]Enablement{{Level: 2, MatchAny: 0x1, MatchAll: 0x7}, {Level: 4, MatchAny: 0x6, MatchAll: 0x3}},
			Enablement{Level: 4, MatchAny: 0x7, MatchAll: 0x3}},
		// The callback gets the literal maximum, OR and AND: a 0 is a value
		// like any other, the lowest level and no keyword.
		{"level 0 is the lowest", []Enablement{{Level: 0, MatchAny: 0x1}, {Level: 5, MatchAny: 0x2}},
			Enablement{Level: 5, MatchAny: 0x3}},
		{"any 0 adds no keyword", []Enablement{{Level: 3}, {Level: 3, MatchAny: 0x2}},
			Enablement{Level: 3, MatchAny: 0x2}},
		{"all zeros stay zeros", []Enablement{{}, {}}, Enablement{}},
		{"sessions that gave nothing send all", []Enablement{Enablement{}.Normalized(), {Level: 2, MatchAny: 0x2, MatchAll: 0x2}},
			Enablement{Level: 255, MatchAny: AllKeywords, MatchAll: 0}},
		{"all AND to nothing", []Enablement{{Level: 1, MatchAny: 1 << 63, MatchAll: 1 << 63}, {Level: 1, MatchAny: 1, MatchAll: 1}},
			Enablement{Level: 1, MatchAny: 1<<63 | 1, MatchAll: 0}},
	}
	for _, c := range cases {
		if got := Aggregate(c.in...); got != c.want {
			t.Errorf("%s: Aggregate = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestFilterEnablement(t *testing.T) {
	st := stub()
	f := mustCompile(t, Options{Lookup: st.lookup()},
		Session{Providers: []ProviderSpec{{ID: provA, Level: LevelError, MatchAny: 0x1, MatchAll: 0x1}}},
		Session{Providers: []ProviderSpec{{Name: "Contoso.Alpha", Level: LevelWarning, MatchAny: 0x6}}},
		Session{Providers: []ProviderSpec{{Group: true, ID: group1, Level: LevelVerbose, MatchAny: 0x8, Disallow: []uuid.UUID{provA}}}},
	)
	got, ok := f.Enablement(Provider{ID: provA, Name: "Contoso.Alpha", Group: group1})
	want := Enablement{Level: LevelWarning, MatchAny: 0x7, MatchAll: 0}
	if !ok || got != want {
		t.Errorf("A: Enablement = %+v, %v; want %+v (the group disallows A)", got, ok, want)
	}
	got, ok = f.Enablement(Provider{ID: provC, Group: group1})
	want = Enablement{Level: LevelVerbose, MatchAny: 0x8}
	if !ok || got != want {
		t.Errorf("C: Enablement = %+v, %v; want %+v through the group", got, ok, want)
	}
	if got, ok := f.Enablement(Provider{ID: provD}); ok {
		t.Errorf("D: Enablement = %+v, want none", got)
	}
	all := mustCompile(t, Options{}, Session{Level: 2}, Session{MatchAny: 0x1})
	got, ok = all.Enablement(Provider{ID: provD})
	want = Enablement{Level: 255, MatchAny: AllKeywords}
	if !ok || got != want {
		t.Errorf("wildcard sessions: Enablement = %+v, %v; want %+v", got, ok, want)
	}
}
