package stacks

import (
	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
	"github.com/etlkit/etlkit/schema/kernel"
)

// Kernel groups and opcodes the Joiner reads (kernel-events.md §§5, 6, 8, 9).
const (
	groupThread    = 0x05
	groupPerfInfo  = 0x0F
	groupStackWalk = 0x18

	opThreadEnd = 2
	opCSwitch   = 36

	opSample          = 46
	opSetInterval     = 72
	opCollectionStart = 73
	opCollectionEnd   = 74

	opStack          = 32
	opKeyCreate      = 34
	opKeyDelete      = 35
	opKeyRundown     = 36
	opStackKeyKernel = 37
	opStackKeyUser   = 38

	opImageUnload  = 2
	opImageDCStart = 3
	opImageDCEnd   = 4
	opImageLoad    = 10
)

// The .NET providers' events the Joiner reads (stacks.md §5.1), by id.
const (
	clrMethodLoadVerbose   = 143 // runtime: MethodLoadVerbose; rundown: MethodDCStartVerbose
	clrMethodUnloadVerbose = 144 // runtime: MethodUnloadVerbose; rundown: MethodDCEndVerbose
	clrStackWalk           = 82  // runtime
	clrDomainModuleLoad    = 151 // runtime: DomainModuleLoad; rundown: DomainModuleDCStart
	clrModuleLoad          = 152 // runtime: ModuleLoad; rundown: DomainModuleDCEnd
	clrModuleUnload        = 153 // runtime: ModuleUnload; rundown: ModuleDCStart
	clrModuleDCEnd         = 154 // rundown: ModuleDCEnd

	// eventTracingUserStack is Microsoft-Windows-Kernel-EventTracing's
	// event that carries the user part of stacks whose kernel part an
	// event's extended data held (stacks.md §2.4b).
	eventTracingUserStack = 18
)

// eventTracing is Microsoft-Windows-Kernel-EventTracing.
var eventTracing = uuid.MustParse("b675ec37-bdb6-4648-bc92-f3fdc74d3ca2")

// Processes whose threads run in kernel mode only: a kernel stack is the
// whole stack there.
const (
	idlePID   = 0
	systemPID = 4
)

// DefaultInterval is the sampling interval assumed when the trace states
// none: 1 ms, in 100-ns units, the kernel's default.
const DefaultInterval = 10000

// DefaultMaxWaiting bounds the events one thread may have waiting for a
// user part (a thread that stays in the kernel gathers one per sample).
const DefaultMaxWaiting = 1 << 16

// KernelBoundary is the lowest kernel address for a pointer size: the
// upper half of a 32-bit address space, and on 64-bit systems the address
// PerfView takes (the canonical kernel half begins lower, at
// 0xFFFF800000000000; samply takes 0xF000000000000000: no address of the
// shared samples lies between the three).
func KernelBoundary(pointerSize int) uint64 {
	if pointerSize == 4 {
		return 0x8000_0000
	}
	return 0xFFFF_0000_0000_0000
}

// Options configure a Joiner.
type Options struct {
	// Select chooses the events whose stacks are wanted, by their record;
	// nil chooses the CPU samples (PerfInfo/Sample). It is asked of every
	// record except the StackWalk group's.
	Select func(r *record.Record) bool
	// Emit receives each chosen event with its stack once the stack is
	// known, which can be after later events: the Samples do not come in
	// time order. The Sample is valid during the call only.
	Emit func(s *Sample)
	// MaxWaiting bounds the events a thread keeps waiting for their user
	// part (0: DefaultMaxWaiting); past it the oldest goes with its kernel
	// part only.
	MaxWaiting int
}

// JoinStatus says how much of an event's stack the trace gave.
type JoinStatus uint8

const (
	// JoinComplete: the whole stack: a kernel part and its user part, a
	// stack that begins in user mode, or both parts in one record.
	JoinComplete JoinStatus = iota
	// JoinKernelOnly: a kernel part whose user part never came (the
	// thread ended, or the trace did, before it returned to user mode).
	JoinKernelOnly
	// JoinNoStack: no stack reached the event. A CPU sample then has its
	// instruction pointer as its only frame.
	JoinNoStack
)

