package filter

import (
	"fmt"
	"testing"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

func ev(level uint8, keyword uint64) *record.Record {
	return &record.Record{
		HeaderType:      header.TypeEventHeader64,
		EventDescriptor: header.EventDescriptor{Level: level, Keyword: keyword},
	}
}

func mustCompile(t testing.TB, opts Options, sessions ...Session) *Filter {
	t.Helper()
	f, err := Compile(opts, sessions...)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return f
}

const (
	reserved63 = uint64(1) << 63 // the top reserved bit, where channel keywords start
	reserved48 = uint64(1) << 48 // the lowest reserved bit
	low48      = reserved48 - 1  // every provider-defined bit
)

func TestLevelAndKeywordEdges(t *testing.T) {
	cases := []struct {
		name  string
		s     Session
		level uint8
		kw    uint64
		want  bool
	}{
		// Level.
		{"level-0 record passes the narrowest session", Session{Level: 1}, 0, 0, true},
		{"level-0 record with keywords passes level 1", Session{Level: 1, MatchAny: 0x5}, 0, 0x4, true},
		{"level equal to session passes", Session{Level: 3}, 3, 0, true},
		{"level above session fails", Session{Level: 3}, 4, 0, false},
		{"session level 0 is every level", Session{Level: 0}, 255, 0, true},
		{"session level 255 takes level 255", Session{Level: 255}, 255, 0, true},
		{"session level 254 rejects level 255", Session{Level: 254}, 255, 0, false},
		{"level-255 record fails verbose", Session{Level: LevelVerbose}, 255, 0, false},

		// Keyword 0.
		{"keyword 0 passes any and all it lacks", Session{MatchAny: 0x5, MatchAll: 0x5}, 4, 0, true},
		{"keyword 0 dropped by IgnoreKeyword0", Session{IgnoreKeyword0: true}, 4, 0, false},
		{"keyword 0 at level 0 dropped by IgnoreKeyword0", Session{IgnoreKeyword0: true}, 0, 0, false},
		{"IgnoreKeyword0 keeps keyworded records", Session{IgnoreKeyword0: true, MatchAny: 0x5}, 4, 0x1, true},

		// MatchAny.
		{"no any bit fails", Session{MatchAny: 0x5}, 0, 0x2, false},
		{"one any bit passes", Session{MatchAny: 0x5}, 0, 0x6, true},
		{"any 0 means every keyword", Session{}, 0, 0xFFFF_FFFF_FFFF_FFFF, true},
		{"any 0 means every keyword, reserved bit alone", Session{}, 0, reserved63, true},

		// MatchAll.
		{"all 0 requires nothing", Session{MatchAny: 0x5, MatchAll: 0}, 0, 0x4, true},
		{"all missing a bit fails", Session{MatchAny: 0x5, MatchAll: 0x6}, 0, 0x4, false},
		{"all satisfied passes", Session{MatchAny: 0x5, MatchAll: 0x6}, 0, 0x6, true},
		{"all satisfied with extra bits passes", Session{MatchAny: 0x5, MatchAll: 0x6}, 0, 0xE, true},
		{"all outside any: any still needed", Session{MatchAny: 0x1, MatchAll: 0x2}, 0, 0x2, false},
		{"all outside any: both met", Session{MatchAny: 0x1, MatchAll: 0x2}, 0, 0x3, true},
		{"all-ones all needs every bit", Session{MatchAll: AllKeywords}, 0, AllKeywords >> 1, false},
		{"all-ones all met by all-ones", Session{MatchAll: AllKeywords}, 0, AllKeywords, true},
		{"all-ones all still passes keyword 0", Session{MatchAll: AllKeywords}, 0, 0, true},

		// The reserved high 16 bits take part like any other.
		{"reserved bit alone misses a provider any", Session{MatchAny: 0x5}, 0, reserved63, false},
		{"reserved bit alone misses all provider bits", Session{MatchAny: low48}, 0, reserved63, false},
		{"reserved bit with a provider bit passes", Session{MatchAny: 0x5}, 0, reserved63 | 0x4, true},
		{"reserved bit in any matches", Session{MatchAny: reserved63}, 0, reserved63, true},
		{"lowest reserved bit in any matches", Session{MatchAny: 0xFFFF << 48}, 0, reserved48, true},
		{"reserved bit in all is required", Session{MatchAny: 0x5, MatchAll: reserved48}, 0, 0x4, false},
		{"reserved bit in all is met", Session{MatchAny: 0x5, MatchAll: reserved48}, 0, reserved48 | 0x4, true},
		{"top provider bit is not reserved", Session{MatchAny: reserved48 >> 1}, 0, reserved48 >> 1, true},

		// Level and keyword together.
		{"keyword passes, level fails", Session{Level: 3, MatchAny: 0x5}, 4, 0x1, false},
		{"level passes, keyword fails", Session{Level: 3, MatchAny: 0x5}, 2, 0x2, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := mustCompile(t, Options{}, c.s)
			if got := f.Match(ev(c.level, c.kw)); got != c.want {
				t.Errorf("level %d keyword %#x against %+v: Match = %v, want %v", c.level, c.kw, c.s, got, c.want)
			}
			// The same settings on a provider entry go through the slower
			// path; they must judge alike.
			id := mustGUID(t, "11111111-2222-3333-4444-555555555555")
			ps := Session{IgnoreKeyword0: c.s.IgnoreKeyword0, Providers: []ProviderSpec{{
				ID: id, Level: c.s.Level, MatchAny: c.s.MatchAny, MatchAll: c.s.MatchAll}}}
			r := ev(c.level, c.kw)
			r.ProviderId = id
			if got := mustCompile(t, Options{}, ps).Match(r); got != c.want {
				t.Errorf("as a provider entry: Match = %v, want %v", got, c.want)
			}
		})
	}
}

