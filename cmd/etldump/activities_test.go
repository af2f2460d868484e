package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
)

var (
	webProvider = uuid.MustParse("6c2f3a41-8d0e-4b7a-9e15-3f2a1b0c9d88")
	dbProvider  = uuid.MustParse("a3e9b5d2-1f4c-4e6a-8b07-c5d4e3f2a1b0")
	rawProvider = uuid.MustParse("0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9")

	request1 = uuid.MustParse("00000011-0000-0000-0000-00000000a001")
	query1   = uuid.MustParse("00001011-0000-0000-0000-00000000a001")
	render1  = uuid.MustParse("00002011-0000-0000-0000-00000000a001")
	request2 = uuid.MustParse("00000012-0000-0000-0000-00000000a002")
	elsewhen = uuid.MustParse("0000ffff-0000-0000-0000-00000000ffff")
	batch    = uuid.MustParse("5b1e0c7d-2a3f-4e8b-9c6d-7e8f9a0b1c2d")
	lost     = uuid.MustParse("deadbeef-0000-4000-8000-000000000001")
)

// writeActivityTrace writes a trace with an activity tree into a temporary
// directory: a TraceLogging request with a child query and a child render
// that never stops, a second request whose parent is not in the trace, a
// manifest-style batch without names, and a STOP that ends nothing.
func writeActivityTrace(t *testing.T) string {
	t.Helper()
	s := etltest.DefaultSession()
	s.BufferSize = 0x2000
	s.NumberOfProcessors = 2
	webTraits := etltest.ExtProviderTraits(etltest.ProviderTraits("Contoso.Web"))
	dbTraits := etltest.ExtProviderTraits(etltest.ProviderTraits("Contoso.Db"))
	tl := func(name string) etltest.ExtItem {
		return etltest.ExtEventSchemaTL((&etltest.TLEvent{Name: name}).MustMetadata())
	}
	ev := func(ts int64, prov uuid.UUID, op uint8, id uuid.UUID, tid uint32, ext ...etltest.ExtItem) *etltest.Event {
		return &etltest.Event{
			TimeStamp: s.HeaderTimeStamp + ts, ProviderId: prov, ActivityId: id,
			Descriptor: header.EventDescriptor{Id: uint16(100 + op), Opcode: op, Level: 4, Channel: etltest.TLChannel},
			ProcessId:  0x1a00, ThreadId: tid, Ext: ext,
		}
	}
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.CPU(0).Add(
			ev(1000, webProvider, 1, request1, 0x2001, tl("Request"), webTraits),
			ev(1500, webProvider, 0, request1, 0x2001, tl("Routed"), webTraits),
			ev(2000, dbProvider, 1, query1, 0x2001, tl("Query"), dbTraits, etltest.ExtRelatedActivityID(request1)),
			ev(2600, dbProvider, 0, query1, 0x2001, tl("Rows"), dbTraits),
			ev(2700, dbProvider, 0, query1, 0x2001, tl("Rows"), dbTraits),
			ev(3234, dbProvider, 2, query1, 0x2001, tl("QueryStop"), dbTraits),
			ev(4000, webProvider, 1, render1, 0x2001, tl("Render"), webTraits, etltest.ExtRelatedActivityID(request1)),
			ev(4100, webProvider, 0, render1, 0x2001, tl("Template"), webTraits),
			ev(125000, webProvider, 2, request1, 0x2001, tl("RequestStop"), webTraits),
		)
		b.CPU(1).Add(
			ev(1200, webProvider, 1, request2, 0x2002, tl("Request"), webTraits, etltest.ExtRelatedActivityID(elsewhen)),
			ev(3000, rawProvider, 1, batch, 0x2002),
			ev(3100, rawProvider, 7, batch, 0x2002),
			ev(9000, webProvider, 2, lost, 0x2002, tl("RequestStop"), webTraits),
			ev(15000000, rawProvider, 2, batch, 0x2002),
			ev(15000001, webProvider, 2, request2, 0x2002, tl("RequestStop"), webTraits),
		)
		return b.Err()
	})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "activity-tree.etl")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// TestNoActivitiesElsewhere holds the synthetic traces not listed in
// activityTraces to having no activity, so that a trace that gains some is
// added to the golden runs.
func TestNoActivitiesElsewhere(t *testing.T) {
	for _, path := range traces(t) {
		base := strings.TrimSuffix(filepath.Base(path), ".etl")
		if slices.Contains(activityTraces, base) {
			continue
		}
		out, _, _ := runCmd(t, "--activities", "--format", "json", path)
		var got struct {
			Activities  []any
			OrphanStops []any
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got), base)
		assert.Empty(t, got.Activities, base)
		assert.Empty(t, got.OrphanStops, base)
	}
}

// activityJSON is the shape of an activity in --activities --format json.
type activityJSON struct {
	ActivityId        string
	RelatedActivityId *string
	ProviderId        string
	ProviderName      *string
	StartEvent        string
	StopEvent         *string
	ProcessId         *uint32
	ThreadId          *uint32
	Start             string
	Stop              *string
	DurationNs        *int64
	LastSeen          *string
	Events            int
	Children          []activityJSON
}

