package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

func TestDescriptorFieldsOf(t *testing.T) {
	all := record.FieldID | record.FieldVersion | record.FieldChannel | record.FieldLevel |
		record.FieldOpcode | record.FieldTask | record.FieldKeyword | record.FieldActivityID
	for typ, want := range map[header.Type]record.DescriptorFields{
		header.TypeEventHeader32: all,
		header.TypeEventHeader64: all,
		header.TypeFull32:        record.FieldVersion | record.FieldLevel | record.FieldOpcode,
		header.TypeInstance64:    record.FieldVersion | record.FieldLevel | record.FieldOpcode,
		header.TypeSystem64:      record.FieldVersion | record.FieldOpcode,
		header.TypeCompact32:     record.FieldVersion | record.FieldOpcode,
		header.TypePerfInfo64:    record.FieldVersion | record.FieldOpcode,
		header.TypeMessage:       record.FieldID,
		header.TypeError:         0,
		header.TypeTimed:         0,
		header.TypeWnode:         0,
	} {
		assert.Equal(t, want, record.DescriptorFieldsOf(typ), "%s", typ)
	}
}

func TestHasProvider(t *testing.T) {
	assert.True(t, (&record.Record{HeaderType: header.TypeSystem64}).HasProvider())
	assert.True(t, (&record.Record{HeaderType: header.TypeEventHeader32}).HasProvider())
	assert.False(t, (&record.Record{HeaderType: header.TypeWnode}).HasProvider())
	// A WPP message names its provider only with the GUID option.
	assert.False(t, (&record.Record{HeaderType: header.TypeMessage}).HasProvider())
}

func TestRelatedActivityAbsent(t *testing.T) {
	_, ok := (&record.Record{HeaderType: header.TypeEventHeader64}).RelatedActivity()
	assert.False(t, ok)
}
