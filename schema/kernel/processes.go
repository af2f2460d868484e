package kernel

import (
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// Process group opcodes Processes reads (kernel-events.md §4); the Thread
// group's are the same numbers (§5), plus SetName.
const (
	opLifeStart     = 1
	opLifeEnd       = 2
	opLifeDCStart   = 3
	opLifeDCEnd     = 4
	opThreadSetName = 72
)

// Processes follows the processes and threads of a trace in record order:
// which process each thread belongs to, and the names of both. It learns
// from Process and Thread Start, End, DCStart and DCEnd (the rundowns a
// session logs at its start and end) and from Thread SetName, taking the
// ids from the payload, since a Start record's header names the creating
// thread.
//
// Records logged with a PERFINFO header carry no thread or process (a
// profile sample names its thread in its payload, a StackWalk record in
// its own): ProcessOf gives the process of such a thread at the time of
// the record last learned. Package stacks uses it to put CPU samples in
// their process, and a filter that selects records by process can use it
// the same way, learning each record before asking about it.
//
// Ids are reused: a Start for a known id replaces what was known. An ended
// thread or process is kept until its id is reused, so that records logged
// just after its end (its own stack, a late rundown) still find it, but
// no longer than that: once ended entries outnumber live ones by a margin,
// they are dropped, which bounds the memory by the threads and processes
// alive at once.
//
// The zero Processes is ready to use. It is not safe for concurrent use.
type Processes struct {
	threads      map[uint32]threadEntry
	procs        map[uint32]processEntry
	endedThreads int
	endedProcs   int
	vals         lifeValues
	// name is the last ProcessName answer: the records of one process
	// come in runs. Learning a process forgets it.
	name     string
	namePID  uint32
	nameKept bool
	// indexed: the kernel tables are built (Subject).
	indexed bool

	// Ahead, when set, answers for the threads and processes no record
	// has named so far (see Ahead).
	Ahead *Ahead
}

type threadEntry struct {
	pid   uint32
	name  string
	ended bool
}

type processEntry struct {
	name  string
	ended bool
}

// endedMargin is how many more ended entries than live ones a table keeps
// before it drops them.
const endedMargin = 1024

// Learn takes from r what it says of a process or a thread; other records
// cost a comparison or two.
func (p *Processes) Learn(r *record.Record) {
	if !isLifeOpcode(r.EventDescriptor.Opcode) {
		return
	}
	ev, ok := p.vals.lifeEvent(r)
	if !ok {
		return
	}
	if ev.process {
		p.learnProcess(ev.pid, ev.name, ev.op == opLifeEnd)
		return
	}
	p.learnThread(ev.tid, ev.pid, ev.name, ev.hasName, ev.op)
}

// isLifeOpcode reports the opcodes of the events lifeEvent reads: it rules
// out nearly every record at once.
func isLifeOpcode(op uint8) bool {
	return op >= opLifeStart && op <= opLifeDCEnd || op == opThreadSetName
}

// lifeEvent is what a Process or Thread event (Start, End, DCStart, DCEnd,
// and Thread SetName) says of its subject.
type lifeEvent struct {
	process  bool // a Process event, else a Thread one
	op       uint8
	pid, tid uint32
	name     string
	hasName  bool
}

// lifeValues is the value slab life events are decoded into.
type lifeValues []payload.Value

// lifeEvent decodes r when it is a Process or Thread event with the ids of
// its subject in its payload: a Start record's header names the creating
// thread.
func (vs *lifeValues) lifeEvent(r *record.Record) (lifeEvent, bool) {
	op := r.EventDescriptor.Opcode
	if !isLifeOpcode(op) || !r.HeaderType.IsKernel() && !r.HeaderType.IsClassic() {
		return lifeEvent{}, false
	}
	g, ok := Group(r)
	if !ok {
		return lifeEvent{}, false
	}
	switch {
	case g == record.GroupProcess && op >= opLifeStart && op <= opLifeDCEnd:
	case g == groupThread && (op >= opLifeStart && op <= opLifeDCEnd || op == opThreadSetName):
	default:
		return lifeEvent{}, false
	}
	e, _, ok := LookupRecord(r)
	if !ok || e.Payload == nil {
		return lifeEvent{}, false
	}
	vals, err := e.Payload.Decode(r.UserData, r.PointerSize(), (*vs)[:0])
	if cap(vals) > cap(*vs) {
		*vs = vals[:0]
	}
	if err != nil && !payload.IsTrailing(err) {
		return lifeEvent{}, false
	}
	pidV, okP := payload.Lookup(vals, "ProcessID")
	if !okP {
		return lifeEvent{}, false
	}
	ev := lifeEvent{process: g == record.GroupProcess, op: op, pid: uint32(pidV.Uint())}
	if ev.process {
		if v, ok := payload.Lookup(vals, "ImageFileName"); ok {
			ev.name = v.Str()
		}
		return ev, true
	}
	tidV, okT := payload.Lookup(vals, "ThreadID")
	if !okT {
		return lifeEvent{}, false
	}
	ev.tid = uint32(tidV.Uint())
	if v, ok := payload.Lookup(vals, "ThreadName"); ok {
		ev.name, ev.hasName = v.Str(), true
	}
	return ev, true
}

func (p *Processes) learnProcess(pid uint32, name string, ended bool) {
	p.nameKept = false
	if p.procs == nil {
		p.procs = make(map[uint32]processEntry)
	}
	old, had := p.procs[pid]
	if had && old.ended {
		p.endedProcs--
	}
	if name == "" && had {
		name = old.name
	}
	p.procs[pid] = processEntry{name: name, ended: ended}
	if ended {
		p.endedProcs++
		if p.endedProcs > len(p.procs)-p.endedProcs+endedMargin {
			for k, e := range p.procs {
				if e.ended {
					delete(p.procs, k)
				}
			}
			p.endedProcs = 0
		}
	}
}

func (p *Processes) learnThread(tid, pid uint32, name string, hasName bool, op uint8) {
	if p.threads == nil {
		p.threads = make(map[uint32]threadEntry)
	}
	old, had := p.threads[tid]
	if had && old.ended {
		p.endedThreads--
	}
	e := threadEntry{pid: pid, name: name}
	switch {
	case op == opThreadSetName:
		e.ended = had && old.ended
	case !hasName || name == "":
		// A rundown or an end of the same thread keeps the name SetName
		// gave it; a Start is a new thread.
		if had && old.pid == pid && op != opLifeStart {
			e.name = old.name
		}
	}
	if op == opLifeEnd {
		e.ended = true
	}
	p.threads[tid] = e
	if e.ended {
		p.endedThreads++
		if p.endedThreads > len(p.threads)-p.endedThreads+endedMargin {
			for k, t := range p.threads {
				if t.ended {
					delete(p.threads, k)
				}
			}
			p.endedThreads = 0
		}
	}
}

// ProcessOf is the process of thread tid, and whether it is known. The
// idle threads (tid 0) are process 0's.
func (p *Processes) ProcessOf(tid uint32) (pid uint32, ok bool) {
	if tid == 0 {
		return 0, true
	}
	if t, ok := p.threads[tid]; ok {
		return t.pid, true
	}
	if p.Ahead != nil {
		pid, ok = p.Ahead.threads[tid]
	}
	return pid, ok
}

// ProcessName is the image name of process pid (ImageFileName, such as
// "notepad.exe"), "" when unknown.
func (p *Processes) ProcessName(pid uint32) string {
	if p.nameKept && p.namePID == pid {
		return p.name
	}
	e, ok := p.procs[pid]
	if !ok && p.Ahead != nil {
		e.name = p.Ahead.names[pid]
	}
	p.name, p.namePID, p.nameKept = e.name, pid, true
	return e.name
}

// ThreadName is the name of thread tid (Thread v4 ThreadName, or SetName),
// "" when it has none.
func (p *Processes) ThreadName(tid uint32) string { return p.threads[tid].name }

// Len is the number of threads and processes held, ended ones not yet
// dropped included.
func (p *Processes) Len() (threads, processes int) { return len(p.threads), len(p.procs) }

// Ahead is what a first pass over a whole trace says of the threads and
// processes that records name before any thread or process event does: a
// session whose start rundown is missing or lost names its threads only
// in its end rundown (DCEnd), after their samples. For each thread it
// keeps the process its first thread event gives, and for each process
// the image name of its first process event, unless that event is the
// Start of the thread or process: an id seen before its Start belonged to
// another, of which nothing is known. Processes asks it only for ids it
// has not seen so far. The zero Ahead is ready to use.
type Ahead struct {
	threads map[uint32]uint32
	names   map[uint32]string
	seen    map[uint64]bool // thread ids, and process ids | 1<<32
	vals    lifeValues
}

// Learn takes the records of a trace in time order, or in file order as
// a first pass reads its buffers: an id's first event is then the first of
// its processor's buffer as written, which for the ids Processes asks
// about, those no record named before, is the same.
func (a *Ahead) Learn(r *record.Record) {
	ev, ok := a.vals.lifeEvent(r)
	if !ok {
		return
	}
	if a.seen == nil {
		a.seen, a.threads, a.names = map[uint64]bool{}, map[uint32]uint32{}, map[uint32]string{}
	}
	if ev.process {
		k := uint64(ev.pid) | 1<<32
		if a.seen[k] {
			return
		}
		a.seen[k] = true
		if ev.op != opLifeStart && ev.name != "" {
			a.names[ev.pid] = ev.name
		}
		return
	}
	if ev.op == opThreadSetName || a.seen[uint64(ev.tid)] {
		return
	}
	a.seen[uint64(ev.tid)] = true
	if ev.op != opLifeStart {
		a.threads[ev.tid] = ev.pid
	}
}

// Len is the number of threads and processes Ahead answers for.
func (a *Ahead) Len() (threads, processes int) { return len(a.threads), len(a.names) }
