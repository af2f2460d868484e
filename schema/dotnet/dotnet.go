// Package dotnet holds the event schemas of the .NET runtime, built in:
// the providers Microsoft-Windows-DotNETRuntime, -Rundown, -Private and
// -Stress, and Microsoft-DotNETRuntimeMonoProfiler, from the runtime's
// public instrumentation manifest.
//
// The tables in tables.go are generated from that manifest by
// internal/cmd/gendotnet, through the same reader --manifest uses, so
// that the events decode the same either way; a program needs no file at
// run time.
package dotnet

//go:generate go run ../../internal/cmd/gendotnet -o tables.go ../../../shared/manifests/ClrEtwAll.man

import (
	"sync"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema"
)

// Set returns the .NET runtime's events as TraceEvent shows them (see
// ApplyTraceEventConventions). The set is built on the first call and
// shared: do not add to it.
func Set() *schema.Set { return set() }

var set = sync.OnceValue(func() *schema.Set {
	s := ManifestSet()
	ApplyTraceEventConventions(s)
	return s
})

// ManifestSet returns a new set of the .NET runtime's events as the
// manifest describes them, the same as reading the manifest would give.
func ManifestSet() *schema.Set { return build() }

// The generated tables. A template's fields are stored flat, in order,
// each struct followed by its members (to any depth).

type provider struct {
	name string
	guid uuid.UUID
}

type field struct {
	name                    string
	countField, lengthField string
	in                      payload.InType
	out                     payload.OutType
	arity                   payload.Arity
	fixedLength             bool
	count, length           uint16
	// mapIndex is 1 + the index of the field's map in maps, 0 for none.
	mapIndex uint16
	// members is the number of a struct's members.
	members uint16
}

type template struct {
	name string
	// fields holds the template's fields and their members; top is the
	// number of top-level fields among them.
	fields []field
	top    int
}

type event struct {
	provider uint8
	version  uint8
	id       uint16
	// template is 1 + the index of the event's template, 0 for none;
	// keywords the index of its keyword names in keywordSets.
	template, keywords                          uint16
	name, task, opcode, level, channel, message string
}

func build() *schema.Set {
	s := &schema.Set{}
	for _, p := range providers {
		s.SetProviderName(p.guid, p.name)
	}
	schemas := make([]*payload.Schema, len(templates))
	for i := range templates {
		t := &templates[i]
		fs, rest := expand(t.fields, t.top)
		if len(rest) != 0 {
			panic("dotnet: template " + t.name + " has fields left over")
		}
		schemas[i] = payload.MustSchema(t.name, fs)
	}
	empty := payload.MustSchema("", nil)
	evs := make([]schema.Event, len(events))
	for i := range events {
		e := &events[i]
		p := &providers[e.provider]
		evs[i] = schema.Event{Provider: p.name, Name: e.name, Task: e.task, Opcode: e.opcode,
			Level: e.level, Channel: e.channel, Keywords: keywordSets[e.keywords], Message: e.message,
			Payload: empty}
		if e.template != 0 {
			evs[i].Payload = schemas[e.template-1]
		}
		s.Add(schema.Key{Provider: p.guid, ID: e.id, Version: uint16(e.version)}, &evs[i])
	}
	return s
}

// expand turns the first n fields of fs, with their members, into payload
// fields, and returns the rest of fs.
func expand(fs []field, n int) ([]payload.Field, []field) {
	if n == 0 {
		return nil, fs
	}
	out := make([]payload.Field, n)
	for i := range out {
		f := &fs[0]
		fs = fs[1:]
		out[i] = payload.Field{Name: f.name, InType: f.in, OutType: f.out, Arity: f.arity, Count: f.count,
			CountField: f.countField, Length: f.length, LengthField: f.lengthField, FixedLength: f.fixedLength}
		if f.mapIndex != 0 {
			out[i].Map = &maps[f.mapIndex-1]
		}
		if f.in == payload.InStruct {
			out[i].Members, fs = expand(fs, int(f.members))
		}
	}
	return out, fs
}
