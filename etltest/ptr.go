package etltest

import (
	"encoding/binary"
)

var le = binary.LittleEndian

// Ptr returns a pointer to a copy of v. Optional overrides in this package
// are pointers, so that a zero value can be asked for explicitly.
func Ptr[T any](v T) *T { return &v }
