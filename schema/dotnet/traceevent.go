package dotnet

import (
	"strings"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
)

// The GUIDs of the .NET runtime's providers that other packages name:
// Microsoft-Windows-DotNETRuntime, -DotNETRuntimeRundown and
// -DotNETRuntimePrivate (the tables hold them with the others).
var (
	RuntimeProvider = uuid.UUID{0xe1, 0x3c, 0x0d, 0x23, 0xcc, 0xbc, 0x4e, 0x12, 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4}
	RundownProvider = uuid.UUID{0xa6, 0x69, 0x02, 0x1c, 0xc4, 0x50, 0x46, 0x09, 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18}
	PrivateProvider = uuid.UUID{0x76, 0x3f, 0xd7, 0x54, 0x70, 0x86, 0x4d, 0xfe, 0x95, 0xeb, 0xc0, 0x1a, 0x46, 0xfa, 0xf4, 0xca}
)

// isDotNet reports whether a provider is one of the tables'.
func isDotNet(id uuid.UUID) bool {
	for i := range providers {
		if providers[i].guid == id {
			return true
		}
	}
	return false
}

// TraceEvent, the library behind PerfView, shows the .NET runtime's
// events through a parser of its own rather than through the manifest, and
// users compare what they see with it. Where the two differ and the
// record holds what TraceEvent shows, ApplyTraceEventConventions makes an
// event look as TraceEvent shows it:
//
//   - names: an opcode that repeats its GC task's prefix loses it
//     ("GC/GCLOHCompact" is "GC/LOHCompact"), and a few events have names of
//     their own (rules);
//   - values: a flags value of 0 is "None"; a few maps name values the
//     manifest leaves out or spells otherwise, and a few fields the manifest
//     leaves unnamed have TraceEvent's names for their values;
//   - fields: a few are renamed, and TraceEvent's computed ones (the file
//     name of a module's path, a GC's heap totals) follow the payload.
//
// Fields TraceEvent shows without the record holding them (those of a
// later version of the event, shown as 0 or empty, or type names gathered
// from other events) are not made up.
//
// It applies to the events of the .NET providers in s, whatever their
// source: the built-in tables (Set has it applied), a manifest given with
// --manifest, or metadata learned from a trace. Events whose names or
// fields are not the manifest's are left alone where a rule does not find
// what it expects.
func ApplyTraceEventConventions(s *schema.Set) {
	type keyed struct {
		k schema.Key
		e *schema.Event
	}
	var evs []keyed
	s.Each(func(k schema.Key, e *schema.Event) {
		if isDotNet(k.Provider) && !k.Classic {
			evs = append(evs, keyed{k, e})
		}
	})
	c := converter{schemas: map[schemaKey]*payload.Schema{}, maps: map[*payload.Map]*payload.Map{},
		byName: map[mapName]*payload.Map{}}
	for _, ke := range evs {
		if ke.e.Payload != nil {
			c.collect(ke.k.Provider, ke.e.Payload.Fields)
		}
	}
	for _, ke := range evs {
		e := *ke.e
		rule := rules[ruleKey{ke.k.Provider, ke.k.ID}]
		if rule != nil && rule.name != "" {
			e.Name = rule.name
		} else if rest, ok := strings.CutPrefix(e.Name, "GC/GC"); ok && rest != "" {
			e.Name = "GC/" + rest
		}
		if e.Payload != nil {
			e.Payload = c.schema(ke.k.Provider, e.Payload, rule)
			e.Computed = computedFor(e.Payload, rule)
			if rule != nil && rule.spare > e.Payload.Spare {
				e.Payload.Spare = rule.spare
			}
		}
		s.Add(ke.k, &e)
	}
}

type ruleKey struct {
	provider uuid.UUID
	id       uint16
}

// rule is what TraceEvent shows differently for one event (every
// version).
type rule struct {
	name string
	// rename maps a manifest field name to TraceEvent's.
	rename map[string]string
	// maps names the values of fields the manifest leaves unnamed;
	// manifestMaps does so with a map of the provider's manifest, by name,
	// and runtimeMaps with one of the public runtime provider's, where a
	// field of another .NET provider holds the same quantity.
	maps         map[string]*payload.Map
	manifestMaps map[string]string
	runtimeMaps  map[string]string
	// computed appends fields worked out from the payload.
	computed func(r *record.Record, vals []payload.Value) []payload.Value
	// spare is the number of values appended to the payload beyond
	// computed's: TypeNames adds FinalizeObject's TypeName.
	spare int
}

