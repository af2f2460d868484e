package record

import (
	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
)

// DescriptorFields is a set of EVENT_DESCRIPTOR fields, and the activity
// id, that a kind of record header really carries. The others are zero in
// a Record only because the header has no room for them; an output leaves
// them out (or NULL) rather than show an invented zero.
type DescriptorFields uint8

const (
	FieldID DescriptorFields = 1 << iota
	FieldVersion
	FieldChannel
	FieldLevel
	FieldOpcode
	FieldTask
	FieldKeyword
	FieldActivityID
)

// DescriptorFieldsOf reports the fields a header of type t carries:
// EVENT_HEADER carries them all, classic headers a version, level and
// opcode, kernel headers a version and opcode, and WPP messages an id.
func DescriptorFieldsOf(t header.Type) DescriptorFields {
	switch t {
	case header.TypeEventHeader32, header.TypeEventHeader64:
		return FieldID | FieldVersion | FieldChannel | FieldLevel | FieldOpcode | FieldTask | FieldKeyword | FieldActivityID
	case header.TypeFull32, header.TypeFull64, header.TypeInstance32, header.TypeInstance64:
		return FieldVersion | FieldLevel | FieldOpcode
	case header.TypeSystem32, header.TypeSystem64, header.TypeCompact32, header.TypeCompact64,
		header.TypePerfInfo32, header.TypePerfInfo64:
		return FieldVersion | FieldOpcode
	case header.TypeMessage:
		return FieldID
	}
	return 0
}

// HasProvider reports whether the record's header names a provider: WPP
// messages may carry a component id instead, and the opaque ERROR, TIMED
// and WNODE records carry none.
func (r *Record) HasProvider() bool {
	if r.HeaderType == header.TypeMessage {
		return r.Message.HasGUID()
	}
	return DescriptorFieldsOf(r.HeaderType) != 0
}

// RelatedActivity reads the RELATED_ACTIVITYID extended item, when the
// record carries a well-formed one.
func (r *Record) RelatedActivity() (uuid.UUID, bool) {
	it, ok := r.Extended(ExtRelatedActivityID)
	if !ok {
		return uuid.Nil, false
	}
	id, err := it.RelatedActivityID()
	return id, err == nil
}