// Sample is one chosen event with its stack.
type Sample struct {
	// Time is the event's raw timestamp (record.Record.RawTimeStamp).
	Time int64
	// PID and TID are the event's process and thread; for a CPU sample
	// the thread its payload names and that thread's process. PIDKnown is
	// false when the trace never says which process the thread is in.
	PID, TID uint32
	PIDKnown bool
	// Process and Thread are their names, "" when unknown.
	Process, Thread string
	CPU             uint16
	// CPUSample marks a PerfInfo/Sample, which stands for Interval of
	// CPU time; Interval is the sampling interval in force, in 100-ns
	// units, 0 when the trace has not stated it yet (Joiner.Interval
	// then gives the one to use).
	CPUSample bool
	Interval  uint32
	Stack     StackID
	Join      JoinStatus
}

// Stats count what a Joiner saw.
type Stats struct {
	Events     int // chosen events emitted
	Complete   int // of them, with JoinComplete
	KernelOnly int // with JoinKernelOnly
	NoStack    int // with JoinNoStack
	// Deferred counts events whose user part came after their kernel
	// part, when the thread returned to user mode.
	Deferred int
	// Orphans counts stack records whose event was not chosen, or not in
	// the trace; ExtraKernel second kernel parts for one event, ignored.
	Orphans     int
	ExtraKernel int
	// Capped counts events sent with their kernel part only because
	// their thread had MaxWaiting events waiting.
	Capped int
	// KeyDefinitions counts stack-key definitions given to events;
	// UnusedDefinitions those no chosen event referred to;
	// UndefinedKeys the keys referred to that no definition gave frames
	// by the end of the trace (their part of the stack is missing).
	KeyDefinitions    int
	UnusedDefinitions int
	UndefinedKeys     int
}

// event is a chosen event whose stack is not yet known.
type event struct {
	time      int64
	tid, pid  uint32
	tidKnown  bool
	pidKnown  bool
	cpuSample bool
	clr       bool // a .NET runtime event, which a ClrStackWalk may follow
	cpu       uint16
	interval  uint32
	ip        uint64
	kernel    part
	user      part
}

// threadKey keys the per-thread state: the thread id, or for the idle
// threads (all tid 0) and the events logged without a thread, the
// processor.
type threadKey uint64

const (
	idleKey    = 1 << 32
	noTidKey   = 2 << 32
	unknownPID = ^uint32(0)
)

func keyOf(tid uint32, tidKnown bool, cpu uint16) threadKey {
	switch {
	case !tidKnown:
		return noTidKey | threadKey(cpu)
	case tid == 0:
		return idleKey | threadKey(cpu)
	}
	return threadKey(tid)
}

// thread holds a thread's events in flight: fresh ones, whose stack
// records come right after them, and those whose kernel part came and
// which wait for the thread to return to user mode.
type thread struct {
	fresh   []*event
	waiting []*event
}

// modKey keys modules and methods by process and address; the kernel's
// images are under kernelPID.
type modKey struct {
	pid  uint32
	addr uint64
}

const kernelPID = ^uint32(0)

// identity is what KernelTraceControl says of an image before (or just
// after) the image's own record.
type identity struct {
	tds     uint32
	pdb     PDB
	hasTDS  bool
	hasPDB  bool
	orphans int
}

// Joiner joins stacks to the events they belong to and keeps what the
// trace says of its images and .NET methods to name their frames. Records
// go in with Add in time order (etl.Reader.Events); the chosen events come
// out through Options.Emit as soon as their stacks are known; after Close,
// Frames names the frames of every stack.
//
// The join follows stacks.md §3: a stack belongs to the event of the same
// thread and timestamp (EventTimeStamp); a kernel part waits for the user
// part the thread logs when it returns to user mode, which completes every
// event of that thread then waiting (PerfView's reading: the deferred user
// part of the shared samples names the first of several waiting samples);
// a stack-cache key is resolved when the cache defines it (KeyDelete,
// KeyRundown), however late. Memory is bounded by the threads in flight
// and the distinct stacks, keys and frames of the trace, not by its
// length.
//
// A Joiner is not safe for concurrent use.
type Joiner struct {
	opts  Options
	procs kernel.Processes
	dec   decoder
	clr   *schema.Set

	seqs   seqTable
	slots  slotTable
	stacks stackTable

	threads     map[threadKey]*thread
	freeEvents  []*event
	freeThreads []*thread
	scratch     []uint64
	out         Sample
	stats       Stats

	interval      uint32 // in force now
	startInterval uint32 // the first CollectionStart's
	lastOld       uint32 // the last SetInterval's OldInterval
	pointerSize   int    // the largest of the kernel records

	gens      map[uint32]uint32
	kernelGen uint32

	images      map[uint32]*ranges[Module] // by process; the kernel's under kernelPID
	openImages  map[modKey]*Module
	methods     map[uint32]*ranges[Method]
	openMethods map[modKey]*Method
	modulePaths map[modKey]string // .NET module IL paths by process and ModuleID
	pendingIDs  map[modKey]*identity
	lastImage   *Module
	lastImageAt int64

	closed  bool
	resolve map[resolveKey]Frame
	addrs   []uint64 // Frames' own, apart from scratch: Emit may call it
}

