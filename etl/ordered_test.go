package etl_test

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/record"
)

// sampleOrder is what reading each sample in time order finds: the records
// delivered, the backward steps file order takes (shutdown-kernel.etl's 31
// are the ones a file-order reader shows), the ties the merge breaks on
// processor number, the inversions inside streams, which no sample has,
// and the runs of sequence numbering (every data buffer of the appended
// trace has sequence number 1, so each is a run of its own).
var sampleOrder = map[string]struct {
	records, fileBackward, ties, inversions int
	runs                                    int // of sequence numbering
}{
	"amsi-tracelogging.etl":            {21, 3, 0, 0, 1},
	"diaghub-classic.etl":              {62379, 19, 1, 0, 1},
	"diaghub-kernel.etl":               {16335, 20, 0, 0, 1},
	"diaghub-user-injected.etl":        {4, 0, 0, 0, 1},
	"diaghub-user-paged.etl":           {22035, 73, 0, 0, 1},
	"gcevents-manifest.etl":            {71, 2, 0, 0, 1},
	"gcrundown-manifest.etl":           {112, 0, 0, 0, 1},
	"hw3d-tracelogging.etl":            {3, 0, 0, 0, 1},
	"lxcore-tracelogging.etl":          {4, 1, 0, 0, 1},
	"net452-x64-merged-compressed.etl": {179474, 94, 7682, 0, 1},
	"powershell-manifest.etl":          {114, 18, 0, 0, 1},
	"primitive-types-tracelogging.etl": {7, 0, 0, 0, 1},
	"rtbackup-rlfs-application.etl":    {1, 0, 0, 0, 1},
	"rtbackup-rlfs-diaglog.etl":        {2, 0, 0, 0, 1},
	"rtbackup-rlfs-system.etl":         {4, 0, 0, 0, 1},
	"selfdescribing-compressed.etl":    {23, 1, 1, 0, 1},
	"shutdown-kernel.etl":              {17078, 31, 3, 0, 1},
	"small-32bit-compressed.etl":       {2, 0, 0, 0, 1},
	"sonde-tracelogging.etl":           {112, 4, 1, 0, 1},
	"win10-explorer-startup.etl":       {4793, 32, 0, 0, 1},
	"win11-onedrive-cldflt0.etlgz":     {17, 0, 0, 0, 1},
	"win11-onedrive-cldflt1.etlgz":     {7, 0, 0, 0, 1},
	"win11-sih.etl":                    {12, 0, 0, 0, 1},
	"win11-waasmedic.etl":              {21, 0, 0, 0, 1},
	"win11-waasmedic.etl.bz2":          {21, 0, 0, 0, 1},
	"win11-waasmedic.etl.gz":           {21, 0, 0, 0, 1},
	"win11-waasmedic.etl.zst":          {21, 0, 0, 0, 1},
	"win7-explorer-runonce-32bit.etl":  {36, 0, 0, 0, 1},
	"win7-explorer-startup.etl":        {107, 2, 0, 0, 1},
	"win7-netdiag-diagnose.etl":        {96, 1, 0, 0, 1},
	"win7-netdiag-repair-append.etl":   {10, 0, 0, 0, 4},
	"win7-relogged-classic.etl":        {114, 1, 1, 0, 1},
	"win7-user-manifest.etl":           {6, 0, 0, 0, 1},
}

// place identifies a record in its file.
type place struct{ buffer, offset int }

// delivered is one record as an iteration gave it.
type delivered struct {
	place
	ft     int64
	digest [32]byte
}

func recordDigest(r *record.Record) [32]byte {
	le := binary.LittleEndian
	b := make([]byte, 0, 128+len(r.Raw))
	b = append(b, byte(r.HeaderType))
	b = append(b, r.ProviderId[:]...)
	b = le.AppendUint16(b, r.EventDescriptor.Id)
	b = le.AppendUint64(b, uint64(header.TimeToFileTime(r.TimeStamp())))
	b = le.AppendUint16(b, r.ProcessorNumber)
	b = le.AppendUint32(b, r.ThreadId)
	b = le.AppendUint32(b, r.ProcessId)
	b = le.AppendUint64(b, uint64(r.FileOffset))
	b = le.AppendUint32(b, uint32(len(r.UserData)))
	for _, x := range r.ExtendedData() {
		b = le.AppendUint16(b, uint16(x.Type))
		b = append(b, x.Data...)
	}
	b = append(b, r.Raw...)
	return sha256.Sum256(b)
}

