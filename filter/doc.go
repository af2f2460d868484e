// Package filter answers "would a session configured like this have received
// this record?" for every record of a trace. A Session describes what a
// trace controller asks of ETW through EnableTraceEx2 and its
// ENABLE_TRACE_PARAMETERS; Compile turns one or more of them into a Filter
// whose Match judges a record without allocating.
//
// # Level and keywords
//
// A record passes an enablement (Level, MatchAny, MatchAll) when
//
//	record.Level <= Level &&
//	(record.Keyword == 0 ||
//	 (record.Keyword & MatchAny) != 0 && (record.Keyword & MatchAll) == MatchAll)
//
// which is the check EVENT_DESCRIPTOR and EnableCallback document for a
// provider deciding whether to write an event. It is applied to all 64
// keyword bits: the high 16 bits are reserved by Microsoft (channels among
// them) but the documented check does not mask them, so a record whose only
// keyword bit is a reserved one passes MatchAny only when MatchAny carries
// that bit, and a reserved bit in MatchAll is required like any other.
//
// That check is taken literally wherever a provider makes it (Enablement,
// Aggregate, ProviderState): a Level of 0 lets only level-0 events through
// and a MatchAny of 0 only keyword-0 events, as in the sample of the
// ENABLECALLBACK page.
//
// In a Session or ProviderSpec, the session layer, a zero Level or MatchAny
// means the setting was not given, and a setting not given enables all: the
// session sends level 255, so that records of every level, 255 included,
// pass, and MatchAny all-ones (ProviderSpec.Enablement, Normalized). Taken
// literally, a zero would let only level-0 or keyword-0 records through a
// session that asked for no restriction at all; controllers given no
// keywords enable all of them instead (PerfView's default MatchAnyKeyword,
// for one, is all-ones). MatchAll 0 needs no such rule: it requires
// nothing. etldump follows the same rule for --level, --any and the fields
// of --provider.
//
// Records carry their level and keyword in different places. EVENT_HEADER
// records are judged on their EVENT_DESCRIPTOR. Classic records
// (EVENT_TRACE_HEADER and its INSTANCE form) have no keyword, only a level
// in their Class field, so they are judged with that level and keyword 0.
// Kernel records (SYSTEM, COMPACT, PERFINFO) and WPP messages carry neither
// and are judged with level 0 and keyword 0, except WPP messages whose
// level and flag Lookup.Message gives from their TMF entry: a WPP provider
// checks its enable level and flags just as the formula does, its flags
// being the low bits of MatchAnyKeyword. Level 0 and keyword 0 pass
// every enablement, so these records are received by any session that
// enables their provider, unless IgnoreKeyword0
// (EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0) is set on the session or on the
// provider's entry, which drops every keyword-0 record of the providers it
// covers.
//
// # Which settings apply to a record
//
// A Session without Providers enables every provider with its own Level,
// MatchAny and MatchAll: `etldump --level 3 --any 0x5` is such a session.
// A Session with Providers enables only those, each with the settings of
// its entry; the Session's Level, MatchAny and MatchAll must then be left
// zero, so that a value given in the wrong place is an error rather than
// silently ignored.
//
// A provider is named by GUID (for kernel records, the GUID of the HookId's
// group, which is the record's ProviderId), or by the name in the record's
// provider traits, compared case-insensitively. Only TraceLogging and
// EventSource providers write their name into their records; a manifest
// provider is named by its GUID. An entry with Group set enables a provider group instead
// (EVENT_ENABLE_PROPERTY_PROVIDER_GROUP): a record belongs to group G when
// its provider traits carry a group trait (type 1) holding G. Providers in
// the entry's Disallow list are not enabled through the group, but are
// still enabled by an entry of their own. The provider-traits page says
// event-name, event-id and payload filters do not apply to provider groups:
// they cannot be attached to a group entry, and a session's event-id and
// event-name filters pass the records a group entry decides for.
//
// When several entries of one session name the same record, the most
// specific one decides: an entry by GUID over one by name, and either over
// a group entry. The documentation does not say how ETW combines a
// provider's own enablement with its group's in one session; this choice
// lets a user narrow, or widen, one provider of an enabled group.
//
// # Scope filters
//
// After the level and keyword check, a record must also pass the scope
// filters of its provider entry (event ids, event names) and of its session
// (event ids and event names but for records enabled through a provider
// group, process ids, opcodes, tasks, channels, versions, time range). Each
// is inactive when empty. A record that lacks the
// property an include list asks about (no process id on a PERFINFO record,
// no event name on a manifest event) fails the include list and passes an
// exclude list.
//
// # Several sessions
//
// Compiled together, sessions form a union: a record passes when any of
// them would receive it. A provider enabled by several sessions sees one
// combined enablement in its EnableCallback (Aggregate, Filter.Enablement):
// as the ENABLECALLBACK page gives it, the maximum of the levels the
// sessions send, the OR of their MatchAnyKeyword and the AND of their
// MatchAllKeyword. Since each session sends "all" for a setting not given,
// that combined enablement accepts at least every record any of the
// sessions accepts, which is why a provider writes events some sessions
// then drop. ProviderState replays the
// control codes a provider receives and answers the provider's own
// EventEnabled check.
package filter
