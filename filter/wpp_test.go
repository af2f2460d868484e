package filter

import (
	"testing"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// TestMessageLookup: a WPP message is judged with the level and flag bit
// Lookup.Message gives, through the fast path and through a provider
// entry alike; one it does not know stays at level 0 and keyword 0.
func TestMessageLookup(t *testing.T) {
	id := uuid.MustParse("324ed36d-6949-3aa1-d581-3e2dc9652ec2")
	known := &record.Record{HeaderType: header.TypeMessage, ProviderId: id, Message: header.Message{MessageNumber: 1}}
	unknown := &record.Record{HeaderType: header.TypeMessage, ProviderId: id, Message: header.Message{MessageNumber: 2}}
	lk := Lookup{Message: func(r *record.Record) (uint8, uint64, bool) {
		if r.Message.MessageNumber == 1 {
			return 5, 0x4, true
		}
		return 0, 0, false
	}}
	for _, c := range []struct {
		name           string
		s              Session
		known, unknown bool
	}{
		{"all", Session{}, true, true},
		{"level 4", Session{Level: 4}, false, true},
		{"level 5", Session{Level: 5}, true, true},
		{"any 0x3", Session{MatchAny: 0x3}, false, true},
		{"any 0x4", Session{MatchAny: 0x4}, true, true},
		{"all 0x6", Session{MatchAll: 0x6}, false, true},
		{"ignore keyword 0", Session{IgnoreKeyword0: true}, true, false},
		{"provider level 4", Session{Providers: []ProviderSpec{{ID: id, Level: 4}}}, false, true},
		{"provider any 0x4", Session{Providers: []ProviderSpec{{ID: id, Level: 5, MatchAny: 0x4}}}, true, true},
	} {
		f := mustCompile(t, Options{Lookup: lk}, c.s)
		if got := f.Match(known); got != c.known {
			t.Errorf("%s: known message: Match = %v, want %v", c.name, got, c.known)
		}
		if got := f.Match(unknown); got != c.unknown {
			t.Errorf("%s: unknown message: Match = %v, want %v", c.name, got, c.unknown)
		}
		// Without the lookup, every message is judged as the unknown one.
		f = mustCompile(t, Options{}, c.s)
		if got := f.Match(known); got != c.unknown {
			t.Errorf("%s: without the lookup: Match = %v, want %v", c.name, got, c.unknown)
		}
	}
}
