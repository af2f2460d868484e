// Package eventsource reads the manifests that .NET EventSources write into
// their own traces (manifest-formats.md §4): events with id 0xFFFE whose
// payload is an 8-byte envelope and then a chunk of the UTF-8 manifest. It
// puts the chunks back together, names the provider from the manifest, and
// derives an EventSource's provider GUID from its name.
//
// Parsing the manifest's events is left to the instrumentation-manifest
// parser: this package hands over the reassembled XML.
package eventsource

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
)

// The manifest event's descriptor, which EventSource and PerfView's
// relogger both use; the event is recognised by these three.
const (
	ManifestID     = 0xFFFE
	ManifestOpcode = 0xFE
	ManifestTask   = 0xFFFE
)

// Envelope constants.
const (
	EnvelopeSize = 8
	// EnvelopeMagic is the envelope's fourth byte.
	EnvelopeMagic = 0x5B
	// FormatSimpleXML, the only format defined: UTF-8 XML.
	FormatSimpleXML = 1
	// MaxChunkSize is the chunk size EventSource starts with; it halves it
	// when an event that large cannot be written.
	MaxChunkSize = 0xFF00
)

// IsManifest reports whether an event descriptor is an EventSource
// manifest event's.
func IsManifest(d *header.EventDescriptor) bool {
	return d.Id == ManifestID && d.Opcode == ManifestOpcode && d.Task == ManifestTask
}

// Envelope is the ManifestEnvelope in front of each chunk.
type Envelope struct {
	Format       uint8
	MajorVersion uint8
	MinorVersion uint8
	Magic        uint8
	TotalChunks  uint16
	ChunkNumber  uint16 // from 0
}

// ErrEnvelope is wrapped by what ParseEnvelope and Assembler.Add return for
// a payload that is not a manifest chunk.
var ErrEnvelope = errors.New("not an EventSource manifest chunk")

func envelopeError(format string, args ...any) error {
	return fmt.Errorf("%w: %w: %s", buffer.ErrMalformed, ErrEnvelope, fmt.Sprintf(format, args...))
}

// ParseEnvelope reads the envelope at the start of a manifest event's user
// data and returns it with the chunk after it.
func ParseEnvelope(b []byte) (Envelope, []byte, error) {
	if len(b) < EnvelopeSize {
		return Envelope{}, nil, envelopeError("%d bytes, shorter than the %d-byte envelope", len(b), EnvelopeSize)
	}
	e := Envelope{
		Format: b[0], MajorVersion: b[1], MinorVersion: b[2], Magic: b[3],
		TotalChunks: binary.LittleEndian.Uint16(b[4:]),
		ChunkNumber: binary.LittleEndian.Uint16(b[6:]),
	}
	switch {
	case e.Magic != EnvelopeMagic:
		return e, nil, envelopeError("magic 0x%02x, not 0x%02x", e.Magic, EnvelopeMagic)
	case e.Format != FormatSimpleXML:
		return e, nil, envelopeError("format %d, not %d (XML)", e.Format, FormatSimpleXML)
	case e.TotalChunks == 0:
		return e, nil, envelopeError("a manifest of 0 chunks")
	case e.ChunkNumber >= e.TotalChunks:
		return e, nil, envelopeError("chunk %d of %d", e.ChunkNumber, e.TotalChunks)
	}
	return e, b[EnvelopeSize:], nil
}

// Assembler puts manifests back together from their chunks. Chunks of one
// manifest are told apart from other manifests' by provider, process and
// the envelope's format, versions and chunk count. They may come in any
// order, repeat (a chunk seen again with the same bytes is ignored, also
// after its manifest completed) and interleave with other manifests'
// chunks; a chunk that contradicts one already held starts that manifest
// over, as a new copy of it. A manifest missing a chunk stays pending (see
// Pending). The zero Assembler is ready
// to use; it is not safe for concurrent use.
type Assembler struct {
	partial map[partKey]*partial
	// order lists the keys in the order their first chunk came, so that
	// Pending reports in a stable order.
	order []partKey
	// done holds the last manifest completed per key, so that its chunks
	// sent again are known as repeats rather than the start of a copy.
	done map[partKey]*finished
}

