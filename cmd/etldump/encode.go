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

// fieldSet is a set of EVENT_DESCRIPTOR fields.
type fieldSet uint8

const (
	hasId fieldSet = 1 << iota
	hasVersion
	hasChannel
	hasLevel
	hasOpcode
	hasTask
	hasKeyword
	hasActivity
)

// descriptorFields reports which EVENT_DESCRIPTOR fields a header of type t
// really carries; the others are left out of the output rather than shown
// as an invented zero.
func descriptorFields(t header.Type) fieldSet {
	switch t {
	case header.TypeEventHeader32, header.TypeEventHeader64:
		return hasId | hasVersion | hasChannel | hasLevel | hasOpcode | hasTask | hasKeyword | hasActivity
	case header.TypeFull32, header.TypeFull64, header.TypeInstance32, header.TypeInstance64:
		return hasVersion | hasLevel | hasOpcode
	case header.TypeSystem32, header.TypeSystem64, header.TypeCompact32, header.TypeCompact64,
		header.TypePerfInfo32, header.TypePerfInfo64:
		return hasVersion | hasOpcode
	case header.TypeMessage:
		return hasId
	}
	return 0
}

// byEventID reports whether an event without a name is told apart by its
// event id (EVENT_HEADER events, WPP messages) rather than by its opcode,
// the only number the other headers give it: it is EventID(n) in the text
// view and in --stats, else Opcode(n).
func byEventID(t header.Type) bool {
	return descriptorFields(t)&hasTask != 0 || t == header.TypeMessage
}

// relatedActivity reads the RELATED_ACTIVITYID extended item, when the
// record carries a well-formed one.
func relatedActivity(r *record.Record) (uuid.UUID, bool) {
	it, ok := r.Extended(record.ExtRelatedActivityID)
	if !ok {
		return uuid.Nil, false
	}
	id, err := it.RelatedActivityID()
	return id, err == nil
}

// hasProvider reports whether the record's header names a provider: WPP
// messages may carry a component id instead, and the opaque ERROR, TIMED
// and WNODE records carry none.
func hasProvider(r *record.Record) bool {
	if r.HeaderType == header.TypeMessage {
		return r.Message.HasGUID()
	}
	return descriptorFields(r.HeaderType) != 0
}
