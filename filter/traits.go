package filter

import (
	"encoding/binary"
	"unsafe"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/record"
)

// traitsProviderName reads the provider name from the provider traits
// without copying it: the string views the record's bytes and is valid as
// long as they are, which is long enough for comparing it while judging.
// It is the name record.ParseProviderTraits gives, which is also the name
// the record is shown with.
func traitsProviderName(r *record.Record) (string, bool) {
	b := r.ProviderNameBytes()
	if len(b) == 0 {
		return "", false
	}
	return unsafe.String(&b[0], len(b)), true
}

// traitsGroup reads provider groups through a cache of parsed traits, keyed
// by the blob's bytes: a trace has a handful of distinct blobs, so each is
// parsed once, and a lookup after that allocates nothing. The cache parses
// with record.ParseProviderTraits, the parser the output uses, so that a
// record is in a group exactly when the traits it is shown with say so.
func traitsGroup(c *record.TraitsCache) func(r *record.Record) (uuid.UUID, bool) {
	return func(r *record.Record) (uuid.UUID, bool) {
		it, ok := r.Extended(record.ExtProviderTraits)
		if !ok {
			return uuid.Nil, false
		}
		pt, _ := c.Lookup(it.Data)
		if pt == nil || !pt.HasGroup {
			return uuid.Nil, false
		}
		return pt.Group, true
	}
}

// tlEventName reads the event name from the record's EVENT_SCHEMA_TL item:
// a UINT16 size, the event tags (7 bits a byte, 0x80 meaning another byte
// follows) and the name as nul-terminated UTF-8. Only the name is read, as
// a view of the record's bytes, so that name filters neither parse the
// field list nor share a cache between goroutines.
func tlEventName(r *record.Record) (string, bool) {
	it, ok := r.Extended(record.ExtEventSchemaTL)
	if !ok || len(it.Data) < 2 {
		return "", false
	}
	b := it.Data
	if n := int(binary.LittleEndian.Uint16(b)); n <= len(b) {
		b = b[:n]
	}
	i := 2
	for i < len(b) && b[i]&0x80 != 0 {
		i++
	}
	i++ // the last tag byte
	for j := i; j < len(b); j++ {
		if b[j] == 0 {
			if j == i {
				return "", true
			}
			return unsafe.String(&b[i], j-i), true
		}
	}
	return "", false
}
