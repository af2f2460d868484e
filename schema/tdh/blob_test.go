package tdh_test

import (
	"encoding/binary"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/schema/tdh"
)

// info describes a TRACE_EVENT_INFO for eventInfoBlob to write.
type info struct {
	provider, event                        uuid.UUID
	desc                                   header.EventDescriptor
	source                                 tdh.DecodingSource
	providerName, level, channel           string
	keywords                               []string
	task, opcode, message, providerMessage string
	eventName                              string
	flags                                  tdh.TemplateFlags
	props                                  []prop
	top                                    int // -1: every property is top-level
}

// prop describes an EVENT_PROPERTY_INFO.
type prop struct {
	flags         tdh.PropertyFlags
	name          string
	in, out       uint16 // or struct start and member count
	mapName       string
	count, length uint16
	tags          uint32
	customProto   uint16
	custom        []byte
}

// strTab lays strings out after the fixed parts and hands out offsets.
type strTab struct {
	b []byte
}

func (t *strTab) add(s string) uint32 {
	if s == "" {
		return 0
	}
	off := uint32(len(t.b))
	for _, u := range utf16.Encode([]rune(s)) {
		t.b = binary.LittleEndian.AppendUint16(t.b, u)
	}
	t.b = append(t.b, 0, 0)
	return off
}

func putGUID(b []byte, g uuid.UUID) {
	binary.LittleEndian.PutUint32(b, binary.BigEndian.Uint32(g[0:]))
	binary.LittleEndian.PutUint16(b[4:], binary.BigEndian.Uint16(g[4:]))
	binary.LittleEndian.PutUint16(b[6:], binary.BigEndian.Uint16(g[6:]))
	copy(b[8:], g[8:])
}

func putDescriptor(b []byte, d header.EventDescriptor) {
	le := binary.LittleEndian
	le.PutUint16(b, d.Id)
	b[2], b[3], b[4], b[5] = d.Version, d.Channel, d.Level, d.Opcode
	le.PutUint16(b[6:], d.Task)
	le.PutUint64(b[8:], d.Keyword)
}

// eventInfoBlob writes a TRACE_EVENT_INFO as TDH lays it out: the fixed
// part, the property array, then the strings.
func eventInfoBlob(in info) []byte {
	le := binary.LittleEndian
	fixed := tdh.EventInfoSize + len(in.props)*tdh.PropertyInfoSize
	t := &strTab{b: make([]byte, fixed)}
	b := t.b
	putGUID(b, in.provider)
	putGUID(b[0x10:], in.event)
	putDescriptor(b[0x20:], in.desc)
	le.PutUint32(b[0x30:], uint32(in.source))
	le.PutUint32(b[0x64:], uint32(len(in.props)))
	top := in.top
	if top < 0 {
		top = len(in.props)
	}
	le.PutUint32(b[0x68:], uint32(top))
	le.PutUint32(b[0x6C:], uint32(in.flags))
	offs := map[int]uint32{
		0x34: t.add(in.providerName), 0x38: t.add(in.level), 0x3C: t.add(in.channel),
		0x44: t.add(in.task), 0x48: t.add(in.opcode), 0x4C: t.add(in.message),
		0x50: t.add(in.providerMessage), 0x5C: t.add(in.eventName),
	}
	if len(in.keywords) > 0 {
		offs[0x40] = uint32(len(t.b))
		for _, k := range in.keywords {
			t.add(k)
		}
		t.b = append(t.b, 0, 0)
	}
	type propOffs struct{ name, mapOrCustom uint32 }
	po := make([]propOffs, len(in.props))
	for i, p := range in.props {
		po[i].name = t.add(p.name)
		switch {
		case p.flags&tdh.PropertyHasCustomSchema != 0:
			po[i].mapOrCustom = uint32(len(t.b))
			t.b = le.AppendUint16(t.b, p.customProto)
			t.b = le.AppendUint16(t.b, uint16(len(p.custom)))
			t.b = append(t.b, p.custom...)
		default:
			po[i].mapOrCustom = t.add(p.mapName)
		}
	}
	b = t.b
	for at, off := range offs {
		le.PutUint32(b[at:], off)
	}
	for i, p := range in.props {
		e := b[tdh.EventInfoSize+i*tdh.PropertyInfoSize:]
		le.PutUint32(e, uint32(p.flags))
		le.PutUint32(e[4:], po[i].name)
		le.PutUint16(e[8:], p.in)
		le.PutUint16(e[0xA:], p.out)
		le.PutUint32(e[0xC:], po[i].mapOrCustom)
		le.PutUint16(e[0x10:], p.count)
		le.PutUint16(e[0x12:], p.length)
		le.PutUint32(e[0x14:], p.tags)
	}
	return b
}

// mapEntry is one entry for mapInfoBlob.
type mapEntry struct {
	value  uint32
	input  string
	output string
}

// mapInfoBlob writes an EVENT_MAP_INFO; withProvider puts the provider GUID
// of an EventMapInfo record in front.
func mapInfoBlob(provider *uuid.UUID, name string, flags tdh.MapFlags, valueType tdh.MapValueType, format string, entries []mapEntry) []byte {
	le := binary.LittleEndian
	t := &strTab{b: make([]byte, tdh.MapInfoSize+len(entries)*tdh.MapEntrySize)}
	nameOff := t.add(name)
	fmtOff := t.add(format)
	outs := make([]uint32, len(entries))
	ins := make([]uint32, len(entries))
	for i, e := range entries {
		outs[i] = t.add(e.output)
		ins[i] = t.add(e.input)
	}
	b := t.b
	le.PutUint32(b, nameOff)
	le.PutUint32(b[4:], uint32(flags))
	le.PutUint32(b[8:], uint32(len(entries)))
	if flags&tdh.MapManifestPatternMap != 0 {
		le.PutUint32(b[0xC:], fmtOff)
	} else {
		le.PutUint32(b[0xC:], uint32(valueType))
	}
	for i, e := range entries {
		at := tdh.MapInfoSize + i*tdh.MapEntrySize
		le.PutUint32(b[at:], outs[i])
		if valueType == tdh.MapValueString || flags&tdh.MapManifestPatternMap != 0 {
			le.PutUint32(b[at+4:], ins[i])
		} else {
			le.PutUint32(b[at+4:], e.value)
		}
	}
	if provider == nil {
		return b
	}
	out := make([]byte, 16, 16+len(b))
	putGUID(out, *provider)
	return append(out, b...)
}
