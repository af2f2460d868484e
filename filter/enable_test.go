package filter

import (
	"testing"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// TestGroupEscapesSessionEventFilters: the provider-traits page says
// event-name, event-id and payload filters do not apply to provider groups,
// so a session's --id or --event-name does not drop a record its provider
// group enabled, while it still filters the providers enabled by GUID or
// name, and the session's other scope filters still apply to the group.
func TestGroupEscapesSessionEventFilters(t *testing.T) {
	st := stub()
	st.groups = map[uuid.UUID]uuid.UUID{provB: group1, provC: group1}
	providers := []ProviderSpec{{ID: provA}, {Group: true, ID: group1}}
	cases := []struct {
		name string
		s    Session
		r    *record.Record
		want bool
	}{
		{"id filter drops a provider enabled by GUID", Session{EventIDs: IDFilter{IDs: []uint16{7}}}, evFrom(provA, 1, 4, 0), false},
		{"id filter keeps its id", Session{EventIDs: IDFilter{IDs: []uint16{7}}}, evFrom(provA, 7, 4, 0), true},
		{"id filter passes a group's record", Session{EventIDs: IDFilter{IDs: []uint16{7}}}, evFrom(provB, 1, 4, 0), true},
		{"excluded id passes a group's record", Session{EventIDs: IDFilter{IDs: []uint16{1}, Exclude: true}}, evFrom(provC, 1, 4, 0), true},
		{"name filter drops a provider enabled by GUID", Session{EventNames: NameFilter{Names: []string{"Tick"}}}, evFrom(provA, 1, 4, 0), false},
		{"name filter passes a group's record", Session{EventNames: NameFilter{Names: []string{"Tick"}}}, evFrom(provB, 1, 4, 0), true},
		{"excluded name passes a group's record", Session{EventNames: NameFilter{Names: []string{"Start"}, Exclude: true}}, evFrom(provB, 1, 4, 0), true},
		{"opcode filter still applies to the group", Session{Opcodes: []uint8{9}}, evFrom(provB, 1, 4, 0), false},
		{"provider not enabled at all", Session{EventIDs: IDFilter{IDs: []uint16{1}}}, evFrom(provD, 1, 4, 0), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.s.Providers = providers
			if got := mustCompile(t, Options{Lookup: st.lookup()}, c.s).Match(c.r); got != c.want {
				t.Errorf("Match = %v, want %v", got, c.want)
			}
		})
	}
	// A provider of the group also enabled by its own entry is judged by
	// that entry, which the session's filters do apply to.
	s := Session{Providers: []ProviderSpec{{ID: provB}, {Group: true, ID: group1}}, EventIDs: IDFilter{IDs: []uint16{7}}}
	f := mustCompile(t, Options{Lookup: st.lookup()}, s)
	if f.Match(evFrom(provB, 1, 4, 0)) {
		t.Error("B by its own entry: the session's id filter was not applied")
	}
	if !f.Match(evFrom(provC, 1, 4, 0)) {
		t.Error("C through the group: the session's id filter was applied")
	}
}

// TestProviderIgnoreKeyword0: IGNORE_KEYWORD_0 is an enable property of one
// provider entry ("filters out all events that do not have a non-zero
// keyword specified"); the session-wide one sets it on every entry.
func TestProviderIgnoreKeyword0(t *testing.T) {
	st := stub()
	f := mustCompile(t, Options{Lookup: st.lookup()}, Session{Providers: []ProviderSpec{
		{ID: provA, IgnoreKeyword0: true},
		{ID: provB},
		{Group: true, ID: group1, IgnoreKeyword0: true},
		{ID: kernelProcess, IgnoreKeyword0: true},
	}})
	cases := []struct {
		name string
		r    *record.Record
		want bool
	}{
		{"A keyword 0 dropped", evFrom(provA, 1, 4, 0), false},
		{"A keyworded kept", evFrom(provA, 1, 4, 0x1), true},
		{"B keyword 0 kept", evFrom(provB, 1, 4, 0), true},
		{"C through the group, keyword 0 dropped", evFrom(provC, 1, 4, 0), false},
		{"C through the group, keyworded kept", evFrom(provC, 1, 4, 0x2), true},
		{"kernel record dropped", &record.Record{HeaderType: header.TypeSystem64, ProviderId: kernelProcess}, false},
	}
	for _, c := range cases {
		if got := f.Match(c.r); got != c.want {
			t.Errorf("%s: Match = %v, want %v", c.name, got, c.want)
		}
	}
	// The session-wide property covers every entry.
	all := mustCompile(t, Options{Lookup: st.lookup()}, Session{IgnoreKeyword0: true, Providers: []ProviderSpec{{ID: provB}}})
	if all.Match(evFrom(provB, 1, 4, 0)) {
		t.Error("session-wide IgnoreKeyword0 did not drop B's keyword-0 record")
	}
}

// TestFilterEnablementIsLiteralAggregate: each session sends its entry's
// level and keywords, settings not given made explicit; the callback gets
// their literal maximum, OR and AND.
func TestFilterEnablementIsLiteralAggregate(t *testing.T) {
	st := stub()
	cases := []struct {
		name     string
		sessions []Session
		want     Enablement
	}{
		{"one session gave nothing: all", []Session{{Providers: []ProviderSpec{{ID: provA}}}, {Providers: []ProviderSpec{{ID: provA, Level: 2, MatchAny: 0x2, MatchAll: 0x2}}}},
			Enablement{Level: 255, MatchAny: AllKeywords}},
		{"levels and keywords given", []Session{{Providers: []ProviderSpec{{ID: provA, Level: 2, MatchAny: 0x3, MatchAll: 0x1}}}, {Providers: []ProviderSpec{{ID: provA, Level: 4, MatchAny: 0x4, MatchAll: 0x5}}}},
			Enablement{Level: 4, MatchAny: 0x7, MatchAll: 0x1}},
		{"all ANDed whatever the levels", []Session{{Level: 1, MatchAll: 0x1}, {Level: 1, MatchAll: 0x2}},
			Enablement{Level: 1, MatchAny: AllKeywords, MatchAll: 0}},
	}
	for _, c := range cases {
		got, ok := mustCompile(t, Options{Lookup: st.lookup()}, c.sessions...).Enablement(Provider{ID: provA})
		if !ok || got != c.want {
			t.Errorf("%s: Enablement = %+v, %v; want %+v", c.name, got, ok, c.want)
		}
	}
}
