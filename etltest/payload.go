package etltest

import (
	"math"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
)

// UTF16Z encodes s as NUL-terminated UTF-16LE.
func UTF16Z(s string) []byte { return header.AppendUTF16(nil, s, true) }

// AnsiZ encodes s as a NUL-terminated 8-bit string (its UTF-8 bytes).
func AnsiZ(s string) []byte { return append([]byte(s), 0) }

// SID encodes a Windows security identifier: revision, sub-authority count,
// the 48-bit identifier authority big-endian, then the sub-authorities LE.
func SID(revision uint8, authority uint64, subAuthorities ...uint32) []byte {
	b := make([]byte, 8, 8+4*len(subAuthorities))
	b[0] = revision
	b[1] = uint8(len(subAuthorities))
	for i := 0; i < 6; i++ {
		b[2+i] = byte(authority >> (8 * (5 - i)))
	}
	for _, s := range subAuthorities {
		b = le.AppendUint32(b, s)
	}
	return b
}

// Payload builds event user data field by field. Every method appends and
// returns the receiver, so calls chain:
//
//	data := new(etltest.Payload).U32(7).UTF16Z("name").Bytes()
type Payload struct{ b []byte }

// Bytes returns the data written so far.
func (p *Payload) Bytes() []byte { return p.b }

// Len is the number of bytes written so far.
func (p *Payload) Len() int { return len(p.b) }

func (p *Payload) U8(v uint8) *Payload   { p.b = append(p.b, v); return p }
func (p *Payload) U16(v uint16) *Payload { p.b = le.AppendUint16(p.b, v); return p }
func (p *Payload) U32(v uint32) *Payload { p.b = le.AppendUint32(p.b, v); return p }
func (p *Payload) U64(v uint64) *Payload { p.b = le.AppendUint64(p.b, v); return p }
func (p *Payload) I8(v int8) *Payload    { return p.U8(uint8(v)) }
func (p *Payload) I16(v int16) *Payload  { return p.U16(uint16(v)) }
func (p *Payload) I32(v int32) *Payload  { return p.U32(uint32(v)) }
func (p *Payload) I64(v int64) *Payload  { return p.U64(uint64(v)) }

// F32 and F64 append IEEE 754 values.
func (p *Payload) F32(v float32) *Payload { return p.U32(math.Float32bits(v)) }
func (p *Payload) F64(v float64) *Payload { return p.U64(math.Float64bits(v)) }

// Bool32 appends a 4-byte BOOL.
func (p *Payload) Bool32(v bool) *Payload {
	if v {
		return p.U32(1)
	}
	return p.U32(0)
}

// Ptr appends a pointer-sized value; size is 4 or 8.
func (p *Payload) Ptr(size int, v uint64) *Payload {
	if size == 4 {
		return p.U32(uint32(v))
	}
	return p.U64(v)
}

// GUID appends a GUID in Windows byte order.
func (p *Payload) GUID(u uuid.UUID) *Payload { p.b = guid.AppendWindows(p.b, u); return p }

// UTF16Z appends a NUL-terminated UTF-16LE string.
func (p *Payload) UTF16Z(s string) *Payload { p.b = header.AppendUTF16(p.b, s, true); return p }

// AnsiZ appends a NUL-terminated 8-bit string.
func (p *Payload) AnsiZ(s string) *Payload { p.b = append(append(p.b, s...), 0); return p }

// CountedUTF16 appends a u16 byte count then UTF-16LE without a terminator
// (TraceLogging CountedString).
func (p *Payload) CountedUTF16(s string) *Payload {
	enc := header.AppendUTF16(nil, s, false)
	p.U16(uint16(len(enc)))
	p.b = append(p.b, enc...)
	return p
}

// Counted appends a u16 byte count then the bytes (TraceLogging Binary,
// CountedAnsiString and CountedBinary).
func (p *Payload) Counted(b []byte) *Payload {
	p.U16(uint16(len(b)))
	p.b = append(p.b, b...)
	return p
}

// SystemTime appends a 16-byte SYSTEMTIME.
func (p *Payload) SystemTime(t SystemTime) *Payload { p.b = t.Append(p.b); return p }

// SID appends an encoded SID (see SID).
func (p *Payload) SID(revision uint8, authority uint64, subAuthorities ...uint32) *Payload {
	p.b = append(p.b, SID(revision, authority, subAuthorities...)...)
	return p
}

// Raw appends b as it is.
func (p *Payload) Raw(b []byte) *Payload { p.b = append(p.b, b...); return p }
