package etltest

import (
	"fmt"
	"strings"

	"github.com/etlkit/etlkit/guid"
	"github.com/google/uuid"
)

// TraceLogging field input types (TlgIn_t).
const (
	TLNull              = 0
	TLUnicodeString     = 1
	TLAnsiString        = 2
	TLInt8              = 3
	TLUInt8             = 4
	TLInt16             = 5
	TLUInt16            = 6
	TLInt32             = 7
	TLUInt32            = 8
	TLInt64             = 9
	TLUInt64            = 10
	TLFloat             = 11
	TLDouble            = 12
	TLBool32            = 13
	TLBinary            = 14
	TLGuid              = 15
	TLPointer           = 16
	TLFileTime          = 17
	TLSystemTime        = 18
	TLSid               = 19
	TLHexInt32          = 20
	TLHexInt64          = 21
	TLCountedString     = 22
	TLCountedAnsiString = 23
	TLStruct            = 24
	TLCountedBinary     = 25
)

// A few TraceLogging output types (TlgOut_t).
const (
	TLOutDefault    = 0x00
	TLOutNoPrint    = 0x01
	TLOutString     = 0x02
	TLOutBoolean    = 0x03
	TLOutHex        = 0x04
	TLOutPid        = 0x05
	TLOutTid        = 0x06
	TLOutPort       = 0x07
	TLOutIPv4       = 0x08
	TLOutIPv6       = 0x09
	TLOutXML        = 0x0B
	TLOutJSON       = 0x0C
	TLOutWin32Error = 0x0D
	TLOutNTStatus   = 0x0E
	TLOutHResult    = 0x0F
	TLOutFileTime   = 0x10
	TLOutSigned     = 0x11
	TLOutUnsigned   = 0x12
	TLOutUTF8       = 0x23
)

// TLArity is the array kind of a field, bits 0x60 of its InMeta byte.
type TLArity uint8

const (
	TLScalar   TLArity = 0x00
	TLFixed    TLArity = 0x20 // element count in the metadata only
	TLVariable TLArity = 0x40 // a u16 element count precedes the elements in the payload
	TLCustom   TLArity = 0x60 // opaque serializer schema in the metadata
)

// TraceLogging channel of self-describing events.
const TLChannel = 11

// TLEvent is the metadata of a TraceLogging event.
type TLEvent struct {
	Name   string
	Tags   uint32 // 28 bits
	Fields []TLField
}

// TLField describes one field. A Struct field's Members follow it in the
// metadata and its OutMeta byte holds their count, so OutType is ignored.
type TLField struct {
	Name    string
	InType  uint8
	OutType uint8
	Tags    uint32 // 28 bits
	Arity   TLArity
	Count   uint16 // element count of a TLFixed array
	Schema  []byte // serializer schema of a TLCustom field
	Members []TLField
}

// Metadata encodes the event metadata blob that an EVENT_SCHEMA_TL item
// carries: u16 total size, event tags, NUL-terminated name, then the fields.
func (e *TLEvent) Metadata() ([]byte, error) {
	if strings.IndexByte(e.Name, 0) >= 0 {
		return nil, fmt.Errorf("etltest: event name %q holds a NUL", e.Name)
	}
	b := []byte{0, 0}
	var err error
	if b, err = appendTLTags(b, e.Tags); err != nil {
		return nil, err
	}
	b = append(append(b, e.Name...), 0)
	for i := range e.Fields {
		if b, err = appendTLField(b, &e.Fields[i]); err != nil {
			return nil, err
		}
	}
	if len(b) > 0xFFFF {
		return nil, fmt.Errorf("etltest: event metadata of %d bytes is too large", len(b))
	}
	le.PutUint16(b, uint16(len(b)))
	return b, nil
}

// MustMetadata is Metadata for static test tables; it panics on error.
func (e *TLEvent) MustMetadata() []byte {
	b, err := e.Metadata()
	if err != nil {
		panic(err)
	}
	return b
}

