// Package activity pairs the START and STOP records of ETW activities and
// links each activity to the one that started it, giving the activity tree
// of a trace.
//
// The rules are those of the event descriptor's opcode and the EVENT_HEADER
// activity fields, as the ETW documentation (EventWriteTransfer, "About
// Event Tracing: activity IDs", and the WINEVENT_OPCODE_* values) and
// EventSource's activity tracking describe them:
//
//   - A record with opcode 1 (WINEVENT_OPCODE_START) and a non-zero
//     ActivityId begins an activity with that id. When it carries a
//     RELATED_ACTIVITYID extended item, that item names the parent: the
//     activity that started this one. Providers set the related id on the
//     START event only.
//   - A record with opcode 2 (WINEVENT_OPCODE_STOP) and the same ActivityId
//     ends it.
//   - Any other record with that ActivityId, while the activity is open,
//     happened inside it.
//
// TraceLogging's and EventSource's start/stop events use the same opcodes,
// so the rules cover them with manifest-based providers. Records with a zero
// ActivityId (every kernel, classic and WPP record among them) take no part.
//
// A Tracker is fed the records of a trace in time order and copies what it
// needs from each; it never keeps a record or its bytes. Forest then
// returns the activities as a forest of trees.
package activity

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/record"
)

// The opcodes that begin and end an activity.
const (
	OpcodeStart = 1 // WINEVENT_OPCODE_START
	OpcodeStop  = 2 // WINEVENT_OPCODE_STOP
)

// DefaultLimit is the number of activities, and separately of orphan stops,
// a Tracker keeps when its Limit is 0. An activity costs about 300 bytes
// (the Activity, its share of a slab, a map entry while its id is the
// latest), so the default bounds a tracker near 300 MiB however long the
// trace.
const DefaultLimit = 1 << 20

// maxProviderNames bounds the provider names a Tracker learns from
// PROV_TRAITS items; real traces have tens of providers.
const maxProviderNames = 4096

// slabSize is the number of Activity values allocated at once, so that a
// START costs an allocation only every slabSize activities.
const slabSize = 256

// Event names the record that started or stopped an activity.
type Event struct {
	// Name is what Tracker.EventName gave for the record, "" when it gave
	// none.
	Name string
	// Id is the event descriptor's id.
	Id uint16
}

// String is the event name, or EventID(n) when the record had none.
func (e Event) String() string {
	if e.Name != "" {
		return e.Name
	}
	return "EventID(" + strconv.Itoa(int(e.Id)) + ")"
}

// Activity is one activity: from its START record to its STOP record, or
// to the end of the trace when it has none.
type Activity struct {
	Id uuid.UUID
	// RelatedId is the RELATED_ACTIVITYID of the START record, uuid.Nil
	// when it had none. It is kept even when no activity of that id was
	// seen, in which case the activity is a root.
	RelatedId uuid.UUID
	// Parent and Children are set by Tracker.Forest.
	Parent   *Activity
	Children []*Activity

	// ProviderId is the provider of the START record. ProviderName is the
	// name its PROV_TRAITS item gave, or one learned from another record
	// of the provider; "" when the trace names it nowhere.
	ProviderId   uuid.UUID
	ProviderName string

	StartEvent Event
	StopEvent  Event // meaningful when Stopped

	// ProcessId and ThreadId are those of the START record, meaningful
	// when HasThreadProcess is true.
	ProcessId        uint32
	ThreadId         uint32
	HasThreadProcess bool

	Start   time.Time
	Stop    time.Time // meaningful when Stopped
	Stopped bool
	// Last is the time of the activity's latest record: its STOP, or for
	// an open activity the last record seen inside it (its START when
	// there was none).
	Last time.Time
	// Events counts the records inside the activity: those with its
	// ActivityId between START and STOP, the two of them excluded.
	Events int

	seq    int       // position of the START among the activities kept
	linked *Activity // the parent found when the START was added
}

