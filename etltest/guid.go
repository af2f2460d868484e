package etltest

import (
	"encoding/binary"

	"github.com/google/uuid"
)

// GUIDBytes returns u as Windows stores a GUID: Data1 (u32), Data2 and Data3
// (u16) little-endian, then the last 8 bytes as they are. uuid.UUID holds the
// RFC 4122 (big-endian) byte order, so the first three groups are swapped.
func GUIDBytes(u uuid.UUID) [16]byte {
	var b [16]byte
	PutGUID(b[:], u)
	return b
}

// PutGUID writes u at the start of b in Windows byte order.
func PutGUID(b []byte, u uuid.UUID) {
	_ = b[15]
	b[0], b[1], b[2], b[3] = u[3], u[2], u[1], u[0]
	b[4], b[5] = u[5], u[4]
	b[6], b[7] = u[7], u[6]
	copy(b[8:16], u[8:16])
}

// AppendGUID appends u in Windows byte order.
func AppendGUID(dst []byte, u uuid.UUID) []byte {
	g := GUIDBytes(u)
	return append(dst, g[:]...)
}

var le = binary.LittleEndian

// Ptr returns a pointer to a copy of v. Optional overrides in this package
// are pointers, so that a zero value can be asked for explicitly.
func Ptr[T any](v T) *T { return &v }