func readAll(t *testing.T, seq func(func(*record.Record, error) bool)) []delivered {
	t.Helper()
	var out []delivered
	for r, err := range seq {
		require.NoError(t, err)
		out = append(out, delivered{place{r.BufferIndex, r.BufferOffset}, header.TimeToFileTime(r.TimeStamp()), recordDigest(r)})
	}
	return out
}

// sameStats requires two iterations to have counted the same, apart from
// the order description and the order errors were met in.
func sameStats(t *testing.T, want, got etl.Stats, msg string) {
	t.Helper()
	w, g := want, got
	w.Order, g.Order = nil, nil
	key := func(e *etl.FormatError) string { return e.Error() }
	sortErrs := func(e []*etl.FormatError) []string {
		s := make([]string, len(e))
		for i := range e {
			s[i] = key(e[i])
		}
		slices.Sort(s)
		return s
	}
	assert.Equal(t, sortErrs(w.Errors), sortErrs(g.Errors), msg)
	w.Errors, g.Errors = nil, nil
	assert.Equal(t, w, g, msg)
}

// streamOf names the stream of a buffer as the merge forms them.
func streamOf(b *buffer.Buffer, h *etl.Header) int {
	switch {
	case b.Index == 0 && h.RealTimeBackup == nil:
		return -1
	case h.LogFileMode&header.ModeNoPerProcessorBuffering != 0:
		return 0
	}
	return int(b.ProcessorNumber())
}

