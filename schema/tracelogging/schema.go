// Package tracelogging reads TraceLogging (self-describing) event metadata:
// the blob carried in the EVENT_SCHEMA_TL extended data item. It turns the
// blob into a payload.Schema, so that the payload it describes decodes and
// renders as every other event's does.
//
// The metadata encoding is the one documented in Microsoft's
// TraceLoggingDynamic.h. Cache.SchemaOf finds and parses a record's schema;
// package describe uses it beside the other schema sources.
package tracelogging

import (
	"encoding/binary"
	"fmt"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/payload"
)

// Wire in-types of the metadata encoding (TlgIn*). They are TDH's numbers,
// except that 14 (Binary) carries a u16 byte count in the payload, and 24
// is a struct.
const (
	wireBinary    = 14
	wireStruct    = 24
	wireTypeLimit = 26
)

// Wire out-types (TlgOut*) where they differ from TDH's numbering; from
// 0x21 on the two agree.
const (
	wireOutNoPrint       = 0x01
	wireOutString        = 0x02
	wireOutBoolean       = 0x03
	wireOutHex           = 0x04
	wireOutPid           = 0x05
	wireOutTid           = 0x06
	wireOutPort          = 0x07
	wireOutIPv4          = 0x08
	wireOutIPv6          = 0x09
	wireOutSocketAddress = 0x0A
	wireOutXML           = 0x0B
	wireOutJSON          = 0x0C
	wireOutWin32Error    = 0x0D
	wireOutNTStatus      = 0x0E
	wireOutHResult       = 0x0F
	wireOutFileTime      = 0x10
	wireOutSigned        = 0x11
	wireOutUnsigned      = 0x12
	wireOutFirstTDH      = 0x21
)

// InMeta bits: the in-type, the arity, and whether an OutMeta byte follows.
const (
	inTypeMask  = 0x1F
	arityMask   = 0x60
	chainFlag   = 0x80
	outTypeMask = 0x7F
)

// Wire arities (InMeta bits 0x60).
const (
	wireScalar     = 0x00
	wireFixedArray = 0x20 // a u16 count in the metadata
	wireVarArray   = 0x40 // a u16 count before the values in the payload
	wireCustom     = 0x60 // a u16 byte count, then bytes a custom schema describes
)

// outType translates the wire out-type of a field of in-type in to the
// model's. Hex, signed and unsigned take the width of the in-type;
// out-types the model does not know are left to the in-type.
func outType(out uint8, in payload.InType) payload.OutType {
	var width int
	switch in {
	case payload.InInt8, payload.InUInt8:
		width = 1
	case payload.InInt16, payload.InUInt16:
		width = 2
	case payload.InInt32, payload.InUInt32, payload.InHexInt32:
		width = 4
	default:
		width = 8
	}
	pick := func(t1, t2, t4, t8 payload.OutType) payload.OutType {
		switch width {
		case 1:
			return t1
		case 2:
			return t2
		case 4:
			return t4
		}
		return t8
	}
	switch out {
	case wireOutNoPrint:
		return payload.OutNoPrint
	case wireOutString:
		return payload.OutString
	case wireOutBoolean:
		return payload.OutBoolean
	case wireOutHex:
		return pick(payload.OutHexInt8, payload.OutHexInt16, payload.OutHexInt32, payload.OutHexInt64)
	case wireOutPid:
		return payload.OutPID
	case wireOutTid:
		return payload.OutTID
	case wireOutPort:
		return payload.OutPort
	case wireOutIPv4:
		return payload.OutIPv4
	case wireOutIPv6:
		return payload.OutIPv6
	case wireOutSocketAddress:
		return payload.OutSocketAddress
	case wireOutXML:
		return payload.OutXML
	case wireOutJSON:
		return payload.OutJSON
	case wireOutWin32Error:
		return payload.OutWin32Error
	case wireOutNTStatus:
		return payload.OutNTStatus
	case wireOutHResult:
		return payload.OutHResult
	case wireOutFileTime:
		return payload.OutDateTime
	case wireOutSigned:
		return pick(payload.OutByte, payload.OutShort, payload.OutInt, payload.OutLong)
	case wireOutUnsigned:
		return pick(payload.OutUnsignedByte, payload.OutUnsignedShort, payload.OutUnsignedInt, payload.OutUnsignedLong)
	}
	if out >= wireOutFirstTDH && payload.OutType(out) <= payload.OutDateTimeUTC {
		return payload.OutType(out)
	}
	return payload.OutDefault
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: tracelogging metadata: %s", buffer.ErrMalformed, fmt.Sprintf(format, args...))
}

