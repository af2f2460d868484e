package stacks_test

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/stacks"
)

// largeTraceEnv sets the size, in MiB, of the trace TestLargeTraceBounded
// writes (32 MiB when unset).
const largeTraceEnv = "ETLKIT_LARGE_TRACE_MB"

// writeLargeTrace streams a sampled trace of about size bytes to path:
// 64 threads on 4 processors, compressed stacks throughout (a pool of 64
// keys in each cache, evicted now and then and so used again for other
// stacks), every third sample taken in the kernel with its user part
// logged when its thread leaves the kernel, after other threads' samples.
func writeLargeTrace(t *testing.T, path string, size int64) (samples int) {
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	s := etltest.DefaultSession()
	s.BufferSize = 0x10000
	b, err := etltest.NewBuilder(w, s)
	require.NoError(t, err)
	// The cache evicts a key every evictEvery samples: a key's next use
	// is a new stack, which the Joiner keeps apart.
	const threads, keys, evictEvery = 64, 64, 20000
	now := int64(t0)
	next := func() int64 { now += 3; return now }
	perf := func(cpu int, hook uint16, p *etltest.Payload) {
		b.CPU(cpu).Add(&etltest.PerfInfo{Version: 2, HookId: hook, TimeStamp: next(), Payload: p.Bytes()})
	}
	sys := func(hook, version uint16, p *etltest.Payload) {
		b.CPU(0).Add(&etltest.System{Version: version, HookId: hook, TimeStamp: next(), Payload: p.Bytes()})
	}
	sys(0x0303, 4, new(etltest.Payload).Ptr(8, 0xA000).U32(pid).U32(4).U32(1).I32(259).Ptr(8, 0x1AB000).
		U32(0).U32(0).AnsiZ("app.exe").UTF16Z("").UTF16Z("").UTF16Z(""))
	for i := range uint32(threads) {
		p := new(etltest.Payload).U32(pid).U32(tid + 4*i)
		for range 7 {
			p.Ptr(8, 0x1000)
		}
		sys(0x0503, 2, p.U32(0))
	}
	keyOf := func(space, i int) uint64 { return 0xFFFFFA80_0000_0000 + uint64(space)<<20 + uint64(i%keys)<<4 }
	define := func(cpu int, op uint8, space, i, life int) {
		p := new(etltest.Payload).Ptr(8, keyOf(space, i))
		for d := range 12 + i%8 {
			if space == 0 {
				p.Ptr(8, k1+uint64(d)<<8+uint64(life%4))
			} else {
				p.Ptr(8, u1+uint64(d)<<8+uint64(life%4))
			}
		}
		perf(cpu, 0x1800|uint16(op), p)
	}
	type pending struct {
		at  int64
		key uint64
	}
	// The user part of a sample taken in the kernel, logged when its
	// thread returns to user mode: after other threads' samples, before
	// its own next one.
	waiting := make([]*pending, threads)
	userPart := func(th int) {
		if p := waiting[th]; p != nil {
			perf(th%4, 0x1826, new(etltest.Payload).U64(uint64(p.at)).U32(pid).U32(tid+4*uint32(th)).Ptr(8, p.key))
			waiting[th] = nil
		}
	}
	lives := 0
	for n := 0; b.Offset() < size; n++ {
		th := n % threads
		cpu, thread := th%4, tid+4*uint32(th)
		userPart(th)
		at := next()
		b.CPU(cpu).Add(&etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: at,
			Payload: new(etltest.Payload).Ptr(8, k1).U32(thread).U16(1).U8(0).U8(0).Bytes()})
		samples++
		user := keyOf(1, n/7)
		if n%3 == 0 {
			perf(cpu, 0x1825, new(etltest.Payload).U64(uint64(at)).U32(pid).U32(thread).Ptr(8, keyOf(0, n/5)))
			waiting[th] = &pending{at: at, key: user}
		} else {
			perf(cpu, 0x1826, new(etltest.Payload).U64(uint64(at)).U32(pid).U32(thread).Ptr(8, user))
		}
		if n%evictEvery == evictEvery-1 {
			lives++
			define(cpu, 35, lives%2, lives, lives)
		}
	}
	for th := range waiting {
		userPart(th)
	}
	for space := range 2 {
		for i := range keys {
			define(0, 36, space, i, lives+1)
		}
	}
	require.NoError(t, b.Close())
	require.NoError(t, w.Flush())
	return samples
}

// TestLargeTraceBounded joins a long sampled trace written to a temporary
// file: the events in flight stay within a few per thread, and the heap
// holds the same once the stacks have all been met, however long the
// trace goes on.
func TestLargeTraceBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a large trace")
	}
	size := int64(32) << 20
	if v := os.Getenv(largeTraceEnv); v != "" {
		mb, err := strconv.Atoi(v)
		require.NoError(t, err, largeTraceEnv)
		size = int64(mb) << 20
	}
	path := filepath.Join(t.TempDir(), "large.etl")
	samples := writeLargeTrace(t, path, size)
	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	emitted := 0
	j := stacks.NewJoiner(stacks.Options{Emit: func(*stacks.Sample) { emitted++ }})
	maxInFlight, records, records0 := 0, 0, 0
	var heap [2]uint64 // after a quarter of the trace, at its end
	var mallocs [2]uint64
	var ms runtime.MemStats
	measure := func() uint64 {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for r, err := range f.Events() {
		require.NoError(t, err)
		j.Add(r)
		if records++; records%4096 == 0 {
			n, _ := j.InFlight()
			maxInFlight = max(maxInFlight, n)
			if heap[0] == 0 && records > 7*samples/12 { // a quarter of the 7 records per 3 samples
				heap[0] = measure()
				mallocs[0], records0 = ms.Mallocs, records
			}
		}
	}
	heap[1] = measure()
	mallocs[1] = ms.Mallocs
	perRecord := float64(mallocs[1]-mallocs[0]) / float64(records-records0)
	j.Close()
	st := j.Stats()
	t.Logf("%d MiB, %d records, %d samples, %d stacks, at most %d events in flight; heap %.1f MiB after a quarter, %.1f MiB at the end; %.4f allocations a record after the first quarter; %+v",
		size>>20, records, samples, j.NumStacks(), maxInFlight, float64(heap[0])/(1<<20), float64(heap[1])/(1<<20), perRecord, st)
	require.Equal(t, samples, emitted)
	assert.Equal(t, samples, st.Complete, "every sample has its kernel and user parts")
	assert.LessOrEqual(t, maxInFlight, 64*4, "a few events per thread")
	assert.Zero(t, st.Orphans)
	assert.Less(t, perRecord, 0.01, "reading and joining allocate nothing per record")
	assert.Less(t, float64(heap[1]), float64(heap[0])+8<<20, "the heap does not grow with the trace")
}
