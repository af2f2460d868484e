package etlsink

import (
	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// MetaDataGUID is the class GUID of the classic records in which a merge
// by KernelTraceControl (xperf, WPR, PerfView) stores the TDH metadata of
// the manifest events of the trace.
var MetaDataGUID = uuid.MustParse("bbccf6c1-6cd1-48c4-80ff-839482e37671")

// Opcodes of the MetaData records.
const (
	MetaDataEventInfo    = 32 // one TRACE_EVENT_INFO
	MetaDataEventMapInfo = 33 // a provider GUID, then one EVENT_MAP_INFO
)

// SysConfigGUID is the class GUID of the classic records in which a merge
// by KernelTraceControl stores the machine's build, system paths and volume
// mappings.
var SysConfigGUID = uuid.MustParse("9b79ee91-b5fd-41c0-a243-4248e266e9d0")

// The kernel's FileIO group, and its GUID on relogged classic records.
const groupFileIO = 0x04

var fileIOGUID = record.KernelGroupGUID(groupFileIO, 0)

// isFileName reports whether a FileIO opcode names a file object: Name,
// FileCreate, FileDelete and FileRundown.
func isFileName(op uint8) bool { return op == 0 || op == 32 || op == 35 || op == 36 }

// The descriptor of the events in which an EventSource sends its manifest.
const (
	ManifestEventId = 0xFFFE
	ManifestOpcode  = 0xFE
	// ManifestMagic is byte 3 of the ManifestEnvelope that starts the
	// event's user data.
	ManifestMagic        = 0x5B
	manifestEnvelopeSize = 8
)

// IsTraceDescribing reports the records a consumer needs to make sense of
// the others, which a trace written from a filtered selection keeps
// whatever the filter says:
//
//   - the kernel's EventTrace events (SYSTEM, COMPACT or PERFINFO records
//     of group 0): the logfile header, the header extensions with the
//     kernel group masks, RundownComplete, BuildLab, the DbgId records
//     that identify images, PartitionInfo, and the rest of the group;
//   - the MetaData records of a KernelTraceControl merge (class GUID
//     MetaDataGUID, opcodes 32 EventInfo and 33 EventMapInfo): the TDH
//     descriptions that decode the manifest events of the trace;
//   - the SysConfig records of such a merge (class GUID SysConfigGUID):
//     the build, the system paths and the volume mappings, by which the
//     kernel's device paths read as drive paths;
//   - the kernel's FileIO name records (Name, FileCreate, FileDelete and
//     FileRundown): the names of the file objects that disk, file and
//     page-fault events carry;
//   - the manifests of EventSources (EVENT_HEADER records with event id
//     0xFFFE and opcode 0xFE whose user data starts with a
//     ManifestEnvelope), which decode those EventSources' events.
//
// It does not keep other kernel rundown (process, thread and image DCStart
// and DCEnd, SystemConfig): those are events about the system, not about the
// trace's format, and the filters select them like any other; a kernel
// slice meant for stack or process views should keep them with its
// filters.
func IsTraceDescribing(r *record.Record) bool {
	switch r.HeaderType {
	case header.TypeSystem32, header.TypeSystem64, header.TypeCompact32, header.TypeCompact64,
		header.TypePerfInfo32, header.TypePerfInfo64:
		return r.HookId>>8 == 0 || r.HookId>>8 == groupFileIO && isFileName(uint8(r.HookId))
	case header.TypeFull32, header.TypeFull64, header.TypeInstance32, header.TypeInstance64:
		op := r.EventDescriptor.Opcode
		switch r.ProviderId {
		case MetaDataGUID:
			return op == MetaDataEventInfo || op == MetaDataEventMapInfo
		case SysConfigGUID:
			return true
		case fileIOGUID:
			return isFileName(op)
		}
		return false
	case header.TypeEventHeader32, header.TypeEventHeader64:
		d := &r.EventDescriptor
		return d.Id == ManifestEventId && d.Opcode == ManifestOpcode &&
			len(r.UserData) >= manifestEnvelopeSize && r.UserData[3] == ManifestMagic
	}
	return false
}
