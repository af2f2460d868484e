// Package guid is the one home of GUIDs as ETW writes and shows them: the
// byte order Windows stores a GUID in (Data1 as a little-endian uint32,
// Data2 and Data3 as little-endian uint16s, then Data4's 8 bytes as they
// are), and the 8-4-4-4-12 text form.
//
// A GUID is held as a uuid.UUID, whose 16 bytes are in the order of the
// text form (RFC 9562), so that its String method, comparison and use as a
// map key need nothing from this package.
package guid

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"slices"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/internal/digits"
)

// Size is the size of a GUID on disk.
const Size = 16

// FromWindows reads a GUID in Windows byte order from the first 16 bytes
// of b.
func FromWindows(b []byte) uuid.UUID {
	var g uuid.UUID
	ReadWindows(&g, b)
	return g
}

// ReadWindows is FromWindows writing into dst. Per-record decoding uses it
// so that the GUID goes into the record in two 8-byte stores: a value built
// piece by piece and then copied whole is reloaded before its stores have
// reached the cache, which stalls the processor for each record.
func ReadWindows(dst *uuid.UUID, b []byte) {
	_ = b[15]
	le := binary.LittleEndian
	first := uint64(bits.ReverseBytes32(le.Uint32(b))) |
		uint64(bits.ReverseBytes16(le.Uint16(b[4:])))<<32 |
		uint64(bits.ReverseBytes16(le.Uint16(b[6:])))<<48
	le.PutUint64(dst[0:], first)
	le.PutUint64(dst[8:], le.Uint64(b[8:]))
}

// Windows is g in Windows byte order: the inverse of FromWindows, for
// writing a GUID or comparing stored bytes with a known one without
// decoding them.
func Windows(g uuid.UUID) (b [Size]byte) {
	PutWindows(b[:], g)
	return b
}

// PutWindows writes g in Windows byte order into the first 16 bytes of b.
func PutWindows(b []byte, g uuid.UUID) {
	_ = b[15]
	le, be := binary.LittleEndian, binary.BigEndian
	le.PutUint32(b[0:], be.Uint32(g[0:]))
	le.PutUint16(b[4:], be.Uint16(g[4:]))
	le.PutUint16(b[6:], be.Uint16(g[6:]))
	copy(b[8:16], g[8:])
}

// AppendWindows appends g in Windows byte order.
func AppendWindows(dst []byte, g uuid.UUID) []byte {
	w := Windows(g)
	return append(dst, w[:]...)
}

// nilText is the text form of the nil GUID.
const nilText = "00000000-0000-0000-0000-000000000000"

// Append appends the text form of g: 8-4-4-4-12 lower-case hex digits,
// without braces, as g.String() gives it but without allocating.
func Append(dst []byte, g uuid.UUID) []byte {
	if g == uuid.Nil {
		// Most ActivityIds are nil.
		return append(dst, nilText...)
	}
	n := len(dst)
	dst = slices.Grow(dst, 36)[:n+36]
	out := dst[n : n+36]
	// Four bytes at a time; the dashes go between the groups of 4-2-2-2-6
	// bytes.
	le := binary.LittleEndian
	le.PutUint64(out[0:], digits.Hex8(le.Uint32(g[0:]), false))
	h := digits.Hex8(le.Uint32(g[4:]), false)
	out[8] = '-'
	le.PutUint32(out[9:], uint32(h))
	out[13] = '-'
	le.PutUint32(out[14:], uint32(h>>32))
	h = digits.Hex8(le.Uint32(g[8:]), false)
	out[18] = '-'
	le.PutUint32(out[19:], uint32(h))
	out[23] = '-'
	le.PutUint32(out[24:], uint32(h>>32))
	le.PutUint64(out[28:], digits.Hex8(le.Uint32(g[12:]), false))
	return dst
}

// ErrSyntax is returned by Parse for text that is not a GUID in the
// registry form.
var ErrSyntax = errors.New("guid: not in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")

// Parse reads a GUID in the form Windows writes it in manifests, the
// registry and tool output: 8-4-4-4-12 hex digits of either case, with or
// without braces. Other forms uuid.Parse accepts (32 digits without
// dashes, a urn:uuid: prefix) are refused, so that a provider name made of
// hex digits stays a name.
func Parse(s string) (uuid.UUID, error) {
	if len(s) == 38 && s[0] == '{' && s[37] == '}' {
		s = s[1:37]
	}
	if len(s) != 36 {
		return uuid.Nil, ErrSyntax
	}
	g, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, ErrSyntax
	}
	return g, nil
}
