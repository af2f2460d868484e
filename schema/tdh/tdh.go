// Package tdh reads the TDH event descriptions that merged traces carry:
// the TRACE_EVENT_INFO and EVENT_MAP_INFO blobs that KernelTraceControl
// puts in its MetaData/EventInfo and MetaData/EventMapInfo records when
// xperf or PerfView merges a trace (manifest-formats.md §2,
// kernel-events.md §19.6 and §20). It turns them into schema.Events with a
// payload.Schema each, and into payload.Maps.
//
// The structures hold no pointers, so their layout is the same for 32-bit
// and 64-bit producers. Every offset in them counts from the start of the
// structure (the TRACE_EVENT_INFO, or the EVENT_MAP_INFO after the
// EventMapInfo record's provider GUID) and is checked before it is read.
package tdh

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
)

// Sizes of the fixed parts.
const (
	EventInfoSize    = 0x70 // TRACE_EVENT_INFO before its property array
	PropertyInfoSize = 24   // EVENT_PROPERTY_INFO
	MapInfoSize      = 16   // EVENT_MAP_INFO before its entries
	MapEntrySize     = 8    // EVENT_MAP_ENTRY
	// EventMapInfoPrefix is the provider GUID that comes before the
	// EVENT_MAP_INFO in an EventMapInfo record.
	EventMapInfoPrefix = 16
)

// DecodingSource says which kind of schema TDH described the event from.
type DecodingSource uint32

const (
	SourceXMLFile      DecodingSource = 0 // an instrumentation manifest
	SourceWbem         DecodingSource = 1 // a MOF class (classic event)
	SourceWPP          DecodingSource = 2
	SourceTraceLogging DecodingSource = 3
)

func (s DecodingSource) String() string {
	switch s {
	case SourceXMLFile:
		return "XMLFile"
	case SourceWbem:
		return "Wbem"
	case SourceWPP:
		return "WPP"
	case SourceTraceLogging:
		return "Tlg"
	}
	return fmt.Sprintf("DecodingSource(%d)", uint32(s))
}

// TemplateFlags are TRACE_EVENT_INFO.Flags (TEMPLATE_FLAGS).
type TemplateFlags uint32

const (
	TemplateEventData   TemplateFlags = 0x1
	TemplateUserData    TemplateFlags = 0x2
	TemplateControlGUID TemplateFlags = 0x4
)

// PropertyFlags are EVENT_PROPERTY_INFO.Flags (PROPERTY_FLAGS).
type PropertyFlags uint32

const (
	PropertyStruct           PropertyFlags = 0x1  // the struct view: StructStart, StructMembers
	PropertyParamLength      PropertyFlags = 0x2  // Length is the index of the property holding the length
	PropertyParamCount       PropertyFlags = 0x4  // Count is the index of the property holding the count
	PropertyWBEMXMLFragment  PropertyFlags = 0x8  // MOF XMLFragment qualifier
	PropertyParamFixedLength PropertyFlags = 0x10 // Length is fixed, even when 0
	PropertyParamFixedCount  PropertyFlags = 0x20 // Count is fixed: an array even of one element
	PropertyHasTags          PropertyFlags = 0x40 // Tags is valid
	PropertyHasCustomSchema  PropertyFlags = 0x80 // the custom-schema view
)

// MapFlags are EVENT_MAP_INFO.Flag (MAP_FLAGS).
type MapFlags uint32

const (
	MapManifestValueMap   MapFlags = 0x1
	MapManifestBitMap     MapFlags = 0x2
	MapManifestPatternMap MapFlags = 0x4
	MapWBEMValueMap       MapFlags = 0x8
	MapWBEMBitMap         MapFlags = 0x10
	MapWBEMFlag           MapFlags = 0x20
	MapWBEMNoMap          MapFlags = 0x40
)

// MapValueType is EVENT_MAP_INFO.MapEntryValueType.
type MapValueType uint32

const (
	MapValueULong  MapValueType = 0 // entries map numbers to names
	MapValueString MapValueType = 1 // entries map strings to names
)

// FormatError reports a blob that cannot be what it claims to be. Offset
// counts from the start of the structure named by Struct.
type FormatError struct {
	Struct string // "TRACE_EVENT_INFO", "EVENT_PROPERTY_INFO[3]", "EVENT_MAP_INFO", …
	Offset int
	Reason string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s at offset 0x%x: %s", e.Struct, e.Offset, e.Reason)
}

// Unwrap makes a FormatError match buffer.ErrMalformed.
func (e *FormatError) Unwrap() error { return buffer.ErrMalformed }