type finished struct {
	chunks map[uint16][]byte
	// repeated are the chunks sent again since it completed: when a chunk
	// that differs starts a new copy, they belong to that copy too.
	repeated map[uint16]bool
}

type partKey struct {
	provider    uuid.UUID
	pid         uint32
	format      uint8
	major       uint8
	minor       uint8
	totalChunks uint16
}

type partial struct {
	// chunks holds the chunks come so far by number: a map, so that a
	// hostile chunk count costs nothing until chunks arrive.
	chunks map[uint16][]byte
	total  int
	size   int
}

// Chunk is one manifest event's chunk.
type Chunk struct {
	Provider  uuid.UUID
	ProcessID uint32
	Envelope
	Data []byte // the chunk after the envelope; Add copies it
}

// ChunkOf reads the chunk of a manifest event record.
func ChunkOf(r *record.Record) (Chunk, error) {
	env, data, err := ParseEnvelope(r.UserData)
	if err != nil {
		return Chunk{}, err
	}
	return Chunk{Provider: r.ProviderId, ProcessID: r.ProcessId, Envelope: env, Data: data}, nil
}

// Add takes one chunk. When it completes its manifest, Add returns the
// manifest's bytes (the chunks in order) and true. A chunk whose number is
// not below its chunk count is an error.
func (a *Assembler) Add(c Chunk) ([]byte, bool, error) {
	if c.ChunkNumber >= c.TotalChunks {
		return nil, false, envelopeError("chunk %d of %d", c.ChunkNumber, c.TotalChunks)
	}
	if a.partial == nil {
		a.partial = make(map[partKey]*partial)
	}
	k := partKey{c.Provider, c.ProcessID, c.Format, c.MajorVersion, c.MinorVersion, c.TotalChunks}
	p := a.partial[k]
	if p == nil {
		f := a.done[k]
		if f != nil {
			if old, ok := f.chunks[c.ChunkNumber]; ok && bytes.Equal(old, c.Data) {
				f.repeated[c.ChunkNumber] = true
				return nil, false, nil
			}
		}
		p = &partial{chunks: make(map[uint16][]byte), total: int(c.TotalChunks)}
		if f != nil {
			for n := range f.repeated {
				p.chunks[n] = f.chunks[n]
				p.size += len(f.chunks[n])
			}
			clear(f.repeated)
		}
		a.partial[k] = p
		a.order = append(a.order, k)
	}
	if old, ok := p.chunks[c.ChunkNumber]; ok {
		if bytes.Equal(old, c.Data) {
			return nil, false, nil
		}
		// A different manifest under the same key: keep the newer copy.
		clear(p.chunks)
		p.size = 0
	}
	p.chunks[c.ChunkNumber] = bytes.Clone(c.Data)
	p.size += len(c.Data)
	if len(p.chunks) < p.total {
		return nil, false, nil
	}
	out := make([]byte, 0, p.size)
	for i := range p.total {
		out = append(out, p.chunks[uint16(i)]...)
	}
	delete(a.partial, k)
	if a.done == nil {
		a.done = make(map[partKey]*finished)
	}
	a.done[k] = &finished{chunks: p.chunks, repeated: make(map[uint16]bool)}
	for i, o := range a.order {
		if o == k {
			a.order = append(a.order[:i], a.order[i+1:]...)
			break
		}
	}
	return out, true, nil
}

// Partial describes a manifest still missing chunks.
type Partial struct {
	Provider    uuid.UUID
	ProcessID   uint32
	Have, Total int
}

// Pending lists the manifests still missing chunks, in the order their
// first chunk came.
func (a *Assembler) Pending() []Partial {
	var out []Partial
	for _, k := range a.order {
		p := a.partial[k]
		out = append(out, Partial{Provider: k.provider, ProcessID: k.pid, Have: len(p.chunks), Total: p.total})
	}
	return out
}

