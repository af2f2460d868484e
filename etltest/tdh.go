package etltest

import (
	"encoding/binary"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
)

// TDH metadata as KernelTraceControl writes it into merged traces
// (manifest-formats.md §2): the payloads of MetaData/EventInfo and
// MetaData/EventMapInfo records.

// MetaDataClass is the class GUID of the MetaData records; EventInfo and
// EventMapInfo are their opcodes.
var MetaDataClass = uuid.MustParse("bbccf6c1-6cd1-48c4-80ff-839482e37671")

const (
	OpcodeEventInfo    = 32
	OpcodeEventMapInfo = 33
)

// Sizes of the fixed parts of the TDH structures.
const (
	tdhEventInfoSize    = 0x70
	tdhPropertyInfoSize = 24
	tdhMapInfoSize      = 16
	tdhMapEntrySize     = 8
	tdhMapPatternFlag   = 0x4
	tdhMapValueString   = 1
	tdhCustomSchemaFlag = 0x80
)

// EventInfo describes a TRACE_EVENT_INFO. Flags and types are TDH's
// numbers.
type EventInfo struct {
	Provider, EventGUID                    uuid.UUID
	Descriptor                             header.EventDescriptor
	DecodingSource                         uint32
	ProviderName, Level, Channel           string
	Keywords                               []string
	Task, Opcode, Message, ProviderMessage string
	EventName                              string
	Flags                                  uint32
	Properties                             []PropertyInfo
	// TopLevel is the number of top-level properties; -1 makes every
	// property top-level.
	TopLevel int
}

// PropertyInfo describes an EVENT_PROPERTY_INFO. For a struct (flag 0x1)
// InType and OutType hold the first member's index and the member count.
type PropertyInfo struct {
	Flags           uint32
	Name            string
	InType, OutType uint16
	MapName         string
	Count, Length   uint16
	Tags            uint32
	// CustomProtocol and Custom are the custom schema of a property with
	// flag 0x80.
	CustomProtocol uint16
	Custom         []byte
}

// tdhStrings lays strings out after the fixed parts and hands out offsets.
type tdhStrings struct{ b []byte }

func (t *tdhStrings) add(s string) uint32 {
	if s == "" {
		return 0
	}
	off := uint32(len(t.b))
	t.b = header.AppendUTF16(t.b, s, true)
	return off
}

// Bytes writes the TRACE_EVENT_INFO as TDH lays it out: the fixed part,
// the property array, then the strings.
func (in *EventInfo) Bytes() []byte {
	fixed := tdhEventInfoSize + len(in.Properties)*tdhPropertyInfoSize
	t := &tdhStrings{b: make([]byte, fixed)}
	b := t.b
	copy(b, guid.AppendWindows(nil, in.Provider))
	copy(b[0x10:], guid.AppendWindows(nil, in.EventGUID))
	appendDescriptor(b[0x20:0x20], &in.Descriptor) // in place: b has the room
	le.PutUint32(b[0x30:], in.DecodingSource)
	le.PutUint32(b[0x64:], uint32(len(in.Properties)))
	top := in.TopLevel
	if top < 0 {
		top = len(in.Properties)
	}
	le.PutUint32(b[0x68:], uint32(top))
	le.PutUint32(b[0x6C:], in.Flags)
	offs := map[int]uint32{
		0x34: t.add(in.ProviderName), 0x38: t.add(in.Level), 0x3C: t.add(in.Channel),
		0x44: t.add(in.Task), 0x48: t.add(in.Opcode), 0x4C: t.add(in.Message),
		0x50: t.add(in.ProviderMessage), 0x5C: t.add(in.EventName),
	}
	if len(in.Keywords) > 0 {
		offs[0x40] = uint32(len(t.b))
		for _, k := range in.Keywords {
			t.add(k)
		}
		t.b = append(t.b, 0, 0)
	}
	names := make([]uint32, len(in.Properties))
	extra := make([]uint32, len(in.Properties))
	for i, p := range in.Properties {
		names[i] = t.add(p.Name)
		if p.Flags&tdhCustomSchemaFlag != 0 {
			extra[i] = uint32(len(t.b))
			t.b = le.AppendUint16(t.b, p.CustomProtocol)
			t.b = le.AppendUint16(t.b, uint16(len(p.Custom)))
			t.b = append(t.b, p.Custom...)
		} else {
			extra[i] = t.add(p.MapName)
		}
	}
	b = t.b
	for at, off := range offs {
		le.PutUint32(b[at:], off)
	}
	for i, p := range in.Properties {
		e := b[tdhEventInfoSize+i*tdhPropertyInfoSize:]
		le.PutUint32(e, p.Flags)
		le.PutUint32(e[4:], names[i])
		le.PutUint16(e[8:], p.InType)
		le.PutUint16(e[0xA:], p.OutType)
		le.PutUint32(e[0xC:], extra[i])
		le.PutUint16(e[0x10:], p.Count)
		le.PutUint16(e[0x12:], p.Length)
		le.PutUint32(e[0x14:], p.Tags)
	}
	return b
}

