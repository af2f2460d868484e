package filter

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// Lookup reads what judging a record needs beyond its header: the provider
// name and group from the provider traits, and the TraceLogging event name.
// Each function reports false when the record has no such thing. They are
// called only by filters that need them, and Match allocates nothing only
// if they allocate nothing. A nil function takes the default: the name in
// the record's provider-traits item, read in place; the group from that
// item parsed once per distinct blob by a cache the Filter owns (so a
// record with a blob not seen before allocates, once); and the event name
// read in place from the EVENT_SCHEMA_TL metadata.
type Lookup struct {
	ProviderName  func(r *record.Record) (string, bool)
	ProviderGroup func(r *record.Record) (uuid.UUID, bool)
	EventName     func(r *record.Record) (string, bool)
	// Process and Thread give the process and thread a record is judged
	// by for Session.ProcessIDs, ThreadIDs and ProcessNames; nil takes the
	// header's, which is what an ETW session's process filter sees. A
	// consumer that knows better (the process a kernel record's payload
	// names, the process of a CPU sample's thread) gives its own.
	// ProcessName gives the image name of the record's process ("" or
	// false when unknown); nil knows none, so that every record fails a
	// ProcessNames include list.
	Process     func(r *record.Record) (uint32, bool)
	Thread      func(r *record.Record) (uint32, bool)
	ProcessName func(r *record.Record) (string, bool)
	// Message gives the level and keyword a WPP message is judged with,
	// which its header does not carry: the level of its TMF entry and the
	// bit of its flag among the provider's enable flags. With false, or
	// when nil, the message is judged with level 0 and keyword 0.
	Message func(r *record.Record) (level uint8, keyword uint64, ok bool)
}

// Options are what compiling needs besides the sessions.
type Options struct {
	// TraceStart is the trace start (UTC) that relative time bounds count
	// from; it is required only when a session has one.
	TraceStart time.Time
	// Lookup overrides the default lookups, function by function.
	Lookup Lookup
	// ResolveProvider, when set, says which provider GUIDs a provider
	// name of a ProviderSpec stands for (the names of every schema source
	// a consumer knows, in any case), or why it stands for none: Compile
	// then fails with that error. The entry matches records of those
	// GUIDs, and still the records whose provider traits carry the name.
	// Without it a name matches by provider traits only.
	ResolveProvider func(name string) ([]uuid.UUID, error)
}

// Filter is a compiled union of sessions. Its settings never change after
// Compile and its traits cache is safe for concurrent use, so one Filter
// may judge records from several goroutines.
type Filter struct {
	sessions []csession
	lookup   Lookup

	// fast is set for one session that enables every provider and has no
	// scope filters, the common command-line case, so that Match is the
	// level and keyword formula and nothing else.
	fast    bool
	fastEn  Enablement
	fastIg0 bool
}

type csession struct {
	ignoreKw0 bool
	wildcard  bool // no provider list: def applies to every record
	def       entry
	byID      []keyedEntry
	byName    []namedEntry
	// resolved holds the GUIDs Options.ResolveProvider gave for the
	// names of byName, each with the entry of the first name to give it.
	resolved map[uuid.UUID]*entry
	groups   []groupEntry
	scoped   bool
	scope    scope
}

type keyedEntry struct {
	id uuid.UUID
	e  *entry
}

type namedEntry struct {
	name string
	e    *entry
}

type groupEntry struct {
	id       uuid.UUID
	disallow []uuid.UUID
	e        *entry
}

// entry is one enablement with its provider-level filters.
type entry struct {
	en        Enablement // as the session sends it: settings not given made explicit
	ignoreKw0 bool       // IGNORE_KEYWORD_0 on this entry
	group     bool       // a provider-group entry
	scoped    bool
	ids       *idSet
	names     *nameSet
}

// scope holds a session's scope filters. The event-id and event-name
// filters are apart from the others because provider groups escape them.
type scope struct {
	ids      *idSet
	names    *nameSet
	event    bool     // ids or names is set
	pids     []uint32 // sorted
	tids     []uint32 // sorted
	images   []string // lower case, without .exe
	opcodes  *byteSet
	channels *byteSet
	versions *byteSet
	tasks    *idSet
	hasFrom  bool
	hasTo    bool
	from, to time.Time
}

// idSet is a bitmap over the 16-bit id space: 8 KiB buys a constant-time
// test however long the list.
type idSet struct {
	bits    [1 << 16 / 64]uint64
	exclude bool
}

