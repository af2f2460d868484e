package etltest

import (
	"github.com/google/uuid"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/record"
)

func u64Item(t record.ExtType, v uint64) ExtItem {
	return ExtItem{Type: t, Data: le.AppendUint64(nil, v)}
}

func guidItem(t record.ExtType, u uuid.UUID) ExtItem {
	return ExtItem{Type: t, Data: guid.AppendWindows(nil, u)}
}

// ExtRelatedActivityID builds a RELATED_ACTIVITYID item.
func ExtRelatedActivityID(u uuid.UUID) ExtItem { return guidItem(record.ExtRelatedActivityID, u) }

// ExtSID builds a SID item; sid is an encoded SID (see SID).
func ExtSID(sid []byte) ExtItem { return ExtItem{Type: record.ExtSID, Data: sid} }

// ExtTerminalSessionID builds a TS_ID item.
func ExtTerminalSessionID(id uint32) ExtItem {
	return ExtItem{Type: record.ExtTerminalSessionID, Data: le.AppendUint32(nil, id)}
}

// ExtInstanceInfo builds an INSTANCE_INFO item.
func ExtInstanceInfo(instanceId, parentInstanceId uint32, parentGuid uuid.UUID) ExtItem {
	b := le.AppendUint32(nil, instanceId)
	b = le.AppendUint32(b, parentInstanceId)
	return ExtItem{Type: record.ExtInstanceInfo, Data: guid.AppendWindows(b, parentGuid)}
}

// ExtStackTrace32 builds a STACK_TRACE32 item: the match id, then 32-bit
// return addresses.
func ExtStackTrace32(matchId uint64, addrs ...uint32) ExtItem {
	b := le.AppendUint64(make([]byte, 0, 8+4*len(addrs)), matchId)
	for _, a := range addrs {
		b = le.AppendUint32(b, a)
	}
	return ExtItem{Type: record.ExtStackTrace32, Data: b}
}

// ExtStackTrace64 builds a STACK_TRACE64 item: the match id, then 64-bit
// return addresses.
func ExtStackTrace64(matchId uint64, addrs ...uint64) ExtItem {
	b := le.AppendUint64(make([]byte, 0, 8+8*len(addrs)), matchId)
	for _, a := range addrs {
		b = le.AppendUint64(b, a)
	}
	return ExtItem{Type: record.ExtStackTrace64, Data: b}
}

// ExtPEBSIndex builds a PEBS_INDEX item.
func ExtPEBSIndex(v uint64) ExtItem { return u64Item(record.ExtPEBSIndex, v) }

// ExtPMCCounters builds a PMC_COUNTERS item.
func ExtPMCCounters(counters ...uint64) ExtItem {
	b := make([]byte, 0, 8*len(counters))
	for _, c := range counters {
		b = le.AppendUint64(b, c)
	}
	return ExtItem{Type: record.ExtPMCCounters, Data: b}
}

// ExtPSMKey builds a PSM_KEY item.
func ExtPSMKey(v uint64) ExtItem { return u64Item(record.ExtPSMKey, v) }

// ExtEventKey builds an EVENT_KEY item.
func ExtEventKey(v uint64) ExtItem { return u64Item(record.ExtEventKey, v) }

// ExtEventSchemaTL builds an EVENT_SCHEMA_TL item from TraceLogging event
// metadata (see TLEvent.Metadata).
func ExtEventSchemaTL(metadata []byte) ExtItem {
	return ExtItem{Type: record.ExtEventSchemaTL, Data: metadata}
}

// ExtProviderTraits builds a PROV_TRAITS item from a traits blob (see
// ProviderTraits).
func ExtProviderTraits(traits []byte) ExtItem {
	return ExtItem{Type: record.ExtProviderTraits, Data: traits}
}

// ExtProcessStartKey builds a PROCESS_START_KEY item.
func ExtProcessStartKey(v uint64) ExtItem { return u64Item(record.ExtProcessStartKey, v) }

// ExtControlGUID builds a CONTROL_GUID item.
func ExtControlGUID(u uuid.UUID) ExtItem { return guidItem(record.ExtControlGUID, u) }

// ExtQPCDelta builds a QPC_DELTA item.
func ExtQPCDelta(v uint64) ExtItem { return u64Item(record.ExtQPCDelta, v) }

// ExtContainerID builds a CONTAINER_ID item.
func ExtContainerID(u uuid.UUID) ExtItem { return guidItem(record.ExtContainerID, u) }

// ExtStackKey32 and ExtStackKey64 build STACK_KEY items as one reader
// describes them (match id, then the key); the layout is not confirmed.
func ExtStackKey32(matchId, key uint64) ExtItem {
	return ExtItem{Type: record.ExtStackKey32, Data: le.AppendUint64(le.AppendUint64(nil, matchId), key)}
}

func ExtStackKey64(matchId, key uint64) ExtItem {
	return ExtItem{Type: record.ExtStackKey64, Data: le.AppendUint64(le.AppendUint64(nil, matchId), key)}
}
