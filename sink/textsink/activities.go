package textsink

import (
	"time"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/internal/digits"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record/activity"
)

// appendProviderLabel is the provider/event column of the text view, as
// the record view spells it: the name, or the GUID when the trace gives
// none; one JSON string when a name holds a space.
func appendProviderLabel(dst []byte, id uuid.UUID, name string, ev activity.Event) []byte {
	event := ev.String()
	if name != "" {
		return appendLabel(dst, name, event)
	}
	quoted := !plainName(event)
	if quoted {
		dst = append(dst, '"')
	}
	dst = guid.Append(dst, id)
	dst = append(dst, '/')
	dst = appendName(dst, event, quoted)
	if quoted {
		dst = append(dst, '"')
	}
	return dst
}

// appendActivitiesText writes one line per activity, indented two spaces a
// level:
//
//	START DURATION|open PID/TID PROVIDER/EVENT ACTIVITYID events=N [stop=EVENT] [last=TIME] [related=ID]
//
// then the orphan stops and a summary line.
func AppendActivitiesText(dst []byte, f *activity.Forest) []byte {
	f.Walk(func(a *activity.Activity, depth int) bool {
		for range depth {
			dst = append(dst, "  "...)
		}
		dst = payload.AppendTime(dst, a.Start)
		dst = append(dst, ' ')
		if d, ok := a.Duration(); ok {
			dst = append(dst, d.String()...)
		} else {
			dst = append(dst, "open"...)
		}
		dst = append(dst, ' ')
		dst = appendThreadProcess(dst, a.HasThreadProcess, a.ProcessId, a.ThreadId)
		dst = append(dst, ' ')
		dst = appendProviderLabel(dst, a.ProviderId, a.ProviderName, a.StartEvent)
		dst = append(dst, ' ')
		dst = guid.Append(dst, a.Id)
		dst = append(dst, " events="...)
		dst = appendUint(dst, uint64(a.Events))
		if a.Stopped {
			dst = append(dst, " stop="...)
			dst = appendNoSpace(dst, a.StopEvent.String())
		} else {
			// How long an open activity lasted is unknown; its last
			// record is how long it was seen alive.
			dst = append(dst, " last="...)
			dst = payload.AppendTime(dst, a.Last)
		}
		// Inside the tree the parent shows the related id; a root only
		// has it when the parent is not in the trace.
		if a.Parent == nil && a.RelatedId != uuid.Nil {
			dst = append(dst, " related="...)
			dst = guid.Append(dst, a.RelatedId)
		}
		dst = append(dst, '\n')
		return true
	})
	if len(f.OrphanStops) > 0 {
		dst = append(dst, "\nOrphan stops:\n"...)
		for i := range f.OrphanStops {
			o := &f.OrphanStops[i]
			dst = payload.AppendTime(dst, o.Time)
			dst = append(dst, ' ')
			dst = appendThreadProcess(dst, o.HasThreadProcess, o.ProcessId, o.ThreadId)
			dst = append(dst, ' ')
			dst = appendProviderLabel(dst, o.ProviderId, o.ProviderName, o.Event)
			dst = append(dst, ' ')
			dst = guid.Append(dst, o.Id)
			dst = append(dst, '\n')
		}
	}
	st := &f.Stats
	if st.Activities > 0 || len(f.OrphanStops) > 0 {
		dst = append(dst, '\n')
	}
	dst = append(dst, "Activities: "...)
	dst = appendUint(dst, uint64(st.Activities))
	dst = append(dst, " ("...)
	dst = appendUint(dst, uint64(st.Stopped))
	dst = append(dst, " stopped, "...)
	dst = appendUint(dst, uint64(st.Open))
	dst = append(dst, " open, "...)
	dst = appendUint(dst, uint64(st.Restarted))
	dst = append(dst, " restarted while open); orphan stops: "...)
	dst = appendUint(dst, uint64(st.OrphanStops))
	dst = append(dst, "; records of no open activity: "...)
	dst = appendUint(dst, uint64(st.Stray))
	dst = append(dst, "; unknown parents: "...)
	dst = appendUint(dst, uint64(st.UnknownParents))
	dst = append(dst, "; cycles broken: "...)
	dst = appendUint(dst, uint64(st.CyclesBroken))
	if st.Dropped > 0 || st.DroppedOrphanStops > 0 {
		dst = append(dst, "; not kept past the limit: "...)
		dst = appendUint(dst, uint64(st.Dropped))
		dst = append(dst, " activities, "...)
		dst = appendUint(dst, uint64(st.DroppedOrphanStops))
		dst = append(dst, " orphan stops"...)
	}
	return append(dst, '\n')
}

