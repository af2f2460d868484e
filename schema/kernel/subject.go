package kernel

import (
	"encoding/binary"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// Subject is the process and thread a record is about: the one the record
// is attributed to, as TraceEvent attributes it. See Processes.Subject.
type Subject struct {
	ProcessID  uint32
	ThreadID   uint32
	HasProcess bool
	HasThread  bool
}

// Differs reports whether s says more of r than r's header: a process
// the header does not name, or another one.
func (s Subject) Differs(r *record.Record) bool {
	if !s.HasProcess {
		return false
	}
	return !r.HasThreadProcess || r.ProcessId == unknownID || r.ProcessId != s.ProcessID
}

// unknownID is what a header holds for a process or thread it does not
// know.
const unknownID = 0xFFFFFFFF

// The payload fields that name the process, or the thread, a kernel event
// is about, in order of preference: StackWalk's process and thread; the
// ids of process, thread, image, memory and network events; the thread of
// a CPU sample (ThreadID), of a file I/O (TTID), of a disk I/O
// (IssuingThreadId), the thread switched in (NewThreadID).
var (
	subjectProcessFields = []string{"StackProcess", "ProcessID", "ProcessId", "PID"}
	subjectThreadFields  = []string{"StackThread", "ThreadID", "ThreadId", "TTID", "IssuingThreadId", "NewThreadID"}
)

// fieldAt is where a 32-bit id lies in a payload; size 0 for nowhere. A
// pointer-sized field (TTID on 64-bit records) gives its low 32 bits.
type fieldAt struct {
	off, size uint16
}

// subjectFields are where an event's payload names its subject process
// and thread, for 4- and 8-byte pointers.
type subjectFields struct {
	pid, tid [2]fieldAt
}

// subjectFieldsOf finds the first field of each list that lies at a fixed
// offset.
func subjectFieldsOf(s *payload.Schema) subjectFields {
	var out subjectFields
	for pi, ptr := range [2]int{4, 8} {
		for _, list := range [...]struct {
			names []string
			at    *fieldAt
		}{{subjectProcessFields, &out.pid[pi]}, {subjectThreadFields, &out.tid[pi]}} {
		names:
			for _, name := range list.names {
				for i := range s.Fields {
					if s.Fields[i].Name != name {
						continue
					}
					if off, size, ok := s.FixedOffset(i, ptr); ok && (size == 4 || size == 8) {
						*list.at = fieldAt{uint16(off), uint16(size)}
						break names
					}
				}
			}
		}
	}
	return out
}

// read reads the id at f, false when the payload is too short.
func (f fieldAt) read(b []byte) (uint32, bool) {
	if f.size == 0 || int(f.off)+int(f.size) > len(b) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[f.off:]), true
}

// Subject is the process and thread r is about, after Learn(r):
//
//   - a kernel event whose payload names a process (StackWalk's
//     StackProcess; the ProcessID, ProcessId or PID of process, thread,
//     image, memory and network events) is that process's, and of the
//     thread its payload names, if any, else of its header's thread when
//     the header names the same process: TraceEvent shows a Thread/Start
//     as the new thread's, not its creator's;
//   - any other record is its header's process and thread;
//   - a kernel event without them in its header (a PERFINFO record) whose
//     payload names a thread (a CPU sample's, a disk or file I/O's issuing
//     thread, a hard fault's) is that thread's, in the process the thread
//     and process events seen so far give it (rundowns included), else
//     the one Ahead gives.
//
// A header's 0xFFFFFFFF is no id. Subject allocates nothing.
func (p *Processes) Subject(r *record.Record) Subject {
	var s Subject
	if r.HasThreadProcess {
		if r.ProcessId != unknownID {
			s.ProcessID, s.HasProcess = r.ProcessId, true
		}
		if r.ThreadId != unknownID {
			s.ThreadID, s.HasThread = r.ThreadId, true
		}
	}
	var g uint8
	switch {
	case r.HeaderType.IsKernel():
		g = uint8(r.HookId >> 8)
	case r.HeaderType.IsClassic():
		var ok bool
		if g, ok = record.KernelGroupByGUID(r.ProviderId); !ok {
			return s
		}
	default:
		return s
	}
	if !p.indexed {
		buildIndex()
		p.indexed = true
	}
	l := subjectOf(r, g)
	pi := 1
	if r.PointerSize() == 4 {
		pi = 0
	}
	tid, hasTid := l.tid[pi].read(r.UserData)
	if pid, ok := l.pid[pi].read(r.UserData); ok {
		if !s.HasProcess || pid != s.ProcessID {
			s.HasThread = false
		}
		s.ProcessID, s.HasProcess = pid, true
		if hasTid {
			s.ThreadID, s.HasThread = tid, true
		}
		return s
	}
	if hasTid && !s.HasProcess {
		s.ThreadID, s.HasThread = tid, true
		s.ProcessID, s.HasProcess = p.ProcessOf(tid)
	}
	return s
}
