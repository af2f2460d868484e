package tdh_test

import (
	"github.com/google/uuid"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/schema/tdh"
)

func eventInfoBlob(in etltest.EventInfo) []byte { return in.Bytes() }

// mapEntry is one entry for mapInfoBlob.
type mapEntry = etltest.MapEntry

// mapInfoBlob writes an EVENT_MAP_INFO, with the provider GUID of an
// EventMapInfo record in front when provider is not nil.
func mapInfoBlob(provider *uuid.UUID, name string, flags tdh.MapFlags, valueType tdh.MapValueType, format string, entries []mapEntry) []byte {
	m := &etltest.MapInfo{Name: name, Flags: uint32(flags), ValueType: uint32(valueType), Format: format, Entries: entries}
	if provider == nil {
		return m.Bytes()
	}
	return etltest.EventMapInfoPayload(*provider, m)
}
