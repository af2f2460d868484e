// Package describe says what a record means: its provider's name, its
// event's name, and its payload decoded into named values. It puts the
// schema sources together in the order the trace's own description wins:
// first what the trace carries (TraceLogging metadata in the record, TDH
// metadata and EventSource manifests learned from the trace), then
// manifests the user gives, then the tables built in (the kernel's classes,
// the .NET runtime's manifest, well-known provider names).
//
// A Describer keeps caches and a value slab across records so that the
// steady state allocates nothing. It is not safe for concurrent use; give
// each goroutine its own (they may share the Sets).
package describe

import (
	"encoding/binary"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
	"github.com/etlkit/etlkit/schema/kernel"
	"github.com/etlkit/etlkit/schema/tracelogging"
	"github.com/etlkit/etlkit/schema/wpp"
)

// Description is what a Describer says of one record. Its Fields are valid
// until the next Describe on the same Describer.
type Description struct {
	ProviderName string
	EventName    string
	// Event is the schema that describes the record, nil when no source
	// knows it (TraceLogging events have none: their layout travels in the
	// record).
	Event *schema.Event
	// Fields holds the decoded payload in payload order, then any computed
	// fields, when Decoded is true.
	Fields  []payload.Value
	Decoded bool
	// Err says why a payload with a schema was not decoded (a
	// *payload.DecodeError naming the field and offset), or that it had
	// bytes after its last field (payload.ErrTrailingData) although every
	// field decoded: those bytes are then the value of
	// payload.TrailingData among the Fields. A newer version of an event
	// than its schema keeps its extra bytes the same way, with no error.
	// Nil when no schema was known.
	Err error
	// Kernel marks kernel records, with their group.
	Kernel bool
	Group  uint8
	// WPP is the TMF entry of a WPP message that Options.WPP holds; the
	// Fields are then Message (the text its format string gives), Level
	// and Flags (those the entry names) and the arguments, and Err says
	// which argument the record holds less of than the entry says.
	WPP *wpp.Message
}

// Options choose the sources beyond the built-in ones.
type Options struct {
	// Trace holds what was learned from the trace itself (see Learner);
	// Manifests the events of manifests the user gave. Either may be nil.
	Trace     *schema.Set
	Manifests *schema.Set
	// BuiltIn are sets of built-in events (the .NET runtime's), searched
	// after Manifests.
	BuiltIn []*schema.Set
	// ProviderNames names providers no other source names.
	ProviderNames func(uuid.UUID) (string, bool)
	// KernelNames, when set, are the volume mappings and file names a
	// first pass over the trace learned (Learner.KernelNames): the
	// Describer starts from a copy, so that a kernel event names a file
	// whose name the trace logs only after it.
	KernelNames *kernel.State
	// TypeNames, when set, are the .NET type names a first pass over the
	// trace learned (Learner.TypeNames): the Describer starts from a
	// copy, so that an event names a type the runtime logs only after it.
	TypeNames *dotnet.TypeNames
	// WPP, when set, holds the TMF messages WPP records are named and
	// decoded with: the module and function (or message name) name the
	// record, and its arguments fill the message's text.
	WPP *wpp.Set
	// WPPPointerSize sizes the pointers of the WPP messages whose header
	// does not give their provider's width (those written before Vista):
	// the logfile header's pointer size; 0 stands for 8.
	WPPPointerSize int
}

// Describer describes records.
type Describer struct {
	opts    Options
	schemas *tracelogging.Cache
	traits  record.TraitsCache
	vals    []payload.Value
	unnamed map[uint16]string
	// kernel learns volume and file names from the records described
	// with their payload, to show kernel file names as DOS paths; types
	// the names of .NET types, for the events that give only their ids.
	kernel kernel.State
	types  dotnet.TypeNames
	// found remembers what the sets said of the keys looked up lately;
	// foundAdds is the sets' Adds it holds for.
	found     [foundSlots]setLookup
	foundAdds uint64
	// text holds the text of the last WPP message described.
	text []byte
}

// foundSlots is the number of keys the Describer remembers: a trace's
// events are a few hundred kinds, a few dozen of them most of its records.
const foundSlots = 256

// setLookup is what the sets say of one key: the trace's own, and then the
// user's and the built-in ones, once asked (setsDone).
type setLookup struct {
	key        schema.Key
	valid      bool
	trace      *schema.Event
	traceExact bool
	setsDone   bool
	sets       *schema.Event
	setsExact  bool
}

// New returns a Describer over the given sources.
func New(opts Options) *Describer {
	z := &Describer{opts: opts, schemas: tracelogging.NewCache(0, 0)}
	if opts.KernelNames != nil {
		z.kernel = *opts.KernelNames.Clone()
	}
	if opts.TypeNames != nil {
		z.types = *opts.TypeNames.Clone()
	}
	return z
}

// keep holds on to a grown value slab for the next record.
func (z *Describer) keep(vals []payload.Value) {
	if cap(vals) > cap(z.vals) {
		z.vals = vals[:0]
	}
}