// MapInfo describes an EVENT_MAP_INFO.
type MapInfo struct {
	Name      string
	Flags     uint32 // MAP_FLAGS
	ValueType uint32 // 0 numbers, 1 strings
	Format    string // a pattern map's
	Entries   []MapEntry
}

// MapEntry is one entry: Value for number maps, Input for string and
// pattern maps.
type MapEntry struct {
	Value  uint32
	Input  string
	Output string
}

// Bytes writes the EVENT_MAP_INFO.
func (m *MapInfo) Bytes() []byte {
	t := &tdhStrings{b: make([]byte, tdhMapInfoSize+len(m.Entries)*tdhMapEntrySize)}
	nameOff := t.add(m.Name)
	fmtOff := t.add(m.Format)
	byString := m.ValueType == tdhMapValueString || m.Flags&tdhMapPatternFlag != 0
	outs := make([]uint32, len(m.Entries))
	ins := make([]uint32, len(m.Entries))
	for i, e := range m.Entries {
		outs[i] = t.add(e.Output)
		if byString {
			ins[i] = t.add(e.Input)
		} else {
			ins[i] = e.Value
		}
	}
	b := t.b
	le.PutUint32(b, nameOff)
	le.PutUint32(b[4:], m.Flags)
	le.PutUint32(b[8:], uint32(len(m.Entries)))
	if m.Flags&tdhMapPatternFlag != 0 {
		le.PutUint32(b[0xC:], fmtOff)
	} else {
		le.PutUint32(b[0xC:], m.ValueType)
	}
	for i := range m.Entries {
		at := tdhMapInfoSize + i*tdhMapEntrySize
		le.PutUint32(b[at:], outs[i])
		le.PutUint32(b[at+4:], ins[i])
	}
	return b
}

// EventMapInfoPayload is an EventMapInfo record's payload: the provider's
// GUID, then the EVENT_MAP_INFO.
func EventMapInfoPayload(provider uuid.UUID, m *MapInfo) []byte {
	return append(guid.AppendWindows(nil, provider), m.Bytes()...)
}

// ManifestChunk is the user data of an EventSource manifest event: the
// 8-byte envelope (XML format 1, version 1.0, magic 0x5B), then the chunk.
func ManifestChunk(total, number uint16, chunk []byte) []byte {
	b := []byte{1, 1, 0, 0x5B}
	b = binary.LittleEndian.AppendUint16(b, total)
	b = binary.LittleEndian.AppendUint16(b, number)
	return append(b, chunk...)
}

// ManifestDescriptor is the descriptor EventSource gives its manifest
// events.
var ManifestDescriptor = header.EventDescriptor{Id: 0xFFFE, Version: 1, Opcode: 0xFE, Task: 0xFFFE, Keyword: 0x00FFFFFFFFFFFFFF}
