// Package schema holds what the sources of event schemas have in common:
// the description of one event (its names, message and payload layout), the
// key that finds it, and a set of them.
//
// The sources live in the packages below this one: kernel (the kernel's MOF
// classes and the records a trace merge adds), manifest (instrumentation
// manifests), tdh (TRACE_EVENT_INFO metadata carried in merged traces),
// eventsource (the manifests EventSources write into their traces), dotnet
// (the .NET runtime's manifest, built in) and providers (well-known
// provider names). Package describe puts them together for a record.
package schema

import (
	"strings"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// Event describes one event: everything a source knows of it beyond the
// record header.
type Event struct {
	// Provider is the provider's name, "" when the source does not give it.
	Provider string
	// Name is the event's name as TraceEvent shows it after the provider:
	// "Process/DCStart", "GC/Start", "ETW_TASK_PROVIDER/ETW_OPCODE_REGISTER".
	Name string
	// Display names of the descriptor fields, where the source gives them.
	Task, Opcode, Level, Channel string
	Keywords                     []string
	// Message is the event's message with %1…%n inserts, "" when none.
	Message string
	// Payload is the layout of the user data; nil when the source knows
	// the event's names but not its payload.
	Payload *payload.Schema
	// Computed, when set, appends to vals (the decoded payload) the fields
	// TraceEvent works out from the record: a build time from a
	// TimeDateStamp, a duration from clock ticks, a parent process from the
	// header. It must not allocate in the steady state and must not keep r.
	Computed func(r *record.Record, vals []payload.Value) []payload.Value
}

// FullName is "Provider/Name", or Name when the provider has no name.
func (e *Event) FullName() string {
	if e.Provider == "" {
		return e.Name
	}
	return e.Provider + "/" + e.Name
}

// Key finds an event in a Set: a manifest event by provider GUID, event id
// and version; a classic (MOF) event by class GUID, opcode and version.
type Key struct {
	Provider uuid.UUID
	ID       uint16 // event id, or for a classic event its opcode
	Version  uint16
	Classic  bool
}

// EventName composes an event's name as TraceEvent does for manifest
// events: the task name, then "/" and the opcode name unless the opcode is
// 0 (Info) or has no name. A "win:" prefix is dropped from the opcode
// name. With no task name, the event's symbol stands for it, and with
// neither, the opcode name alone.
func EventName(task, opcode string, opcodeValue uint8, symbol string) string {
	opcode = strings.TrimPrefix(opcode, "win:")
	if task == "" {
		task = symbol
	}
	switch {
	case task == "":
		return opcode
	case opcode == "" || opcodeValue == 0:
		return task
	}
	return task + "/" + opcode
}

// Set holds events by key, and the names of their providers. The zero Set
// is empty and ready to use. A Set is not safe for concurrent writes; once
// filled it may be read from any number of goroutines.
type Set struct {
	events    map[Key]*Event
	versions  map[Key][]uint16 // the versions held, sorted, by key with Version 0
	providers map[uuid.UUID]string
	adds      uint64
}

// Adds counts the calls of Add so far: a cache of lookups that saw the same
// count saw the same events.
func (s *Set) Adds() uint64 { return s.adds }

// Add puts an event in the set, replacing one with the same key.
func (s *Set) Add(k Key, e *Event) {
	s.adds++
	if s.events == nil {
		s.events = make(map[Key]*Event)
		s.versions = make(map[Key][]uint16)
	}
	if _, ok := s.events[k]; !ok {
		base := k
		base.Version = 0
		vs := s.versions[base]
		i := 0
		for i < len(vs) && vs[i] < k.Version {
			i++
		}
		vs = append(vs, 0)
		copy(vs[i+1:], vs[i:])
		vs[i] = k.Version
		s.versions[base] = vs
	}
	s.events[k] = e
}

// SetProviderName records a provider's name.
func (s *Set) SetProviderName(id uuid.UUID, name string) {
	if s.providers == nil {
		s.providers = make(map[uuid.UUID]string)
	}
	s.providers[id] = name
}

// ProviderName is the name recorded for a provider.
func (s *Set) ProviderName(id uuid.UUID) (string, bool) {
	n, ok := s.providers[id]
	return n, ok
}

// EachProvider calls fn with every provider name the set holds: those
// SetProviderName recorded, then the name each event gives its provider,
// under its key's GUID (for a classic event, its class GUID). A name may
// come more than once.
func (s *Set) EachProvider(fn func(id uuid.UUID, name string)) {
	for id, n := range s.providers {
		fn(id, n)
	}
	for k, e := range s.events {
		if e.Provider != "" {
			fn(k.Provider, e.Provider)
		}
	}
}

// Len is the number of events in the set.
func (s *Set) Len() int { return len(s.events) }

// Lookup finds the event of key k. When the set has no event of that
// version it takes the highest version below it: events gain fields at the
// end in later versions, so the older layout still reads the fields it
// knows, and exact is false to say that more may follow.
func (s *Set) Lookup(k Key) (e *Event, exact bool) {
	if e, ok := s.events[k]; ok {
		return e, true
	}
	base := k
	base.Version = 0
	vs := s.versions[base]
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i] < k.Version {
			base.Version = vs[i]
			return s.events[base], false
		}
	}
	return nil, false
}

// Each calls fn with every event of the set, in no particular order.
func (s *Set) Each(fn func(Key, *Event)) {
	for k, e := range s.events {
		fn(k, e)
	}
}
