package activity_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/record/activity"
	"github.com/etlkit/etlkit/schema/tracelogging"
)

var (
	provider = uuid.MustParse("5a1f0e3c-7b2d-4c8e-9f10-2b3c4d5e6f70")
	other    = uuid.MustParse("0d9e8f7a-6b5c-4d3e-8f21-a0b1c2d3e4f5")
)

// aid is the activity id numbered n; 0 is the zero id.
func aid(n byte) uuid.UUID {
	if n == 0 {
		return uuid.Nil
	}
	return uuid.UUID{0: 0xAC, 15: n}
}

// ev is one synthetic EVENT_HEADER record.
type ev struct {
	t   int64 // 100 ns ticks after the trace start
	op  uint8
	id  byte // ActivityId, aid(id)
	rel byte // RELATED_ACTIVITYID when non-zero
	// Optional parts.
	eventId  uint16
	provider uuid.UUID // provider when not uuid.Nil
	tl       string    // TraceLogging event name
	traits   string    // PROV_TRAITS provider name
	pid, tid uint32
}

func (e ev) record(s *etltest.Session) *etltest.Event {
	r := &etltest.Event{
		TimeStamp:  s.HeaderTimeStamp + e.t,
		ProviderId: provider,
		Descriptor: header.EventDescriptor{Id: e.eventId, Opcode: e.op, Level: 4},
		ActivityId: aid(e.id),
		ProcessId:  e.pid,
		ThreadId:   e.tid,
	}
	if e.provider != uuid.Nil {
		r.ProviderId = e.provider
	}
	if e.rel != 0 {
		r.Ext = append(r.Ext, etltest.ExtRelatedActivityID(aid(e.rel)))
	}
	if e.tl != "" {
		r.Descriptor.Channel = etltest.TLChannel
		r.Ext = append(r.Ext, etltest.ExtEventSchemaTL((&etltest.TLEvent{Name: e.tl}).MustMetadata()))
	}
	if e.traits != "" {
		r.Ext = append(r.Ext, etltest.ExtProviderTraits(etltest.ProviderTraits(e.traits)))
	}
	return r
}

// build writes the events into a trace, spread over two processors so
// that the reader's merge has work to do.
func build(t testing.TB, evs []ev) []byte {
	t.Helper()
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	s.NumberOfProcessors = 2
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		for i, e := range evs {
			b.CPU(i % 2).Add(e.record(&s))
		}
		return b.Err()
	})
	require.NoError(t, err)
	return data
}

// each calls fn with the records of the trace in time order. The reader
// reuses its record, so a tracker that kept one would see it change.
func each(t testing.TB, data []byte, fn func(r *record.Record)) {
	t.Helper()
	rd, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	for r, err := range rd.Events() {
		require.NoError(t, err)
		fn(r)
	}
}

func track(t testing.TB, evs []ev) *activity.Forest {
	t.Helper()
	tr := newTracker()
	each(t, build(t, evs), tr.Add)
	return tr.Forest()
}

var traceStart = time.Date(2024, 1, 17, 21, 20, 0, 0, time.UTC)

func ticks(ts time.Time) int64 { return int64(ts.Sub(traceStart) / 100) }

// render draws the forest one activity a line: indent, id number, start
// and stop in ticks ("open" and the last record's tick when open), events
// inside, and the related id when there was one.
func render(f *activity.Forest) string {
	var b strings.Builder
	f.Walk(func(a *activity.Activity, depth int) bool {
		fmt.Fprintf(&b, "%s%d %d-", strings.Repeat("  ", depth), a.Id[15], ticks(a.Start))
		if a.Stopped {
			fmt.Fprintf(&b, "%d", ticks(a.Stop))
		} else {
			fmt.Fprintf(&b, "open@%d", ticks(a.Last))
		}
		fmt.Fprintf(&b, " ev=%d", a.Events)
		if a.RelatedId != uuid.Nil {
			fmt.Fprintf(&b, " rel=%d", a.RelatedId[15])
		}
		b.WriteByte('\n')
		return true
	})
	for _, o := range f.OrphanStops {
		fmt.Fprintf(&b, "orphan %d @%d\n", o.Id[15], ticks(o.Time))
	}
	return b.String()
}