type resolveKey struct {
	pid, gen uint32
	addr     uint64
}

// NewJoiner returns a Joiner.
func NewJoiner(opts Options) *Joiner {
	if opts.MaxWaiting <= 0 {
		opts.MaxWaiting = DefaultMaxWaiting
	}
	return &Joiner{
		opts: opts, clr: dotnet.Set(),
		threads:     make(map[threadKey]*thread),
		gens:        make(map[uint32]uint32),
		images:      make(map[uint32]*ranges[Module]),
		openImages:  make(map[modKey]*Module),
		methods:     make(map[uint32]*ranges[Method]),
		openMethods: make(map[modKey]*Method),
		modulePaths: make(map[modKey]string),
		pendingIDs:  make(map[modKey]*identity),
	}
}

// Processes is what the Joiner learned of the trace's processes and
// threads so far.
func (j *Joiner) Processes() *kernel.Processes { return &j.procs }

// Stats returns the counts so far; UndefinedKeys is counted by Close.
func (j *Joiner) Stats() Stats { return j.stats }

// Interval is the sampling interval, in 100-ns units, for the samples
// emitted with none: the first CollectionStart's, else the last
// SetInterval's OldInterval (the tools reset the interval when a trace
// stops), else the interval in force, else DefaultInterval. These are
// PerfView's choices, for the timer source.
func (j *Joiner) Interval() uint32 {
	for _, v := range [...]uint32{j.startInterval, j.lastOld, j.interval} {
		if v != 0 {
			return v
		}
	}
	return DefaultInterval
}

// Add takes the next record in time order.
func (j *Joiner) Add(r *record.Record) {
	j.procs.Learn(r)
	if g, ok := kernel.Group(r); ok {
		j.kernelRecord(r, g)
		return
	}
	switch {
	case r.HeaderType.IsClassic():
		if r.ProviderId == kernel.ImageIDTask {
			j.imageIdentity(r)
		}
	case r.HeaderType == header.TypeEventHeader64 || r.HeaderType == header.TypeEventHeader32:
		switch r.ProviderId {
		case dotnet.RuntimeProvider, dotnet.RundownProvider:
			if j.dotnetRecord(r) {
				return
			}
		case eventTracing:
			if r.EventDescriptor.Id == eventTracingUserStack {
				j.extendedUserPart(r)
				return
			}
		}
	}
	if j.opts.Select != nil && j.opts.Select(r) {
		j.headerEvent(r, r.ThreadId, r.HasThreadProcess)
	}
}

func (j *Joiner) kernelRecord(r *record.Record, g uint8) {
	op := r.EventDescriptor.Opcode
	if r.HeaderType.IsKernel() {
		j.pointerSize = max(j.pointerSize, r.PointerSize())
	}
	switch g {
	case groupStackWalk:
		j.stackWalk(r, op)
		return
	case groupPerfInfo:
		switch op {
		case opSample:
			if j.opts.Select == nil || j.opts.Select(r) {
				j.sample(r)
			}
			return
		case opSetInterval, opCollectionStart, opCollectionEnd:
			j.samplingInterval(r, op)
		}
	case record.GroupImage:
		j.image(r, op)
	case record.GroupProcess:
		if op == record.ProcessImageLoadType {
			j.image(r, opImageLoad)
		}
	case groupThread:
		if op == opThreadEnd {
			j.threadEnd(r)
		}
	}
	if j.opts.Select != nil && j.opts.Select(r) {
		tid, known := r.ThreadId, r.HasThreadProcess
		if g == groupThread && op == opCSwitch {
			// A context switch's stack is the switched-in thread's.
			if e, _, ok := kernel.LookupRecord(r); ok && j.dec.decode(r, e, kindCSwitch) && j.dec.has(0) {
				tid, known = uint32(j.dec.uint(0)), true
			}
		}
		j.headerEvent(r, tid, known)
	}
}

