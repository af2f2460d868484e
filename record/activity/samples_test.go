package activity_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record/activity"
)

// sampleForest tracks a sample in time order. ok is false for a file
// etl.Open rejects (the corrupt sample).
func sampleForest(t *testing.T, path string) (f *activity.Forest, ok bool) {
	t.Helper()
	fh, err := etl.Open(path)
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	tr := newTracker()
	for r, err := range fh.Events() {
		if err != nil {
			continue // damage is the reader's business; its records are skipped
		}
		tr.Add(r)
	}
	return tr.Forest(), true
}

// sampleStats are the activities of the shared samples that have any; every
// other sample has none. Cross-checked by counting START and STOP records
// with a non-zero ActivityId in etldump's jsonl output.
var sampleStats = map[string]activity.Stats{
	// .NET DiagnosticSource through EventSource: Activity1Start/Stop and
	// Activity2Start/Stop, eight of them children of the first.
	"diaghub-user-paged.etl": {Activities: 111, Stopped: 53, Open: 58, Stray: 1},
	// Five STARTs on three ids; two ids are started again while open.
	"net452-x64-merged-compressed.etl": {Activities: 5, Stopped: 2, Open: 3, Restarted: 2},
	// One START/STOP pair; the other records name activities started
	// before the trace.
	"powershell-manifest.etl":        {Activities: 1, Stopped: 1, Stray: 101},
	"win7-netdiag-diagnose.etl":      {Activities: 1, Open: 1},
	"rtbackup-rlfs-diaglog.etl":      {OrphanStops: 1},
	"amsi-tracelogging.etl":          {Stray: 12},
	"diaghub-kernel.etl":             {Stray: 1},
	"win7-netdiag-repair-append.etl": {Stray: 9},
}

func TestSamples(t *testing.T) {
	for _, path := range samples.All(t, ".etl") {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			f, ok := sampleForest(t, path)
			if !ok {
				t.Skip("etl.Open rejects it")
			}
			t.Logf("%d activities (%d roots), %d orphan stops", f.Stats.Activities, len(f.Roots), f.Stats.OrphanStops)
			n := 0
			f.Walk(func(*activity.Activity, int) bool { n++; return true })
			assert.Equal(t, f.Stats.Activities, n, "every activity is in the forest once")
			// A sample missing from sampleStats has no activity at all.
			assert.Equal(t, sampleStats[name], f.Stats)
		})
	}
}

func TestDiagHubActivityTree(t *testing.T) {
	f, ok := sampleForest(t, samples.Path(t, "diaghub-user-paged.etl"))
	require.True(t, ok)
	require.Len(t, f.Roots, 103)
	a := f.Roots[0]
	assert.Equal(t, uuid.MustParse("00000011-0000-0000-0000-0000e2919d59"), a.Id)
	assert.Equal(t, uuid.Nil, a.RelatedId)
	assert.Equal(t, "Microsoft-Diagnostics-DiagnosticSource", a.ProviderName)
	assert.Equal(t, activity.Event{Name: "Activity1Start", Id: 23}, a.StartEvent)
	assert.Equal(t, activity.Event{Name: "Activity1Stop", Id: 26}, a.StopEvent)
	assert.Equal(t, time.Date(2020, 9, 14, 22, 50, 5, 55690900, time.UTC), a.Start)
	d, stopped := a.Duration()
	assert.True(t, stopped)
	assert.Equal(t, 219279900*time.Nanosecond, d)
	assert.True(t, a.HasThreadProcess)
	assert.Equal(t, uint32(2140), a.ProcessId)
	assert.Equal(t, uint32(2192), a.ThreadId)
	assert.Equal(t, 923, a.Events)

	// EventSource numbers nested activities under their parent's id.
	require.Len(t, a.Children, 8)
	var ids []string
	for _, c := range a.Children {
		assert.Same(t, a, c.Parent)
		assert.Equal(t, a.Id, c.RelatedId)
		assert.Equal(t, "Activity2Start", c.StartEvent.Name)
		assert.Empty(t, c.Children)
		ids = append(ids, c.Id.String()[:8])
	}
	assert.Equal(t, []string{"00001011", "00002011", "00003011", "00004011", "00005011", "00006011", "00007011", "00008011"}, ids)
	c := a.Children[1]
	d, stopped = c.Duration()
	assert.True(t, stopped)
	assert.Equal(t, 41140200*time.Nanosecond, d)
	assert.Equal(t, 394, c.Events)
	// Every other Activity2Start of this trace has no STOP record: the
	// rules leave those activities open, with no duration.
	_, stopped = a.Children[0].Duration()
	assert.False(t, stopped)
	assert.Equal(t, time.Date(2020, 9, 14, 22, 50, 8, 227681300, time.UTC), f.End)
}

func TestPowerShellPair(t *testing.T) {
	f, ok := sampleForest(t, samples.Path(t, "powershell-manifest.etl"))
	require.True(t, ok)
	require.Len(t, f.Roots, 1)
	a := f.Roots[0]
	assert.Equal(t, uuid.MustParse("f2b806ce-624d-0000-4ed1-b8f24d62d901"), a.Id)
	assert.Equal(t, "EventID(40961)", a.StartEvent.String())
	assert.Equal(t, "EventID(40962)", a.StopEvent.String())
	d, stopped := a.Duration()
	assert.True(t, stopped)
	assert.Equal(t, 86010600*time.Nanosecond, d)
	assert.Equal(t, 9, a.Events)
	assert.Equal(t, uint32(16040), a.ProcessId)
	assert.Equal(t, uint32(9400), a.ThreadId)
}
