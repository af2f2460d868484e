package filter

import (
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// documented is the session-side check written straight from the
// documentation, independently of Enablement and Filter: a session's level
// 0 is TRACE_LEVEL_NONE (every level), a MatchAny never given enables every
// keyword, IGNORE_KEYWORD_0 drops keyword-0 events, and then
//
//	Level <= session.Level &&
//	(Keyword == 0 || (Keyword & MatchAny) != 0 && (Keyword & MatchAll) == MatchAll)
func documented(sLevel uint8, matchAny, matchAll uint64, ignoreKw0 bool, level uint8, keyword uint64) bool {
	if sLevel == 0 {
		sLevel = 255
	}
	if matchAny == 0 {
		matchAny = 0xFFFFFFFFFFFFFFFF
	}
	if ignoreKw0 && keyword == 0 {
		return false
	}
	if !(level <= sLevel) {
		return false
	}
	return keyword == 0 || (keyword&matchAny) != 0 && (keyword&matchAll) == matchAll
}

// gen draws values biased towards the edges the formulas turn on.
type gen struct{ r *rand.Rand }

func (g gen) level() uint8 {
	edges := []uint8{0, 1, 2, 3, 4, 5, 6, 254, 255}
	if g.r.IntN(4) == 0 {
		return uint8(g.r.UintN(256))
	}
	return edges[g.r.IntN(len(edges))]
}

func (g gen) keyword() uint64 {
	switch g.r.IntN(8) {
	case 0:
		return 0
	case 1:
		return AllKeywords
	case 2:
		return 1 << g.r.UintN(64)
	case 3: // reserved bits only
		return g.r.Uint64() &^ low48
	case 4: // provider bits only
		return g.r.Uint64() & low48
	case 5: // a few low bits, so that any and all often overlap
		return g.r.Uint64() & 0xF
	case 6:
		return g.r.Uint64()&0xF | 1<<(48+g.r.UintN(16))
	}
	return g.r.Uint64()
}

func (g gen) session() Session {
	return Session{Level: g.level(), MatchAny: g.keyword(), MatchAll: g.keyword(), IgnoreKeyword0: g.r.IntN(4) == 0}
}

func (g gen) headerType() header.Type {
	types := []header.Type{header.TypeEventHeader64, header.TypeEventHeader32, header.TypeEventHeader64,
		header.TypeSystem64, header.TypePerfInfo64, header.TypeCompact32, header.TypeFull64, header.TypeInstance32, header.TypeMessage}
	return types[g.r.IntN(len(types))]
}

func TestPropertyMatchIsTheDocumentedFormula(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(1, 2))}
	const sessions, records = 400, 400
	var passed, total int
	for range sessions {
		s := g.session()
		f := mustCompile(t, Options{}, s)
		// The same settings on a provider entry go through the general path.
		ps := Session{IgnoreKeyword0: s.IgnoreKeyword0, Providers: []ProviderSpec{{ID: provA, Level: s.Level, MatchAny: s.MatchAny, MatchAll: s.MatchAll}}}
		pf := mustCompile(t, Options{}, ps)
		for range records {
			r := &record.Record{HeaderType: g.headerType(), ProviderId: provA,
				EventDescriptor: header.EventDescriptor{Level: g.level(), Keyword: g.keyword()}}
			level, keyword := r.EventDescriptor.Level, r.EventDescriptor.Keyword
			switch {
			case r.HeaderType.IsKernel() || r.HeaderType == header.TypeMessage:
				level, keyword = 0, 0
			case r.HeaderType.IsClassic():
				keyword = 0
			}
			want := documented(s.Level, s.MatchAny, s.MatchAll, s.IgnoreKeyword0, level, keyword)
			if got := f.Match(r); got != want {
				t.Fatalf("session %+v, %v level %d keyword %#x: Match = %v, documented %v",
					s, r.HeaderType, r.EventDescriptor.Level, r.EventDescriptor.Keyword, got, want)
			}
			if got := pf.Match(r); got != want {
				t.Fatalf("provider entry %+v, %v level %d keyword %#x: Match = %v, documented %v",
					ps.Providers[0], r.HeaderType, r.EventDescriptor.Level, r.EventDescriptor.Keyword, got, want)
			}
			total++
			if want {
				passed++
			}
		}
	}
	// Both outcomes must be common, or the generator is not testing much.
	if passed < total/10 || passed > total*9/10 {
		t.Errorf("%d of %d records passed: the generator is lopsided", passed, total)
	}
}

func TestPropertyAggregateCoversUnion(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(3, 4))}
	other := uuid.MustParse("eeeeeeee-0000-0000-0000-00000000000e")
	var unionPassed, aggregateOnly int
	for range 2000 {
		n := 1 + g.r.IntN(4)
		sessions := make([]Session, n)
		for i := range sessions {
			s := g.session()
			// Some sessions enable the provider directly, some another
			// provider only, the rest every provider.
			switch g.r.IntN(3) {
			case 0:
				s = Session{IgnoreKeyword0: s.IgnoreKeyword0, Providers: []ProviderSpec{{ID: provA, Level: s.Level, MatchAny: s.MatchAny, MatchAll: s.MatchAll}}}
			case 1:
				s = Session{IgnoreKeyword0: s.IgnoreKeyword0, Providers: []ProviderSpec{{ID: other, Level: s.Level, MatchAny: s.MatchAny, MatchAll: s.MatchAll}}}
			}
			sessions[i] = s
		}
		f := mustCompile(t, Options{}, sessions...)
		en, enabled := f.Enablement(Provider{ID: provA})
		var ps ProviderState
		if enabled {
			ps.Control(ControlEnable, en.Level, en.MatchAny, en.MatchAll)
		}
		for range 50 {
			d := header.EventDescriptor{Level: g.level(), Keyword: g.keyword()}
			r := &record.Record{HeaderType: header.TypeEventHeader64, ProviderId: provA, EventDescriptor: d}
			union := f.Match(r)
			provider := ps.EventEnabled(d)
			if union && !provider {
				t.Fatalf("sessions %+v: union receives level %d keyword %#x, but the provider enabled with %+v (enabled %v) would not write it",
					sessions, d.Level, d.Keyword, en, enabled)
			}
			if union {
				unionPassed++
			} else if provider {
				aggregateOnly++
			}
		}
	}
	if unionPassed == 0 || aggregateOnly == 0 {
		t.Errorf("union passed %d, aggregate only %d: the generator does not reach both cases", unionPassed, aggregateOnly)
	}
}

// With one session, the provider's own check on what the session sends is
// the session's check, but for IGNORE_KEYWORD_0, which ETW applies after
// the provider writes.
func TestPropertyOneSessionProviderAgrees(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(5, 6))}
	for range 20000 {
		s := g.session()
		s.IgnoreKeyword0 = false
		en, ok := mustCompile(t, Options{}, s).Enablement(Provider{ID: provA})
		if !ok {
			t.Fatalf("session %+v enables no provider", s)
		}
		var ps ProviderState
		ps.Control(ControlEnable, en.Level, en.MatchAny, en.MatchAll)
		d := header.EventDescriptor{Level: g.level(), Keyword: g.keyword()}
		want := documented(s.Level, s.MatchAny, s.MatchAll, false, d.Level, d.Keyword)
		if got := ps.EventEnabled(d); got != want {
			t.Fatalf("session %+v, level %d keyword %#x: EventEnabled = %v, documented %v", s, d.Level, d.Keyword, got, want)
		}
	}
}