// Describe fills d for r. With payload false only the names are worked out
// (for counts and filters), which is much cheaper.
func (z *Describer) Describe(r *record.Record, d *Description, withPayload bool) {
	*d = Description{Fields: d.Fields[:0]}
	if r.HeaderType == header.TypeMessage && z.opts.WPP != nil && z.wpp(r, d, withPayload) {
		return
	}
	if g, ok := kernel.Group(r); ok {
		d.Kernel, d.Group = true, g
		d.ProviderName = kernel.ProviderName
	}
	if withPayload {
		z.learn(r)
	}
	e, exact := z.lookup(r, d)
	if e != nil {
		d.Event = e
		// A kernel event's own provider name wins: TraceEvent files a few
		// under MSNT_SystemTrace, the MOF root.
		if d.ProviderName == "" || d.Kernel && e.Provider != "" {
			d.ProviderName = e.Provider
		}
		d.EventName = e.Name
		if withPayload && e.Payload != nil {
			z.decode(r, e, exact, d)
		}
	}
	if d.Kernel && d.EventName == "" {
		d.EventName = z.unnamedKernel(d.Group, r.EventDescriptor.Opcode)
	}
	if d.ProviderName == "" && !d.Kernel {
		d.ProviderName = z.providerName(r)
	}
}

// wpp describes a WPP message whose TMF entry the WPP set holds, and
// reports false for one it does not know.
func (z *Describer) wpp(r *record.Record, d *Description, withPayload bool) bool {
	if !r.Message.HasGUID() {
		return false
	}
	m := z.opts.WPP.Lookup(r.ProviderId, r.Message.MessageNumber)
	if m == nil {
		return false
	}
	d.WPP = m
	d.ProviderName, d.EventName = m.Module, m.EventName()
	if d.ProviderName == "" {
		d.ProviderName = z.providerName(r)
	}
	if !withPayload {
		return true
	}
	ptr := r.PointerSize()
	if ptr == 0 {
		ptr = z.opts.WPPPointerSize
		if ptr != 4 {
			ptr = 8
		}
	}
	var p *wpp.Prefix
	if m.NeedsPrefix() {
		pr := wpp.PrefixOf(r)
		p = &pr
	}
	vals, err := m.Values(z.vals[:0], &z.text, r.UserData, ptr, p)
	z.keep(vals)
	d.Fields, d.Decoded, d.Err = vals, true, err
	return true
}

// unnamedKernel is the name of a kernel event whose opcode has none,
// "Group/Opcode(N)" as TraceEvent shows it, made once per opcode so that
// every format and view calls the event the same.
func (z *Describer) unnamedKernel(group, opcode uint8) string {
	k := uint16(group)<<8 | uint16(opcode)
	if n, ok := z.unnamed[k]; ok {
		return n
	}
	if z.unnamed == nil {
		z.unnamed = make(map[uint16]string)
	}
	n := string(kernel.AppendEventName(nil, group, opcode))
	z.unnamed[k] = n
	return n
}

// lookup finds the schema of r by precedence. A TraceLogging record fills
// d itself, since its schema is in the record.
func (z *Describer) lookup(r *record.Record, d *Description) (*schema.Event, bool) {
	if d.Kernel || r.HeaderType.IsClassic() {
		f := z.remembered(classicKey(r, d))
		if f.trace != nil {
			return f.trace, f.traceExact
		}
		if e, exact, ok := kernel.LookupRecord(r); ok {
			return e, exact
		}
		return z.lookupSets(f)
	}
	if r.HeaderType != header.TypeEventHeader32 && r.HeaderType != header.TypeEventHeader64 {
		return nil, false
	}
	if it, ok := r.Extended(record.ExtEventSchemaTL); ok {
		z.traceLogging(r, it.Data, d)
		return nil, false
	}
	f := z.remembered(schema.Key{Provider: r.ProviderId, ID: r.EventDescriptor.Id, Version: uint16(r.EventDescriptor.Version)})
	if f.trace != nil {
		return f.trace, f.traceExact
	}
	return z.lookupSets(f)
}

// classicKey is the key of a classic (MOF) record: its class GUID (for a
// kernel record, its group's), opcode and version.
func classicKey(r *record.Record, d *Description) schema.Key {
	return schema.Key{Provider: r.ProviderId, ID: uint16(r.EventDescriptor.Opcode),
		Version: r.ClassVersion, Classic: true}
}

// remembered is the slot of key k, with what the trace's own set says of
// it. Looking a key up in a Set hashes it and walks a map; the slot costs a
// multiplication and a comparison.
func (z *Describer) remembered(k schema.Key) *setLookup {
	if adds := z.adds(); adds != z.foundAdds {
		// An event was added since: what was looked up may read
		// otherwise now.
		z.found = [foundSlots]setLookup{}
		z.foundAdds = adds
	}
	le := binary.LittleEndian
	h := le.Uint64(k.Provider[:8]) ^ le.Uint64(k.Provider[8:]) ^ uint64(k.ID)<<20 ^ uint64(k.Version)<<40
	f := &z.found[(h*0x9E3779B97F4A7C15)>>56%foundSlots]
	if f.valid && f.key == k {
		return f
	}
	*f = setLookup{key: k, valid: true}
	if z.opts.Trace != nil {
		f.trace, f.traceExact = z.opts.Trace.Lookup(k)
	}
	return f
}