// ParseSchema parses an EVENT_SCHEMA_TL blob. Bytes after the blob's own
// Size (the extended item's alignment padding) are ignored. The result owns
// its memory and does not refer to b.
func ParseSchema(b []byte) (*payload.Schema, error) {
	if len(b) < 2 {
		return nil, malformed("%d bytes, want at least 2", len(b))
	}
	size := int(binary.LittleEndian.Uint16(b))
	if size > len(b) {
		return nil, fmt.Errorf("%w: tracelogging metadata: size %d, only %d bytes", buffer.ErrTruncated, size, len(b))
	}
	p := parser{b: b[:size], pos: 2}
	tags, err := p.tags("event tags")
	if err != nil {
		return nil, err
	}
	name, err := p.cstr("event name")
	if err != nil {
		return nil, err
	}
	var fields []payload.Field
	for p.pos < len(p.b) {
		f, err := p.field(0)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	s, err := payload.NewSchema(name, fields)
	if err != nil {
		return nil, malformed("%v", err)
	}
	s.Tags = tags
	return s, nil
}

type parser struct {
	b      []byte
	pos    int
	fields int
}

func (p *parser) cstr(what string) (string, error) {
	for i := p.pos; i < len(p.b); i++ {
		if p.b[i] == 0 {
			s := string(p.b[p.pos:i])
			p.pos = i + 1
			return s, nil
		}
	}
	return "", malformed("%s at offset %d has no NUL before the end of the metadata", what, p.pos)
}

func (p *parser) u8(what string) (uint8, error) {
	if p.pos >= len(p.b) {
		return 0, malformed("%s: metadata ends at offset %d", what, p.pos)
	}
	c := p.b[p.pos]
	p.pos++
	return c, nil
}

func (p *parser) u16(what string) (uint16, error) {
	if p.pos+2 > len(p.b) {
		return 0, malformed("%s: metadata ends at offset %d", what, p.pos)
	}
	v := binary.LittleEndian.Uint16(p.b[p.pos:])
	p.pos += 2
	return v, nil
}

// tags reads the TraceLogging tag encoding: 7 bits per byte, most
// significant group first, 0x80 meaning another byte follows. The writer
// drops trailing all-zero groups, so the groups are left-aligned in the 28
// bits: a single byte holds bits 27..21.
func (p *parser) tags(what string) (uint32, error) {
	var v uint32
	for i := 0; ; i++ {
		c, err := p.u8(what)
		if err != nil {
			return 0, err
		}
		if i == 4 {
			return 0, malformed("%s at offset %d run past 4 bytes", what, p.pos-5)
		}
		v |= uint32(c&0x7F) << (21 - 7*i)
		if c&0x80 == 0 {
			return v, nil
		}
	}
}

func (p *parser) field(depth int) (payload.Field, error) {
	var f payload.Field
	start := p.pos
	p.fields++
	if p.fields > payload.MaxFields {
		return f, malformed("more than %d fields", payload.MaxFields)
	}
	var err error
	if f.Name, err = p.cstr("field name"); err != nil {
		return f, err
	}
	in, err := p.u8("InMeta of field " + f.Name)
	if err != nil {
		return f, err
	}
	wireIn := in & inTypeMask
	arity := in & arityMask
	if wireIn == 0 || wireIn >= wireTypeLimit {
		return f, malformed("field %q at offset %d has unknown InType %d", f.Name, start, wireIn)
	}
	f.InType = payload.InType(wireIn)
	var out uint8
	hasOut := in&chainFlag != 0
	if hasOut {
		if out, err = p.u8("OutMeta of field " + f.Name); err != nil {
			return f, err
		}
		if out&chainFlag != 0 {
			if f.Tags, err = p.tags("tags of field " + f.Name); err != nil {
				return f, err
			}
		}
	}
	switch arity {
	case wireScalar:
		f.Arity = payload.Scalar
	case wireFixedArray:
		f.Arity = payload.FixedCount
		if f.Count, err = p.u16("count of field " + f.Name); err != nil {
			return f, err
		}
	case wireVarArray:
		f.Arity = payload.CountPrefixed
	case wireCustom:
		f.Arity = payload.Custom
		n, err := p.u16("custom schema size of field " + f.Name)
		if err != nil {
			return f, err
		}
		if p.pos+int(n) > len(p.b) {
			return f, malformed("custom schema of field %q (%d bytes at offset %d) runs past the metadata", f.Name, n, p.pos)
		}
		f.CustomSchema = append([]byte{}, p.b[p.pos:p.pos+int(n)]...)
		p.pos += int(n)
	}
	if wireIn != wireStruct {
		f.OutType = outType(out&outTypeMask, f.InType)
		if wireIn == wireBinary {
			// Arrays of Binary are undefined: each element would need a
			// size the encoding has no place for. A variable array of
			// Binary is accepted as one blob, since its u16 count and
			// bytes are exactly a Binary; both are the model's counted
			// binary.
			switch f.Arity {
			case payload.FixedCount:
				return f, malformed("field %q at offset %d is a fixed array of Binary", f.Name, start)
			case payload.Scalar, payload.CountPrefixed:
				f.InType, f.Arity = payload.InCountedBinary, payload.Scalar
			}
		}
		return f, nil
	}
	if !hasOut {
		return f, malformed("struct field %q at offset %d has no member count", f.Name, start)
	}
	if f.Arity == payload.Custom {
		return f, malformed("struct field %q at offset %d has a custom serializer", f.Name, start)
	}
	if depth+1 >= payload.MaxDepth {
		return f, malformed("structs nested deeper than %d at field %q", payload.MaxDepth, f.Name)
	}
	n := int(out & outTypeMask)
	f.Members = make([]payload.Field, 0, n)
	for i := 0; i < n; i++ {
		if p.pos >= len(p.b) {
			return f, malformed("struct field %q at offset %d has %d members, metadata ends after %d", f.Name, start, n, i)
		}
		m, err := p.field(depth + 1)
		if err != nil {
			return f, err
		}
		f.Members = append(f.Members, m)
	}
	return f, nil
}