// sample starts a CPU sample: its thread is in the payload.
func (j *Joiner) sample(r *record.Record) {
	e, _, ok := kernel.LookupRecord(r)
	if !ok || !j.dec.decode(r, e, kindSample) || !j.dec.has(1) {
		return
	}
	ev := j.newEvent()
	ev.time, ev.cpu, ev.cpuSample, ev.interval = r.RawTimeStamp, r.ProcessorNumber, true, j.interval
	ev.ip = j.dec.uint(0)
	ev.tid, ev.tidKnown = uint32(j.dec.uint(1)), true
	ev.pid, ev.pidKnown = j.procs.ProcessOf(ev.tid)
	j.track(ev)
}

// headerEvent starts a chosen event other than a CPU sample.
func (j *Joiner) headerEvent(r *record.Record, tid uint32, tidKnown bool) {
	ev := j.newEvent()
	ev.time, ev.cpu = r.RawTimeStamp, r.ProcessorNumber
	ev.tid, ev.tidKnown = tid, tidKnown
	switch {
	case tidKnown && r.HasThreadProcess && tid == r.ThreadId:
		ev.pid, ev.pidKnown = r.ProcessId, true
	case tidKnown:
		ev.pid, ev.pidKnown = j.procs.ProcessOf(tid)
	}
	ev.clr = r.ProviderId == dotnet.RuntimeProvider && !r.HeaderType.IsClassic()
	j.track(ev)
	j.extendedStack(r, ev)
}

func (j *Joiner) newEvent() *event {
	if n := len(j.freeEvents); n > 0 {
		e := j.freeEvents[n-1]
		j.freeEvents = j.freeEvents[:n-1]
		*e = event{}
		return e
	}
	return new(event)
}

// track makes ev its thread's fresh event. An earlier fresh event of the
// thread still without a stack gets none: its stack records would have
// come before the thread ran on. .NET events wait apart from the others,
// since a CPU sample may fall between one and its ClrStackWalk.
func (j *Joiner) track(ev *event) {
	th := j.thread(keyOf(ev.tid, ev.tidKnown, ev.cpu))
	for i := 0; i < len(th.fresh); {
		if old := th.fresh[i]; old.clr == ev.clr {
			th.fresh = remove(th.fresh, i)
			j.finish(old, JoinNoStack)
			continue
		}
		i++
	}
	th.fresh = append(th.fresh, ev)
}

func (j *Joiner) thread(k threadKey) *thread {
	if th, ok := j.threads[k]; ok {
		return th
	}
	var th *thread
	if n := len(j.freeThreads); n > 0 {
		th = j.freeThreads[n-1]
		j.freeThreads = j.freeThreads[:n-1]
	} else {
		th = new(thread)
	}
	j.threads[k] = th
	return th
}

// release drops the state of a thread with nothing in flight.
func (j *Joiner) release(k threadKey, th *thread) {
	if len(th.fresh) == 0 && len(th.waiting) == 0 {
		delete(j.threads, k)
		j.freeThreads = append(j.freeThreads, th)
	}
}

func remove(s []*event, i int) []*event {
	copy(s[i:], s[i+1:])
	s[len(s)-1] = nil
	return s[:len(s)-1]
}

// fragment is what a stack record holds: the kernel part (it starts and
// ends in the kernel), the user part (it starts in user mode), or the
// whole stack.
type fragment uint8

const (
	fragKernel fragment = iota
	fragUser
	fragWhole
)

func (j *Joiner) stackWalk(r *record.Record, op uint8) {
	e, _, ok := kernel.LookupRecord(r)
	if !ok {
		return
	}
	switch op {
	case opStack:
		if !j.dec.decode(r, e, kindStack) || !j.dec.has(2) {
			return
		}
		j.scratch = j.dec.frames(j.scratch[:0], 3)
		if len(j.scratch) == 0 {
			j.stats.Orphans++
			return
		}
		b := KernelBoundary(r.PointerSize())
		frag := fragUser
		if j.scratch[0] >= b {
			frag = fragKernel
			if j.scratch[len(j.scratch)-1] < b {
				frag = fragWhole
			}
		}
		j.join(r, int64(j.dec.uint(0)), uint32(j.dec.uint(1)), uint32(j.dec.uint(2)), frag, partFrames, 0)
	case opStackKeyKernel, opStackKeyUser:
		if !j.dec.decode(r, e, kindKeyRef) || !j.dec.has(3) {
			return
		}
		frag := fragKernel
		if op == opStackKeyUser {
			frag = fragUser
		}
		j.join(r, int64(j.dec.uint(0)), uint32(j.dec.uint(1)), uint32(j.dec.uint(2)), frag, partSlot, j.dec.uint(3))
	case opKeyCreate, opKeyDelete, opKeyRundown:
		if !j.dec.decode(r, e, kindKeyDef) || !j.dec.has(0) {
			return
		}
		j.scratch = j.dec.frames(j.scratch[:0], 1)
		j.define(j.dec.uint(0), j.scratch, op, r.PointerSize())
	}
}