func newIDSet(ids []uint16, exclude bool) *idSet {
	if len(ids) == 0 {
		return nil
	}
	s := &idSet{exclude: exclude}
	for _, id := range ids {
		s.bits[id>>6] |= 1 << (id & 63)
	}
	return s
}

func (s *idSet) pass(id uint16) bool {
	return (s.bits[id>>6]&(1<<(id&63)) != 0) != s.exclude
}

type byteSet [4]uint64

func newByteSet(v []uint8) *byteSet {
	if len(v) == 0 {
		return nil
	}
	var s byteSet
	for _, b := range v {
		s[b>>6] |= 1 << (b & 63)
	}
	return &s
}

func (s *byteSet) has(b uint8) bool { return s[b>>6]&(1<<(b&63)) != 0 }

type nameSet struct {
	names   map[string]struct{}
	exclude bool
}

func newNameSet(f NameFilter) *nameSet {
	if len(f.Names) == 0 {
		return nil
	}
	s := &nameSet{names: make(map[string]struct{}, len(f.Names)), exclude: f.Exclude}
	for _, n := range f.Names {
		s.names[n] = struct{}{}
	}
	return s
}

// pass judges an event name as Lookup.EventName gives it: a record
// without a name passes only an exclude list.
func (s *nameSet) pass(name string, ok bool) bool {
	if !ok {
		return s.exclude
	}
	_, in := s.names[name]
	return in != s.exclude
}

// ErrGroupFilter is returned for event-id, event-name or payload filters on
// a provider-group entry. The provider-traits page: event-name, event-id
// and payload filters do not apply to provider groups.
var ErrGroupFilter = errors.New("event-id, event-name and payload filters do not apply to provider-group enablement")

// Compile checks the sessions and compiles their union. No session at all
// receives nothing; the zero Session receives everything.
func Compile(opts Options, sessions ...Session) (*Filter, error) {
	f := &Filter{lookup: opts.Lookup}
	if f.lookup.ProviderName == nil {
		f.lookup.ProviderName = traitsProviderName
	}
	if f.lookup.ProviderGroup == nil {
		f.lookup.ProviderGroup = traitsGroup(new(record.TraitsCache))
	}
	if f.lookup.EventName == nil {
		f.lookup.EventName = tlEventName
	}
	if f.lookup.Process == nil {
		f.lookup.Process = headerProcess
	}
	if f.lookup.Thread == nil {
		f.lookup.Thread = headerThread
	}
	if f.lookup.ProcessName == nil {
		f.lookup.ProcessName = func(*record.Record) (string, bool) { return "", false }
	}
	for i := range sessions {
		cs, err := f.compileSession(&sessions[i], opts)
		if err != nil {
			if len(sessions) > 1 {
				return nil, fmt.Errorf("session %d: %w", i, err)
			}
			return nil, err
		}
		f.sessions = append(f.sessions, cs)
	}
	if len(f.sessions) == 1 && f.sessions[0].wildcard && !f.sessions[0].scoped {
		f.fast, f.fastEn, f.fastIg0 = true, f.sessions[0].def.en, f.sessions[0].ignoreKw0
	}
	return f, nil
}

// Union compiles sessions with the default options: a record passes when
// any of the sessions would receive it.
func Union(sessions ...Session) (*Filter, error) { return Compile(Options{}, sessions...) }

// headerProcess and headerThread are the ids the record's header gives.
func headerProcess(r *record.Record) (uint32, bool) { return r.ProcessId, r.HasThreadProcess }
func headerThread(r *record.Record) (uint32, bool)  { return r.ThreadId, r.HasThreadProcess }

func (f *Filter) compileSession(s *Session, opts Options) (csession, error) {
	cs := csession{ignoreKw0: s.IgnoreKeyword0, wildcard: len(s.Providers) == 0}
	if cs.wildcard {
		cs.def.en = Enablement{Level: s.Level, MatchAny: s.MatchAny, MatchAll: s.MatchAll}.Normalized()
	} else if s.Level != 0 || s.MatchAny != 0 || s.MatchAll != 0 {
		return cs, errors.New("session level and keywords apply only to a session without a provider list; give them per provider")
	}
	for i := range s.Providers {
		if err := f.addProvider(&cs, &s.Providers[i], opts.ResolveProvider); err != nil {
			return cs, err
		}
	}
	var err error
	cs.scope, cs.scoped, err = f.compileScope(s, opts.TraceStart)
	return cs, err
}