const (
	start = activity.OpcodeStart
	stop  = activity.OpcodeStop
	info  = 0 // an opcode that neither starts nor stops
)

func TestTracker(t *testing.T) {
	tests := []struct {
		name  string
		evs   []ev
		want  string
		stats activity.Stats
	}{
		{
			name: "a pair with events inside",
			evs: []ev{
				{t: 10, op: start, id: 1}, {t: 20, op: info, id: 1}, {t: 25, op: 7, id: 1}, {t: 30, op: stop, id: 1},
			},
			want:  "1 10-30 ev=2\n",
			stats: activity.Stats{Activities: 1, Stopped: 1},
		},
		{
			name: "children link through the related id",
			evs: []ev{
				{t: 10, op: start, id: 1},
				{t: 20, op: start, id: 2, rel: 1},
				{t: 25, op: start, id: 3, rel: 2},
				{t: 27, op: info, id: 3},
				{t: 30, op: stop, id: 3},
				{t: 35, op: info, id: 1},
				{t: 40, op: stop, id: 2},
				{t: 50, op: stop, id: 1},
			},
			want:  "1 10-50 ev=1\n  2 20-40 ev=0 rel=1\n    3 25-30 ev=1 rel=2\n",
			stats: activity.Stats{Activities: 3, Stopped: 3},
		},
		{
			name: "children in start time then id order",
			evs: []ev{
				{t: 10, op: start, id: 9},
				{t: 15, op: start, id: 4, rel: 9},
				{t: 18, op: start, id: 8},
				{t: 20, op: start, id: 3, rel: 9},
				{t: 20, op: start, id: 2, rel: 9},
				{t: 60, op: stop, id: 9},
			},
			want: "9 10-60 ev=0\n  4 15-open@15 ev=0 rel=9\n  2 20-open@20 ev=0 rel=9\n  3 20-open@20 ev=0 rel=9\n" +
				"8 18-open@18 ev=0\n",
			stats: activity.Stats{Activities: 5, Stopped: 1, Open: 4},
		},
		{
			name:  "a stop without a start is an orphan",
			evs:   []ev{{t: 10, op: stop, id: 5}, {t: 12, op: info, id: 5}},
			want:  "orphan 5 @10\n",
			stats: activity.Stats{OrphanStops: 1, Stray: 1},
		},
		{
			name: "a start without a stop stays open with its last record",
			evs: []ev{
				{t: 10, op: start, id: 1}, {t: 20, op: info, id: 1}, {t: 90, op: info},
			},
			want:  "1 10-open@20 ev=1\n",
			stats: activity.Stats{Activities: 1, Open: 1},
		},
		{
			name: "an id reused after its stop is a new activity",
			evs: []ev{
				{t: 10, op: start, id: 1}, {t: 20, op: stop, id: 1},
				{t: 25, op: info, id: 1}, {t: 26, op: stop, id: 1},
				{t: 30, op: start, id: 1}, {t: 35, op: info, id: 1}, {t: 40, op: stop, id: 1},
			},
			want:  "1 10-20 ev=0\n1 30-40 ev=1\norphan 1 @26\n",
			stats: activity.Stats{Activities: 2, Stopped: 2, Stray: 1, OrphanStops: 1},
		},
		{
			name: "a start on an open id restarts it",
			evs: []ev{
				{t: 10, op: start, id: 1}, {t: 15, op: info, id: 1},
				{t: 20, op: start, id: 1}, {t: 25, op: info, id: 1}, {t: 30, op: stop, id: 1},
			},
			want:  "1 10-open@15 ev=1\n1 20-30 ev=1\n",
			stats: activity.Stats{Activities: 2, Stopped: 1, Open: 1, Restarted: 1},
		},
		{
			name:  "an unknown parent leaves a root",
			evs:   []ev{{t: 10, op: start, id: 1, rel: 7}, {t: 20, op: stop, id: 1}},
			want:  "1 10-20 ev=0 rel=7\n",
			stats: activity.Stats{Activities: 1, Stopped: 1, UnknownParents: 1},
		},
		{
			name: "a child of a stopped parent still links to it",
			evs: []ev{
				{t: 10, op: start, id: 1}, {t: 20, op: stop, id: 1},
				{t: 30, op: start, id: 2, rel: 1}, {t: 40, op: stop, id: 2},
			},
			want:  "1 10-20 ev=0\n  2 30-40 ev=0 rel=1\n",
			stats: activity.Stats{Activities: 2, Stopped: 2},
		},
		{
			name: "a parent that starts later is linked at the end",
			evs: []ev{
				{t: 10, op: start, id: 2, rel: 1}, {t: 20, op: start, id: 1}, {t: 30, op: start, id: 1},
			},
			want:  "1 20-open@20 ev=0\n  2 10-open@10 ev=0 rel=1\n1 30-open@30 ev=0\n",
			stats: activity.Stats{Activities: 3, Open: 3, Restarted: 1},
		},
		{
			name: "the zero id is not an activity",
			evs: []ev{
				{t: 10, op: start}, {t: 15, op: info}, {t: 20, op: stop},
			},
			want:  "",
			stats: activity.Stats{},
		},
		{
			name: "a cycle is cut at its earliest start",
			evs: []ev{
				{t: 10, op: start, id: 1, rel: 2}, {t: 20, op: start, id: 2, rel: 1},
				{t: 30, op: stop, id: 2}, {t: 40, op: stop, id: 1},
			},
			want:  "1 10-40 ev=0 rel=2\n  2 20-30 ev=0 rel=1\n",
			stats: activity.Stats{Activities: 2, Stopped: 2, CyclesBroken: 1},
		},
		{
			name: "a longer cycle is cut once",
			evs: []ev{
				{t: 10, op: start, id: 1, rel: 3}, {t: 20, op: start, id: 2, rel: 1},
				{t: 30, op: start, id: 3, rel: 2}, {t: 35, op: start, id: 4, rel: 3},
			},
			want:  "1 10-open@10 ev=0 rel=3\n  2 20-open@20 ev=0 rel=1\n    3 30-open@30 ev=0 rel=2\n      4 35-open@35 ev=0 rel=3\n",
			stats: activity.Stats{Activities: 4, Open: 4, CyclesBroken: 1},
		},
		{
			name:  "an activity naming itself as related is a root",
			evs:   []ev{{t: 10, op: start, id: 1, rel: 1}, {t: 20, op: stop, id: 1}},
			want:  "1 10-20 ev=0 rel=1\n",
			stats: activity.Stats{Activities: 1, Stopped: 1, CyclesBroken: 1},
		},
		{
			name: "a restart with the old self as related is a root too",
			evs: []ev{
				{t: 10, op: start, id: 1}, {t: 20, op: stop, id: 1},
				{t: 30, op: start, id: 1, rel: 1}, {t: 40, op: stop, id: 1},
			},
			want:  "1 10-20 ev=0\n1 30-40 ev=0 rel=1\n",
			stats: activity.Stats{Activities: 2, Stopped: 2, CyclesBroken: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := track(t, tc.evs)
			assert.Equal(t, tc.want, render(f))
			assert.Equal(t, tc.stats, f.Stats)
		})
	}
}