// Duration is Stop - Start; ok is false for an open activity, whose
// duration is unknown.
func (a *Activity) Duration() (d time.Duration, ok bool) {
	if !a.Stopped {
		return 0, false
	}
	return a.Stop.Sub(a.Start), true
}

// OrphanStop is a STOP record for which no activity of its id was open.
type OrphanStop struct {
	Id               uuid.UUID
	ProviderId       uuid.UUID
	ProviderName     string
	Event            Event
	ProcessId        uint32
	ThreadId         uint32
	HasThreadProcess bool
	Time             time.Time
}

// Stats counts what the tracker saw.
type Stats struct {
	// Activities is the number of activities kept; Stopped and Open split
	// it.
	Activities int
	Stopped    int
	Open       int
	// Restarted counts STARTs whose id was still open: the earlier
	// activity stays open, without a STOP, and the new one takes the id.
	Restarted int
	// OrphanStops counts STOP records that ended nothing, kept or not.
	OrphanStops int
	// Stray counts records with an ActivityId (neither START nor STOP) for
	// which no activity was open.
	Stray int
	// UnknownParents counts activities whose START named a related
	// activity the trace never started; they are roots.
	UnknownParents int
	// CyclesBroken counts parent links cut because they led back to the
	// activity itself.
	CyclesBroken int
	// Dropped counts STARTs not kept because Limit was reached, and
	// DroppedOrphanStops the orphan stops past the same limit.
	Dropped            int
	DroppedOrphanStops int
}

// Forest is the activity tree of a trace.
type Forest struct {
	// Roots are the activities without a parent, ordered by start time,
	// then id, then the order their STARTs came in; every Children slice
	// is in the same order.
	Roots []*Activity
	// OrphanStops are in the order they came in.
	OrphanStops []OrphanStop
	// End is the latest timestamp the tracker saw, the end of the trace
	// for activities still open.
	End   time.Time
	Stats Stats
}

// Walk calls fn for every activity, depth first in order, with its depth
// (0 for roots), until fn returns false. It keeps its own stack, so that
// however deep a chain of activities is it does not grow the call stack.
func (f *Forest) Walk(fn func(a *Activity, depth int) bool) {
	type frame struct {
		list []*Activity
		i    int
	}
	stack := []frame{{list: f.Roots}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i == len(top.list) {
			stack = stack[:len(stack)-1]
			continue
		}
		a := top.list[top.i]
		top.i++
		if !fn(a, len(stack)-1) {
			return
		}
		if len(a.Children) > 0 {
			stack = append(stack, frame{list: a.Children})
		}
	}
}

// Tracker follows the activities of a trace. Feed it every record in time
// order with Add, then call Forest. The zero Tracker is ready to use.
//
// Memory: a Tracker keeps one Activity per START (O(1) each, no record
// bytes), one map entry per distinct activity id, and up to Limit orphan
// stops; the provider names it learns and its schema and traits caches are
// bounded on their own. Past Limit activities, further STARTs are counted
// in Stats.Dropped and their records become stray or orphan stops.
type Tracker struct {
	// Limit bounds the activities kept, and separately the orphan stops;
	// 0 means DefaultLimit.
	Limit int
	// EventName names the event of a START or STOP record, "" when it has
	// no name; nil leaves every name empty. A tracelogging.Cache's
	// EventName names TraceLogging events; a describe.Describer names
	// events of every source.
	EventName func(*record.Record) string

	traits record.TraitsCache
	// byId holds the latest activity of each id, open or stopped: records
	// of that id go to it while it is open, and STARTs naming that id as
	// their related activity link to it.
	byId    map[uuid.UUID]*Activity
	all     []*Activity
	slab    []Activity
	orphans []OrphanStop
	names   map[uuid.UUID]string
	stats   Stats
	end     time.Time
	seen    bool
}

