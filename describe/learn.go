package describe

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"iter"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
	"github.com/etlkit/etlkit/schema/eventsource"
	"github.com/etlkit/etlkit/schema/kernel"
	"github.com/etlkit/etlkit/schema/tdh"
)

// ManifestParser adds the events of an instrumentation manifest (XML) to
// set. source names where the manifest came from, for its errors.
type ManifestParser func(xml []byte, source string, set *schema.Set) error

// MaxLearnErrors bounds the errors a Learner keeps; LearnStats.Errors
// counts them all.
const MaxLearnErrors = 64

// Learner gathers what a trace says of its own events: the TDH metadata
// (MetaData/EventInfo and EventMapInfo records) that merged traces carry,
// and the manifests EventSources write into their traces. Its Set is what
// Options.Trace takes.
//
// Metadata can sit anywhere in a trace, after events it describes too, so
// the usual way is a first pass over the trace with Scan before the
// Describers read the Set. Learn takes records one at a time instead,
// which describes only what follows the metadata. A Learner is not safe
// for concurrent use, and other goroutines must not read the Set while it
// learns (maps are filled in place when their EventMapInfo comes).
//
// One Learner can learn from several traces: their metadata goes into one
// Set, which suits traces recorded together (the parts of one merged
// capture describe each other's events: the kernel part may carry the
// metadata of the user part's events). Events are keyed by provider, id and
// version, which a provider does not reuse for another layout, so
// metadata of different traces does not conflict; for the same key the
// first description wins.
type Learner struct {
	set     *schema.Set
	maps    map[mapKey]*payload.Map
	learned map[schema.Key]bool
	chunks  eventsource.Assembler
	// manifests is the last manifest taken per provider, so that the
	// copies EventSource repeats are parsed once.
	manifests map[uuid.UUID][]byte
	parse     ManifestParser
	deferTo   []*schema.Set
	errs      []error
	stats     LearnStats
	// kernel holds the volume mappings and file names of the trace, for
	// the kernel events that name files only by their file object; types
	// the .NET type names, for the events that name types by id.
	kernel kernel.State
	types  dotnet.TypeNames
	// trace is what NewTraceLearner was given, for DescribeOptions.
	trace TraceOptions
}

type mapKey struct {
	provider uuid.UUID
	name     string
}

// LearnStats counts what a Learner read.
type LearnStats struct {
	EventInfos    int // MetaData/EventInfo records read
	EventMapInfos int // MetaData/EventMapInfo records read
	Events        int // events added from EventInfo records
	Deferred      int // events left to the sets given to Defer
	Maps          int // maps filled from EventMapInfo records
	// ManifestChunks counts EventSource manifest events; Manifests the
	// distinct manifests they completed; ManifestsParsed those the
	// ManifestParser took without error.
	ManifestChunks  int
	Manifests       int
	ManifestsParsed int
	Errors          int
}

// LearnError reports a metadata record that could not be used. Its
// position is the record's: FileOffset is the record's file offset, or for
// a compressed buffer the buffer's, in which case BufferOffset places it.
type LearnError struct {
	What         string // "MetaData/EventInfo", "MetaData/EventMapInfo", "EventSource manifest"
	FileOffset   int64
	BufferIndex  int
	BufferOffset int
	Err          error
}

func (e *LearnError) Error() string {
	return fmt.Sprintf("%s record at file offset 0x%x (buffer %d, offset 0x%x): %v",
		e.What, e.FileOffset, e.BufferIndex, e.BufferOffset, e.Err)
}

func (e *LearnError) Unwrap() error { return e.Err }

// NewLearner returns a Learner with an empty Set.
func NewLearner() *Learner {
	return &Learner{
		set:       new(schema.Set),
		maps:      make(map[mapKey]*payload.Map),
		learned:   make(map[schema.Key]bool),
		manifests: make(map[uuid.UUID][]byte),
	}
}

// SetManifestParser sets what turns a reassembled EventSource manifest into
// events. Without one the Learner still names the provider and its
// manifest events, but learns none of its other events.
func (l *Learner) SetManifestParser(p ManifestParser) { l.parse = p }

// Defer leaves to sets (the built-in tables, the user's manifests) the
// events they describe at the exact version that TDH metadata describes
// too: both come from the same manifest and give the same layout, but TDH
// carries the manifest's raw task and opcode names ("GarbageCollection/
// GCAllocationTick"), where the tables have the display names TraceEvent
// shows ("GC/AllocationTick") and the fields it works out. TDH metadata
// still describes every event those sets know at no version or at an older
// one. EventSource manifests are not deferred: they are the provider's own.
// Call Defer before learning.
func (l *Learner) Defer(sets ...*schema.Set) { l.deferTo = append(l.deferTo, sets...) }

