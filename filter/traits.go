package filter

import (
	"encoding/binary"
	"unsafe"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/record"
)

// traitGroup is EtwProviderTraitTypeGroup: the trait holds the provider
// group GUID.
const traitGroup = 1

// providerTraits returns the record's provider-traits blob, trimmed to its
// declared TotalSize: a UINT16 TotalSize, the provider name as nul-terminated
// UTF-8, then traits of UINT16 TraitSize (itself included), UINT8 TraitType
// and the trait data.
func providerTraits(r *record.Record) ([]byte, bool) {
	it, ok := r.Extended(record.ExtProviderTraits)
	if !ok || len(it.Data) < 3 {
		return nil, false
	}
	total := int(binary.LittleEndian.Uint16(it.Data))
	if total < 3 || total > len(it.Data) {
		return nil, false
	}
	return it.Data[:total], true
}

// traitsProviderName reads the provider name from the provider traits
// without copying it: the string views the record's bytes and is valid as
// long as they are, which is long enough for comparing it while judging.
func traitsProviderName(r *record.Record) (string, bool) {
	b, ok := providerTraits(r)
	if !ok {
		return "", false
	}
	name := b[2:]
	for i, c := range name {
		if c == 0 {
			if i == 0 {
				return "", false
			}
			return unsafe.String(&name[0], i), true
		}
	}
	return "", false
}

// traitsProviderGroup reads the group GUID from the provider traits.
func traitsProviderGroup(r *record.Record) (uuid.UUID, bool) {
	b, ok := providerTraits(r)
	if !ok {
		return uuid.Nil, false
	}
	i := 2
	for i < len(b) && b[i] != 0 {
		i++
	}
	i++ // the name's nul
	for i+3 <= len(b) {
		size := int(binary.LittleEndian.Uint16(b[i:]))
		if size < 3 || i+size > len(b) {
			return uuid.Nil, false
		}
		if b[i+2] == traitGroup && size >= 3+16 {
			return record.GUID(b[i+3:]), true
		}
		i += size
	}
	return uuid.Nil, false
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
