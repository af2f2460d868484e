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
}

func (z *describer) describe(r *record.Record, d *desc) {
	*d = desc{fields: d.fields[:0]}
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
	if cap(vals) > cap(z.vals) {
		z.vals = vals[:0]
	}
	// Trailing bytes after complete fields still leave every field
	// readable; any other failure falls back to the hex of the payload.
	if err != nil && !tracelogging.IsTrailing(err) {
		return
	}
	d.fields, d.decoded = vals, true
}