// Set is what was learned, for Options.Trace.
func (l *Learner) Set() *schema.Set { return l.set }

// KernelNames are the volume mappings and file-object names of the trace
// (its SysConfig and FileIO name records), for Options.KernelNames: with
// them a kernel event names a file whose name is logged only after it.
func (l *Learner) KernelNames() *kernel.State { return &l.kernel }

// TypeNames are the names the trace's .NET BulkType events give type ids,
// for Options.TypeNames: with them an event names a type the runtime logs
// only after it.
func (l *Learner) TypeNames() *dotnet.TypeNames { return &l.types }

// Stats counts what was read so far.
func (l *Learner) Stats() LearnStats { return l.stats }

// Errors are the first MaxLearnErrors errors, each a *LearnError.
func (l *Learner) Errors() []error { return l.errs }

// Pending lists the EventSource manifests still missing chunks.
func (l *Learner) Pending() []eventsource.Partial { return l.chunks.Pending() }

// Learn reads r when it is a metadata record and reports whether it was
// one (whether or not it could be used; see Errors). It also takes the
// volume mappings and file names of KernelNames, and the .NET type names
// of TypeNames, from the records that carry them.
func (l *Learner) Learn(r *record.Record) bool {
	l.kernel.Learn(r)
	l.types.Learn(r)
	switch r.HeaderType {
	case header.TypeFull32, header.TypeFull64:
		if r.ProviderId != kernel.MetaDataTask {
			return false
		}
		switch r.EventDescriptor.Opcode {
		case kernel.OpcodeEventInfo:
			l.eventInfo(r)
		case kernel.OpcodeEventMapInfo:
			l.eventMapInfo(r)
		default:
			return false
		}
		return true
	case header.TypeEventHeader32, header.TypeEventHeader64:
		if !eventsource.IsManifest(&r.EventDescriptor) {
			return false
		}
		l.manifestChunk(r)
		return true
	}
	return false
}

func (l *Learner) fail(r *record.Record, what string, err error) {
	l.stats.Errors++
	if len(l.errs) < MaxLearnErrors {
		l.errs = append(l.errs, &LearnError{What: what, FileOffset: r.FileOffset,
			BufferIndex: r.BufferIndex, BufferOffset: r.BufferOffset, Err: err})
	}
}

// mapFor is the map of a provider's that a name stands for, made empty when
// first asked for and filled when its EventMapInfo comes.
func (l *Learner) mapFor(provider uuid.UUID, name string) *payload.Map {
	k := mapKey{provider, name}
	m := l.maps[k]
	if m == nil {
		m = &payload.Map{Name: name}
		l.maps[k] = m
	}
	return m
}

func (l *Learner) eventInfo(r *record.Record) {
	l.stats.EventInfos++
	const what = "MetaData/EventInfo"
	ei, err := tdh.ParseEventInfo(r.UserData)
	if err != nil {
		l.fail(r, what, err)
		return
	}
	k, ok := ei.Key()
	if !ok || l.learned[k] {
		return
	}
	if ei.ProviderName != "" {
		l.set.SetProviderName(ei.ProviderGUID, ei.ProviderName)
	}
	for _, s := range l.deferTo {
		if e, exact := s.Lookup(k); e != nil && exact {
			l.learned[k] = true
			l.stats.Deferred++
			return
		}
	}
	e, err := ei.Event(func(name string) *payload.Map { return l.mapFor(ei.ProviderGUID, name) })
	e = dotnet.StackEvent(k, kernel.KernelFileEvent(k, e))
	if err != nil {
		// The names still hold; a later description of the event may
		// bring a payload that works.
		l.fail(r, what, fmt.Errorf("%s/%s: %w", ei.ProviderName, e.Name, err))
		if _, have := l.set.Lookup(k); !have {
			l.set.Add(k, e)
		}
		return
	}
	l.learned[k] = true
	l.set.Add(k, e)
	l.stats.Events++
}

func (l *Learner) eventMapInfo(r *record.Record) {
	l.stats.EventMapInfos++
	provider, mi, err := tdh.ParseEventMapInfo(r.UserData)
	if err != nil {
		l.fail(r, "MetaData/EventMapInfo", err)
		return
	}
	m, ok := mi.Map()
	if !ok {
		return
	}
	*l.mapFor(provider, mi.Name) = *m
	l.stats.Maps++
}

// manifestKey is where the manifest event itself goes: version 0, which
// every version of it finds.
func manifestKey(provider uuid.UUID) schema.Key {
	return schema.Key{Provider: provider, ID: eventsource.ManifestID}
}

