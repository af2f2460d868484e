// Package kernel describes the events of the NT Kernel Logger (the MOF
// classes of MSNT_SystemTrace, logged with SYSTEM, COMPACT and PERFINFO
// headers, or relogged with classic headers that carry a kernel group's
// GUID) and the classic events KernelTraceControl adds when a trace is
// merged. Layouts, group numbers and GUIDs come from the kernel event notes
// (kernel-events.md); event and field names are spelled as TraceEvent shows
// them where its output is known, else as the MOF class names them.
package kernel

import (
	"fmt"
	"slices"
	"sync"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
)

// class is one MOF event-type class: the layout of the opcodes it lists in
// a group, at one version.
type class struct {
	name    string // the MOF class name, e.g. Process_V4_TypeGroup1
	group   uint8
	version uint16
	opcodes []uint8
	fields  []payload.Field
	// computed appends values worked out from the record (see
	// schema.Event.Computed).
	computed func(r *record.Record, vals []payload.Value) []payload.Value
	// provider, when set, replaces ProviderName for the events of this
	// class: TraceEvent files the few kernel events its own tables lack
	// under the MOF root, MSNT_SystemTrace.
	provider string
}

// computedSlots bounds the values appended to a decoded payload: by a
// class's computed function and by State.Rewrite. Decode leaves that many
// slots free for them (payload.Schema.Spare).
const computedSlots = 6

// classes are every class of every group; each group's file adds its own
// in an init function (register).
var classes []class

func register(cs ...class) { classes = append(classes, cs...) }

// payloadVersions choose the class of the few events whose payload says
// which layout it has, whatever the header's version.
var payloadVersions = map[[2]uint8]func(userData []byte, version uint16) uint16{}

// opcodeEvents are the events of one (group, opcode): one per version
// that a class defines, versions ascending, or the event with a name only
// when no class does.
type opcodeEvents struct {
	versions []uint16
	events   []*schema.Event
	named    *schema.Event
	// pick, when set, chooses the version from the payload
	// (payloadVersions).
	pick func(userData []byte, version uint16) uint16
}

// maxGroups bounds the kernel group numbers: five bits of the HookId.
const maxGroups = 0x20

// table holds the events by group and opcode, for lookups that cost two
// indexings and a short scan: every kernel record goes through one.
var table [maxGroups][256]*opcodeEvents

// at returns the entry of (group, opcode), making it.
func at(group, opcode uint8) *opcodeEvents {
	t := table[group][opcode]
	if t == nil {
		t = &opcodeEvents{}
		table[group][opcode] = t
	}
	return t
}

// laterInits are the bodies of the files' init functions: they register
// the classes and the classic events, several hundred schemas that a run
// which names no kernel record never needs, so they run on first use
// rather than at the start of every process.
var laterInits []func()

func later(f func()) { laterInits = append(laterInits, f) }

// buildIndex runs on first use: it registers every class, then indexes them.
var buildIndex = sync.OnceFunc(func() {
	for _, f := range laterInits {
		f()
	}
	for _, c := range classes {
		if c.group >= maxGroups {
			panic(fmt.Sprintf("kernel class %s: group %#x", c.name, c.group))
		}
		// Classes may share field lists, which NewSchema must not see
		// twice: each schema gets its own copy.
		s, err := payload.NewSchema(c.name, cloneFields(c.fields))
		if err != nil {
			panic(fmt.Sprintf("kernel class %s: %v", c.name, err))
		}
		s.Spare = computedSlots
		fileFields[s] = fileFieldsOf(s)
		provider := ProviderName
		if c.provider != "" {
			provider = c.provider
		}
		for _, op := range c.opcodes {
			t := at(c.group, op)
			i := len(t.versions)
			for i > 0 && t.versions[i-1] > c.version {
				i--
			}
			if i > 0 && t.versions[i-1] == c.version {
				panic(fmt.Sprintf("kernel class %s: group %#x opcode %d version %d defined twice", c.name, c.group, op, c.version))
			}
			e := &schema.Event{Provider: provider, Name: EventName(c.group, op), Payload: s, Computed: c.computed}
			t.versions = slices.Insert(t.versions, i, c.version)
			t.events = slices.Insert(t.events, i, e)
		}
	}
	for g, names := range kernelEvents {
		for op, n := range names {
			if n != "" {
				at(uint8(g), uint8(op)).named = &schema.Event{Provider: ProviderName, Name: n}
			}
		}
	}
	for k, pick := range payloadVersions {
		at(k[0], k[1]).pick = pick
	}
})

// cloneFields copies fs and the members of its structs.
func cloneFields(fs []payload.Field) []payload.Field {
	out := make([]payload.Field, len(fs))
	for i, f := range fs {
		f.Members = cloneFields(f.Members)
		out[i] = f
	}
	return out
}

// Lookup finds the event of kernel group group and opcode at version. When
// no class of that version defines the opcode it takes the highest lower
// version that does (exact is then false: later versions add fields at the
// end), and failing that the highest version; an opcode without any class
// gives an event with a name and no payload layout, and an opcode without a
// name gives false.
func Lookup(group, opcode uint8, version uint16) (e *schema.Event, exact bool, ok bool) {
	return opcodeEntry(group, opcode).lookup(version)
}

