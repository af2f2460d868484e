package etlsink

import (
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/eventsource"
	"github.com/etlkit/etlkit/schema/kernel"
)

var fileIOGUID = record.KernelGroupGUID(kernel.GroupFileIO, 0)

// IsTraceDescribing reports the records a consumer needs to make sense of
// the others, which a trace written from a filtered selection keeps
// whatever the filter says:
//
//   - the kernel's EventTrace events (SYSTEM, COMPACT or PERFINFO records
//     of group 0): the logfile header, the header extensions with the
//     kernel group masks, RundownComplete, BuildLab, the DbgId records
//     that identify images, PartitionInfo, and the rest of the group;
//   - the MetaData records of a KernelTraceControl merge (class GUID
//     kernel.MetaDataTask, opcodes 32 EventInfo and 33 EventMapInfo): the TDH
//     descriptions that decode the manifest events of the trace;
//   - the SysConfig records of such a merge (class GUID
//     kernel.SysConfigTask):
//     the build, the system paths and the volume mappings, by which the
//     kernel's device paths read as drive paths;
//   - the kernel's FileIO name records (Name, FileCreate, FileDelete and
//     FileRundown): the names of the file objects that disk, file and
//     page-fault events carry;
//   - the manifests of EventSources (EVENT_HEADER records whose descriptor
//     eventsource.IsManifest takes and whose user data starts with a
//     manifest envelope), which decode those EventSources' events.
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
		return r.HookId>>8 == 0 || r.HookId>>8 == kernel.GroupFileIO && kernel.NamesFileObject(uint8(r.HookId))
	case header.TypeFull32, header.TypeFull64, header.TypeInstance32, header.TypeInstance64:
		op := r.EventDescriptor.Opcode
		switch r.ProviderId {
		case kernel.MetaDataTask:
			return op == kernel.OpcodeEventInfo || op == kernel.OpcodeEventMapInfo
		case kernel.SysConfigTask:
			return true
		case fileIOGUID:
			return kernel.NamesFileObject(op)
		}
		return false
	case header.TypeEventHeader32, header.TypeEventHeader64:
		return eventsource.IsManifest(&r.EventDescriptor) &&
			len(r.UserData) >= eventsource.EnvelopeSize && r.UserData[3] == eventsource.EnvelopeMagic
	}
	return false
}
