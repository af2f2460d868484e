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
	vals         []payload.Value
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
	g, ok := Group(r)
	if !ok {
		return
	}
	op := r.EventDescriptor.Opcode
	switch {
	case g == record.GroupProcess && op >= opLifeStart && op <= opLifeDCEnd:
	case g == groupThread && (op >= opLifeStart && op <= opLifeDCEnd || op == opThreadSetName):
	default:
		return
	}
	e, _, ok := LookupRecord(r)
	if !ok || e.Payload == nil {
		return
	}
	vals, err := e.Payload.Decode(r.UserData, r.PointerSize(), p.vals[:0])
	if cap(vals) > cap(p.vals) {
		p.vals = vals[:0]
	}
	if err != nil && !payload.IsTrailing(err) {
		return
	}
	pidV, okP := payload.Lookup(vals, "ProcessID")
	if !okP {
		return
	}
	pid := uint32(pidV.Uint())
	if g == record.GroupProcess {
		name := ""
		if v, ok := payload.Lookup(vals, "ImageFileName"); ok {
			name = v.Str()
		}
		p.learnProcess(pid, name, op == opLifeEnd)
		return
	}
	tidV, okT := payload.Lookup(vals, "ThreadID")
	if !okT {
		return
	}
	tid := uint32(tidV.Uint())
	name, hasName := "", false
	if v, ok := payload.Lookup(vals, "ThreadName"); ok {
		name, hasName = v.Str(), true
	}
	p.learnThread(tid, pid, name, hasName, op)
}

func (p *Processes) learnProcess(pid uint32, name string, ended bool) {
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
	if t, ok := p.threads[tid]; ok {
		return t.pid, true
	}
	if tid == 0 {
		return 0, true
	}
	return 0, false
}

// ProcessName is the image name of process pid (ImageFileName, such as
// "notepad.exe"), "" when unknown.
func (p *Processes) ProcessName(pid uint32) string { return p.procs[pid].name }

// ThreadName is the name of thread tid (Thread v4 ThreadName, or SetName),
// "" when it has none.
func (p *Processes) ThreadName(tid uint32) string { return p.threads[tid].name }

// Len is the number of threads and processes held, ended ones not yet
// dropped included.
func (p *Processes) Len() (threads, processes int) { return len(p.threads), len(p.procs) }
