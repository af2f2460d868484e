package filter

import (
	"time"

	"github.com/google/uuid"
)

// Trace levels (TRACE_LEVEL_*, the win:Level values).
const (
	LevelAll         uint8 = 0 // TRACE_LEVEL_NONE: as a session setting, every level
	LevelCritical    uint8 = 1
	LevelError       uint8 = 2
	LevelWarning     uint8 = 3
	LevelInformation uint8 = 4
	LevelVerbose     uint8 = 5
)

// AllKeywords is the MatchAny that enables every keyword.
const AllKeywords = ^uint64(0)

// Session is what one trace session asks of ETW. The zero Session receives
// every record.
type Session struct {
	// Level, MatchAny and MatchAll enable every provider when Providers is
	// empty, and must be zero otherwise. Level 0 means every level and
	// MatchAny 0 every keyword (see the package documentation).
	Level    uint8
	MatchAny uint64
	MatchAll uint64

	// IgnoreKeyword0 is EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0: records with
	// keyword 0, kernel and classic records among them, are not received.
	IgnoreKeyword0 bool

	// Providers lists the providers and provider groups the session enables.
	Providers []ProviderSpec

	// Scope filters applying to every record of the session.
	EventIDs   IDFilter
	EventNames NameFilter
	ProcessIDs []uint32
	Opcodes    []uint8
	Tasks      []uint16
	Channels   []uint8
	Versions   []uint8

	// From and To bound the record timestamps: From inclusive, To exclusive,
	// so that consecutive ranges split a trace without overlap.
	From, To TimeBound
}

// ProviderSpec enables one provider, or one provider group, in a session:
// the Provider[:Any[:Level[:All]]] of logman, xperf and PerfView, with the
// per-provider filters of ENABLE_TRACE_PARAMETERS.
type ProviderSpec struct {
	// ID names the provider (for kernel records, the HookId group GUID) or,
	// with Group, the provider group. When ID is the nil GUID, Name names
	// the provider as its provider traits do.
	ID   uuid.UUID
	Name string

	// Level 0 means every level and MatchAny 0 every keyword.
	Level    uint8
	MatchAny uint64
	MatchAll uint64

	// Group makes the entry a provider-group enablement
	// (EVENT_ENABLE_PROPERTY_PROVIDER_GROUP). Disallow lists providers not
	// enabled through the group; it is allowed on group entries only.
	Group    bool
	Disallow []uuid.UUID

	// Event filters (EVENT_FILTER_TYPE_EVENT_ID, EVENT_FILTER_TYPE_EVENT_NAME);
	// not allowed on group entries.
	EventIDs   IDFilter
	EventNames NameFilter
}

// Enablement returns the entry's level and keywords as ETW applies them.
func (p ProviderSpec) Enablement() Enablement {
	return Enablement{Level: p.Level, MatchAny: p.MatchAny, MatchAll: p.MatchAll}.Normalized()
}

// IDFilter keeps records whose event id is in IDs, or with Exclude those
// whose id is not. An empty IDs filters nothing.
type IDFilter struct {
	IDs     []uint16
	Exclude bool
}

// NameFilter keeps records whose TraceLogging event name is in Names, or
// with Exclude those whose name is not. Names compare exactly. An empty
// Names filters nothing.
type NameFilter struct {
	Names   []string
	Exclude bool
}

// TimeBound is one end of a time range: an absolute UTC instant, or with
// Relative an offset from the trace start. The zero TimeBound is no bound.
type TimeBound struct {
	At       time.Time
	Offset   time.Duration
	Relative bool
}

// IsZero reports whether the bound is absent.
func (b TimeBound) IsZero() bool { return !b.Relative && b.At.IsZero() }

// resolve returns the bound's instant for a trace that started at start.
func (b TimeBound) resolve(start time.Time) time.Time {
	if b.Relative {
		return start.Add(b.Offset)
	}
	return b.At
}

// Enablement is the level and keywords of one enable: what a session asks
// for a provider, and what the provider's EnableCallback receives.
type Enablement struct {
	Level    uint8
	MatchAny uint64
	MatchAll uint64
}

// Normalized gives the "not given" zeros their meaning: Level 0 becomes
// 255 and MatchAny 0 becomes AllKeywords.
func (e Enablement) Normalized() Enablement {
	if e.Level == 0 {
		e.Level = 255
	}
	if e.MatchAny == 0 {
		e.MatchAny = AllKeywords
	}
	return e
}

// Passes applies the documented check to a record's level and keyword. The
// receiver must be normalized; Passes does not normalize it, so that the
// check costs what the formula costs.
func (e Enablement) Passes(level uint8, keyword uint64) bool {
	return level <= e.Level &&
		(keyword == 0 || keyword&e.MatchAny != 0 && keyword&e.MatchAll == e.MatchAll)
}

// Aggregate combines the enablements of several sessions for one provider
// the way its EnableCallback receives them: the highest level, the OR of
// MatchAny and the AND of MatchAll. Each input is normalized first, since a
// session that gives no level or keyword enables them all, and a raw 0
// would otherwise lose against a narrower session. Aggregate of nothing is
// the zero Enablement.
func Aggregate(es ...Enablement) Enablement {
	if len(es) == 0 {
		return Enablement{}
	}
	out := es[0].Normalized()
	for _, e := range es[1:] {
		e = e.Normalized()
		out.Level = max(out.Level, e.Level)
		out.MatchAny |= e.MatchAny
		out.MatchAll &= e.MatchAll
	}
	return out
}