// define takes a stack-cache definition. Its space is told by its last
// frame (PerfView's rule): a stack that ends in the kernel is a kernel
// stack.
func (j *Joiner) define(key uint64, frames []uint64, op uint8, pointerSize int) {
	space := userKeys
	if n := len(frames); n > 0 && frames[n-1] >= KernelBoundary(pointerSize) {
		space = kernelKeys
	}
	seq := j.seqs.intern(frames)
	if op == opKeyCreate {
		j.slots.create(space, key, seq)
		return
	}
	if j.slots.define(space, key, seq, false) || j.slots.define(1-space, key, seq, false) {
		j.stats.KeyDefinitions++
		return
	}
	j.stats.UnusedDefinitions++
}

// join gives the stack record of r, for the event of thread tid at raw time
// at, to that event: its frames are j.scratch (kind partFrames) or the
// stack-cache key (kind partSlot).
func (j *Joiner) join(r *record.Record, at int64, pid, tid uint32, frag fragment, kind partKind, key uint64) {
	k := keyOf(tid, true, r.ProcessorNumber)
	th := j.threads[k]
	ev, idx := j.findFresh(th, at)
	var noTid *thread
	if ev == nil {
		// An event logged without a thread takes the stack's.
		noTid = j.threads[keyOf(0, false, r.ProcessorNumber)]
		if ev, idx = j.findFresh(noTid, at); ev != nil {
			noTid.fresh = remove(noTid.fresh, idx)
			j.release(keyOf(0, false, r.ProcessorNumber), noTid)
			ev.tid, ev.tidKnown = tid, true
			if th == nil {
				th = j.thread(k)
			}
			th.fresh = append(th.fresh, ev)
			idx = len(th.fresh) - 1
		}
	}
	if ev != nil && !ev.pidKnown {
		ev.pid, ev.pidKnown = pid, true
	}
	switch frag {
	case fragWhole:
		if ev == nil {
			j.stats.Orphans++
			return
		}
		th.fresh = remove(th.fresh, idx)
		ev.kernel = j.part(kind, kernelKeys, key)
		j.finish(ev, JoinComplete)
	case fragKernel:
		if ev == nil {
			if th != nil && j.findWaiting(th, at) {
				j.stats.ExtraKernel++
			} else {
				j.stats.Orphans++
			}
			return
		}
		th.fresh = remove(th.fresh, idx)
		ev.kernel = j.part(kind, kernelKeys, key)
		if ev.pid == idlePID || ev.pid == systemPID {
			j.finish(ev, JoinComplete)
			break
		}
		if len(th.waiting) >= j.opts.MaxWaiting {
			old := th.waiting[0]
			th.waiting = remove(th.waiting, 0)
			j.stats.Capped++
			j.finish(old, JoinKernelOnly)
		}
		th.waiting = append(th.waiting, ev)
	case fragUser:
		if ev == nil && (th == nil || len(th.waiting) == 0) {
			j.stats.Orphans++
			return
		}
		p := j.part(kind, userKeys, key)
		if ev != nil {
			th.fresh = remove(th.fresh, idx)
			ev.user = p
			j.finish(ev, JoinComplete)
		}
		// The thread is back in user mode: every event waiting on it
		// gets this user part.
		for i, w := range th.waiting {
			w.user = p
			j.stats.Deferred++
			j.finish(w, JoinComplete)
			th.waiting[i] = nil
		}
		th.waiting = th.waiting[:0]
	}
	if th != nil {
		j.release(k, th)
	}
}

// part is a stack part of the given kind: the frames in j.scratch, or the
// live slot of key.
func (j *Joiner) part(kind partKind, space keySpace, key uint64) part {
	if kind == partSlot {
		return part{partSlot, j.slots.ref(space, key)}
	}
	return part{partFrames, j.seqs.intern(j.scratch)}
}

func (j *Joiner) findFresh(th *thread, at int64) (*event, int) {
	if th == nil {
		return nil, -1
	}
	for i, e := range th.fresh {
		if e.time == at && !e.clr {
			return e, i
		}
	}
	return nil, -1
}