func appendTLField(b []byte, f *TLField) ([]byte, error) {
	if f.InType > 0x1F || f.Arity&^0x60 != 0 {
		return b, fmt.Errorf("etltest: field %q: InType %d or arity 0x%x out of range", f.Name, f.InType, f.Arity)
	}
	if strings.IndexByte(f.Name, 0) >= 0 {
		return b, fmt.Errorf("etltest: field name %q holds a NUL", f.Name)
	}
	out := f.OutType
	if f.InType == TLStruct {
		if len(f.Members) == 0 || len(f.Members) > 0x7F {
			return b, fmt.Errorf("etltest: struct %q has %d members, want 1..127", f.Name, len(f.Members))
		}
		out = uint8(len(f.Members))
	} else if out > 0x7F {
		return b, fmt.Errorf("etltest: field %q: OutType 0x%x out of range", f.Name, out)
	}
	hasOut := out != 0 || f.Tags != 0
	in := f.InType | uint8(f.Arity)
	if hasOut {
		in |= 0x80
	}
	b = append(append(b, f.Name...), 0)
	b = append(b, in)
	if hasOut {
		if f.Tags != 0 {
			out |= 0x80
		}
		b = append(b, out)
		if f.Tags != 0 {
			var err error
			if b, err = appendTLTags(b, f.Tags); err != nil {
				return b, err
			}
		}
	}
	switch f.Arity {
	case TLFixed:
		b = le.AppendUint16(b, f.Count)
	case TLCustom:
		b = le.AppendUint16(b, uint16(len(f.Schema)))
		b = append(b, f.Schema...)
	}
	for i := range f.Members {
		var err error
		if b, err = appendTLField(b, &f.Members[i]); err != nil {
			return b, err
		}
	}
	return b, nil
}

// appendTLTags writes a 28-bit tag value the way TraceLoggingDynamic does:
// seven bits per byte starting from bit 27, a continuation bit 0x80 while
// lower bits remain. The value is aligned to the top, so small tags take
// more bytes (tag 1 is 80 80 80 01) and 0x0FE00000 is the single byte 7F.
func appendTLTags(b []byte, tags uint32) ([]byte, error) {
	if tags > 0x0FFFFFFF {
		return b, fmt.Errorf("etltest: tags 0x%x exceed 28 bits", tags)
	}
	for {
		v := uint8(tags>>21) & 0x7F
		if tags&0x1FFFFF == 0 {
			return append(b, v), nil
		}
		b = append(b, v|0x80)
		tags = (tags << 7) & 0x0FFFFFFF
	}
}

// Provider trait types (ETW_PROVIDER_TRAIT_TYPE).
const (
	TraitGroup      = 1
	TraitDecodeGUID = 2
)

// Trait is one provider trait: its type and its data.
type Trait struct {
	Type uint8
	Data []byte
}

// GroupTrait names the provider group the provider belongs to.
func GroupTrait(group uuid.UUID) Trait {
	return Trait{Type: TraitGroup, Data: guid.AppendWindows(nil, group)}
}

// DecodeGUIDTrait gives the GUID under which the provider's events are decoded.
func DecodeGUIDTrait(g uuid.UUID) Trait {
	return Trait{Type: TraitDecodeGUID, Data: guid.AppendWindows(nil, g)}
}

// ProviderTraits encodes the provider traits blob of a PROV_TRAITS item:
// u16 total size, NUL-terminated UTF-8 name, then each trait as u16 size
// (its 3 header bytes included), u8 type and data.
func ProviderTraits(name string, traits ...Trait) []byte {
	b := []byte{0, 0}
	b = append(append(b, name...), 0)
	for _, t := range traits {
		b = le.AppendUint16(b, uint16(3+len(t.Data)))
		b = append(b, t.Type)
		b = append(b, t.Data...)
	}
	le.PutUint16(b, uint16(len(b)))
	return b
}