func (t *Tracker) limit() int {
	if t.Limit > 0 {
		return t.Limit
	}
	return DefaultLimit
}

// Add takes one record. It copies what it needs; r may be reused as soon as
// Add returns. Once a provider's name and an event's schema have been seen,
// only STARTs and STOPs that end nothing allocate, and those amortized.
func (t *Tracker) Add(r *record.Record) {
	// The record's time is converted once here, for all that follows.
	ts := r.TimeStamp()
	if !t.seen || ts.After(t.end) {
		t.end, t.seen = ts, true
	}
	t.learnName(r)
	if r.ActivityId == uuid.Nil {
		return
	}
	switch r.EventDescriptor.Opcode {
	case OpcodeStart:
		t.start(r, ts)
	case OpcodeStop:
		t.stop(r, ts)
	default:
		a := t.byId[r.ActivityId]
		if a == nil || a.Stopped {
			t.stats.Stray++
			return
		}
		a.Events++
		if ts.After(a.Last) {
			a.Last = ts
		}
	}
}

// learnName remembers the provider name a PROV_TRAITS item gives, for the
// activities whose own START record does not carry one: providers often
// attach the item to some events only.
func (t *Tracker) learnName(r *record.Record) {
	if _, ok := r.Extended(record.ExtProviderTraits); !ok {
		return
	}
	if _, known := t.names[r.ProviderId]; known || len(t.names) >= maxProviderNames {
		return
	}
	if name := t.traits.ProviderName(r); name != "" {
		if t.names == nil {
			t.names = make(map[uuid.UUID]string)
		}
		t.names[r.ProviderId] = name
	}
}

func (t *Tracker) event(r *record.Record) Event {
	e := Event{Id: r.EventDescriptor.Id}
	if t.EventName != nil {
		e.Name = t.EventName(r)
	}
	return e
}

func (t *Tracker) start(r *record.Record, ts time.Time) {
	prev := t.byId[r.ActivityId]
	if len(t.all) >= t.limit() {
		t.stats.Dropped++
		return
	}
	if prev != nil && !prev.Stopped {
		t.stats.Restarted++
	}
	if len(t.slab) == 0 {
		t.slab = make([]Activity, slabSize)
	}
	a := &t.slab[0]
	t.slab = t.slab[1:]
	*a = Activity{
		Id:               r.ActivityId,
		ProviderId:       r.ProviderId,
		ProviderName:     t.traits.ProviderName(r),
		StartEvent:       t.event(r),
		ProcessId:        r.ProcessId,
		ThreadId:         r.ThreadId,
		HasThreadProcess: r.HasThreadProcess,
		Start:            ts,
		Last:             ts,
		seq:              len(t.all),
	}
	if it, ok := r.Extended(record.ExtRelatedActivityID); ok {
		if id, err := it.RelatedActivityID(); err == nil {
			a.RelatedId = id
		}
	}
	// A START naming its own id as the related one would make the
	// activity its own ancestor; it is left a root, and counted when the
	// forest is built.
	if a.RelatedId != uuid.Nil && a.RelatedId != a.Id {
		// The latest activity of the related id is the one that can have
		// started this one: an earlier one of a reused id had ended.
		a.linked = t.byId[a.RelatedId]
	}
	if t.byId == nil {
		t.byId = make(map[uuid.UUID]*Activity)
	}
	t.byId[a.Id] = a
	t.all = append(t.all, a)
}

func (t *Tracker) stop(r *record.Record, ts time.Time) {
	a := t.byId[r.ActivityId]
	if a != nil && !a.Stopped {
		a.Stopped = true
		a.Stop = ts
		a.StopEvent = t.event(r)
		if ts.After(a.Last) {
			a.Last = ts
		}
		return
	}
	t.stats.OrphanStops++
	if len(t.orphans) >= t.limit() {
		t.stats.DroppedOrphanStops++
		return
	}
	t.orphans = append(t.orphans, OrphanStop{
		Id:               r.ActivityId,
		ProviderId:       r.ProviderId,
		ProviderName:     t.traits.ProviderName(r),
		Event:            t.event(r),
		ProcessId:        r.ProcessId,
		ThreadId:         r.ThreadId,
		HasThreadProcess: r.HasThreadProcess,
		Time:             ts,
	})
}