// Provider is what a manifest says of its first provider.
type Provider struct {
	Name string
	GUID uuid.UUID
}

// ProviderOf reads the name and GUID of the first provider element of a
// manifest. A provider without a guid attribute gets the one EventSource
// derives from its name (GUIDFromName).
func ProviderOf(manifest []byte) (Provider, error) {
	d := xml.NewDecoder(bytes.NewReader(manifest))
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return Provider{}, fmt.Errorf("%w: manifest has no provider element", buffer.ErrMalformed)
		}
		if err != nil {
			return Provider{}, fmt.Errorf("%w: manifest: %w", buffer.ErrMalformed, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "provider" {
			continue
		}
		var p Provider
		var text string
		for _, a := range se.Attr {
			switch a.Name.Local {
			case "name":
				p.Name = a.Value
			case "guid":
				text = a.Value
			}
		}
		if text == "" {
			if p.Name == "" {
				return Provider{}, fmt.Errorf("%w: manifest provider has neither name nor guid", buffer.ErrMalformed)
			}
			p.GUID = GUIDFromName(p.Name)
			return p, nil
		}
		g, err := guid.Parse(strings.Trim(text, "{}"))
		if err != nil {
			return Provider{}, fmt.Errorf("%w: manifest provider guid %q: %w", buffer.ErrMalformed, text, err)
		}
		p.GUID = g
		return p, nil
	}
}

// nameSpace is the namespace EventSource hashes provider names in, as its
// bytes (manifest-formats.md §4.6).
var nameSpace = [16]byte{0x48, 0x2C, 0x2D, 0xB2, 0xC3, 0x90, 0x47, 0xC8, 0x87, 0xF8, 0x1A, 0x15, 0xBF, 0xC1, 0x30, 0xFB}

// GUIDFromName is the provider GUID an EventSource of this name has when
// it declares none: SHA-1 over a fixed namespace and the upper-cased name
// in UTF-16 big-endian, the first 16 bytes taken as a Windows GUID's bytes
// with the version nibble set to 5. PerfView's leading "*" (a command-line
// marker) is dropped. Upper-casing follows Go's Unicode tables, which agree
// with .NET's invariant culture on every ASCII name.
func GUIDFromName(name string) uuid.UUID {
	name = strings.ToUpper(strings.TrimPrefix(name, "*"))
	h := sha1.New()
	h.Write(nameSpace[:])
	var b [2]byte
	for _, u := range utf16.Encode([]rune(name)) {
		binary.BigEndian.PutUint16(b[:], u)
		h.Write(b[:])
	}
	sum := h.Sum(nil)
	sum[7] = sum[7]&0x0F | 0x50
	return guid.FromWindows(sum)
}

// The manifest event's own fields, as TraceEvent names them.
var (
	payloadLength = payload.Field{Name: "PayloadLength", InType: payload.InUInt32}
	manifestData  = payload.MustSchema("ManifestData", []payload.Field{
		{Name: "Format", InType: payload.InUInt8},
		{Name: "MajorVersion", InType: payload.InUInt8},
		{Name: "MinorVersion", InType: payload.InUInt8},
		{Name: "Magic", InType: payload.InUInt8},
		{Name: "TotalChunks", InType: payload.InUInt16},
		{Name: "ChunkNumber", InType: payload.InUInt16},
		{Name: "Chunk", InType: payload.InNonNullTerminatedAnsiString, OutType: payload.OutUTF8},
	})
)

// ManifestEvent describes the manifest event itself ("ManifestData", as
// TraceEvent names it): the envelope, the chunk of XML, and PayloadLength,
// the size of the whole user data as TraceEvent shows it.
func ManifestEvent(provider string) *schema.Event {
	return &schema.Event{
		Provider: provider,
		Name:     "ManifestData",
		Payload:  manifestData,
		Computed: func(r *record.Record, vals []payload.Value) []payload.Value {
			return append(vals, payload.NewUint(&payloadLength, uint64(len(r.UserData))))
		},
	}
}
