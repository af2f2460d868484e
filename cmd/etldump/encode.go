package main

import (
	"github.com/google/uuid"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// encoder turns records into lines of one output format. Each appends to
// dst and returns it, so that one buffer serves the whole run.
type encoder interface {
	begin(dst []byte) []byte
	record(dst []byte, r *record.Record, d *describe.Description) []byte
	end(dst []byte) []byte
}

// byEventID reports whether an event without a name is told apart by its
// event id (EVENT_HEADER events, WPP messages) rather than by its opcode,
// the only number the other headers give it: it is EventID(n) in the text
// view and in --stats, else Opcode(n).
func byEventID(t header.Type) bool {
	return record.DescriptorFieldsOf(t)&record.FieldTask != 0 || t == header.TypeMessage
}

// relatedActivity reads the RELATED_ACTIVITYID extended item, when the
// record carries a well-formed one.
func relatedActivity(r *record.Record) (uuid.UUID, bool) { return r.RelatedActivity() }

// hasProvider reports whether the record's header names a provider.
func hasProvider(r *record.Record) bool { return r.HasProvider() }
