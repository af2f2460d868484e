package tracelogging

import (
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// SchemaOf returns the parsed schema of the record's EVENT_SCHEMA_TL item
// through the cache; ok is false when the record is not a TraceLogging
// event. Decode its payload with s.Decode(r.UserData, r.PointerSize(), dst).
// A hit does not allocate.
func (c *Cache) SchemaOf(r *record.Record) (s *payload.Schema, ok bool, err error) {
	it, ok := r.Extended(record.ExtEventSchemaTL)
	if !ok {
		return nil, false, nil
	}
	s, err = c.Schema(it.Data)
	return s, true, err
}

// EventName is the TraceLogging event name of the record, "" when it is not
// a TraceLogging event or its schema does not parse. It suits
// activity.Tracker's EventName.
func (c *Cache) EventName(r *record.Record) string {
	if s, ok, err := c.SchemaOf(r); ok && err == nil {
		return s.Name
	}
	return ""
}