// jsonField appends ,"name": (without the comma for the first field of an
// object, which the caller writes with its opening brace).
func jsonField(dst []byte, name string) []byte {
	if c := dst[len(dst)-1]; c != '{' {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

func jsonGUID(dst []byte, name string, id uuid.UUID) []byte {
	dst = jsonField(dst, name)
	dst = append(dst, '"')
	dst = guid.Append(dst, id)
	return append(dst, '"')
}

func jsonTime(dst []byte, name string, t time.Time) []byte {
	dst = jsonField(dst, name)
	dst = append(dst, '"')
	dst = payload.AppendTime(dst, t)
	return append(dst, '"')
}

func jsonUint(dst []byte, name string, v uint64) []byte {
	return appendUint(jsonField(dst, name), v)
}

func jsonString(dst []byte, name, s string) []byte {
	return payload.AppendJSONString(jsonField(dst, name), s)
}

// appendActivityFields writes an activity's own fields, leaving its object
// open for Children; a field the records did not give is left out.
func appendActivityFields(dst []byte, a *activity.Activity) []byte {
	dst = append(dst, '{')
	dst = jsonGUID(dst, "ActivityId", a.Id)
	if a.RelatedId != uuid.Nil {
		dst = jsonGUID(dst, "RelatedActivityId", a.RelatedId)
	}
	dst = jsonGUID(dst, "ProviderId", a.ProviderId)
	if a.ProviderName != "" {
		dst = jsonString(dst, "ProviderName", a.ProviderName)
	}
	dst = jsonString(dst, "StartEvent", a.StartEvent.String())
	if a.Stopped {
		dst = jsonString(dst, "StopEvent", a.StopEvent.String())
	}
	if a.HasThreadProcess {
		dst = jsonUint(dst, "ProcessId", uint64(a.ProcessId))
		dst = jsonUint(dst, "ThreadId", uint64(a.ThreadId))
	}
	dst = jsonTime(dst, "Start", a.Start)
	if d, ok := a.Duration(); ok {
		dst = jsonTime(dst, "Stop", a.Stop)
		dst = digits.AppendInt(jsonField(dst, "DurationNs"), int64(d))
	} else {
		dst = jsonTime(dst, "LastSeen", a.Last)
	}
	return jsonUint(dst, "Events", uint64(a.Events))
}

// appendActivitiesJSON writes the forest as one JSON object: Activities
// (the roots, children nested), OrphanStops, the tracker's counts and the
// last time seen. It keeps its own stack, as Forest.Walk does, so that a
// deep chain of activities cannot exhaust the call stack.
func AppendActivitiesJSON(dst []byte, f *activity.Forest) []byte {
	type frame struct {
		list []*activity.Activity
		i    int
	}
	dst = append(dst, `{"Activities":[`...)
	stack := []frame{{list: f.Roots}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i == len(top.list) {
			stack = stack[:len(stack)-1]
			dst = append(dst, ']')
			if len(stack) > 0 {
				dst = append(dst, '}') // the parent's object
			}
			continue
		}
		a := top.list[top.i]
		if top.i > 0 {
			dst = append(dst, ',')
		}
		top.i++
		dst = appendActivityFields(dst, a)
		dst = append(dst, `,"Children":[`...)
		stack = append(stack, frame{list: a.Children})
	}
	dst = append(dst, `,"OrphanStops":[`...)
	for i := range f.OrphanStops {
		o := &f.OrphanStops[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		dst = jsonGUID(dst, "ActivityId", o.Id)
		dst = jsonGUID(dst, "ProviderId", o.ProviderId)
		if o.ProviderName != "" {
			dst = jsonString(dst, "ProviderName", o.ProviderName)
		}
		dst = jsonString(dst, "StopEvent", o.Event.String())
		if o.HasThreadProcess {
			dst = jsonUint(dst, "ProcessId", uint64(o.ProcessId))
			dst = jsonUint(dst, "ThreadId", uint64(o.ThreadId))
		}
		dst = jsonTime(dst, "Stop", o.Time)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	st := &f.Stats
	dst = append(dst, `,"Stats":{`...)
	for _, c := range []struct {
		name string
		n    int
	}{
		{"Activities", st.Activities}, {"Stopped", st.Stopped}, {"Open", st.Open},
		{"Restarted", st.Restarted}, {"OrphanStops", st.OrphanStops}, {"Stray", st.Stray},
		{"UnknownParents", st.UnknownParents}, {"CyclesBroken", st.CyclesBroken},
		{"Dropped", st.Dropped}, {"DroppedOrphanStops", st.DroppedOrphanStops},
	} {
		dst = jsonUint(dst, c.name, uint64(c.n))
	}
	dst = append(dst, '}')
	if !f.End.IsZero() {
		dst = jsonTime(dst, "End", f.End)
	}
	return append(dst, '}', '\n')
}