// TestEventsOnSamples reads every sample in time order and checks it
// against file order: the same records, each stream in its own order
// (buffers by run of sequence numbering, sequence number, then file
// offset), fully sorted, the logfile header
// first, every backward step inside one stream, and the same Stats.
func TestEventsOnSamples(t *testing.T) {
	seen := 0
	for _, p := range samples.All(t) {
		name := filepath.Base(p)
		want, ok := sampleOrder[name]
		if !ok {
			continue
		}
		seen++
		t.Run(name, func(t *testing.T) {
			f, err := etl.Open(p)
			require.NoError(t, err)
			defer f.Close()
			h := f.Header()

			type bufInfo struct {
				run    int // run of sequence numbering
				seq    int64
				off    int64
				stream int
			}
			bufs := map[int]bufInfo{}
			run, seen := 0, map[int64]bool{}
			for b, err := range f.Buffers() {
				require.NoError(t, err)
				s := streamOf(b, h)
				if s >= 0 {
					if seen[b.SequenceNumber] {
						run++
						clear(seen)
					}
					seen[b.SequenceNumber] = true
				}
				bufs[b.Index] = bufInfo{run, b.SequenceNumber, b.FileOffset, s}
			}

			fileOrder := readAll(t, f.Records())
			fileStats := *f.Stats()
			events := readAll(t, f.Events())
			st := *f.Stats()
			sameStats(t, fileStats, st, "Events counts as Records does")
			require.NotNil(t, st.Order)
			assert.Equal(t, want.records, len(events))
			assert.Equal(t, want.records, st.Order.Records)
			assert.Equal(t, want.ties, st.Order.Ties)
			assert.Equal(t, want.inversions, st.Order.Inversions)

			// The same multiset of records, each identical.
			byPlace := map[place][32]byte{}
			for _, r := range fileOrder {
				byPlace[r.place] = r.digest
			}
			require.Len(t, byPlace, len(fileOrder))
			for _, r := range events {
				d, ok := byPlace[r.place]
				require.True(t, ok, "record at %v not in file order", r.place)
				assert.Equal(t, d, r.digest, "record at %v differs", r.place)
				delete(byPlace, r.place)
			}
			assert.Empty(t, byPlace)

			if h.RealTimeBackup == nil {
				assert.Equal(t, place{0, buffer.HeaderSize}, events[0].place, "the logfile-header record first")
			}

			// Each stream in its own order.
			perStream := map[int][]place{}
			for _, r := range events {
				s := bufs[r.buffer].stream
				perStream[s] = append(perStream[s], r.place)
			}
			for s, got := range perStream {
				wantOrder := slices.Clone(got)
				slices.SortFunc(wantOrder, func(a, b place) int {
					ba, bb := bufs[a.buffer], bufs[b.buffer]
					return cmp.Or(cmp.Compare(ba.run, bb.run), cmp.Compare(ba.seq, bb.seq), cmp.Compare(ba.off, bb.off), cmp.Compare(a.offset, b.offset))
				})
				assert.Equal(t, wantOrder, got, "stream %d", s)
			}

			// Every backward step is an inversion inside one stream.
			steps := 0
			for i := 1; i < len(events); i++ {
				if events[i].ft < events[i-1].ft {
					steps++
					assert.Equal(t, bufs[events[i-1].buffer].stream, bufs[events[i].buffer].stream, "backward step at %d across streams", i)
				}
			}
			assert.Equal(t, steps, st.Order.BackwardSteps)
			assert.LessOrEqual(t, steps, st.Order.Inversions)
			assert.Zero(t, st.Order.BackwardSteps, "fully sorted")
			assert.Equal(t, want.runs, st.Order.Sources[0].SequenceRuns)

			// File order steps back where the streams interleave.
			for range f.EventsWith(order.Options{Mode: order.FileOrder}) {
			}
			assert.Equal(t, want.fileBackward, f.Stats().Order.BackwardSteps)
			sameStats(t, fileStats, *f.Stats(), "FileOrder counts as Records does")

			// The merge on a goroutine of its own gives the same.
			ahead := readAll(t, f.EventsWith(order.Options{MergeAhead: true}))
			assert.Equal(t, events, ahead)
			sameStats(t, st, *f.Stats(), "MergeAhead counts as the merge on one goroutine")
			aheadOrder := *f.Stats().Order
			assert.Equal(t, st.Order.Inversions, aheadOrder.Inversions)
			assert.Equal(t, st.Order.BackwardSteps, aheadOrder.BackwardSteps)
			assert.Equal(t, st.Order.Ties, aheadOrder.Ties)
			assert.Equal(t, st.Order.Sources, aheadOrder.Sources)

			// No sample has an inversion, so Sorted is Ordered.
			sorted := readAll(t, f.EventsWith(order.Options{Mode: order.Sorted}))
			assert.Equal(t, events, sorted)
			assert.Zero(t, f.Stats().Order.Late)
		})
	}
	assert.Equal(t, len(sampleOrder), seen, "every sample in the table was read")
}

// TestEventsIsOrdered: the default iteration is the Ordered mode.
func TestEventsIsOrdered(t *testing.T) {
	f, err := etl.Open(samples.Path(t, "shutdown-kernel.etl"))
	require.NoError(t, err)
	defer f.Close()
	events := readAll(t, f.Events())
	assert.Equal(t, order.Ordered, f.Stats().Order.Mode)
	ordered := readAll(t, f.EventsWith(order.Options{Mode: order.Ordered, ReadAhead: -1}))
	assert.Equal(t, events, ordered)
	for i := 1; i < len(events); i++ {
		require.GreaterOrEqual(t, events[i].ft, events[i-1].ft, "record %d", i)
	}
	assert.Equal(t, 17078, len(events))
}

// TestEventsBreak: leaving the loop early stops the workers and leaves
// Stats counting what was delivered.
func TestEventsBreak(t *testing.T) {
	f, err := etl.Open(samples.Path(t, "net452-x64-merged-compressed.etl"))
	require.NoError(t, err)
	defer f.Close()
	for _, opts := range []order.Options{{}, {Mode: order.Sorted}, {Mode: order.FileOrder}, {ReadAhead: -1}} {
		n := 0
		for _, err := range f.EventsWith(opts) {
			require.NoError(t, err)
			n++
			if n == 1000 {
				break
			}
		}
		st := f.Stats()
		assert.Equal(t, 1000, st.Records, "%+v", opts)
		assert.Equal(t, 1000, st.Order.Records, "%+v", opts)
		total := 0
		for _, c := range st.HeaderTypes {
			total += c
		}
		assert.Equal(t, 1000, total, "%+v", opts)
	}
}

