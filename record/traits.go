package record

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/record/tracelogging"
)

// TraitType is ETW_PROVIDER_TRAIT_TYPE.
type TraitType uint8

const (
	TraitGroup      TraitType = 1 // provider group GUID
	TraitDecodeGuid TraitType = 2 // GUID to decode the events with
)

// maxTraits bounds the traits read from one blob; real providers have one
// or two.
const maxTraits = 64

// Trait is one provider trait. Data is a view into the parsed blob.
type Trait struct {
	Type TraitType
	Data []byte
}

// ProviderTraits is a decoded PROV_TRAITS blob: the provider's name, which
// TraceLogging providers have no other way to give, and its traits. Types
// the package does not know, provider-defined ones (128–255) among them,
// are kept raw in Traits with the others.
type ProviderTraits struct {
	Name          string
	Group         uuid.UUID
	HasGroup      bool
	DecodeGuid    uuid.UUID
	HasDecodeGuid bool
	Traits        []Trait
}

func traitsErr(format string, args ...any) error {
	return fmt.Errorf("%w: provider traits: %s", buffer.ErrMalformed, fmt.Sprintf(format, args...))
}

// traitsName checks the blob's size and name and returns the name bytes
// and the blob cut to its size.
func traitsName(b []byte) (name, blob []byte, err error) {
	if len(b) < 2 {
		return nil, nil, traitsErr("%d bytes, want at least 2", len(b))
	}
	size := int(binary.LittleEndian.Uint16(b))
	if size < 3 || size > len(b) {
		return nil, nil, traitsErr("size %d, blob has %d bytes", size, len(b))
	}
	b = b[:size]
	end := bytes.IndexByte(b[2:], 0)
	if end < 0 {
		return nil, nil, traitsErr("provider name has no NUL")
	}
	return b[2 : 2+end], b, nil
}

// ParseProviderTraits decodes a PROV_TRAITS blob: u16 size, the
// NUL-terminated UTF-8 provider name, then traits of u16 size (its 3-byte
// header included), u8 type and data. Bytes past the blob's own size (the
// extended item's padding) are ignored. Traits[i].Data are views into b.
func ParseProviderTraits(b []byte) (ProviderTraits, error) {
	name, b, err := traitsName(b)
	if err != nil {
		return ProviderTraits{}, err
	}
	pt := ProviderTraits{Name: string(name)}
	for pos := 2 + len(name) + 1; pos < len(b); {
		if len(b)-pos < 3 {
			return ProviderTraits{}, traitsErr("%d stray bytes at offset %d", len(b)-pos, pos)
		}
		n := int(binary.LittleEndian.Uint16(b[pos:]))
		if n < 3 || pos+n > len(b) {
			return ProviderTraits{}, traitsErr("trait at offset %d has size %d, %d bytes left", pos, n, len(b)-pos)
		}
		if len(pt.Traits) == maxTraits {
			return ProviderTraits{}, traitsErr("more than %d traits", maxTraits)
		}
		tr := Trait{Type: TraitType(b[pos+2]), Data: b[pos+3 : pos+n : pos+n]}
		switch tr.Type {
		case TraitGroup, TraitDecodeGuid:
			if len(tr.Data) < 16 {
				return ProviderTraits{}, traitsErr("trait %d at offset %d has %d bytes, want a 16-byte GUID", tr.Type, pos, len(tr.Data))
			}
			if tr.Type == TraitGroup {
				pt.Group, pt.HasGroup = GUID(tr.Data), true
			} else {
				pt.DecodeGuid, pt.HasDecodeGuid = GUID(tr.Data), true
			}
		}
		pt.Traits = append(pt.Traits, tr)
		pos += n
	}
	return pt, nil
}

// ProviderTraits decodes the record's PROV_TRAITS item; ok is false when
// the record has none.
func (r *Record) ProviderTraits() (pt ProviderTraits, ok bool, err error) {
	it, ok := r.Extended(ExtProviderTraits)
	if !ok {
		return ProviderTraits{}, false, nil
	}
	pt, err = ParseProviderTraits(it.Data)
	return pt, true, err
}

// ProviderNameBytes returns the provider name from the record's PROV_TRAITS
// item as a view into the record, without allocating; nil when the record
// has no such item or its blob is malformed. Like the record's other
// slices it is valid only until the iteration moves on.
func (r *Record) ProviderNameBytes() []byte {
	it, ok := r.Extended(ExtProviderTraits)
	if !ok {
		return nil
	}
	name, _, err := traitsName(it.Data)
	if err != nil {
		return nil
	}
	return name
}

// TraitsCache keeps decoded provider traits keyed by the blob's bytes, so
// that code asking for the provider of every record gets a shared
// *ProviderTraits (and its Name string) without allocating. A trace has a
// handful of distinct blobs; the cache is bounded all the same. The zero
// TraitsCache is ready to use, and it is safe for concurrent use.
type TraitsCache struct {
	mu    sync.Mutex
	m     map[string]traitsEntry
	bytes int
}

type traitsEntry struct {
	pt  *ProviderTraits
	err error
}

// Bounds of a TraitsCache.
const (
	traitsCacheEntries = 1024
	traitsCacheBytes   = 1 << 20
)

// Lookup returns the decoded traits of a PROV_TRAITS blob. The result is
// shared and must not be modified; it does not refer to b.
func (c *TraitsCache) Lookup(b []byte) (*ProviderTraits, error) {
	if len(b) >= 2 {
		if n := int(binary.LittleEndian.Uint16(b)); n >= 2 && n <= len(b) {
			b = b[:n]
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[string(b)]; ok {
		return e.pt, e.err
	}
	owned := append([]byte(nil), b...)
	pt, err := ParseProviderTraits(owned)
	var e traitsEntry
	if err != nil {
		e.err = err
	} else {
		e.pt = &pt
	}
	if len(owned) > traitsCacheBytes {
		return e.pt, e.err
	}
	if c.m == nil {
		c.m = make(map[string]traitsEntry)
	}
	for len(c.m) > 0 && (len(c.m) >= traitsCacheEntries || c.bytes+len(owned) > traitsCacheBytes) {
		for k := range c.m {
			c.bytes -= len(k)
			delete(c.m, k)
			break
		}
	}
	c.m[string(owned)] = e
	c.bytes += len(owned)
	return e.pt, e.err
}

// ProviderName returns the provider name of a record from its PROV_TRAITS
// item, "" when it has none or the blob is malformed.
func (c *TraitsCache) ProviderName(r *Record) string {
	it, ok := r.Extended(ExtProviderTraits)
	if !ok {
		return ""
	}
	pt, err := c.Lookup(it.Data)
	if err != nil {
		return ""
	}
	return pt.Name
}

// TraceLoggingSchema returns the parsed schema of the record's
// EVENT_SCHEMA_TL item through the cache; ok is false when the record is
// not a TraceLogging event. Decode its payload with
// s.Decode(r.UserData, r.PointerSize(), dst).
func (r *Record) TraceLoggingSchema(c *tracelogging.Cache) (s *tracelogging.Schema, ok bool, err error) {
	it, ok := r.Extended(ExtEventSchemaTL)
	if !ok {
		return nil, false, nil
	}
	s, err = c.Schema(it.Data)
	return s, true, err
}