func (f *Filter) addProvider(cs *csession, p *ProviderSpec, resolve func(string) ([]uuid.UUID, error)) error {
	label := p.Name
	if p.ID != uuid.Nil {
		label = p.ID.String()
	}
	switch {
	case p.ID == uuid.Nil && p.Name == "":
		return errors.New("provider entry names no provider: give an ID or a Name")
	case p.ID != uuid.Nil && p.Name != "":
		return fmt.Errorf("provider %s: give an ID or a Name, not both (%s)", label, p.Name)
	case p.Group && p.ID == uuid.Nil:
		return fmt.Errorf("provider group %s: groups are named by GUID only", label)
	case p.Group && (len(p.EventIDs.IDs) > 0 || len(p.EventNames.Names) > 0):
		return fmt.Errorf("provider group %s: %w", label, ErrGroupFilter)
	case !p.Group && len(p.Disallow) > 0:
		return fmt.Errorf("provider %s: a disallow list belongs to a provider-group entry", label)
	}
	e := &entry{en: p.Enablement(), ignoreKw0: p.IgnoreKeyword0, group: p.Group,
		ids: newIDSet(p.EventIDs.IDs, p.EventIDs.Exclude), names: newNameSet(p.EventNames)}
	e.scoped = e.ids != nil || e.names != nil
	switch {
	case p.Group:
		for _, g := range cs.groups {
			if g.id == p.ID {
				return fmt.Errorf("provider group %s: enabled twice in one session", label)
			}
		}
		cs.groups = append(cs.groups, groupEntry{id: p.ID, disallow: slices.Clone(p.Disallow), e: e})
	case p.ID != uuid.Nil:
		for _, k := range cs.byID {
			if k.id == p.ID {
				return fmt.Errorf("provider %s: enabled twice in one session", label)
			}
		}
		cs.byID = append(cs.byID, keyedEntry{id: p.ID, e: e})
	default:
		for _, n := range cs.byName {
			if strings.EqualFold(n.name, p.Name) {
				return fmt.Errorf("provider %s: enabled twice in one session", label)
			}
		}
		var ids []uuid.UUID
		if resolve != nil {
			var err error
			if ids, err = resolve(p.Name); err != nil {
				return fmt.Errorf("provider %s: %w", label, err)
			}
		}
		cs.byName = append(cs.byName, namedEntry{name: p.Name, e: e})
		for _, id := range ids {
			if cs.resolved == nil {
				cs.resolved = map[uuid.UUID]*entry{}
			}
			if _, ok := cs.resolved[id]; !ok {
				cs.resolved[id] = e
			}
		}
	}
	return nil
}

func (f *Filter) compileScope(s *Session, start time.Time) (scope, bool, error) {
	sc, err := compileScopeSets(s)
	if err != nil {
		return sc, false, err
	}
	for _, b := range []struct {
		bound TimeBound
		has   *bool
		at    *time.Time
		what  string
	}{{s.From, &sc.hasFrom, &sc.from, "from"}, {s.To, &sc.hasTo, &sc.to, "to"}} {
		if b.bound.IsZero() {
			continue
		}
		if b.bound.Relative && start.IsZero() {
			return sc, false, fmt.Errorf("time bound %s +%v is relative to the trace start, which Options.TraceStart must give", b.what, b.bound.Offset)
		}
		*b.has, *b.at = true, b.bound.resolve(start).UTC()
	}
	if sc.hasFrom && sc.hasTo && !sc.from.Before(sc.to) {
		return sc, false, fmt.Errorf("time range is empty: from %v is not before to %v", sc.from.Format(time.RFC3339Nano), sc.to.Format(time.RFC3339Nano))
	}
	sc.event = sc.ids != nil || sc.names != nil
	scoped := sc.event || sc.pids != nil || sc.tids != nil || sc.images != nil || sc.opcodes != nil ||
		sc.channels != nil || sc.versions != nil || sc.tasks != nil || sc.hasFrom || sc.hasTo
	return sc, scoped, nil
}

