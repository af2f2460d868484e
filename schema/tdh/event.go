package tdh

import (
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema"
)

// Key is where the event belongs in a schema.Set (manifest-formats.md §2.1):
// manifest and TraceLogging events by provider, id and version; MOF (Wbem)
// events by their class GUID (the event GUID, else the provider GUID) and
// opcode, as classic records are looked up. WPP events have no key.
func (ei *EventInfo) Key() (schema.Key, bool) {
	d := &ei.Descriptor
	switch ei.DecodingSource {
	case SourceXMLFile, SourceTraceLogging:
		return schema.Key{Provider: ei.ProviderGUID, ID: d.Id, Version: uint16(d.Version)}, true
	case SourceWbem:
		class := ei.EventGUID
		if class == uuid.Nil {
			class = ei.ProviderGUID
		}
		return schema.Key{Provider: class, ID: uint16(d.Opcode), Version: uint16(d.Version), Classic: true}, true
	}
	return schema.Key{}, false
}

// Name is the event's name as TraceEvent composes it: the task name, then
// "/" and the opcode name unless the opcode is Info (schema.EventName). An
// event with no task name takes its own name when it has one (Windows 10
// 1709 and later), else "EventID(n)" (for a MOF class, "Opcode(n)" after
// the class's name) so that the opcode is never the whole name.
func (ei *EventInfo) Name() string {
	task := ei.TaskName
	if task == "" {
		task = ei.EventName
	}
	if task == "" {
		if ei.DecodingSource == SourceWbem {
			return "Opcode(" + strconv.Itoa(int(ei.Descriptor.Opcode)) + ")"
		}
		task = "EventID(" + strconv.Itoa(int(ei.Descriptor.Id)) + ")"
	}
	return schema.EventName(task, ei.OpcodeName, ei.Descriptor.Opcode, "")
}

// MapSource gives the payload.Map that a map name stands for, or nil. The
// map may be filled after the call: TDH metadata can carry a map after the
// first event that uses it.
type MapSource func(name string) *payload.Map

// Event returns the schema.Event the blob describes. When its property list
// cannot make a payload.Schema the event still carries its names, with a
// nil Payload, and the error says why.
func (ei *EventInfo) Event(maps MapSource) (*schema.Event, error) {
	e := &schema.Event{
		Provider: ei.ProviderName,
		Name:     ei.Name(),
		Task:     ei.TaskName,
		Opcode:   ei.OpcodeName,
		Level:    ei.LevelName,
		Channel:  ei.ChannelName,
		Keywords: ei.Keywords,
		// TDH ends messages with a space, as it does map names.
		Message: strings.TrimRight(ei.EventMessage, " "),
	}
	fields, err := ei.Fields(maps)
	if err != nil {
		return e, err
	}
	if e.Payload, err = payload.NewSchema(e.Name, fields); err != nil {
		return e, err
	}
	return e, nil
}

// Fields converts the top-level properties, and the members of structs
// under them, into payload fields. References to the properties holding a
// count or a length, by index in TDH, become references by name.
func (ei *EventInfo) Fields(maps MapSource) ([]payload.Field, error) {
	c := converter{ei: ei, maps: maps}
	return c.fields(0, ei.TopLevel, 0)
}

type converter struct {
	ei    *EventInfo
	maps  MapSource
	total int // fields made so far, members of every struct included
}

func (c *converter) fields(start, n, depth int) ([]payload.Field, error) {
	if depth >= payload.MaxDepth {
		return nil, malformed(eventInfo, propertyOffset(start), "structs nested deeper than %d", payload.MaxDepth)
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]payload.Field, n)
	for i := range out {
		if err := c.field(start+i, depth, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func propertyOffset(i int) int { return EventInfoSize + i*PropertyInfoSize }

func (c *converter) field(i, depth int, f *payload.Field) error {
	c.total++
	if c.total > payload.MaxFields {
		return malformed(eventInfo, propertyOffset(i), "more than %d fields, struct members included", payload.MaxFields)
	}
	props := c.ei.Properties
	p := &props[i]
	f.Name = p.Name
	f.Tags = p.Tags
	switch {
	case p.Flags&PropertyParamCount != 0:
		name, err := c.ref(i, p.Count, 0x10, "count")
		if err != nil {
			return err
		}
		f.Arity, f.CountField = payload.CountFromField, name
	case p.Flags&PropertyParamFixedCount != 0 || p.Count > 1:
		f.Arity, f.Count = payload.FixedCount, p.Count
	}
	if p.Flags&PropertyStruct != 0 {
		start, n := int(p.StructStart), int(p.StructMembers)
		if start+n > len(props) {
			return malformed(eventInfo, propertyOffset(i)+8, "property %d: struct members %d to %d of %d properties", i, start, start+n, len(props))
		}
		if n == 0 {
			return malformed(eventInfo, propertyOffset(i)+0xA, "property %d: struct without members", i)
		}
		members, err := c.fields(start, n, depth+1)
		if err != nil {
			return err
		}
		f.InType, f.Members = payload.InStruct, members
		return nil
	}
	if p.InType == payload.InStruct || !p.InType.Valid() {
		return malformed(eventInfo, propertyOffset(i)+8, "property %d (%q): in-type %d", i, p.Name, uint16(p.InType))
	}
	f.InType, f.OutType = p.InType, p.OutType
	if p.Flags&PropertyHasCustomSchema != 0 {
		f.Arity, f.CustomSchema = payload.Custom, p.CustomSchema
		return nil
	}
	switch {
	case p.Flags&PropertyParamLength != 0:
		name, err := c.ref(i, p.Length, 0x12, "length")
		if err != nil {
			return err
		}
		f.LengthField = name
	case takesLength(p.InType):
		// TDH fills Length with the element size of fixed-size types; only
		// strings and binary fields read it.
		f.Length, f.FixedLength = p.Length, p.Flags&PropertyParamFixedLength != 0
	}
	if p.MapName != "" && c.maps != nil {
		f.Map = c.maps(p.MapName)
	}
	return nil
}

// takesLength reports whether a field of the in-type reads Field.Length.
func takesLength(t payload.InType) bool {
	return t == payload.InUnicodeString || t == payload.InAnsiString || t == payload.InBinary
}

// ref is the name of the property that property i takes its count or
// length from. payload.NewSchema then checks that it is an earlier integer.
func (c *converter) ref(i int, index uint16, at int, what string) (string, error) {
	props := c.ei.Properties
	if int(index) >= len(props) || int(index) == i {
		return "", malformed(eventInfo, propertyOffset(i)+at, "property %d (%q): %s from property %d of %d", i, props[i].Name, what, index, len(props))
	}
	name := props[index].Name
	if name == "" {
		return "", malformed(eventInfo, propertyOffset(i)+at, "property %d (%q): %s from property %d, which has no name", i, props[i].Name, what, index)
	}
	return name, nil
}
