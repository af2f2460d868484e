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
//
// A zero Level or MatchAny in a Session or a ProviderSpec means the setting
// was not given, and a setting not given enables all: the session sends
// level 255 and MatchAny all-ones for it (Enablement.Normalized). This is a
// rule of this session layer, as of the command line built on it; what a
// provider receives and checks (Enablement, Aggregate, ProviderState) is
// taken literally.
type Session struct {
	// Level, MatchAny and MatchAll enable every provider when Providers is
	// empty, and must be zero otherwise. Level 0 means every level and
	// MatchAny 0 every keyword, as above.
	Level    uint8
	MatchAny uint64
	MatchAll uint64

	// IgnoreKeyword0 is EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0 set on every
	// provider the session enables: records with keyword 0, kernel and
	// classic records among them, are not received. ProviderSpec has the
	// same property for one entry.
	IgnoreKeyword0 bool

	// Providers lists the providers and provider groups the session enables.
	Providers []ProviderSpec

	// Scope filters applying to every record of the session. ProcessIDs,
	// ThreadIDs and ProcessNames judge the process and thread
	// Lookup.Process, Thread and ProcessName give, by default the
	// header's; ProcessNames are image names (notepad.exe), compared in
	// any case and with or without ".exe".
	EventIDs     IDFilter
	EventNames   NameFilter
	ProcessIDs   []uint32
	ThreadIDs    []uint32
	ProcessNames []string
	Opcodes      []uint8
	Tasks        []uint16
	Channels     []uint8
	Versions     []uint8

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

	// Level 0 means every level and MatchAny 0 every keyword (see Session).
	Level    uint8
	MatchAny uint64
	MatchAll uint64

	// IgnoreKeyword0 is EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0, an enable
	// property of this entry: "filters out all events that do not have a
	// non-zero keyword specified". Session.IgnoreKeyword0 sets it on every
	// entry.
	IgnoreKeyword0 bool

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

// Enablement returns what the session sends for the entry: its level and
// keywords with a setting not given made explicit (see Session).
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

// Enablement is the level and keywords of one enable: what a session sends
// for a provider, and what the provider's EnableCallback receives. Its
// values are taken as they are: Level 0 lets only level-0 events through,
// MatchAny 0 only keyword-0 events.
type Enablement struct {
	Level    uint8
	MatchAny uint64
	MatchAll uint64
}

// Normalized is the session layer's rule for settings not given (see
// Session): Level 0 becomes 255 and MatchAny 0 becomes AllKeywords, so that
// the values sent enable all of them.
func (e Enablement) Normalized() Enablement {
	if e.Level == 0 {
		e.Level = 255
	}
	if e.MatchAny == 0 {
		e.MatchAny = AllKeywords
	}
	return e
}

// Passes is the check a provider makes before writing an event, as the
// sample of the ENABLECALLBACK page makes it with the values its callback
// received: the event's level is at most Level, and its keyword is 0 or
// has a bit of MatchAnyKeyword and every bit of MatchAllKeyword. It takes
// e literally; a session's settings not given are made explicit before
// they get here (ProviderSpec.Enablement, Normalized).
func (e Enablement) Passes(level uint8, keyword uint64) bool {
	return level <= e.Level &&
		(keyword == 0 || keyword&e.MatchAny != 0 && keyword&e.MatchAll == e.MatchAll)
}

// Aggregate combines what several sessions send for one provider into what
// its callback receives. It follows the ENABLECALLBACK page: when several
// sessions enable a provider, the callback's Level is the maximum of their
// levels, its MatchAnyKeyword the OR of theirs and its MatchAllKeyword the
// AND of theirs. The values are combined as they are, a Level or MatchAny
// of 0 included; turning a setting not given into "all" is the session
// layer's business, done before (see Session). Aggregate of nothing is the
// zero Enablement.
func Aggregate(es ...Enablement) Enablement {
	if len(es) == 0 {
		return Enablement{}
	}
	out := es[0]
	for _, e := range es[1:] {
		out.Level = max(out.Level, e.Level)
		out.MatchAny |= e.MatchAny
		out.MatchAll &= e.MatchAll
	}
	return out
}
