package main

import (
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/record/tracelogging"
)

// describer fills a desc for each record: provider and event names, and the
// payload decoded where its schema travels with it (TraceLogging). It keeps
// the schema cache and the value slab across records so that the steady
// state allocates nothing.
type describer struct {
	schemas *tracelogging.Cache
	vals    []tracelogging.Value
	traits  record.TraitsCache
	// payload says whether the encoder prints the payload; --count and
	// --stats need only the names.
	payload bool
}

func newDescriber(payload bool) *describer {
	return &describer{schemas: tracelogging.NewCache(0, 0), payload: payload}
}

// desc is what the encoders know about a record beyond its header.
type desc struct {
	providerName string
	eventName    string
	// fields holds the decoded payload in schema order when decoded is
	// true; otherwise the payload is shown as hex.
	fields  []tracelogging.Value
	decoded bool
	// kernel marks kernel events, named by group and opcode.
	kernel bool
	group  uint8
}

// keep holds on to a grown value slab for the next record.
func (z *describer) keep(vals []tracelogging.Value) {
	if cap(vals) > cap(z.vals) {
		z.vals = vals[:0]
	}
}

// kernelGroup gives the kernel group of a kernel record, or of a classic
// record whose class GUID is a kernel group's (a relogged kernel event).
func kernelGroup(r *record.Record) (uint8, bool) {
	if r.HeaderType.IsKernel() {
		return uint8(r.HookId >> 8), true
	}
	if r.HeaderType.IsClassic() {
		return record.KernelGroupByGUID(r.ProviderId)
	}
	return 0, false
}

func (z *describer) describe(r *record.Record, d *desc) {
	*d = desc{fields: d.fields[:0]}
	if group, ok := kernelGroup(r); ok {
		// Kernel events have no traits or schema; their names come from
		// the HookId, or from the group GUID of a relogged kernel event.
		d.providerName = record.KernelProviderName
		d.eventName = record.KernelEventName(group, r.EventDescriptor.Opcode)
		d.kernel, d.group = true, group
		if z.payload && group == record.GroupEventTrace && r.HeaderType.IsKernel() {
			vals, err := r.EventTraceFields(z.vals[:0])
			z.keep(vals)
			if err == nil {
				d.fields, d.decoded = vals, true
			}
		}
		return
	}
	d.providerName = z.traits.ProviderName(r)
	it, ok := r.Extended(record.ExtEventSchemaTL)
	if !ok {
		return
	}
	s, err := z.schemas.Schema(it.Data)
	if err != nil {
		return
	}
	d.eventName = s.Name
	if !z.payload {
		return
	}
	vals, err := s.Decode(r.UserData, r.PointerSize(), z.vals[:0])
	z.keep(vals)
	// Trailing bytes after complete fields still leave every field
	// readable; any other failure falls back to the hex of the payload.
	if err != nil && !tracelogging.IsTrailing(err) {
		return
	}
	d.fields, d.decoded = vals, true
}