func TestActivityFields(t *testing.T) {
	evs := []ev{
		{t: 10, op: start, id: 1, eventId: 100, pid: 0x300, tid: 0x2001, tl: "RequestStart", traits: "Contoso.Web"},
		{t: 20, op: start, id: 2, rel: 1, eventId: 101, pid: 0x300, tid: 0x2002, provider: other},
		{t: 30, op: info, id: 2, provider: other, traits: "Contoso.Db"},
		{t: 45, op: stop, id: 2, eventId: 102, provider: other},
		{t: 1234567, op: stop, id: 1, eventId: 103, tl: "RequestStop"},
		{t: 2000000, op: stop, id: 3, eventId: 104, pid: 0x400, tid: 0x10, provider: other},
	}
	f := track(t, evs)
	require.Len(t, f.Roots, 1)
	a := f.Roots[0]
	assert.Equal(t, aid(1), a.Id)
	assert.Equal(t, uuid.Nil, a.RelatedId)
	assert.Nil(t, a.Parent)
	assert.Equal(t, provider, a.ProviderId)
	assert.Equal(t, "Contoso.Web", a.ProviderName)
	assert.Equal(t, activity.Event{Name: "RequestStart", Id: 100}, a.StartEvent)
	assert.Equal(t, activity.Event{Name: "RequestStop", Id: 103}, a.StopEvent)
	assert.Equal(t, "RequestStop", a.StopEvent.String())
	assert.True(t, a.HasThreadProcess)
	assert.Equal(t, uint32(0x300), a.ProcessId)
	assert.Equal(t, uint32(0x2001), a.ThreadId)
	assert.Equal(t, traceStart.Add(1000*time.Nanosecond), a.Start)
	assert.Equal(t, traceStart.Add(123456700*time.Nanosecond), a.Stop)
	d, ok := a.Duration()
	assert.True(t, ok)
	assert.Equal(t, 123455700*time.Nanosecond, d)
	assert.Equal(t, traceStart.Add(200*time.Millisecond), f.End)

	require.Len(t, a.Children, 1)
	c := a.Children[0]
	assert.Same(t, a, c.Parent)
	assert.Equal(t, aid(2), c.Id)
	assert.Equal(t, aid(1), c.RelatedId)
	assert.Equal(t, other, c.ProviderId)
	// The START had no traits; a later record of the provider named it.
	assert.Equal(t, "Contoso.Db", c.ProviderName)
	assert.Equal(t, "EventID(101)", c.StartEvent.String())
	assert.Equal(t, "EventID(102)", c.StopEvent.String())
	assert.Equal(t, uint32(0x2002), c.ThreadId)
	assert.Equal(t, 1, c.Events)
	d, ok = c.Duration()
	assert.True(t, ok)
	assert.Equal(t, 2500*time.Nanosecond, d)
	assert.Empty(t, c.Children)

	require.Len(t, f.OrphanStops, 1)
	assert.Equal(t, activity.OrphanStop{
		Id: aid(3), ProviderId: other, ProviderName: "Contoso.Db", Event: activity.Event{Id: 104},
		ProcessId: 0x400, ThreadId: 0x10, HasThreadProcess: true, Time: traceStart.Add(200 * time.Millisecond),
	}, f.OrphanStops[0])
}