func TestActivitiesJSONShape(t *testing.T) {
	out, errs, code := runCmd(t, "--activities", "--format", "json", writeActivityTrace(t))
	require.Equal(t, 0, code, errs)
	require.True(t, strings.HasSuffix(out, "}\n"))
	require.Equal(t, 1, strings.Count(out, "\n"), "one object on one line")
	var got struct {
		Activities  []activityJSON
		OrphanStops []map[string]any
		Stats       map[string]int
		End         string
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&got))

	require.Len(t, got.Activities, 3)
	req := got.Activities[0]
	assert.Equal(t, request1.String(), req.ActivityId)
	assert.Nil(t, req.RelatedActivityId)
	assert.Equal(t, "Contoso.Web", *req.ProviderName)
	assert.Equal(t, "Request", req.StartEvent)
	assert.Equal(t, "RequestStop", *req.StopEvent)
	assert.Equal(t, "2024-01-17T21:20:00.0001000Z", req.Start)
	assert.Equal(t, int64(12400000), *req.DurationNs)
	assert.Nil(t, req.LastSeen)
	assert.Equal(t, 1, req.Events)
	assert.Equal(t, uint32(0x1a00), *req.ProcessId)
	assert.Equal(t, uint32(0x2001), *req.ThreadId)

	require.Len(t, req.Children, 2)
	q, r := req.Children[0], req.Children[1]
	assert.Equal(t, query1.String(), q.ActivityId)
	assert.Equal(t, request1.String(), *q.RelatedActivityId)
	assert.Equal(t, "Contoso.Db", *q.ProviderName)
	assert.Equal(t, int64(123400), *q.DurationNs)
	assert.Equal(t, 2, q.Events)
	assert.Empty(t, q.Children)
	// The render never stops: no Stop, StopEvent or duration, and the
	// time of its last record.
	assert.Equal(t, render1.String(), r.ActivityId)
	assert.Nil(t, r.Stop)
	assert.Nil(t, r.StopEvent)
	assert.Nil(t, r.DurationNs)
	assert.Equal(t, "2024-01-17T21:20:00.0004100Z", *r.LastSeen)

	second, raw := got.Activities[1], got.Activities[2]
	assert.Equal(t, request2.String(), second.ActivityId)
	assert.Equal(t, elsewhen.String(), *second.RelatedActivityId)
	assert.Equal(t, batch.String(), raw.ActivityId)
	assert.Nil(t, raw.ProviderName, "no record of the provider names it")
	assert.Equal(t, "EventID(101)", raw.StartEvent)
	assert.Equal(t, "EventID(102)", *raw.StopEvent)
	assert.Equal(t, int64(1499700000), *raw.DurationNs)
	assert.Equal(t, 1, raw.Events)

	require.Len(t, got.OrphanStops, 1)
	assert.Equal(t, lost.String(), got.OrphanStops[0]["ActivityId"])
	assert.Equal(t, "RequestStop", got.OrphanStops[0]["StopEvent"])
	assert.Equal(t, map[string]int{"Activities": 5, "Stopped": 4, "Open": 1, "Restarted": 0, "OrphanStops": 1,
		"Stray": 0, "UnknownParents": 1, "CyclesBroken": 0, "Dropped": 0, "DroppedOrphanStops": 0}, got.Stats)
	assert.Equal(t, "2024-01-17T21:20:01.5000001Z", got.End)
}

// The filters apply before the tracker: without the database provider the
// query is gone and its records with it.
func TestActivitiesFollowFilters(t *testing.T) {
	path := writeActivityTrace(t)
	out, errs, code := runCmd(t, "--activities", "--provider", webProvider.String(), path)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "2024-01-17T21:20:00.0001000Z 12.4ms 6656/8193 Contoso.Web/Request "+request1.String()+" events=1 stop=RequestStop\n"+
		"  2024-01-17T21:20:00.0004000Z open 6656/8193 Contoso.Web/Render "+render1.String()+" events=1 last=2024-01-17T21:20:00.0004100Z\n"+
		"2024-01-17T21:20:00.0001200Z 1.4998801s 6656/8194 Contoso.Web/Request "+request2.String()+" events=0 stop=RequestStop related="+elsewhen.String()+"\n"+
		"\n"+
		"Orphan stops:\n"+
		"2024-01-17T21:20:00.0009000Z 6656/8194 Contoso.Web/RequestStop "+lost.String()+"\n"+
		"\n"+
		"Activities: 3 (2 stopped, 1 open, 0 restarted while open); orphan stops: 1; records of no open activity: 0; unknown parents: 1; cycles broken: 0\n",
		out)
}

func TestActivitiesFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--activities", "--format", "csv"}, "--format csv: --activities prints text or json"},
		{[]string{"--activities", "--stats"}, "--activities and --stats cannot be combined"},
		{[]string{"--count", "--activities"}, "--count and --activities cannot be combined"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"x.etl"}, c.args...), &out, &errb)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, errb.String(), "etldump: "+c.want, c.args)
		assert.Empty(t, out.String())
	}
	out, _, code := runCmd(t, "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "--activities")
}