var rules = map[ruleKey]*rule{
	{RuntimeProvider, 4}:   {computed: heapStats},                                                     // GC/HeapStats
	{RuntimeProvider, 202}: {name: "GC/MarkWithType", rename: map[string]string{"Bytes": "Promoted"}}, // opcode GCMarkWithType, message "Mark"
	{RuntimeProvider, 204}: {maps: map[string]*payload.Map{"CompactMechanisms": compactMechanisms, "ExpandMechanisms": expandMechanisms}},
	{RuntimeProvider, 205}: {maps: map[string]*payload.Map{"GlobalMechanisms": globalMechanisms, "PauseMode": pauseModes},
		manifestMaps: map[string]string{"Reason": "GCReasonMap"}},
	{RundownProvider, 280}:              {name: "TieredCompilationRundown/SettingsDCStart"}, // the task's name, not its message
	{RuntimeProvider, FinalizeObjectID}: {spare: 1},
	// Events TraceEvent's own parser does not know: it names them from
	// the trace's metadata, with the manifest's task name (the listing
	// shows 200; 201 is its pair).
	{RuntimeProvider, 200}: {name: "GarbageCollection/IncreaseMemoryPressure"},
	{RuntimeProvider, 201}: {name: "GarbageCollection/DecreaseMemoryPressure"},
	// The private provider's GC/GlobalHeapHistory logs the public one's
	// Reason and GlobalMechanisms; its template names neither.
	{PrivateProvider, 5}: {maps: map[string]*payload.Map{"GlobalMechanisms": globalMechanisms},
		runtimeMaps: map[string]string{"Reason": "GCReasonMap"}},
	{PrivateProvider, 188}: {maps: map[string]*payload.Map{"ReasonCode": ngenBindReasons}}, // NgenBinder/NgenBind
}

// ngenBindReasons names the reason codes of the private provider's
// NgenBinder/NgenBind: the two the samples establish (TraceEvent prints
// them so for codes 0 and 9). No public source at hand gives the rest of
// the runtime's list; they stay numbers.
var ngenBindReasons = payload.NewMap("NgenBindReasonCode", false, []payload.MapEntry{
	{Value: 0, Name: "START_BIND"},
	{Value: 9, Name: "REJECT_IL_SIG"},
})

// mapFixes are values TraceEvent names that a manifest map leaves out or
// spells otherwise, by map name.
var mapFixes = map[string][]payload.MapEntry{
	"AssemblyFlagsMap": {{Value: 0x10, Name: "ReadyToRun"}},
	"GCBucketKindMap":  {{Value: 1, Name: "PlugsInCondemned"}},
	"GCSegmentTypeMap": {{Value: 3, Name: "PinnedObjectHeap"}},
}

// The names of the GC's mechanisms and modes: the numbers are the
// runtime's (gc.h), the names TraceEvent's, and the pause modes those of
// System.Runtime.GCLatencyMode.
var (
	globalMechanisms = payload.NewMap("GCGlobalMechanisms", true, []payload.MapEntry{
		{Value: 0, Name: "None"}, {Value: 0x1, Name: "Concurrent"}, {Value: 0x2, Name: "Compaction"},
		{Value: 0x4, Name: "Promotion"}, {Value: 0x8, Name: "Demotion"}, {Value: 0x10, Name: "CardBundles"},
		{Value: 0x20, Name: "Elevation"},
	})
	pauseModes = payload.NewMap("GCPauseMode", false, []payload.MapEntry{
		{Value: 0, Name: "Batch"}, {Value: 1, Name: "Interactive"}, {Value: 2, Name: "LowLatency"},
		{Value: 3, Name: "SustainedLowLatency"}, {Value: 4, Name: "NoGCRegion"},
	})
	// A heap's compaction and expansion reasons: the top bit says one is
	// recorded, and the one other bit set which, counted in gc.h's enum
	// order (0x80000002 is the second reason).
	compactMechanisms = mechanisms("GCCompactMechanisms", []string{
		"compact_low_ephemeral", "compact_high_frag", "compact_no_gaps", "compact_loh_forced",
		"compact_last_gc", "compact_induced_compacting", "compact_fragmented_gen0", "compact_high_mem_load",
		"compact_high_mem_frag", "compact_vhigh_mem_frag", "compact_no_gc_mode",
	})
	expandMechanisms = mechanisms("GCExpandMechanisms", []string{
		"expand_reuse_normal", "expand_reuse_bestfit", "expand_new_seg_ep", "expand_new_seg",
		"expand_no_memory", "expand_next_full_gc",
	})
)