func TestOpenDurationUnknown(t *testing.T) {
	f := track(t, []ev{{t: 10, op: start, id: 1}, {t: 50, op: info}})
	require.Len(t, f.Roots, 1)
	d, ok := f.Roots[0].Duration()
	assert.False(t, ok)
	assert.Zero(t, d)
	assert.False(t, f.Roots[0].Stopped)
	assert.Equal(t, traceStart.Add(5*time.Microsecond), f.End)
}

// TestKeepsNoRecordBytes scribbles over every record once the tracker has
// seen it: names and ids must have been copied, not viewed.
func TestKeepsNoRecordBytes(t *testing.T) {
	data := build(t, []ev{
		{t: 10, op: start, id: 1, tl: "Outer", traits: "Contoso.Web", rel: 9},
		{t: 20, op: stop, id: 1, tl: "OuterStop"},
		{t: 30, op: stop, id: 2, tl: "Lost", traits: "Contoso.Web"},
	})
	var clones []*record.Record
	each(t, data, func(r *record.Record) { clones = append(clones, r.Clone()) })
	tr := newTracker()
	for _, c := range clones {
		tr.Add(c)
		for i := range c.Raw {
			c.Raw[i] = 0xFF
		}
		*c = record.Record{}
	}
	f := tr.Forest()
	require.Len(t, f.Roots, 1)
	a := f.Roots[0]
	assert.Equal(t, aid(1), a.Id)
	assert.Equal(t, aid(9), a.RelatedId)
	assert.Equal(t, "Contoso.Web", a.ProviderName)
	assert.Equal(t, "Outer", a.StartEvent.Name)
	assert.Equal(t, "OuterStop", a.StopEvent.Name)
	require.Len(t, f.OrphanStops, 1)
	assert.Equal(t, "Lost", f.OrphanStops[0].Event.Name)
	assert.Equal(t, "Contoso.Web", f.OrphanStops[0].ProviderName)
}