func (j *Joiner) findWaiting(th *thread, at int64) bool {
	for _, e := range th.waiting {
		if e.time == at {
			return true
		}
	}
	return false
}

// threadEnd sends the events of an ending thread that wait for a user
// part it will not log.
func (j *Joiner) threadEnd(r *record.Record) {
	e, _, ok := kernel.LookupRecord(r)
	if !ok || !j.dec.decode(r, e, kindThread) || !j.dec.has(0) {
		return
	}
	tid := uint32(j.dec.uint(0))
	if tid == 0 {
		return
	}
	k := keyOf(tid, true, 0)
	th := j.threads[k]
	if th == nil {
		return
	}
	for i, w := range th.waiting {
		j.finish(w, JoinKernelOnly)
		th.waiting[i] = nil
	}
	th.waiting = th.waiting[:0]
	j.release(k, th)
}

// samplingInterval follows the timer's sampling interval.
func (j *Joiner) samplingInterval(r *record.Record, op uint8) {
	e, _, ok := kernel.LookupRecord(r)
	if !ok || !j.dec.decode(r, e, kindInterval) || !j.dec.has(1) || j.dec.uint(0) != 0 {
		return
	}
	newInterval, oldInterval := uint32(j.dec.uint(1)), uint32(j.dec.uint(2))
	switch op {
	case opSetInterval:
		j.interval, j.lastOld = newInterval, oldInterval
	case opCollectionStart:
		j.interval = newInterval
		if j.startInterval == 0 {
			j.startInterval = newInterval
		}
	}
}

// finish emits ev with its stack and recycles it.
func (j *Joiner) finish(ev *event, status JoinStatus) {
	if status == JoinNoStack && ev.cpuSample {
		j.scratch = append(j.scratch[:0], ev.ip)
		ev.kernel = part{partFrames, j.seqs.intern(j.scratch)}
	}
	if !ev.pidKnown && ev.tidKnown {
		ev.pid, ev.pidKnown = j.procs.ProcessOf(ev.tid)
	}
	pid := ev.pid
	if !ev.pidKnown {
		pid = unknownPID
	}
	gen := j.kernelGen + j.gens[pid]
	id := j.stacks.intern(stackKey{pid: pid, gen: gen, kernel: ev.kernel, user: ev.user}, ev.time)
	j.out = Sample{Time: ev.time, PID: ev.pid, TID: ev.tid, PIDKnown: ev.pidKnown, CPU: ev.cpu,
		CPUSample: ev.cpuSample, Interval: ev.interval, Stack: id, Join: status}
	if ev.pidKnown {
		j.out.Process = j.procs.ProcessName(ev.pid)
		if j.out.Process == "" {
			switch ev.pid {
			case idlePID:
				j.out.Process = "Idle"
			case systemPID:
				j.out.Process = "System"
			}
		}
	}
	if ev.tidKnown {
		j.out.Thread = j.procs.ThreadName(ev.tid)
	}
	j.stats.Events++
	switch status {
	case JoinComplete:
		j.stats.Complete++
	case JoinKernelOnly:
		j.stats.KernelOnly++
	case JoinNoStack:
		j.stats.NoStack++
	}
	if j.opts.Emit != nil {
		j.opts.Emit(&j.out)
	}
	j.freeEvents = append(j.freeEvents, ev)
}

// Close ends the trace: events still waiting for a user part go with their
// kernel part, events still without a stack with none. Frames may be
// asked for after it.
func (j *Joiner) Close() {
	if j.closed {
		return
	}
	j.closed = true
	for k, th := range j.threads {
		for _, e := range th.fresh {
			j.finish(e, JoinNoStack)
		}
		for _, e := range th.waiting {
			j.finish(e, JoinKernelOnly)
		}
		th.fresh, th.waiting = th.fresh[:0], th.waiting[:0]
		delete(j.threads, k)
	}
	for _, s := range j.slots.seq {
		if s < 0 {
			j.stats.UndefinedKeys++
		}
	}
	for k, m := range j.openMethods {
		m.ModulePath = j.modulePaths[modKey{k.pid, m.ModuleID}]
	}
	for _, rs := range j.methods {
		for _, m := range rs.items {
			if m.ModulePath == "" {
				m.ModulePath = j.modulePaths[modKey{m.PID, m.ModuleID}]
			}
		}
	}
}