// Forest links the activities added so far into trees and returns them.
// The activities are the tracker's own: records added later update them,
// and a later call to Forest relinks them.
//
// A START whose related activity had not started yet when it came (records
// out of time order, or a parent whose START a filter dropped and a later
// one of the same id kept) is linked to the first activity of that id
// started after it. Such late links are the only ones that can close a
// cycle; a cycle is cut at its earliest START, which becomes a root.
func (t *Tracker) Forest() *Forest {
	f := &Forest{End: t.end, OrphanStops: t.orphans}
	st := t.stats
	st.Activities = len(t.all)

	var late map[uuid.UUID]*Activity
	for _, a := range t.all {
		a.Parent, a.Children = a.linked, a.Children[:0]
		if a.ProviderName == "" {
			a.ProviderName = t.names[a.ProviderId]
		}
		if a.Stopped {
			st.Stopped++
		} else {
			st.Open++
		}
		if a.RelatedId == a.Id {
			st.CyclesBroken++
		} else if a.RelatedId != uuid.Nil && a.linked == nil {
			if late == nil {
				late = make(map[uuid.UUID]*Activity)
			}
			late[a.RelatedId] = nil
		}
	}
	for i := range f.OrphanStops {
		if o := &f.OrphanStops[i]; o.ProviderName == "" {
			o.ProviderName = t.names[o.ProviderId]
		}
	}
	if late != nil {
		for _, a := range t.all {
			if p, want := late[a.Id]; want && p == nil {
				late[a.Id] = a
			}
		}
		for _, a := range t.all {
			if a.RelatedId == uuid.Nil || a.RelatedId == a.Id || a.linked != nil {
				continue
			}
			// Every activity of the related id started after this one
			// (none existed at its START), so the first is the nearest.
			if p := late[a.RelatedId]; p != nil {
				a.Parent = p
			} else {
				st.UnknownParents++
			}
		}
		st.CyclesBroken += breakCycles(t.all)
	}

	for _, a := range t.all {
		if a.Parent != nil {
			a.Parent.Children = append(a.Parent.Children, a)
		} else {
			f.Roots = append(f.Roots, a)
		}
	}
	slices.SortFunc(f.Roots, compare)
	for _, a := range t.all {
		slices.SortFunc(a.Children, compare)
	}
	f.Stats = st
	return f
}

// compare orders activities by start time, then id, then the order of
// their STARTs, which together are unique.
func compare(a, b *Activity) int {
	if c := a.Start.Compare(b.Start); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Id[:], b.Id[:]); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// breakCycles cuts every cycle of Parent links and returns how many it cut.
// Each walk up from an activity stops at a root or at an activity already
// settled; meeting the walk's own path again is a cycle, cut at its member
// with the earliest START, whose link is necessarily a late one.
func breakCycles(all []*Activity) int {
	const (
		unseen = iota
		onPath
		settled
	)
	state := make([]uint8, len(all))
	cut := 0
	var path []*Activity
	for _, a := range all {
		path = path[:0]
		for p := a; p != nil && state[p.seq] != settled; p = p.Parent {
			if state[p.seq] == onPath {
				// The cycle is the part of the path from p on.
				i := slices.Index(path, p)
				first := p
				for _, q := range path[i:] {
					if q.seq < first.seq {
						first = q
					}
				}
				first.Parent = nil
				cut++
				break
			}
			state[p.seq] = onPath
			path = append(path, p)
		}
		for _, p := range path {
			state[p.seq] = settled
		}
	}
	return cut
}