// TestOrderedUsesWorkersOnCompressed checks that the compressed merged
// sample is read ahead by workers and still delivers what one goroutine
// delivers.
func TestOrderedUsesWorkersOnCompressed(t *testing.T) {
	f, err := etl.Open(samples.Path(t, "net452-x64-merged-compressed.etl"))
	require.NoError(t, err)
	defer f.Close()
	ahead := readAll(t, f.EventsWith(order.Options{Workers: 4, ReadAhead: 3}))
	st := *f.Stats().Order
	assert.Equal(t, 4, st.Workers)
	assert.Equal(t, 3, st.ReadAhead)
	assert.Equal(t, 359, f.Stats().CompressedBuffers)
	alone := readAll(t, f.EventsWith(order.Options{ReadAhead: -1}))
	assert.Zero(t, f.Stats().Order.Workers)
	assert.Equal(t, alone, ahead)
	decoded := readAll(t, f.EventsWith(order.Options{Workers: 2, DecodeAhead: 100}))
	assert.Equal(t, 100, f.Stats().Order.DecodeAhead)
	assert.Equal(t, alone, decoded)

	// By default compressed buffers are read ahead on every core...
	for range f.Events() {
	}
	assert.Equal(t, runtime.GOMAXPROCS(0), f.Stats().Order.Workers)
	assert.Equal(t, order.DefaultReadAhead, f.Stats().Order.ReadAhead)
	// ...and uncompressed ones by one worker when there are two cores, or
	// when the merge reaches them on one.
	g, err := etl.Open(samples.Path(t, "shutdown-kernel.etl"))
	require.NoError(t, err)
	defer g.Close()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var want []delivered
	for _, procs := range []int{2, 1} {
		runtime.GOMAXPROCS(procs)
		got := readAll(t, g.Events())
		if procs == 2 {
			assert.Equal(t, 1, g.Stats().Order.Workers)
			assert.Equal(t, order.DefaultReadAhead, g.Stats().Order.ReadAhead)
			want = got
		} else {
			assert.Zero(t, g.Stats().Order.Workers)
			assert.Zero(t, g.Stats().Order.ReadAhead)
			assert.Equal(t, want, got)
		}
	}
}