func (l *Learner) manifestChunk(r *record.Record) {
	l.stats.ManifestChunks++
	const what = "EventSource manifest"
	c, err := eventsource.ChunkOf(r)
	if err != nil {
		l.fail(r, what, err)
		return
	}
	k := manifestKey(r.ProviderId)
	if e, _ := l.set.Lookup(k); e == nil {
		l.set.Add(k, eventsource.ManifestEvent(""))
	}
	xml, done, err := l.chunks.Add(c)
	if err != nil {
		l.fail(r, what, err)
		return
	}
	if !done {
		return
	}
	if prev, ok := l.manifests[r.ProviderId]; ok && bytes.Equal(prev, xml) {
		return
	}
	l.manifests[r.ProviderId] = xml
	l.stats.Manifests++
	p, err := eventsource.ProviderOf(xml)
	if err != nil {
		l.fail(r, what, err)
		return
	}
	l.set.SetProviderName(r.ProviderId, p.Name)
	l.set.Add(k, eventsource.ManifestEvent(p.Name))
	if l.parse == nil {
		return
	}
	source := fmt.Sprintf("EventSource manifest of %s {%v} (completed by the record at file offset 0x%x)", p.Name, r.ProviderId, r.FileOffset)
	if err := l.parse(xml, source, l.set); err != nil {
		l.fail(r, what, err)
		return
	}
	l.stats.ManifestsParsed++
}

// Scan learns from the metadata records of one trace, given its buffers in
// file order (etl.Reader.Buffers) and its clock. It looks at each record's
// first bytes only and decodes just the metadata records, so that it costs
// little beside a pass that decodes every record. Buffers that cannot be
// read are passed over: the pass that reads the records reports them.
func (l *Learner) Scan(buffers iter.Seq2[*buffer.Buffer, error], clock *header.Clock) {
	var rec record.Record
	for b, err := range buffers {
		if err == nil {
			l.scanBuffer(b, clock, &rec)
		}
	}
}

// metaDataGUID is the MetaData class GUID as a classic header stores it.
var metaDataGUID = guid.Windows(kernel.MetaDataTask)

func (l *Learner) scanBuffer(b *buffer.Buffer, clock *header.Clock, rec *record.Record) {
	data := b.Data
	var ctx record.Context
	haveCtx := false
	for at := buffer.HeaderSize; at < len(data); {
		p, end, err := header.ParsePrefix(data[at:])
		if end || err != nil {
			return
		}
		if h := data[at : at+p.Size]; isMetadata(p.Type, h) || isKernelNames(p.Type, h) || dotnet.IsBulkType(p.Type, h) {
			if !haveCtx {
				ctx, haveCtx = record.NewContext(b, clock), true
			}
			if record.Decode(rec, data[at:], p, at, &ctx) == nil {
				l.Learn(rec)
			}
		}
		at += header.Align(p.Size)
	}
}

// isKernelNames tells from a record's header bytes whether it names files
// or volumes (see KernelNames): a FileIO name record, with a kernel header
// or relogged, or a SysConfig record of a merge.
func isKernelNames(t header.Type, b []byte) bool {
	switch t {
	case header.TypeSystem32, header.TypeSystem64, header.TypeCompact32, header.TypeCompact64,
		header.TypePerfInfo32, header.TypePerfInfo64:
		// The HookId: type, then group.
		return len(b) >= 8 && b[7] == fileIOGroup && isFileNameOpcode(b[6])
	case header.TypeFull32, header.TypeFull64:
		if len(b) < header.EventTraceHeaderSize {
			return false
		}
		class := [16]byte(b[0x18:0x28])
		return class == sysConfigGUID || class == fileIOGUID && isFileNameOpcode(b[4])
	}
	return false
}

// fileIOGroup is the kernel's FileIO group, whose Name, FileCreate,
// FileDelete and FileRundown events name file objects.
const fileIOGroup = 0x04

func isFileNameOpcode(op uint8) bool { return op == 0 || op == 32 || op == 35 || op == 36 }

// The SysConfig and FileIO class GUIDs as classic headers store them.
var (
	sysConfigGUID = guid.Windows(kernel.SysConfigTask)
	fileIOGUID    = guid.Windows(record.KernelGroupGUID(fileIOGroup, 0))
)

// isMetadata tells from a record's header bytes whether Learn wants it.
func isMetadata(t header.Type, b []byte) bool {
	switch t {
	case header.TypeFull32, header.TypeFull64:
		return len(b) >= header.EventTraceHeaderSize &&
			(b[4] == kernel.OpcodeEventInfo || b[4] == kernel.OpcodeEventMapInfo) &&
			[16]byte(b[0x18:0x28]) == metaDataGUID
	case header.TypeEventHeader32, header.TypeEventHeader64:
		le := binary.LittleEndian
		return len(b) >= header.EventHeaderSize && le.Uint16(b[0x28:]) == eventsource.ManifestID &&
			b[0x2D] == eventsource.ManifestOpcode && le.Uint16(b[0x2E:]) == eventsource.ManifestTask
	}
	return false
}
