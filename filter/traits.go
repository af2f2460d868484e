package filter

import (
	"encoding/binary"
	"unsafe"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/record/tracelogging"
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

// schemaEventName reads TraceLogging event names from the EVENT_SCHEMA_TL
// item through a schema cache, so that each distinct event's metadata is
// parsed once and later lookups allocate nothing.
func schemaEventName(c *tracelogging.Cache) func(r *record.Record) (string, bool) {
	return func(r *record.Record) (string, bool) {
		it, ok := r.Extended(record.ExtEventSchemaTL)
		if !ok {
			return "", false
		}
		s, err := c.Schema(it.Data)
		if err != nil {
			return "", false
		}
		return s.Name, true
	}
}
