package filter

import (
	"testing"
	"time"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

func TestScopeFilters(t *testing.T) {
	st := stub()
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	base := func() *record.Record {
		return at(&record.Record{
			HeaderType:       header.TypeEventHeader64,
			ProviderId:       provA,
			EventDescriptor:  header.EventDescriptor{Id: 1, Version: 2, Channel: 16, Level: 4, Opcode: 1, Task: 300, Keyword: 0x1},
			ProcessId:        1234,
			HasThreadProcess: true,
		}, start.Add(1500*time.Millisecond))
	}
	with := func(f func(r *record.Record)) *record.Record { r := base(); f(r); return r }
	cases := []struct {
		name string
		s    Session
		r    *record.Record
		want bool
	}{
		{"no scope", Session{}, base(), true},

		{"id included", Session{EventIDs: IDFilter{IDs: []uint16{1, 7}}}, base(), true},
		{"id not included", Session{EventIDs: IDFilter{IDs: []uint16{2, 7}}}, base(), false},
		{"id excluded", Session{EventIDs: IDFilter{IDs: []uint16{1}, Exclude: true}}, base(), false},
		{"id not excluded", Session{EventIDs: IDFilter{IDs: []uint16{2}, Exclude: true}}, base(), true},
		{"id 65535 included", Session{EventIDs: IDFilter{IDs: []uint16{65535}}}, with(func(r *record.Record) { r.EventDescriptor.Id = 65535 }), true},
		{"empty exclude list filters nothing", Session{EventIDs: IDFilter{Exclude: true}}, base(), true},

		{"name included", Session{EventNames: NameFilter{Names: []string{"Start"}}}, base(), true},
		{"name case matters", Session{EventNames: NameFilter{Names: []string{"start"}}}, base(), false},
		{"name excluded", Session{EventNames: NameFilter{Names: []string{"Start"}, Exclude: true}}, base(), false},
		{"no name fails an include list", Session{EventNames: NameFilter{Names: []string{"Start"}}},
			with(func(r *record.Record) { r.EventDescriptor.Id = 40 }), false},
		{"no name passes an exclude list", Session{EventNames: NameFilter{Names: []string{"Start"}, Exclude: true}},
			with(func(r *record.Record) { r.EventDescriptor.Id = 40 }), true},

		{"pid listed", Session{ProcessIDs: []uint32{99, 1234, 4}}, base(), true},
		{"pid not listed", Session{ProcessIDs: []uint32{99, 4}}, base(), false},
		{"record without pid fails", Session{ProcessIDs: []uint32{0, 1234}},
			with(func(r *record.Record) { r.HasThreadProcess, r.ProcessId = false, 0 }), false},

		{"opcode", Session{Opcodes: []uint8{1}}, base(), true},
		{"other opcode", Session{Opcodes: []uint8{2, 255}}, base(), false},
		{"task", Session{Tasks: []uint16{300}}, base(), true},
		{"other task", Session{Tasks: []uint16{301}}, base(), false},
		{"channel", Session{Channels: []uint8{16, 17}}, base(), true},
		{"other channel", Session{Channels: []uint8{17}}, base(), false},
		{"version", Session{Versions: []uint8{2}}, base(), true},
		{"other version", Session{Versions: []uint8{0}}, base(), false},

		{"from relative, inclusive", Session{From: TimeBound{Offset: 1500 * time.Millisecond, Relative: true}}, base(), true},
		{"from relative, after", Session{From: TimeBound{Offset: 1500*time.Millisecond + 100, Relative: true}}, base(), false},
		{"to relative, exclusive", Session{To: TimeBound{Offset: 1500 * time.Millisecond, Relative: true}}, base(), false},
		{"to relative, before", Session{To: TimeBound{Offset: 1500*time.Millisecond + 100, Relative: true}}, base(), true},
		{"absolute range", Session{From: TimeBound{At: start.Add(time.Second)}, To: TimeBound{At: start.Add(2 * time.Second)}}, base(), true},
		{"absolute range in another zone", Session{From: TimeBound{At: start.Add(2 * time.Second).In(time.FixedZone("X", 3600))}}, base(), false},

		{"all scopes at once", Session{EventIDs: IDFilter{IDs: []uint16{1}}, ProcessIDs: []uint32{1234}, Opcodes: []uint8{1},
			Tasks: []uint16{300}, Channels: []uint8{16}, Versions: []uint8{2}, EventNames: NameFilter{Names: []string{"Start"}},
			From: TimeBound{Relative: true}, To: TimeBound{Offset: time.Minute, Relative: true}}, base(), true},
		{"scope does not widen the level check", Session{Level: 3, EventIDs: IDFilter{IDs: []uint16{1}}}, base(), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := mustCompile(t, Options{TraceStart: start, Lookup: st.lookup()}, c.s)
			if got := f.Match(c.r); got != c.want {
				t.Errorf("Match = %v, want %v", got, c.want)
			}
		})
	}
}

func TestProviderEventFilters(t *testing.T) {
	st := stub()
	f := mustCompile(t, Options{Lookup: st.lookup()}, Session{Providers: []ProviderSpec{
		{ID: provA, EventIDs: IDFilter{IDs: []uint16{2}, Exclude: true}},
		{ID: provB, EventIDs: IDFilter{IDs: []uint16{2, 3}}},
		{ID: provC, EventNames: NameFilter{Names: []string{"Tick"}}},
	}})
	cases := []struct {
		p    *record.Record
		want bool
	}{
		{evFrom(provA, 1, 4, 0), true},
		{evFrom(provA, 2, 4, 0), false},
		{evFrom(provB, 1, 4, 0), false},
		{evFrom(provB, 3, 4, 0), true},
		{evFrom(provC, 3, 4, 0), true},
		{evFrom(provC, 1, 4, 0), false},
	}
	for _, c := range cases {
		if got := f.Match(c.p); got != c.want {
			t.Errorf("provider %v event %d: Match = %v, want %v", c.p.ProviderId, c.p.EventDescriptor.Id, got, c.want)
		}
	}
}

func TestUnionOfSessions(t *testing.T) {
	st := stub()
	// One session takes A's errors, another B's verbose events with keyword
	// 0x8, a third everything from process 7 at warning.
	f := mustCompile(t, Options{Lookup: st.lookup()},
		Session{Providers: []ProviderSpec{{ID: provA, Level: LevelError}}},
		Session{Providers: []ProviderSpec{{ID: provB, Level: LevelVerbose, MatchAny: 0x8}}},
		Session{Level: LevelWarning, ProcessIDs: []uint32{7}},
	)
	inProc := func(r *record.Record, pid uint32) *record.Record {
		r.ProcessId, r.HasThreadProcess = pid, true
		return r
	}
	cases := []struct {
		name string
		r    *record.Record
		want bool
	}{
		{"A error", evFrom(provA, 1, 2, 0x1), true},
		{"A info", evFrom(provA, 1, 4, 0x1), false},
		{"A warning in process 7", inProc(evFrom(provA, 1, 3, 0x1), 7), true},
		{"B verbose 0x8", evFrom(provB, 1, 5, 0x8), true},
		{"B verbose 0x1", evFrom(provB, 1, 5, 0x1), false},
		{"C warning in process 7", inProc(evFrom(provC, 1, 3, 0x40), 7), true},
		{"C warning in process 8", inProc(evFrom(provC, 1, 3, 0x40), 8), false},
	}
	for _, c := range cases {
		if got := f.Match(c.r); got != c.want {
			t.Errorf("%s: Match = %v, want %v", c.name, got, c.want)
		}
	}
}