// compileScopeSets makes the sets of the scope filters but the time range.
func compileScopeSets(s *Session) (scope, error) {
	sc := scope{
		ids:      newIDSet(s.EventIDs.IDs, s.EventIDs.Exclude),
		names:    newNameSet(s.EventNames),
		opcodes:  newByteSet(s.Opcodes),
		channels: newByteSet(s.Channels),
		versions: newByteSet(s.Versions),
		tasks:    newIDSet(s.Tasks, false),
	}
	if len(s.ProcessIDs) > 0 {
		sc.pids = slices.Clone(s.ProcessIDs)
		slices.Sort(sc.pids)
	}
	if len(s.ThreadIDs) > 0 {
		sc.tids = slices.Clone(s.ThreadIDs)
		slices.Sort(sc.tids)
	}
	for _, n := range s.ProcessNames {
		k := imageKey(n)
		if k == "" {
			return sc, fmt.Errorf("process name %q: empty", n)
		}
		sc.images = append(sc.images, k)
	}
	return sc, nil
}

// imageKey is how ProcessNames compares image names: in lower case,
// without a final ".exe".
func imageKey(name string) string {
	k := strings.ToLower(strings.TrimSpace(name))
	return strings.TrimSuffix(k, ".exe")
}

// levelMask and keywordMask keep, per header type, the descriptor fields
// the record really carries: EVENT_HEADER records both, classic records
// their level, kernel records and WPP messages neither. Masks rather than
// a switch keep judging free of branches that a mixed trace mispredicts.
var levelMask, keywordMask = func() (l [256]uint8, k [256]uint64) {
	for _, t := range []header.Type{header.TypeEventHeader32, header.TypeEventHeader64} {
		l[t], k[t] = 0xFF, AllKeywords
	}
	for _, t := range []header.Type{header.TypeFull32, header.TypeFull64, header.TypeInstance32, header.TypeInstance64} {
		l[t] = 0xFF
	}
	return l, k
}()

// judge returns the level and keyword a record is judged with.
func judge(r *record.Record) (uint8, uint64) {
	return r.EventDescriptor.Level & levelMask[r.HeaderType], r.EventDescriptor.Keyword & keywordMask[r.HeaderType]
}

// Match reports whether any of the filter's sessions would receive r.
func (f *Filter) Match(r *record.Record) bool {
	level, keyword := judge(r)
	if r.HeaderType == header.TypeMessage && f.lookup.Message != nil {
		if l, k, ok := f.lookup.Message(r); ok {
			level, keyword = l, k
		}
	}
	if f.fast {
		return f.fastEn.Passes(level, keyword) && (keyword != 0 || !f.fastIg0)
	}
	for i := range f.sessions {
		if f.sessions[i].match(r, level, keyword, &f.lookup) {
			return true
		}
	}
	return false
}

func (s *csession) match(r *record.Record, level uint8, keyword uint64, lk *Lookup) bool {
	if keyword == 0 && s.ignoreKw0 {
		return false
	}
	// Every check must pass, so their order only sets the cost: the
	// session's header-field filters are cheaper than finding the
	// provider's entry, which may read the provider traits.
	if s.scoped && !s.scope.pass(r, lk) {
		return false
	}
	e := &s.def
	if !s.wildcard {
		if e = s.resolve(r, lk); e == nil {
			return false
		}
	}
	if !e.en.Passes(level, keyword) || keyword == 0 && e.ignoreKw0 {
		return false
	}
	// The session's event-id and event-name filters pass a record its
	// provider group enabled: the provider-traits page says event-name,
	// event-id and payload filters do not apply to provider groups.
	if s.scope.event && !e.group && !s.scope.passEvent(r, lk) {
		return false
	}
	return !e.scoped || e.pass(r, lk)
}

// resolve finds the entry that decides for r's provider, the most specific
// first; the traits are read only when an entry by name or group needs them.
func (s *csession) resolve(r *record.Record, lk *Lookup) *entry {
	if e := s.byIDLookup(r.ProviderId); e != nil {
		return e
	}
	if len(s.byName) > 0 {
		if e := s.byResolvedLookup(r.ProviderId); e != nil {
			return e
		}
		if name, ok := lk.ProviderName(r); ok {
			if e := s.byNameLookup(name); e != nil {
				return e
			}
		}
	}
	if len(s.groups) > 0 {
		if g, ok := lk.ProviderGroup(r); ok {
			return s.groupLookup(g, r.ProviderId)
		}
	}
	return nil
}

func (s *csession) byIDLookup(id uuid.UUID) *entry {
	for i := range s.byID {
		if s.byID[i].id == id {
			return s.byID[i].e
		}
	}
	return nil
}

// byResolvedLookup finds the entry by name whose resolved GUIDs hold id.
func (s *csession) byResolvedLookup(id uuid.UUID) *entry { return s.resolved[id] }

