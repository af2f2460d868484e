package etltest

import (
	"encoding/binary"
	"fmt"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

var le = binary.LittleEndian

// Ptr returns a pointer to a copy of v. Optional overrides in this package
// are pointers, so that a zero value can be asked for explicitly.
func Ptr[T any](v T) *T { return &v }

// Decode encodes r and decodes it back as the reader would, alone and
// outside any buffer, with ctx (nil for none): for tests of what reads
// records.
func Decode(r Record, ctx *record.Context) (*record.Record, error) {
	b, err := r.AppendRecord(nil)
	if err != nil {
		return nil, err
	}
	p, end, err := header.ParsePrefix(b)
	if err != nil {
		return nil, err
	}
	if end {
		return nil, fmt.Errorf("etltest: %T encodes as the end of a buffer", r)
	}
	if ctx == nil {
		ctx = &record.Context{}
	}
	var out record.Record
	if err := record.Decode(&out, b, p, 0, ctx); err != nil {
		return nil, err
	}
	return &out, nil
}
