// Package tracelogging decodes TraceLogging (self-describing) events: the
// event metadata blob carried in the EVENT_SCHEMA_TL extended data item, and
// the payload that the metadata describes.
//
// The metadata encoding is the one documented in Microsoft's
// TraceLoggingDynamic.h. The package does not import package record, so that
// record can build on it.
package tracelogging

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/etlkit/etlkit/buffer"
)

// InType is the encoding of a field's value in the payload (the low 5 bits
// of the InMeta byte).
type InType uint8

const (
	InNull              InType = 0
	InUnicodeString     InType = 1
	InAnsiString        InType = 2
	InInt8              InType = 3
	InUInt8             InType = 4
	InInt16             InType = 5
	InUInt16            InType = 6
	InInt32             InType = 7
	InUInt32            InType = 8
	InInt64             InType = 9
	InUInt64            InType = 10
	InFloat             InType = 11
	InDouble            InType = 12
	InBool32            InType = 13
	InBinary            InType = 14
	InGuid              InType = 15
	InPointer           InType = 16
	InFileTime          InType = 17
	InSystemTime        InType = 18
	InSid               InType = 19
	InHexInt32          InType = 20
	InHexInt64          InType = 21
	InCountedString     InType = 22
	InCountedAnsiString InType = 23
	InStruct            InType = 24
	InCountedBinary     InType = 25
	inTypeLimit         InType = 26
)

var inTypeNames = [...]string{
	"Null", "UnicodeString", "AnsiString", "Int8", "UInt8", "Int16", "UInt16",
	"Int32", "UInt32", "Int64", "UInt64", "Float", "Double", "Bool32", "Binary",
	"Guid", "Pointer", "FileTime", "SystemTime", "Sid", "HexInt32", "HexInt64",
	"CountedString", "CountedAnsiString", "Struct", "CountedBinary",
}

func (t InType) String() string {
	if int(t) < len(inTypeNames) {
		return inTypeNames[t]
	}
	return fmt.Sprintf("InType(%d)", uint8(t))
}

// OutType is a field's formatting hint (the low 7 bits of the OutMeta byte).
type OutType uint8

const (
	OutDefault                    OutType = 0x00
	OutNoPrint                    OutType = 0x01
	OutString                     OutType = 0x02
	OutBoolean                    OutType = 0x03
	OutHex                        OutType = 0x04
	OutPid                        OutType = 0x05
	OutTid                        OutType = 0x06
	OutPort                       OutType = 0x07
	OutIPv4                       OutType = 0x08
	OutIPv6                       OutType = 0x09
	OutSocketAddress              OutType = 0x0A
	OutXML                        OutType = 0x0B
	OutJSON                       OutType = 0x0C
	OutWin32Error                 OutType = 0x0D
	OutNTStatus                   OutType = 0x0E
	OutHResult                    OutType = 0x0F
	OutFileTime                   OutType = 0x10
	OutSigned                     OutType = 0x11
	OutUnsigned                   OutType = 0x12
	OutDateTimeCultureInsensitive OutType = 0x21
	OutUTF8                       OutType = 0x23
	OutPKCS7WithTypeInfo          OutType = 0x24
	OutCodePointer                OutType = 0x25
	OutDateTimeUTC                OutType = 0x26
)

func (t OutType) String() string {
	switch t {
	case OutDefault:
		return "Default"
	case OutNoPrint:
		return "NoPrint"
	case OutString:
		return "String"
	case OutBoolean:
		return "Boolean"
	case OutHex:
		return "Hex"
	case OutPid:
		return "Pid"
	case OutTid:
		return "Tid"
	case OutPort:
		return "Port"
	case OutIPv4:
		return "IPv4"
	case OutIPv6:
		return "IPv6"
	case OutSocketAddress:
		return "SocketAddress"
	case OutXML:
		return "Xml"
	case OutJSON:
		return "Json"
	case OutWin32Error:
		return "Win32Error"
	case OutNTStatus:
		return "NTStatus"
	case OutHResult:
		return "HResult"
	case OutFileTime:
		return "FileTime"
	case OutSigned:
		return "Signed"
	case OutUnsigned:
		return "Unsigned"
	case OutDateTimeCultureInsensitive:
		return "DateTimeCultureInsensitive"
	case OutUTF8:
		return "Utf8"
	case OutPKCS7WithTypeInfo:
		return "Pkcs7WithTypeInfo"
	case OutCodePointer:
		return "CodePointer"
	case OutDateTimeUTC:
		return "DateTimeUtc"
	}
	return fmt.Sprintf("OutType(0x%02X)", uint8(t))
}