// damagedTrace has each kind of damage a reader reports: a buffer that
// does not decompress, one whose Offset points into its header (after a
// sound buffer: damage in two buffers in a row is one loss), a record
// whose header type is unknown, and a file cut inside its last buffer.
func damagedTrace(t *testing.T) []byte {
	s := etltest.DefaultSession()
	s.BufferSize = 0x400
	s.EventsLost = 2
	ev := func(ts int64) etltest.Record {
		return &etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: ts, Payload: []byte{1, 2, 3, 4, 5, 6, 7, 8}}
	}
	base := s.HeaderTimeStamp
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		for _, w := range []struct {
			spec etltest.Buffer
			recs []etltest.Record
		}{
			{etltest.Buffer{CPU: 0, SequenceNumber: 1}, []etltest.Record{ev(base + 10), ev(base + 30)}},
			{etltest.Buffer{CPU: 1, SequenceNumber: 2, Flags: buffer.FlagEventsLost}, []etltest.Record{ev(base + 20), ev(base + 40)}},
			{etltest.Buffer{CPU: 0, SequenceNumber: 3, BadCompression: true}, []etltest.Record{ev(base + 35)}},
			{etltest.Buffer{CPU: 1, SequenceNumber: 4}, []etltest.Record{ev(base + 42)}},
			{etltest.Buffer{CPU: 1, SequenceNumber: 5, Offset: etltest.Ptr(uint32(0x20))}, []etltest.Record{ev(base + 45)}},
			{etltest.Buffer{CPU: 2, SequenceNumber: 6}, []etltest.Record{ev(base + 15), etltest.Raw{0x00, 0x00, 0x7E, 0xC0, 0x18, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, ev(base + 50)}},
			{etltest.Buffer{CPU: 0, SequenceNumber: 7}, []etltest.Record{ev(base + 60)}},
			{etltest.Buffer{CPU: 2, SequenceNumber: 8, Truncate: 0x48 + 0x18 + 4}, []etltest.Record{ev(base + 70), ev(base + 80)}},
		} {
			if err := b.WriteBuffer(w.spec, w.recs...); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	return data
}

// TestEventsOnDamage: damage costs the same in time order as in file
// order, and is counted the same.
func TestEventsOnDamage(t *testing.T) {
	data := damagedTrace(t)
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	count := func(seq func(func(*record.Record, error) bool)) (recs, errs int) {
		for rec, err := range seq {
			if err != nil {
				var fe *etl.FormatError
				assert.ErrorAs(t, err, &fe)
				errs++
				continue
			}
			require.NotNil(t, rec)
			recs++
		}
		return
	}
	recs, errs := count(r.Records())
	fileStats := *r.Stats()
	// Records: the header, 2 + 2 + 1 + 1 (the unknown header type cuts the
	// rest of its buffer) + 1 + 1 (the cut buffer's whole record).
	assert.Equal(t, 9, recs)
	assert.Equal(t, 4, errs)
	assert.Equal(t, 1, fileStats.EventsLostBuffers)
	assert.Equal(t, 2, fileStats.BuffersSkipped)
	assert.Equal(t, 2, fileStats.BuffersCut)
	assert.True(t, fileStats.Truncated)
	assert.Equal(t, 5, fileStats.ErrorCount, "four delivered, and the truncation")
	for _, opts := range []order.Options{{}, {ReadAhead: -1}, {Mode: order.Sorted}, {Mode: order.FileOrder}} {
		name := fmt.Sprintf("%v/ahead%d", opts.Mode, opts.ReadAhead)
		gotRecs, gotErrs := count(r.EventsWith(opts))
		assert.Equal(t, recs, gotRecs, name)
		assert.Equal(t, errs, gotErrs, name)
		sameStats(t, fileStats, *r.Stats(), name)
	}
}

// TestOpenMany merges two traces of the same machine onto one timeline.
func TestOpenMany(t *testing.T) {
	paths := []string{samples.Path(t, "win11-onedrive-cldflt1.etlgz"), samples.Path(t, "win11-onedrive-cldflt0.etlgz")}
	set, err := etl.OpenMany(paths...)
	require.NoError(t, err)
	defer set.Close()
	require.Len(t, set.Readers, 2)

	var alone [2][]delivered
	for i, r := range set.Readers {
		alone[i] = readAll(t, r.Events())
	}
	var got []delivered
	var origins []int
	for r, err := range set.Events() {
		require.NoError(t, err)
		got = append(got, delivered{place{r.BufferIndex, r.BufferOffset}, header.TimeToFileTime(r.TimeStamp()), recordDigest(r)})
		origins = append(origins, set.Origin())
	}
	require.Len(t, got, 24)
	// The header buffers first, in the order the files were given, then
	// time order.
	assert.Equal(t, []int{0, 0, 0, 0, 1, 1, 1, 1}, origins[:8])
	assert.Equal(t, place{0, buffer.HeaderSize}, got[0].place)
	var split [2][]delivered
	for i, o := range origins {
		split[o] = append(split[o], got[i])
	}
	assert.Equal(t, alone[0], split[0], "the first file's records in its own order")
	assert.Equal(t, alone[1], split[1])
	for i := 9; i < len(got); i++ { // from the first merged record, index 8, on
		assert.GreaterOrEqual(t, got[i].ft, got[i-1].ft, "record %d", i)
	}
	st := set.Stats()
	assert.Equal(t, 24, st.Records, "the files' records summed")
	assert.Equal(t, 24, st.Order.Records)
	assert.Len(t, st.Order.Streams, 4)
	assert.Equal(t, 7, set.Readers[0].Stats().Records)
	assert.Equal(t, 17, set.Readers[1].Stats().Records)
	assert.Equal(t, set.Readers[0].Stats().Buffers+set.Readers[1].Stats().Buffers, st.Buffers)
	assert.Equal(t, set.Readers[0].Stats().Bytes+set.Readers[1].Stats().Bytes, st.Bytes)
	assert.Equal(t, set.Readers[0].Stats().HeaderTypes[header.TypeSystem64]+set.Readers[1].Stats().HeaderTypes[header.TypeSystem64], st.HeaderTypes[header.TypeSystem64])
	assert.Same(t, st.Order, set.Readers[0].Stats().Order)

	// FileOrder reads one file after the other.
	n := 0
	for _, err := range set.EventsWith(order.Options{Mode: order.FileOrder}) {
		require.NoError(t, err)
		if n < 7 {
			assert.Equal(t, 0, set.Origin())
		} else {
			assert.Equal(t, 1, set.Origin())
		}
		n++
	}
	assert.Equal(t, 24, n)
}

func TestOpenManyMissingFile(t *testing.T) {
	_, err := etl.OpenMany(samples.Path(t, "win11-sih.etl"), "does-not-exist.etl")
	require.Error(t, err)
}

// TestSetOfSyntheticClocks: two traces whose clocks differ (a 10 MHz QPC
// and the system clock) interleave by UTC time.
func TestSetOfSyntheticClocks(t *testing.T) {
	qpc := etltest.DefaultSession()
	sys := etltest.DefaultSession()
	sys.ClockType = etltest.ClockSystemTime
	sys.StartTime += 3
	sys.HeaderTimeStamp = sys.StartTime
	ev := func(ts int64, tag byte) etltest.Record {
		return &etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: ts, Payload: []byte{tag}}
	}
	mk := func(s etltest.Session, recs ...etltest.Record) *etl.Reader {
		data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
			b.CPU(1).Add(recs...)
			return nil
		})
		require.NoError(t, err)
		r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
		require.NoError(t, err)
		return r
	}
	a := mk(qpc, ev(qpc.HeaderTimeStamp+10, 1), ev(qpc.HeaderTimeStamp+30, 3))
	b := mk(sys, ev(qpc.StartTime+20, 2), ev(qpc.StartTime+40, 4))
	set := etl.NewSet(a, b)
	var tags []byte
	var times []time.Time
	for r, err := range set.Events() {
		require.NoError(t, err)
		if r.HookId == 0x0F2E {
			tags = append(tags, r.UserData[0])
			times = append(times, r.TimeStamp())
		}
	}
	assert.Equal(t, []byte{1, 2, 3, 4}, tags)
	assert.Equal(t, header.FileTimeToTime(qpc.StartTime+10), times[0])
	assert.Equal(t, header.FileTimeToTime(qpc.StartTime+20), times[1])
}

// TestSetOfOneInFileOrder: one file in file order is read on two
// goroutines with the order's counts kept alongside; the Set reports them
// and every record's origin, as for the merge.
func TestSetOfOneInFileOrder(t *testing.T) {
	f, err := etl.Open(samples.Path(t, "shutdown-kernel.etl"))
	require.NoError(t, err)
	defer f.Close()
	for range f.EventsWith(order.Options{Mode: order.FileOrder, ReadAhead: -1}) {
	}
	want := *f.Stats().Order
	set := etl.NewSet(f.Reader)
	n := 0
	for _, err := range set.EventsWith(order.Options{Mode: order.FileOrder}) {
		require.NoError(t, err)
		require.Equal(t, 0, set.Origin())
		n++
	}
	got := set.Stats().Order
	assert.Equal(t, 17078, n)
	assert.Equal(t, 31, got.BackwardSteps)
	assert.Equal(t, want.BackwardSteps, got.BackwardSteps)
	assert.Equal(t, want.LargestBackwardStep, got.LargestBackwardStep)
	assert.Equal(t, want.Ties, got.Ties)
	assert.Equal(t, want.Sources, got.Sources)
	assert.Equal(t, 17078, f.Stats().Records)
}