func TestLimit(t *testing.T) {
	tr := activity.Tracker{Limit: 2}
	each(t, build(t, []ev{
		{t: 10, op: start, id: 1}, {t: 11, op: start, id: 2}, {t: 12, op: start, id: 3},
		{t: 13, op: info, id: 3}, {t: 14, op: stop, id: 3},
		{t: 15, op: stop, id: 4}, {t: 16, op: stop, id: 5}, {t: 17, op: stop, id: 6},
	}), tr.Add)
	f := tr.Forest()
	assert.Equal(t, "1 10-open@10 ev=0\n2 11-open@11 ev=0\norphan 3 @14\norphan 4 @15\n", render(f))
	assert.Equal(t, activity.Stats{Activities: 2, Open: 2, Dropped: 1, Stray: 1, OrphanStops: 4, DroppedOrphanStops: 2}, f.Stats)
}

// TestForestTwice checks that Forest can be called again after more
// records and relinks rather than duplicating children.
func TestForestTwice(t *testing.T) {
	data := build(t, []ev{{t: 10, op: start, id: 1}, {t: 20, op: start, id: 2, rel: 1}, {t: 30, op: stop, id: 2}})
	var recs []*record.Record
	each(t, data, func(r *record.Record) { recs = append(recs, r.Clone()) })
	tr := newTracker()
	for _, r := range recs[:len(recs)-1] {
		tr.Add(r)
	}
	assert.Equal(t, "1 10-open@10 ev=0\n  2 20-open@20 ev=0 rel=1\n", render(tr.Forest()))
	tr.Add(recs[len(recs)-1])
	f := tr.Forest()
	assert.Equal(t, "1 10-open@10 ev=0\n  2 20-30 ev=0 rel=1\n", render(f))
	assert.Equal(t, activity.Stats{Activities: 2, Stopped: 1, Open: 1}, f.Stats)
}

func TestWalkStops(t *testing.T) {
	f := track(t, []ev{{t: 10, op: start, id: 1}, {t: 20, op: start, id: 2, rel: 1}, {t: 30, op: start, id: 3}})
	var seen []byte
	f.Walk(func(a *activity.Activity, depth int) bool {
		seen = append(seen, a.Id[15])
		return len(seen) < 2
	})
	assert.Equal(t, []byte{1, 2}, seen)
}

// TestDeepChain builds a chain deeper than any real trace: Forest and Walk
// keep their own stacks and must not lose a link.
func TestDeepChain(t *testing.T) {
	const n = 250 // ids are one byte
	evs := []ev{{t: 1, op: start, id: 1}}
	for i := 2; i <= n; i++ {
		evs = append(evs, ev{t: int64(i), op: start, id: byte(i), rel: byte(i - 1)})
	}
	f := track(t, evs)
	require.Len(t, f.Roots, 1)
	depths := 0
	f.Walk(func(a *activity.Activity, depth int) bool {
		assert.Equal(t, depths, depth)
		assert.Equal(t, byte(depth+1), a.Id[15])
		depths++
		return true
	})
	assert.Equal(t, n, depths)
	assert.Equal(t, 0, f.Stats.UnknownParents)
}

// newTracker is a Tracker that names TraceLogging events, as etldump's is.
func newTracker() *activity.Tracker {
	return &activity.Tracker{EventName: tracelogging.NewCache(0, 0).EventName}
}