func mechanisms(name string, reasons []string) *payload.Map {
	es := []payload.MapEntry{{Value: 0, Name: "not_specified"}}
	for i, r := range reasons {
		es = append(es, payload.MapEntry{Value: 1<<31 | 1<<i, Name: r})
	}
	return payload.NewMap(name, false, es)
}

type schemaKey struct {
	s *payload.Schema
	r *rule
}

type mapName struct {
	provider uuid.UUID
	name     string
}

// converter rewrites payload schemas, once per schema and rule.
type converter struct {
	schemas map[schemaKey]*payload.Schema
	maps    map[*payload.Map]*payload.Map
	// byName are the maps of each provider's events.
	byName map[mapName]*payload.Map
}

func (c *converter) collect(provider uuid.UUID, fs []payload.Field) {
	for i := range fs {
		if m := fs[i].Map; m != nil {
			c.byName[mapName{provider, m.Name}] = m
		}
		c.collect(provider, fs[i].Members)
	}
}

func (c *converter) schema(provider uuid.UUID, s *payload.Schema, r *rule) *payload.Schema {
	k := schemaKey{s, r}
	if t, ok := c.schemas[k]; ok {
		return t
	}
	fields := c.fields(provider, s.Fields, r, true)
	t, err := payload.NewSchema(s.Name, fields)
	if err != nil {
		// A rename that collides with a reference cannot happen with
		// the manifest's names; keep the schema as it was otherwise.
		t = s
	}
	c.schemas[k] = t
	return t
}

func (c *converter) fields(provider uuid.UUID, fs []payload.Field, r *rule, top bool) []payload.Field {
	if fs == nil {
		return nil
	}
	out := make([]payload.Field, len(fs))
	for i, f := range fs {
		g := f.Description()
		g.Map, g.Members = c.fixMap(f.Map), c.fields(provider, f.Members, r, false)
		if r != nil && top && g.Map == nil {
			if m, ok := r.maps[f.Name]; ok {
				g.Map = m
			} else if name, ok := r.manifestMaps[f.Name]; ok {
				g.Map = c.fixMap(c.byName[mapName{provider, name}])
			} else if name, ok := r.runtimeMaps[f.Name]; ok {
				g.Map = c.fixMap(c.byName[mapName{RuntimeProvider, name}])
			}
		}
		if r != nil && top {
			if n, ok := r.rename[f.Name]; ok {
				g.Name = n
			}
		}
		if top && isStackFrames(fs, i) {
			countFrames(&g)
		}
		out[i] = g
	}
	return out
}

// frameCountField and stackField are the fields of the runtime's stack
// events (template ClrStackWalk: CLRStack/Walk and its rundown, stress
// and private forms).
const (
	frameCountField = "FrameCount"
	stackField      = "Stack"
)

// StackEvent gives a .NET stack event described by other means than the
// runtime's manifest (the TDH metadata of a merged trace, made from the
// same manifest) the stack the runtime writes: FrameCount frames, not the
// manifest's 2. Other events are returned as they are.
func StackEvent(k schema.Key, e *schema.Event) *schema.Event {
	if k.Classic || !isDotNet(k.Provider) || e == nil || e.Payload == nil {
		return e
	}
	fs := e.Payload.Fields
	for i := range fs {
		if !isStackFrames(fs, i) {
			continue
		}
		fields := make([]payload.Field, len(fs))
		for j := range fs {
			fields[j] = fs[j].Description()
		}
		countFrames(&fields[i])
		s, err := payload.NewSchema(e.Payload.Name, fields)
		if err != nil {
			return e
		}
		s.Spare = e.Payload.Spare
		c := *e
		c.Payload = s
		return &c
	}
	return e
}

// countFrames makes a stack event's Stack field hold FrameCount frames.
func countFrames(f *payload.Field) {
	f.Arity, f.Count, f.CountField = payload.CountFromField, 0, frameCountField
}

