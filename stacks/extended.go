package stacks

import (
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
)

// Stacks that come otherwise than in StackWalk records: in an event's
// extended data (stacks.md §2.4b), and in the .NET runtime's
// ClrStackWalk (§2.4c).

// extendedStack takes the stack an event's own extended data holds
// (stacks.md §2.4b): with MatchId 0 the whole stack, else its kernel
// part, whose user part a later Kernel-EventTracing record brings. A key
// with MatchId 0 is taken to be in the user stacks' cache unless the
// process runs in the kernel only (no source says which cache it is in).
func (j *Joiner) extendedStack(r *record.Record, ev *event) {
	for _, it := range r.ExtendedData() {
		var frag fragment
		var kind partKind
		var key uint64
		switch it.Type {
		case record.ExtStackTrace32, record.ExtStackTrace64:
			st, ok := j.loadStackTrace(it)
			if !ok {
				continue
			}
			kind, frag = partFrames, fragWhole
			if st.MatchId != 0 {
				frag = fragKernel
			}
		case record.ExtStackKey32, record.ExtStackKey64:
			sk, err := it.StackKey()
			if err != nil {
				continue
			}
			kind, key, frag = partSlot, sk.Key, fragWhole
			if sk.MatchId != 0 {
				frag = fragKernel
			}
		default:
			continue
		}
		k := keyOf(ev.tid, ev.tidKnown, ev.cpu)
		th := j.threads[k]
		_, idx := j.findFreshEvent(th, ev)
		if idx < 0 {
			return
		}
		th.fresh = remove(th.fresh, idx)
		if frag == fragKernel {
			ev.kernel = j.part(kind, kernelKeys, key)
			th.waiting = append(th.waiting, ev)
			return
		}
		space := userKeys
		if ev.pidKnown && (ev.pid == idlePID || ev.pid == systemPID) {
			space = kernelKeys
		}
		ev.kernel = j.part(kind, space, key)
		j.finish(ev, JoinComplete)
		j.release(k, th)
		return
	}
}

func (j *Joiner) findFreshEvent(th *thread, ev *event) (*event, int) {
	if th == nil {
		return nil, -1
	}
	for i, e := range th.fresh {
		if e == ev {
			return e, i
		}
	}
	return nil, -1
}

// extendedUserPart takes the user part Kernel-EventTracing logs when a
// thread leaves the kernel, for the kernel parts of its thread's waiting
// events.
func (j *Joiner) extendedUserPart(r *record.Record) {
	if !r.HasThreadProcess {
		return
	}
	k := keyOf(r.ThreadId, true, r.ProcessorNumber)
	th := j.threads[k]
	if th == nil || len(th.waiting) == 0 {
		j.stats.Orphans++
		return
	}
	for _, it := range r.ExtendedData() {
		var p part
		switch it.Type {
		case record.ExtStackTrace32, record.ExtStackTrace64:
			if _, ok := j.loadStackTrace(it); !ok {
				continue
			}
			p = j.part(partFrames, userKeys, 0)
		case record.ExtStackKey32, record.ExtStackKey64:
			sk, err := it.StackKey()
			if err != nil {
				continue
			}
			p = j.part(partSlot, userKeys, sk.Key)
		default:
			continue
		}
		for i, w := range th.waiting {
			w.user = p
			j.stats.Deferred++
			j.finish(w, JoinComplete)
			th.waiting[i] = nil
		}
		th.waiting = th.waiting[:0]
		j.release(k, th)
		return
	}
}

// clrStack gives a ClrStackWalk's frames to the latest .NET event of its
// thread still without a stack (PerfView's rule).
func (j *Joiner) clrStack(r *record.Record, e *schema.Event) {
	if !r.HasThreadProcess || !j.dec.decode(r, e, kindClrStack) {
		return
	}
	k := keyOf(r.ThreadId, true, r.ProcessorNumber)
	th := j.threads[k]
	idx := -1
	if th != nil {
		for i := len(th.fresh) - 1; i >= 0; i-- {
			if th.fresh[i].clr {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		j.stats.Orphans++
		return
	}
	ev := th.fresh[idx]
	th.fresh = remove(th.fresh, idx)
	j.scratch = j.dec.frames(j.scratch[:0], 0)
	if len(j.scratch) > 0 {
		ev.user = part{partFrames, j.seqs.intern(j.scratch)}
		j.finish(ev, JoinComplete)
	} else {
		j.finish(ev, JoinNoStack)
	}
	j.release(k, th)
}

// loadStackTrace puts the frames of a stack trace item into j.scratch and
// reports whether it holds any.
func (j *Joiner) loadStackTrace(it record.ExtendedItem) (record.StackTrace, bool) {
	st, err := it.StackTrace()
	if err != nil || st.Len() == 0 {
		return st, false
	}
	j.scratch = j.scratch[:0]
	for i := 0; i < st.Len(); i++ {
		j.scratch = append(j.scratch, st.Address(i))
	}
	return st, true
}