// Arity says how many values a field has (InMeta bits 0x60).
type Arity uint8

const (
	Scalar     Arity = 0x00 // one value
	FixedArray Arity = 0x20 // Field.Count values, the count is in the metadata
	VarArray   Arity = 0x40 // a u16 count precedes the values in the payload
	Custom     Arity = 0x60 // opaque bytes described by Field.CustomSchema
)

func (a Arity) String() string {
	switch a {
	case Scalar:
		return "Scalar"
	case FixedArray:
		return "FixedArray"
	case VarArray:
		return "VarArray"
	case Custom:
		return "Custom"
	}
	return fmt.Sprintf("Arity(0x%02X)", uint8(a))
}

const (
	inTypeMask  = 0x1F
	arityMask   = 0x60
	chainFlag   = 0x80
	outTypeMask = 0x7F
)

// Limits on what ParseSchema accepts. Real events stay far below them; they
// exist so that hostile metadata costs bounded time and memory.
const (
	// MaxDepth bounds struct nesting.
	MaxDepth = 32
	// MaxFields bounds the number of fields, members of every struct included.
	MaxFields = 1024
)

// Errors wrapped by what this package returns, besides buffer.ErrMalformed
// and buffer.ErrTruncated.
var (
	// ErrTrailingData: the payload is longer than its fields. The values
	// returned alongside it are complete and correct.
	ErrTrailingData = errors.New("payload has bytes after the last field")
	// ErrTooManyValues: decoding would produce more values than the payload
	// size can justify (see Schema.Decode).
	ErrTooManyValues = errors.New("too many values")
)

// Field is one field of an event's metadata. Struct fields have their
// members in Members, nested to any depth.
type Field struct {
	Name    string
	InType  InType
	OutType OutType // OutDefault for structs, whose OutMeta holds the member count
	Arity   Arity
	// Count is the element count of a FixedArray field.
	Count uint16
	// Tags are the 28 field tag bits, 0 when absent.
	Tags uint32
	// CustomSchema is the opaque type description of a Custom field.
	CustomSchema []byte
	// Members are the fields of a struct, in order.
	Members []Field
}

// IsArray reports whether the field holds an array of values.
func (f *Field) IsArray() bool { return f.Arity == FixedArray || f.Arity == VarArray }

// Schema is a parsed event metadata blob.
type Schema struct {
	Name   string  // event name
	Tags   uint32  // the 28 event tag bits
	Fields []Field // top-level fields in payload order
	// levels is the largest number of containers (structs and arrays)
	// around any value; it scales the bound on values per payload byte.
	levels int
	// total counts every field, members included.
	total int
}

// NumFields is the number of fields in the schema, struct members included.
func (s *Schema) NumFields() int { return s.total }

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: tracelogging metadata: %s", buffer.ErrMalformed, fmt.Sprintf(format, args...))
}