// opcodeEntry is the table's entry of (group, opcode), nil when it has none.
func opcodeEntry(group, opcode uint8) *opcodeEvents {
	buildIndex()
	if group == record.GroupProcess && opcode == record.ProcessImageLoadType {
		// HookId 0x030A is Image/Load, with the Image classes.
		group = record.GroupImage
	}
	if group >= maxGroups {
		return nil
	}
	return table[group][opcode]
}

func (t *opcodeEvents) lookup(version uint16) (e *schema.Event, exact bool, ok bool) {
	if t == nil {
		return nil, false, false
	}
	if n := len(t.versions); n > 0 {
		best := n - 1
		for i := n - 1; i >= 0; i-- {
			if t.versions[i] == version {
				return t.events[i], true, true
			}
			if t.versions[i] < version {
				best = i
				break
			}
		}
		return t.events[best], false, true
	}
	if t.named != nil {
		return t.named, false, true
	}
	return nil, false, false
}

// Group is the kernel group of a record: from the HookId of a SYSTEM,
// COMPACT or PERFINFO record, or from the class GUID of a classic record
// that carries a kernel group's GUID (a relogged kernel event).
func Group(r *record.Record) (uint8, bool) {
	if r.HeaderType.IsKernel() {
		return uint8(r.HookId >> 8), true
	}
	if r.HeaderType.IsClassic() {
		return record.KernelGroupByGUID(r.ProviderId)
	}
	return 0, false
}

// LookupRecord finds the event a record is: a kernel event by its group,
// opcode and version, or a KernelTraceControl event by its class GUID and
// opcode. ok is false for other records.
func LookupRecord(r *record.Record) (e *schema.Event, exact bool, ok bool) {
	if g, isKernel := Group(r); isKernel {
		v := r.ClassVersion
		t := opcodeEntry(g, r.EventDescriptor.Opcode)
		if t != nil && t.pick != nil {
			v = t.pick(r.UserData, v)
		}
		return t.lookup(v)
	}
	if r.HeaderType.IsClassic() {
		return lookupClassic(r.ProviderId, r.EventDescriptor.Opcode)
	}
	return nil, false, false
}

// Control GUIDs and task GUIDs of KernelTraceControl's classic events.
var (
	// TraceControlProvider is the provider GUID TraceEvent files the
	// KernelTraceControl events under.
	TraceControlProvider = uuid.MustParse("28ad2447-105b-4fe2-9599-e59b2aa9a634")
	// ImageIDTask is the class GUID of ImageID, DbgID_RSDS, FileVersion, ….
	ImageIDTask = uuid.MustParse("b3e675d7-2554-4f18-830b-2762732560de")
	// MetaDataTask is the class GUID of the EventInfo and EventMapInfo
	// records that carry TDH metadata.
	MetaDataTask = uuid.MustParse("bbccf6c1-6cd1-48c4-80ff-839482e37671")
	// WinSatTask is the class GUID of the WinSat records.
	WinSatTask = uuid.MustParse("ed54dff8-c409-4cf6-bf83-05e1e61a09c4")
	// LostEventClass is the class GUID of Lost_Event (RT_LostEvent).
	LostEventClass = uuid.MustParse("6a399ae0-4bc6-4de9-870b-3657f8947e7e")
)

// MetaData opcodes.
const (
	OpcodeEventInfo    = 32
	OpcodeEventMapInfo = 33
)

// TraceControlName is the provider name TraceEvent gives KernelTraceControl
// events.
const TraceControlName = "KernelTraceControl"

// SystemTraceName is the MOF root of the kernel classes, the provider name
// TraceEvent shows for the kernel events its own tables lack.
const SystemTraceName = "MSNT_SystemTrace"

// classic holds the classic events that are not in a kernel group (the
// KernelTraceControl events, Lost_Event) by class GUID and opcode.
var classic = map[uuid.UUID]map[uint8]*schema.Event{}

// registerTraceControl adds a KernelTraceControl event; fields nil gives
// an event with a name and no payload layout.
func registerTraceControl(task uuid.UUID, opcode uint8, name string, fields []payload.Field, computed func(*record.Record, []payload.Value) []payload.Value) {
	registerClassic(task, TraceControlName, opcode, name, fields, computed)
}

// registerClassic adds a classic event of provider (the name shown) whose
// class GUID is task.
func registerClassic(task uuid.UUID, provider string, opcode uint8, name string, fields []payload.Field, computed func(*record.Record, []payload.Value) []payload.Value) {
	var s *payload.Schema
	if fields != nil {
		var err error
		if s, err = payload.NewSchema(name, fields); err != nil {
			panic(fmt.Sprintf("%s %s: %v", provider, name, err))
		}
		s.Spare = computedSlots
	}
	m := classic[task]
	if m == nil {
		m = map[uint8]*schema.Event{}
		classic[task] = m
	}
	if _, dup := m[opcode]; dup {
		panic(fmt.Sprintf("%s %s: opcode %d of %v defined twice", provider, name, opcode, task))
	}
	m[opcode] = &schema.Event{Provider: provider, Name: name, Payload: s, Computed: computed}
}

// lookupClassic finds a classic event by class GUID and opcode. Their
// layouts do not change with the version, so every match is exact.
func lookupClassic(task uuid.UUID, opcode uint8) (*schema.Event, bool, bool) {
	buildIndex()
	if e, ok := classic[task][opcode]; ok {
		return e, true, true
	}
	return nil, false, false
}