func malformed(st string, off int, format string, args ...any) error {
	return &FormatError{Struct: st, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// EventInfo is a TRACE_EVENT_INFO: one event's names and property list.
// Its strings and slices are copies; it does not refer to the blob.
type EventInfo struct {
	ProviderGUID uuid.UUID
	// EventGUID is the MOF class GUID of a Wbem event; for manifest events
	// the task's event GUID or GUID_NULL.
	EventGUID      uuid.UUID
	Descriptor     header.EventDescriptor
	DecodingSource DecodingSource

	ProviderName, LevelName, ChannelName string
	Keywords                             []string
	// TaskName is a Tlg event's name and a MOF class's display name;
	// OpcodeName a MOF event type's name.
	TaskName, OpcodeName          string
	EventMessage, ProviderMessage string
	// EventName is the manifest's name attribute (Windows 10 1709 and
	// later), "" when absent; for Wbem events the union holds the
	// activity-id property's name instead, kept in ActivityIDName.
	EventName                             string
	EventAttributes                       string
	ActivityIDName, RelatedActivityIDName string

	Flags TemplateFlags
	// Properties holds every property, struct members included; the first
	// TopLevel of them are the top-level ones.
	Properties []PropertyInfo
	TopLevel   int
}

// PropertyInfo is an EVENT_PROPERTY_INFO.
type PropertyInfo struct {
	Flags PropertyFlags
	Name  string
	// InType and OutType, for properties that are not structs.
	InType  payload.InType
	OutType payload.OutType
	// StructStart and StructMembers, for structs: the index of the first
	// member in the property array, and the number of members.
	StructStart, StructMembers uint16
	MapName                    string
	// Count and Length are constants, or with PropertyParamCount and
	// PropertyParamLength the indexes of the properties that hold them.
	Count, Length uint16
	Tags          uint32 // valid with PropertyHasTags
	// CustomSchemaProtocol and CustomSchema describe a custom-schema
	// property (PropertyHasCustomSchema).
	CustomSchemaProtocol uint16
	CustomSchema         []byte
}

// Offsets of the TRACE_EVENT_INFO fields.
const (
	offEventGUID        = 0x10
	offDescriptor       = 0x20
	offDecodingSource   = 0x30
	offProviderName     = 0x34
	offLevelName        = 0x38
	offChannelName      = 0x3C
	offKeywordsName     = 0x40
	offTaskName         = 0x44
	offOpcodeName       = 0x48
	offEventMessage     = 0x4C
	offProviderMessage  = 0x50
	offEventName        = 0x5C
	offEventAttributes  = 0x60
	offPropertyCount    = 0x64
	offTopLevelCount    = 0x68
	offFlags            = 0x6C
	maxKeywordNames     = 64 // a keyword mask has 64 bits
	customSchemaHdrSize = 4
)

const eventInfo = "TRACE_EVENT_INFO"

// ParseEventInfo reads the TRACE_EVENT_INFO at the start of b (the whole
// payload of an EventInfo record).
func ParseEventInfo(b []byte) (*EventInfo, error) {
	if len(b) < EventInfoSize {
		return nil, malformed(eventInfo, 0, "%d bytes, shorter than its %d-byte fixed part", len(b), EventInfoSize)
	}
	le := binary.LittleEndian
	ei := &EventInfo{
		ProviderGUID:   guid.FromWindows(b),
		EventGUID:      guid.FromWindows(b[offEventGUID:]),
		Descriptor:     header.ParseEventDescriptor(b[offDescriptor:]),
		DecodingSource: DecodingSource(le.Uint32(b[offDecodingSource:])),
		Flags:          TemplateFlags(le.Uint32(b[offFlags:])),
	}
	count := le.Uint32(b[offPropertyCount:])
	top := le.Uint32(b[offTopLevelCount:])
	if uint64(count) > uint64(len(b)-EventInfoSize)/PropertyInfoSize {
		return nil, malformed(eventInfo, offPropertyCount, "%d properties do not fit in %d bytes", count, len(b))
	}
	if top > count {
		return nil, malformed(eventInfo, offTopLevelCount, "%d top-level properties of %d", top, count)
	}
	ei.TopLevel = int(top)
	strs := [...]struct {
		off  int
		what string
		dst  *string
	}{
		{offProviderName, "provider name", &ei.ProviderName},
		{offLevelName, "level name", &ei.LevelName},
		{offChannelName, "channel name", &ei.ChannelName},
		{offTaskName, "task name", &ei.TaskName},
		{offOpcodeName, "opcode name", &ei.OpcodeName},
		{offEventMessage, "event message", &ei.EventMessage},
		{offProviderMessage, "provider message", &ei.ProviderMessage},
		{offEventName, "event name", &ei.EventName},
		{offEventAttributes, "event attributes", &ei.EventAttributes},
	}
	for _, s := range strs {
		v, err := stringAt(b, le.Uint32(b[s.off:]), eventInfo, s.off, s.what)
		if err != nil {
			return nil, err
		}
		*s.dst = v
	}
	if ei.DecodingSource == SourceWbem {
		ei.ActivityIDName, ei.RelatedActivityIDName = ei.EventName, ei.EventAttributes
		ei.EventName, ei.EventAttributes = "", ""
	}
	kw, err := stringListAt(b, le.Uint32(b[offKeywordsName:]), eventInfo, offKeywordsName, "keyword names")
	if err != nil {
		return nil, err
	}
	ei.Keywords = kw
	if count > 0 {
		ei.Properties = make([]PropertyInfo, count)
	}
	for i := range ei.Properties {
		if err := parseProperty(b, EventInfoSize+i*PropertyInfoSize, i, &ei.Properties[i]); err != nil {
			return nil, err
		}
	}
	return ei, nil
}

func parseProperty(b []byte, at, index int, p *PropertyInfo) error {
	le := binary.LittleEndian
	e := b[at : at+PropertyInfoSize]
	p.Flags = PropertyFlags(le.Uint32(e))
	p.Count = le.Uint16(e[0x10:])
	p.Length = le.Uint16(e[0x12:])
	if p.Flags&PropertyHasTags != 0 {
		p.Tags = le.Uint32(e[0x14:]) & 0x0FFFFFFF
	}
	var err error
	if p.Name, err = stringAt(b, le.Uint32(e[4:]), eventInfo, at+4, "property name"); err != nil {
		return err
	}
	if p.Flags&PropertyStruct != 0 {
		p.StructStart, p.StructMembers = le.Uint16(e[8:]), le.Uint16(e[0xA:])
		return nil
	}
	p.InType, p.OutType = payload.InType(le.Uint16(e[8:])), payload.OutType(le.Uint16(e[0xA:]))
	off := le.Uint32(e[0xC:])
	if p.Flags&PropertyHasCustomSchema == 0 {
		p.MapName, err = stringAt(b, off, eventInfo, at+0xC, "property map name")
		return err
	}
	if off == 0 {
		return nil
	}
	if uint64(off)+customSchemaHdrSize > uint64(len(b)) {
		return malformed(eventInfo, at+0xC, "property %d's custom schema offset 0x%x is past the blob's %d bytes", index, off, len(b))
	}
	p.CustomSchemaProtocol = le.Uint16(b[off:])
	n := int(le.Uint16(b[off+2:]))
	start := int(off) + customSchemaHdrSize
	if n > len(b)-start {
		return malformed(eventInfo, at+0xC, "property %d's custom schema of %d bytes at 0x%x runs past the blob's %d bytes", index, n, off, len(b))
	}
	p.CustomSchema = append([]byte(nil), b[start:start+n]...)
	return nil
}

// stringAt reads the NUL-terminated UTF-16LE string at off; 0 means none.
// The error names the structure, the offset field (at) and what it is.
func stringAt(b []byte, off uint32, st string, at int, what string) (string, error) {
	if off == 0 {
		return "", nil
	}
	s, _, err := stringFrom(b, off, st, at, what)
	return s, err
}

// stringFrom reads the string at off and returns the offset after its NUL.
func stringFrom(b []byte, off uint32, st string, at int, what string) (string, int, error) {
	if uint64(off) >= uint64(len(b)) {
		return "", 0, malformed(st, at, "%s offset 0x%x is past the blob's %d bytes", what, off, len(b))
	}
	start := int(off)
	for i := start; i+1 < len(b); i += 2 {
		if b[i] == 0 && b[i+1] == 0 {
			return decodeUTF16(b[start:i]), i + 2, nil
		}
	}
	return "", 0, malformed(st, at, "%s at 0x%x has no NUL before the blob's end", what, off)
}

// stringListAt reads the list of NUL-terminated strings at off that an
// empty string (or the blob's end) closes.
func stringListAt(b []byte, off uint32, st string, at int, what string) ([]string, error) {
	if off == 0 {
		return nil, nil
	}
	var out []string
	for len(out) < maxKeywordNames {
		if int(off) >= len(b)-1 && len(out) > 0 {
			break
		}
		s, next, err := stringFrom(b, off, st, at, what)
		if err != nil {
			return nil, err
		}
		if s == "" {
			break
		}
		out = append(out, s)
		off = uint32(next)
	}
	return out, nil
}

func decodeUTF16(b []byte) string {
	ascii := true
	for i := 0; i < len(b); i += 2 {
		if b[i+1] != 0 || b[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		s := make([]byte, len(b)/2)
		for i := range s {
			s[i] = b[2*i]
		}
		return string(s)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

// MapInfo is an EVENT_MAP_INFO: the names of a property's values.
type MapInfo struct {
	Name      string
	Flags     MapFlags
	ValueType MapValueType
	// Format is a pattern map's format string.
	Format  string
	Entries []MapEntry
}

// MapEntry is an EVENT_MAP_ENTRY. Value holds the number of a ULONG map;
// Input the input string of a pattern map or a string map.
type MapEntry struct {
	Value  uint32
	Input  string
	Output string
}

const mapInfo = "EVENT_MAP_INFO"

// ParseMapInfo reads the EVENT_MAP_INFO at the start of b.
func ParseMapInfo(b []byte) (*MapInfo, error) {
	if len(b) < MapInfoSize {
		return nil, malformed(mapInfo, 0, "%d bytes, shorter than its %d-byte fixed part", len(b), MapInfoSize)
	}
	le := binary.LittleEndian
	m := &MapInfo{Flags: MapFlags(le.Uint32(b[4:]))}
	var err error
	if m.Name, err = stringAt(b, le.Uint32(b), mapInfo, 0, "name"); err != nil {
		return nil, err
	}
	n := le.Uint32(b[8:])
	if uint64(n) > uint64(len(b)-MapInfoSize)/MapEntrySize {
		return nil, malformed(mapInfo, 8, "%d entries do not fit in %d bytes", n, len(b))
	}
	pattern := m.Flags&MapManifestPatternMap != 0
	if pattern {
		if m.Format, err = stringAt(b, le.Uint32(b[0xC:]), mapInfo, 0xC, "format string"); err != nil {
			return nil, err
		}
	} else {
		m.ValueType = MapValueType(le.Uint32(b[0xC:]))
	}
	byString := pattern || m.ValueType == MapValueString
	if n > 0 {
		m.Entries = make([]MapEntry, n)
	}
	for i := range m.Entries {
		at := MapInfoSize + i*MapEntrySize
		e := &m.Entries[i]
		if e.Output, err = stringAt(b, le.Uint32(b[at:]), mapInfo, at, "entry output"); err != nil {
			return nil, err
		}
		v := le.Uint32(b[at+4:])
		if byString {
			if e.Input, err = stringAt(b, v, mapInfo, at+4, "entry input"); err != nil {
				return nil, err
			}
		} else {
			e.Value = v
		}
	}
	return m, nil
}

// ParseEventMapInfo reads the payload of an EventMapInfo record: the
// provider's GUID, then an EVENT_MAP_INFO.
func ParseEventMapInfo(b []byte) (uuid.UUID, *MapInfo, error) {
	if len(b) < EventMapInfoPrefix {
		return uuid.Nil, nil, malformed("EventMapInfo", 0, "%d bytes, shorter than its %d-byte provider GUID", len(b), EventMapInfoPrefix)
	}
	m, err := ParseMapInfo(b[EventMapInfoPrefix:])
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			// Say where in the record payload, as a reader of the record
			// would count.
			fe.Offset += EventMapInfoPrefix
			fe.Struct = "EventMapInfo " + fe.Struct + " (offsets from the record payload)"
		}
		return uuid.Nil, nil, err
	}
	return guid.FromWindows(b), m, nil
}

// Bits reports whether the map names single bits rather than whole values.
func (m *MapInfo) Bits() bool {
	return m.Flags&(MapManifestBitMap|MapWBEMBitMap|MapWBEMFlag) != 0
}

// Map returns the map as a payload.Map, or false for maps that do not name
// numbers (pattern maps, string maps, WBEM "no map").
func (m *MapInfo) Map() (*payload.Map, bool) {
	if m.Flags&(MapManifestPatternMap|MapWBEMNoMap) != 0 || m.ValueType != MapValueULong {
		return nil, false
	}
	entries := make([]payload.MapEntry, len(m.Entries))
	for i, e := range m.Entries {
		entries[i] = payload.MapEntry{Value: uint64(e.Value), Name: e.Output}
	}
	return payload.NewMap(m.Name, m.Bits(), entries), true
}
