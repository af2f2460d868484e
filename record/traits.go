package record

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/guid"
)

// TraitType is ETW_PROVIDER_TRAIT_TYPE.
type TraitType uint8

const (
	TraitGroup TraitType = 1 // provider group GUID
	// TraitDecodeGuid is a GUID to decode the events with, in evntrace.h;
	// the provider-traits documentation counts type 2 among the reserved.
	TraitDecodeGuid TraitType = 2
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
//
// Only type 1, the provider group, has a defined layout: the provider-traits
// documentation reserves the other types, so they are kept raw and skipped
// by their size whatever their data (a DecodeGuid of type 2 is read when it
// holds a GUID). A blob whose size or name cannot be read gives an error and
// the zero ProviderTraits. Damage in the trait list after the name — a
// trait whose size does not fit, a group trait shorter than its GUID — gives
// an error with the name and no traits: the name stays what names the
// provider, as it does for ProviderNameBytes, and a damaged list makes no
// group.
func ParseProviderTraits(b []byte) (ProviderTraits, error) {
	pt, _, err := parseProviderTraits(b)
	return pt, err
}

// parseProviderTraits is ParseProviderTraits that also says whether the
// name was read, which an empty name alone does not tell.
func parseProviderTraits(b []byte) (pt ProviderTraits, named bool, err error) {
	name, b, err := traitsName(b)
	if err != nil {
		return ProviderTraits{}, false, err
	}
	pt = ProviderTraits{Name: string(name)}
	if err := pt.readTraits(b, 2+len(name)+1); err != nil {
		return ProviderTraits{Name: pt.Name}, true, err
	}
	return pt, true, nil
}

// readTraits reads the trait list of blob b from pos on.
func (pt *ProviderTraits) readTraits(b []byte, pos int) error {
	for pos < len(b) {
		if len(b)-pos < 3 {
			return traitsErr("%d stray bytes at offset %d", len(b)-pos, pos)
		}
		n := int(binary.LittleEndian.Uint16(b[pos:]))
		if n < 3 || pos+n > len(b) {
			return traitsErr("trait at offset %d has size %d, %d bytes left", pos, n, len(b)-pos)
		}
		if len(pt.Traits) == maxTraits {
			return traitsErr("more than %d traits", maxTraits)
		}
		tr := Trait{Type: TraitType(b[pos+2]), Data: b[pos+3 : pos+n : pos+n]}
		switch {
		case tr.Type == TraitGroup:
			if len(tr.Data) < 16 {
				return traitsErr("group trait at offset %d has %d bytes, want a 16-byte GUID", pos, len(tr.Data))
			}
			pt.Group, pt.HasGroup = guid.FromWindows(tr.Data), true
		case tr.Type == TraitDecodeGuid && len(tr.Data) >= 16:
			pt.DecodeGuid, pt.HasDecodeGuid = guid.FromWindows(tr.Data), true
		}
		pt.Traits = append(pt.Traits, tr)
		pos += n
	}
	return nil
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
// has no such item or its size or name cannot be read. It is the name
// ParseProviderTraits gives, damage in the trait list included, so that
// what matches a provider by name and what shows its name agree. Like the
// record's other slices it is valid only until the iteration moves on.
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

// Lookup returns the decoded traits of a PROV_TRAITS blob, as
// ParseProviderTraits decodes them: with an error, the result is nil when
// the name could not be read, and holds the name alone when the trait list
// is damaged. The result is shared and must not be modified; it does not
// refer to b.
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
	pt, named, err := parseProviderTraits(owned)
	e := traitsEntry{err: err}
	if named {
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
// item, the name ProviderNameBytes gives; "" when it has none.
func (c *TraitsCache) ProviderName(r *Record) string {
	it, ok := r.Extended(ExtProviderTraits)
	if !ok {
		return ""
	}
	pt, _ := c.Lookup(it.Data)
	if pt == nil {
		return ""
	}
	return pt.Name
}