func (s *csession) byNameLookup(name string) *entry {
	for i := range s.byName {
		if strings.EqualFold(s.byName[i].name, name) {
			return s.byName[i].e
		}
	}
	return nil
}

func (s *csession) groupLookup(group, provider uuid.UUID) *entry {
	for i := range s.groups {
		g := &s.groups[i]
		if g.id == group {
			if slices.Contains(g.disallow, provider) {
				return nil
			}
			return g.e
		}
	}
	return nil
}

func (e *entry) pass(r *record.Record, lk *Lookup) bool {
	return (e.ids == nil || e.ids.pass(r.EventDescriptor.Id)) &&
		(e.names == nil || e.names.pass(lk.EventName(r)))
}

// pass applies the scope filters but the event-id and event-name ones,
// which passEvent applies.
func (sc *scope) pass(r *record.Record, lk *Lookup) bool {
	d := &r.EventDescriptor
	switch {
	case sc.opcodes != nil && !sc.opcodes.has(d.Opcode),
		sc.channels != nil && !sc.channels.has(d.Channel),
		sc.versions != nil && !sc.versions.has(d.Version),
		sc.tasks != nil && !sc.tasks.pass(d.Task):
		return false
	}
	if sc.pids != nil {
		pid, ok := lk.Process(r)
		if !ok {
			return false
		}
		if _, ok := slices.BinarySearch(sc.pids, pid); !ok {
			return false
		}
	}
	if sc.tids != nil {
		tid, ok := lk.Thread(r)
		if !ok {
			return false
		}
		if _, ok := slices.BinarySearch(sc.tids, tid); !ok {
			return false
		}
	}
	if sc.images != nil && !sc.passImage(r, lk) {
		return false
	}
	if sc.hasFrom || sc.hasTo {
		ts := r.TimeStamp()
		if sc.hasFrom && ts.Before(sc.from) || sc.hasTo && !ts.Before(sc.to) {
			return false
		}
	}
	return true
}

// passImage applies the process-name filter.
func (sc *scope) passImage(r *record.Record, lk *Lookup) bool {
	name, ok := lk.ProcessName(r)
	if !ok || name == "" {
		return false
	}
	for _, k := range sc.images {
		if matchImage(name, k) {
			return true
		}
	}
	return false
}

// matchImage compares an image name with a key of imageKey without
// allocating.
func matchImage(name, key string) bool {
	name = strings.TrimSpace(name)
	if len(name) >= 4 && strings.EqualFold(name[len(name)-4:], ".exe") {
		name = name[:len(name)-4]
	}
	return strings.EqualFold(name, key)
}

// passEvent applies the event-id and event-name filters.
func (sc *scope) passEvent(r *record.Record, lk *Lookup) bool {
	return (sc.ids == nil || sc.ids.pass(r.EventDescriptor.Id)) &&
		(sc.names == nil || sc.names.pass(lk.EventName(r)))
}

// Provider identifies a provider for Enablement: its GUID, and the name and
// group its provider traits carry (empty and nil when it has none).
type Provider struct {
	ID    uuid.UUID
	Name  string
	Group uuid.UUID
}

// Enablement returns what p's EnableCallback receives from the filter's
// sessions, and false when none enables p. Each session that enables p
// sends its entry's level and keywords, with the settings its user left
// out made explicit (see Session); the callback receives their Aggregate,
// taken literally as the ENABLECALLBACK page gives it: the maximum of the
// levels, the OR of MatchAnyKeyword and the AND of MatchAllKeyword. Scope
// filters and IGNORE_KEYWORD_0 are applied by ETW after the provider
// writes, so they play no part here.
func (f *Filter) Enablement(p Provider) (Enablement, bool) {
	var out Enablement
	n := 0
	for i := range f.sessions {
		s := &f.sessions[i]
		e := &s.def
		if !s.wildcard {
			e = s.byIDLookup(p.ID)
			if e == nil {
				e = s.byResolvedLookup(p.ID)
			}
			if e == nil && p.Name != "" {
				e = s.byNameLookup(p.Name)
			}
			if e == nil && p.Group != uuid.Nil {
				e = s.groupLookup(p.Group, p.ID)
			}
			if e == nil {
				continue
			}
		}
		if n == 0 {
			out = e.en
		} else {
			out = Aggregate(out, e.en)
		}
		n++
	}
	return out, n > 0
}