// isStackFrames reports the Stack field of a stack event. Its manifest
// declares a fixed count of 2, but the runtime writes FrameCount return
// addresses there, as many as the stack has; read as 2 the rest of every
// stack would be left over as trailing bytes.
func isStackFrames(fs []payload.Field, i int) bool {
	f := &fs[i]
	if f.Name != stackField || f.Arity != payload.FixedCount || f.InType != payload.InPointer || i == 0 {
		return false
	}
	for _, g := range fs[:i] {
		if g.Name == frameCountField && g.Arity == payload.Scalar && g.InType == payload.InUInt32 {
			return true
		}
	}
	return false
}

// fixMap returns the map with TraceEvent's names: "None" for 0 in a bit
// map, and the values of mapFixes.
func (c *converter) fixMap(m *payload.Map) *payload.Map {
	if m == nil {
		return nil
	}
	if t, ok := c.maps[m]; ok {
		return t
	}
	entries := append([]payload.MapEntry(nil), m.Entries...)
	if _, ok := m.Lookup(0); m.Bits && !ok {
		entries = append(entries, payload.MapEntry{Value: 0, Name: "None"})
	}
	for _, fix := range mapFixes[m.Name] {
		replaced := false
		for i := range entries {
			if entries[i].Value == fix.Value {
				entries[i].Name, replaced = fix.Name, true
			}
		}
		if !replaced {
			entries = append(entries, fix)
		}
	}
	t := payload.NewMap(m.Name, m.Bits, entries)
	c.maps[m] = t
	return t
}

// computedFor is the computed fields of an event with this schema.
func computedFor(s *payload.Schema, r *rule) func(*record.Record, []payload.Value) []payload.Value {
	if r != nil && r.computed != nil {
		return r.computed
	}
	for i := range s.Fields {
		if s.Fields[i].Name == "ModuleILPath" && s.Fields[i].InType == payload.InUnicodeString {
			return moduleILFileName
		}
	}
	return nil
}

var (
	moduleILFileNameField = payload.Field{Name: "ModuleILFileName", InType: payload.InUnicodeString}
	totalHeapSizeField    = payload.Field{Name: "TotalHeapSize", InType: payload.InUInt64}
	totalPromotedField    = payload.Field{Name: "TotalPromoted", InType: payload.InUInt64}
	depthField            = payload.Field{Name: "Depth", InType: payload.InUInt32}
)

// moduleILFileName appends the file name of the module's IL path.
func moduleILFileName(_ *record.Record, vals []payload.Value) []payload.Value {
	v, ok := payload.Lookup(vals, "ModuleILPath")
	if !ok || v.Kind() != payload.KindString {
		return vals
	}
	b := v.Raw()
	start := 0
	for i := 0; i+1 < len(b); i += 2 {
		if b[i+1] == 0 && (b[i] == '\\' || b[i] == '/' || b[i] == ':') {
			start = i + 2
		}
	}
	return append(vals, payload.NewUTF16String(&moduleILFileNameField, b[start:len(b):len(b)]))
}

// heapStats appends the heap's size and what the GC promoted, over every
// generation, and the GC's depth: the oldest of generations 0 to 2 that
// promoted anything.
func heapStats(_ *record.Record, vals []payload.Value) []payload.Value {
	var size, promoted uint64
	depth := uint64(0)
	for g := 0; g <= 4; g++ {
		if v, ok := payload.Lookup(vals, generationSize[g]); ok {
			size += v.Uint()
		}
		if v, ok := payload.Lookup(vals, totalPromotedSize[g]); ok {
			promoted += v.Uint()
			if g <= 2 && v.Uint() != 0 {
				depth = uint64(g)
			}
		}
	}
	return append(vals, payload.NewUint(&totalHeapSizeField, size), payload.NewUint(&totalPromotedField, promoted),
		payload.NewUint(&depthField, depth))
}

var (
	generationSize    = [...]string{"GenerationSize0", "GenerationSize1", "GenerationSize2", "GenerationSize3", "GenerationSize4"}
	totalPromotedSize = [...]string{"TotalPromotedSize0", "TotalPromotedSize1", "TotalPromotedSize2", "TotalPromotedSize3", "TotalPromotedSize4"}
)