// adds sums the Adds of every set.
func (z *Describer) adds() uint64 {
	var n uint64
	if z.opts.Trace != nil {
		n += z.opts.Trace.Adds()
	}
	if z.opts.Manifests != nil {
		n += z.opts.Manifests.Adds()
	}
	for _, s := range z.opts.BuiltIn {
		n += s.Adds()
	}
	return n
}

// lookupSets is what the user's manifests, then the built-in sets, say of
// f's key.
func (z *Describer) lookupSets(f *setLookup) (*schema.Event, bool) {
	if !f.setsDone {
		f.sets, f.setsExact = z.searchSets(f.key)
		f.setsDone = true
	}
	return f.sets, f.setsExact
}

// searchSets searches the user's manifests, then the built-in sets.
func (z *Describer) searchSets(k schema.Key) (*schema.Event, bool) {
	if z.opts.Manifests != nil {
		if e, exact := z.opts.Manifests.Lookup(k); e != nil {
			return e, exact
		}
	}
	for _, s := range z.opts.BuiltIn {
		if e, exact := s.Lookup(k); e != nil {
			return e, exact
		}
	}
	return nil, false
}

func (z *Describer) traceLogging(r *record.Record, blob []byte, d *Description) {
	d.ProviderName = z.traits.ProviderName(r)
	s, err := z.schemas.Schema(blob)
	if err != nil {
		d.Err = err
		return
	}
	d.EventName = s.Name
	d.Event = nil
	vals, err := s.DecodeKeep(r.UserData, r.PointerSize(), z.vals[:0])
	z.keep(vals)
	d.Err = err
	// Trailing bytes after complete fields still leave every field
	// readable, and are kept as a value of their own; any other failure
	// falls back to the payload's bytes.
	if err == nil {
		d.Fields, d.Decoded = vals, true
		if endsWithTrailingData(vals) {
			d.Err = payload.ErrTrailingData
		}
	}
}

func (z *Describer) decode(r *record.Record, e *schema.Event, exact bool, d *Description) {
	vals, err := e.Payload.DecodeKeep(r.UserData, r.PointerSize(), z.vals[:0])
	if err != nil {
		z.keep(vals)
		d.Err = err
		return
	}
	// Bytes after the last field are kept, as payload.TrailingData. Of a
	// newer version than the schema they are what that version added, no
	// error; at the schema's own version the record says more than its
	// schema does.
	if exact && endsWithTrailingData(vals) {
		err = payload.ErrTrailingData
	}
	if e.Computed != nil {
		vals = e.Computed(r, vals)
	}
	if d.Kernel || kernel.IsKernelFile(r) {
		vals = z.kernel.Rewrite(e, vals)
	} else {
		vals = z.types.Rewrite(r, vals)
	}
	z.keep(vals)
	d.Fields, d.Decoded, d.Err = vals, true, err
}

// endsWithTrailingData reports whether DecodeKeep kept bytes after the
// last field: they are its last value.
func endsWithTrailingData(vals []payload.Value) bool {
	return len(vals) > 0 && vals[len(vals)-1].Field() == payload.TrailingData
}

// providerName names a non-kernel record's provider: from its traits,
// then the sets, then the built-in names.
func (z *Describer) providerName(r *record.Record) string {
	if n := z.traits.ProviderName(r); n != "" {
		return n
	}
	if r.ProviderId == uuid.Nil {
		return ""
	}
	for _, s := range [...]*schema.Set{z.opts.Trace, z.opts.Manifests} {
		if s == nil {
			continue
		}
		if n, ok := s.ProviderName(r.ProviderId); ok {
			return n
		}
	}
	for _, s := range z.opts.BuiltIn {
		if n, ok := s.ProviderName(r.ProviderId); ok {
			return n
		}
	}
	if z.opts.ProviderNames != nil {
		if n, ok := z.opts.ProviderNames(r.ProviderId); ok {
			return n
		}
	}
	return ""
}

// Learn takes from a record the caller does not describe (one a filter
// drops) what the descriptions of later records need: the volume mappings
// and file names that kernel file names are shown with, the disks' last
// completions, the names of .NET types. Describe with the payload learns
// from the records it describes, so that a record reads the same whatever
// was filtered out before it.
func (z *Describer) Learn(r *record.Record) { z.learn(r) }

func (z *Describer) learn(r *record.Record) {
	z.kernel.Learn(r)
	z.types.Learn(r)
}

// EventName is the record's event name, for filters; false when no source
// names it.
func (z *Describer) EventName(r *record.Record) (string, bool) {
	var d Description
	z.Describe(r, &d, false)
	return d.EventName, d.EventName != ""
}