func TestRecordKindsJudgedWithTheirOwnLevelAndKeyword(t *testing.T) {
	// The descriptor fields are set to values that would fail the strict
	// session if they were used, to show that kernel and WPP records are
	// judged with level 0 and keyword 0, and classic records with keyword 0;
	// IgnoreKeyword0 alone then keeps only the records judged with the
	// keyword they carry.
	desc := header.EventDescriptor{Level: 5, Keyword: 0x2}
	strict := Session{Level: 1, MatchAny: 0x1}
	ign := Session{IgnoreKeyword0: true}
	cases := []struct {
		typ          header.Type
		strict, ign0 bool // passes strict; passes ign
	}{
		{header.TypeSystem32, true, false},
		{header.TypeSystem64, true, false},
		{header.TypeCompact32, true, false},
		{header.TypeCompact64, true, false},
		{header.TypePerfInfo32, true, false},
		{header.TypePerfInfo64, true, false},
		{header.TypeMessage, true, false},
		{header.TypeFull32, false, false},
		{header.TypeFull64, false, false},
		{header.TypeInstance32, false, false},
		{header.TypeInstance64, false, false},
		{header.TypeEventHeader32, false, true},
		{header.TypeEventHeader64, false, true},
	}
	for _, c := range cases {
		t.Run(c.typ.String(), func(t *testing.T) {
			r := &record.Record{HeaderType: c.typ, EventDescriptor: desc}
			if got := mustCompile(t, Options{}, strict).Match(r); got != c.strict {
				t.Errorf("level 1 any 0x1: Match = %v, want %v", got, c.strict)
			}
			if got := mustCompile(t, Options{}, ign).Match(r); got != c.ign0 {
				t.Errorf("IgnoreKeyword0 alone: Match = %v, want %v", got, c.ign0)
			}
		})
	}
	// Classic records keep their level: level 5 passes a verbose session
	// whatever its keywords, since their keyword is 0.
	classic := &record.Record{HeaderType: header.TypeFull64, EventDescriptor: desc}
	if !mustCompile(t, Options{}, Session{Level: 5, MatchAny: 0x1, MatchAll: 0x1}).Match(classic) {
		t.Error("classic level-5 record rejected by a level-5 session")
	}
	if mustCompile(t, Options{}, Session{Level: 4}).Match(classic) {
		t.Error("classic level-5 record accepted by a level-4 session")
	}
}

func TestEnablementNormalized(t *testing.T) {
	cases := []struct{ in, want Enablement }{
		{Enablement{}, Enablement{Level: 255, MatchAny: AllKeywords}},
		{Enablement{Level: 3, MatchAny: 0x5, MatchAll: 0x4}, Enablement{Level: 3, MatchAny: 0x5, MatchAll: 0x4}},
		{Enablement{Level: 255, MatchAll: 0x1}, Enablement{Level: 255, MatchAny: AllKeywords, MatchAll: 0x1}},
	}
	for _, c := range cases {
		if got := c.in.Normalized(); got != c.want {
			t.Errorf("%+v.Normalized() = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestEmptyUnionReceivesNothing(t *testing.T) {
	f, err := Union()
	if err != nil {
		t.Fatal(err)
	}
	if f.Match(ev(0, 0)) {
		t.Error("a filter of no session accepted a record")
	}
	f, err = Union(Session{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*record.Record{ev(0, 0), ev(255, AllKeywords), {HeaderType: header.TypePerfInfo64}} {
		if !f.Match(r) {
			t.Errorf("the zero session rejected %v level %d keyword %#x", r.HeaderType, r.EventDescriptor.Level, r.EventDescriptor.Keyword)
		}
	}
}

func ExampleCompile() {
	// etldump --level 3 --any 0x5
	f, err := Compile(Options{}, Session{Level: LevelWarning, MatchAny: 0x5})
	if err != nil {
		panic(err)
	}
	for _, r := range []*record.Record{ev(3, 0x4), ev(3, 0x2), ev(4, 0x1), ev(1, 0)} {
		fmt.Printf("level %d keyword %#x: %v\n", r.EventDescriptor.Level, r.EventDescriptor.Keyword, f.Match(r))
	}
	// Output:
	// level 3 keyword 0x4: true
	// level 3 keyword 0x2: false
	// level 4 keyword 0x1: false
	// level 1 keyword 0x0: true
}