// ParseSchema parses an EVENT_SCHEMA_TL blob. Bytes after the blob's own
// Size (the extended item's alignment padding) are ignored. The result owns
// its memory and does not refer to b.
func ParseSchema(b []byte) (*Schema, error) {
	if len(b) < 2 {
		return nil, malformed("%d bytes, want at least 2", len(b))
	}
	size := int(binary.LittleEndian.Uint16(b))
	if size > len(b) {
		return nil, fmt.Errorf("%w: tracelogging metadata: size %d, only %d bytes", buffer.ErrTruncated, size, len(b))
	}
	p := parser{b: b[:size], pos: 2}
	s := &Schema{}
	var err error
	if s.Tags, err = p.tags("event tags"); err != nil {
		return nil, err
	}
	if s.Name, err = p.cstr("event name"); err != nil {
		return nil, err
	}
	for p.pos < len(p.b) {
		f, err := p.field(0)
		if err != nil {
			return nil, err
		}
		s.Fields = append(s.Fields, f)
	}
	s.total = p.fields
	s.levels = levels(s.Fields)
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

func (p *parser) field(depth int) (Field, error) {
	var f Field
	start := p.pos
	p.fields++
	if p.fields > MaxFields {
		return f, malformed("more than %d fields", MaxFields)
	}
	var err error
	if f.Name, err = p.cstr("field name"); err != nil {
		return f, err
	}
	in, err := p.u8("InMeta of field " + f.Name)
	if err != nil {
		return f, err
	}
	f.InType = InType(in & inTypeMask)
	f.Arity = Arity(in & arityMask)
	if f.InType == InNull || f.InType >= inTypeLimit {
		return f, malformed("field %q at offset %d has unknown InType %d", f.Name, start, f.InType)
	}
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
	switch f.Arity {
	case FixedArray:
		if f.Count, err = p.u16("count of field " + f.Name); err != nil {
			return f, err
		}
	case Custom:
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
	if f.InType != InStruct {
		f.OutType = OutType(out & outTypeMask)
		// Arrays of Binary are undefined: each element would need a size
		// the encoding has no place for. A VarArray of Binary is accepted
		// as one blob, since its u16 count and bytes are exactly a Binary.
		if f.InType == InBinary && f.Arity == FixedArray {
			return f, malformed("field %q at offset %d is a fixed array of Binary", f.Name, start)
		}
		return f, nil
	}
	if !hasOut {
		return f, malformed("struct field %q at offset %d has no member count", f.Name, start)
	}
	if f.Arity == Custom {
		return f, malformed("struct field %q at offset %d has a custom serializer", f.Name, start)
	}
	if depth+1 >= MaxDepth {
		return f, malformed("structs nested deeper than %d at field %q", MaxDepth, f.Name)
	}
	n := int(out & outTypeMask)
	f.Members = make([]Field, 0, n)
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

// NewSchema builds a schema from fields described in code, for payloads
// whose layout is known without metadata. It checks the fields as
// ParseSchema would.
func NewSchema(name string, fields []Field) (*Schema, error) {
	s := &Schema{Name: name, Fields: fields}
	var walk func(fs []Field, depth int) error
	walk = func(fs []Field, depth int) error {
		if depth >= MaxDepth {
			return malformed("structs nested deeper than %d", MaxDepth)
		}
		for i := range fs {
			f := &fs[i]
			s.total++
			if s.total > MaxFields {
				return malformed("more than %d fields", MaxFields)
			}
			if f.InType == InNull || f.InType >= inTypeLimit {
				return malformed("field %q has unknown InType %d", f.Name, f.InType)
			}
			if f.Arity > Custom || f.Arity&^arityMask != 0 {
				return malformed("field %q has arity 0x%02X", f.Name, uint8(f.Arity))
			}
			if f.InType == InStruct {
				if f.Arity == Custom {
					return malformed("struct field %q has a custom serializer", f.Name)
				}
				if err := walk(f.Members, depth+1); err != nil {
					return err
				}
			} else if len(f.Members) != 0 {
				return malformed("field %q of type %v has members", f.Name, f.InType)
			}
		}
		return nil
	}
	if err := walk(fields, 0); err != nil {
		return nil, err
	}
	s.levels = levels(fields)
	return s, nil
}

// levels is the largest number of containers around a value of fs.
func levels(fs []Field) int {
	m := 0
	for i := range fs {
		n := 0
		if fs[i].IsArray() {
			n++
		}
		if fs[i].InType == InStruct {
			n += 1 + levels(fs[i].Members)
		}
		m = max(m, n)
	}
	return m
}

// MustSchema is NewSchema for fields known to be valid; it panics otherwise.
func MustSchema(name string, fields []Field) *Schema {
	s, err := NewSchema(name, fields)
	if err != nil {
		panic(err)
	}
	return s
}
