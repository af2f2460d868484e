package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record/tracelogging"
)

// KernelProviderName is the provider name of kernel (SYSTEM, COMPACT and
// PERFINFO) records, as TraceEvent shows it.
const KernelProviderName = "Windows Kernel"

// kernelGroupNames are the task names of the kernel groups. Where
// TraceEvent's spelling is known (from the events it prints) it is used:
// DiskIO for the notes' DiskIo, Memory for PageFault, FileIO for FileIo,
// SystemConfig for Config.
var kernelGroupNames = [...]string{
	0x00: "EventTrace",
	0x01: "DiskIO",
	0x02: "Memory",
	0x03: "Process",
	0x04: "FileIO",
	0x05: "Thread",
	0x06: "TcpIp",
	0x07: "Job",
	0x08: "UdpIp",
	0x09: "Registry",
	0x0A: "DbgPrint",
	0x0B: "SystemConfig",
	0x0C: "Spare1",
	0x0D: "Wnf",
	0x0E: "Pool",
	0x0F: "PerfInfo",
	0x10: "Heap",
	0x11: "Object",
	0x12: "Power",
	0x13: "ModBound",
	0x14: "Image",
	0x15: "Dpc",
	0x16: "Cc",
	0x17: "CritSec",
	0x18: "StackWalk",
	0x19: "Ums",
	0x1A: "Alpc",
	0x1B: "SplitIo",
	0x1C: "ThreadPool",
	0x1D: "Hypervisor",
	0x1E: "HypervisorX",
}

// KernelGroupName is the task name of a kernel group (the high byte of a
// HookId), "" for groups without one.
func KernelGroupName(group uint8) string {
	if int(group) < len(kernelGroupNames) {
		return kernelGroupNames[group]
	}
	return ""
}

// KernelGroupByGUID maps a kernel group's provider GUID back to the group,
// for classic records that carry one (relogged kernel events).
func KernelGroupByGUID(g uuid.UUID) (group uint8, ok bool) {
	if g == uuid.Nil {
		return 0, false
	}
	for i, k := range kernelGroupGUIDs {
		if k == g {
			return uint8(i), true
		}
	}
	return 0, false
}

// kernelEvents are the "Group/Opcode" names of kernel events, indexed by
// group then opcode. The spelling is TraceEvent's where the two differ
// from other sources: the header is "EventTrace" (not "EventTrace/Header",
// since TraceEvent drops the Info opcode's name), type 5 is
// "EventTrace/Extension" (HeaderExtension in ntwmi.h) and type 32
// "EventTrace/EndExtension" (GroupMasksEnd), opcodes 2 and 4 are "Stop" and
// "DCStop" (End and DCEnd in the MOF classes), and PerfInfo 46 is
// "PerfInfo/Sample" (SampledProfile). Every name that occurs in the
// TraceEvent output kept for net452-x64-merged-compressed.etl was checked
// against the count of records with its group and opcode there.
var kernelEvents = [...][]string{
	0x00: {
		0x00: "EventTrace",
		0x05: "EventTrace/Extension",
		0x08: "EventTrace/RundownComplete",
		0x0A: "EventTrace/GuidMap",
		0x0B: "EventTrace/Config",
		0x0C: "EventTrace/SidInfo",
		0x0D: "EventTrace/Security",
		0x20: "EventTrace/EndExtension",
		0x30: "EventTrace/RundownBegin",
		0x31: "EventTrace/RundownEnd",
		0x40: "EventTrace/DbgIdRSDS",
		0x41: "EventTrace/DbgIdNB10",
		0x42: "EventTrace/BuildLab",
		0x43: "EventTrace/BinaryPath",
		0x50: "EventTrace/PartitionInfoExtension",
		0x52: "EventTrace/LastDroppedTimes",
	},
	0x01: {
		10: "DiskIO/Read",
		11: "DiskIO/Write",
		12: "DiskIO/ReadInit",
		13: "DiskIO/WriteInit",
		14: "DiskIO/FlushBuffers",
		15: "DiskIO/FlushInit",
	},
	0x02: {
		10: "Memory/TransitionFault",
		11: "Memory/DemandZeroFault",
		12: "Memory/CopyOnWrite",
		13: "Memory/GuardPageFault",
		14: "Memory/HardPageFault",
		15: "Memory/AccessViolation",
		32: "Memory/HardFault",
		98: "Memory/VirtualAlloc",
		99: "Memory/VirtualFree",
	},
	0x03: {
		1:  "Process/Start",
		2:  "Process/Stop",
		3:  "Process/DCStart",
		4:  "Process/DCStop",
		10: "Image/Load", // the Process group's type 10 is an Image event
		11: "Process/Terminate",
		32: "Process/PerfCtr",
		33: "Process/PerfCtrRundown",
		39: "Process/Defunct",
	},
	0x04: {
		0:  "FileIO/Name",
		32: "FileIO/FileCreate",
		35: "FileIO/FileDelete",
		36: "FileIO/FileRundown",
		64: "FileIO/Create",
		65: "FileIO/Cleanup",
		66: "FileIO/Close",
		67: "FileIO/Read",
		68: "FileIO/Write",
		69: "FileIO/SetInfo",
		70: "FileIO/Delete",
		71: "FileIO/Rename",
		72: "FileIO/DirEnum",
		73: "FileIO/Flush",
		74: "FileIO/QueryInfo",
		75: "FileIO/FSControl",
		76: "FileIO/OperationEnd",
		77: "FileIO/DirNotify",
	},
	0x05: {
		1:  "Thread/Start",
		2:  "Thread/Stop",
		3:  "Thread/DCStart",
		4:  "Thread/DCStop",
		36: "Thread/CSwitch",
		37: "Thread/CompCS",
		62: "Thread/Enqueue",
		63: "Thread/Dequeue",
		72: "Thread/SetName",
	},
	0x06: {
		10: "TcpIp/Send",
		11: "TcpIp/Recv",
		12: "TcpIp/Connect",
		13: "TcpIp/Disconnect",
		14: "TcpIp/Retransmit",
		15: "TcpIp/Accept",
		16: "TcpIp/Reconnect",
		17: "TcpIp/Fail",
		18: "TcpIp/TCPCopy",
		19: "TcpIp/ARPCopy",
		20: "TcpIp/FullACK",
		21: "TcpIp/PartACK",
		22: "TcpIp/DupACK",
		26: "TcpIp/SendIPV6",
		27: "TcpIp/RecvIPV6",
		28: "TcpIp/ConnectIPV6",
		29: "TcpIp/DisconnectIPV6",
		30: "TcpIp/RetransmitIPV6",
		31: "TcpIp/AcceptIPV6",
		32: "TcpIp/ReconnectIPV6",
		34: "TcpIp/TCPCopyIPV6",
	},
	0x08: {
		10: "UdpIp/Send",
		11: "UdpIp/Recv",
		17: "UdpIp/Fail",
		26: "UdpIp/SendIPV6",
		27: "UdpIp/RecvIPV6",
	},
	0x09: {
		10: "Registry/Create",
		11: "Registry/Open",
		12: "Registry/Delete",
		13: "Registry/Query",
		14: "Registry/SetValue",
		15: "Registry/DeleteValue",
		16: "Registry/QueryValue",
		17: "Registry/EnumerateKey",
		18: "Registry/EnumerateValueKey",
		19: "Registry/QueryMultipleValue",
		20: "Registry/SetInformation",
		21: "Registry/Flush",
		22: "Registry/KCBCreate",
		23: "Registry/KCBDelete",
		24: "Registry/KCBRundownBegin",
		25: "Registry/KCBRundownEnd",
		26: "Registry/Virtualize",
		27: "Registry/Close",
	},
	0x0B: {
		10: "SystemConfig/CPU",
		11: "SystemConfig/PhyDisk",
		12: "SystemConfig/LogDisk",
		13: "SystemConfig/NIC",
		14: "SystemConfig/Video",
		15: "SystemConfig/Services",
		16: "SystemConfig/Power",
		17: "SystemConfig/Network",
		21: "SystemConfig/IRQ",
		22: "SystemConfig/PnP",
		23: "SystemConfig/IDEChannel",
		25: "SystemConfig/Platform",
	},
	0x0F: {
		46: "PerfInfo/Sample",
		47: "PerfInfo/PmcCounterProfile",
		48: "PerfInfo/PmcCounterConfig",
		51: "PerfInfo/SysClEnter",
		52: "PerfInfo/SysClExit",
		66: "PerfInfo/ThreadedDPC",
		67: "PerfInfo/ISR",
		68: "PerfInfo/DPC",
		69: "PerfInfo/TimerDPC",
		73: "PerfInfo/CollectionStart",
		74: "PerfInfo/CollectionEnd",
	},
	0x14: {
		2:  "Image/Unload",
		3:  "Image/DCStart",
		4:  "Image/DCStop",
		10: "Image/Load",
		33: "Image/KernelBase",
	},
	0x18: {
		32: "StackWalk/Stack",
		34: "StackWalk/KeyCreate",
		35: "StackWalk/KeyDelete",
		36: "StackWalk/KeyRundown",
		37: "StackWalk/StackKeyKernel",
		38: "StackWalk/StackKeyUser",
	},
}

// KernelEventName is the "Group/Opcode" name of a kernel event, e.g.
// "Process/Start", "Thread/CSwitch" or "Image/Load" (also for the Process
// group's type 10); "" when the opcode has no name here
// (AppendKernelEventName has a fallback).
func KernelEventName(group, opcode uint8) string {
	if int(group) < len(kernelEvents) {
		if names := kernelEvents[group]; int(opcode) < len(names) {
			return names[opcode]
		}
	}
	return ""
}

// AppendKernelEventName appends the event's name, falling back to
// "Group/Opcode(N)" for an opcode without a name, as TraceEvent does, and to
// "Group(0xGG)/Opcode(N)" for a group without one.
func AppendKernelEventName(dst []byte, group, opcode uint8) []byte {
	if n := KernelEventName(group, opcode); n != "" {
		return append(dst, n...)
	}
	if g := KernelGroupName(group); g != "" {
		dst = append(dst, g...)
	} else {
		dst = append(dst, "Group(0x"...)
		dst = append(dst, hexDigits[group>>4], hexDigits[group&0xF], ')')
	}
	return appendNumbered(dst, "/Opcode(", opcode)
}

const hexDigits = "0123456789ABCDEF"

func appendNumbered(dst []byte, prefix string, n uint8) []byte {
	dst = append(dst, prefix...)
	dst = strconv.AppendUint(dst, uint64(n), 10)
	return append(dst, ')')
}

// classicTypes are the EVENT_TRACE_TYPE_* values of evntrace.h below 10,
// the range it reserves; types from 10 up belong to the event class.
var classicTypes = [...]string{
	0: "Info",       // EVENT_TRACE_TYPE_INFO
	1: "Start",      // EVENT_TRACE_TYPE_START
	2: "End",        // EVENT_TRACE_TYPE_END (also _STOP)
	3: "DC_Start",   // EVENT_TRACE_TYPE_DC_START
	4: "DC_End",     // EVENT_TRACE_TYPE_DC_END
	5: "Extension",  // EVENT_TRACE_TYPE_EXTENSION
	6: "Reply",      // EVENT_TRACE_TYPE_REPLY
	7: "Dequeue",    // EVENT_TRACE_TYPE_DEQUEUE (also _RESUME)
	8: "Checkpoint", // EVENT_TRACE_TYPE_CHECKPOINT (also _SUSPEND)
	9: "Send",       // EVENT_TRACE_TYPE_WINEVT_SEND
}

// ClassicTypeName is the name of a classic (FULL/INSTANCE header) event's
// Class.Type, "" for the class-defined types from 10 up.
// EVENT_TRACE_TYPE_WINEVT_RECEIVE (240) is left to the class too: classic
// providers use types up to 255 as their own.
func ClassicTypeName(t uint8) string {
	if int(t) < len(classicTypes) {
		return classicTypes[t]
	}
	return ""
}

// AppendClassicTypeName appends the type's name, or its number when it is
// class-defined.
func AppendClassicTypeName(dst []byte, t uint8) []byte {
	if n := ClassicTypeName(t); n != "" {
		return append(dst, n...)
	}
	return strconv.AppendUint(dst, uint64(t), 10)
}

// Standard event levels (winmeta.h WINEVENT_LEVEL_*).
const (
	LevelLogAlways = 0
	LevelCritical  = 1
	LevelError     = 2
	LevelWarning   = 3
	LevelInfo      = 4
	LevelVerbose   = 5
)

var levelNames = [...]string{"LOG_ALWAYS", "CRITICAL", "ERROR", "WARNING", "INFO", "VERBOSE"}

// LevelName is the name of a standard level, "" for the reserved levels
// 6–15 and the provider-defined 16–255.
func LevelName(l uint8) string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return ""
}

// AppendLevelName appends the level's name, or "Reserved(N)" or
// "Level(N)" (provider-defined) for the others.
func AppendLevelName(dst []byte, l uint8) []byte {
	switch {
	case l < 6:
		return append(dst, levelNames[l]...)
	case l < 16:
		return appendNumbered(dst, "Reserved(", l)
	}
	return appendNumbered(dst, "Level(", l)
}

// OpcodeName is the name of a standard opcode (winmeta.h
// WINEVENT_OPCODE_*), "" for the others, which the provider defines.
func OpcodeName(o uint8) string {
	switch o {
	case 0:
		return "Info"
	case 1:
		return "Start"
	case 2:
		return "Stop"
	case 3:
		return "DC_Start"
	case 4:
		return "DC_Stop"
	case 5:
		return "Extension"
	case 6:
		return "Reply"
	case 7:
		return "Resume"
	case 8:
		return "Suspend"
	case 9:
		return "Send"
	case 240:
		return "Receive"
	}
	return ""
}

// AppendOpcodeName appends the opcode's name, or "Opcode(N)".
func AppendOpcodeName(dst []byte, o uint8) []byte {
	if n := OpcodeName(o); n != "" {
		return append(dst, n...)
	}
	return appendNumbered(dst, "Opcode(", o)
}

// Channels with a meaning of their own (winmeta.h WINEVENT_CHANNEL_*).
const (
	ChannelSystem      = 8
	ChannelApplication = 9
	ChannelSecurity    = 10
	// ChannelTraceLogging marks TraceLogging events: their layout is in the
	// EVENT_SCHEMA_TL item, not in a manifest.
	ChannelTraceLogging = 11
	// ChannelProviderMetadata marks manifest-based events of a provider that
	// also carries provider traits (PROV_TRAITS), e.g. its name or group.
	ChannelProviderMetadata = 12
)

// ChannelName is the name of a channel with a fixed meaning, "" for the
// others, which a manifest defines.
func ChannelName(c uint8) string {
	switch c {
	case ChannelSystem:
		return "System"
	case ChannelApplication:
		return "Application"
	case ChannelSecurity:
		return "Security"
	case ChannelTraceLogging:
		return "TraceLogging"
	case ChannelProviderMetadata:
		return "ProviderMetadata"
	}
	return ""
}

// Group-0 (EventTrace) types with a payload decoder.
const (
	EventTraceHeader          = 0x00
	EventTraceHeaderExtension = 0x05
	EventTraceRundownComplete = 0x08
	EventTraceEndExtension    = 0x20
	EventTraceDbgIdRSDS       = 0x40
	EventTraceBuildLab        = 0x42
	EventTracePartitionInfo   = 0x50
)

// ErrNoDecoder: the record is not a group-0 event with a payload decoder.
var ErrNoDecoder = errors.New("no payload decoder for this event")

func u32Hex(name string) tracelogging.Field {
	return tracelogging.Field{Name: name, InType: payload.InUInt32, OutType: payload.OutHexInt32}
}

var (
	// ETW_KERNEL_HEADER_EXTENSION: the PERFINFO group masks in force and
	// the kernel event version. Before Vista it had no version.
	headerExtensionFields = []tracelogging.Field{
		u32Hex("GroupMask1"), u32Hex("GroupMask2"), u32Hex("GroupMask3"), u32Hex("GroupMask4"),
		u32Hex("GroupMask5"), u32Hex("GroupMask6"), u32Hex("GroupMask7"), u32Hex("GroupMask8"),
		{Name: "KernelEventVersion", InType: payload.InUInt32},
	}
	headerExtensionSchema    = tracelogging.MustSchema("Extension", headerExtensionFields)
	headerExtensionOldSchema = tracelogging.MustSchema("Extension", headerExtensionFields[:8])
	rundownCompleteSchema    = tracelogging.MustSchema("RundownComplete", nil)
	dbgIdRSDSSchema          = tracelogging.MustSchema("DbgIdRSDS", []tracelogging.Field{
		{Name: "GuidSig", InType: payload.InGUID},
		{Name: "Age", InType: payload.InUInt32},
		{Name: "PdbFileName", InType: payload.InAnsiString},
	})
	buildLabSchema = tracelogging.MustSchema("BuildLab", []tracelogging.Field{
		{Name: "BuildLab", InType: payload.InAnsiString},
	})
	// TRACE_LOGFILE_HEADER, then the session and log-file names. The two
	// pointer-sized fields were string pointers before Windows 7 and are
	// clock sources since; the 4-byte pad keeps BootTime 8-byte aligned.
	logfileHeaderSchema = tracelogging.MustSchema("Header", []tracelogging.Field{
		{Name: "BufferSize", InType: payload.InUInt32},
		u32Hex("Version"),
		{Name: "ProviderVersion", InType: payload.InUInt32},
		{Name: "NumberOfProcessors", InType: payload.InUInt32},
		{Name: "EndTime", InType: payload.InFileTime},
		{Name: "TimerResolution", InType: payload.InUInt32},
		{Name: "MaximumFileSize", InType: payload.InUInt32},
		u32Hex("LogFileMode"),
		{Name: "BuffersWritten", InType: payload.InUInt32},
		{Name: "StartBuffers", InType: payload.InUInt32},
		{Name: "PointerSize", InType: payload.InUInt32},
		{Name: "EventsLost", InType: payload.InUInt32},
		{Name: "CpuSpeedInMHz", InType: payload.InUInt32},
		{Name: "LoggerNameField", InType: payload.InPointer},
		{Name: "LogFileNameField", InType: payload.InPointer},
		{Name: "TimeZoneBias", InType: payload.InInt32},
		{Name: "StandardName", InType: payload.InUInt16, OutType: payload.OutString, Arity: payload.FixedCount, Count: 32},
		{Name: "StandardDate", InType: payload.InSystemTime},
		{Name: "StandardBias", InType: payload.InInt32},
		{Name: "DaylightName", InType: payload.InUInt16, OutType: payload.OutString, Arity: payload.FixedCount, Count: 32},
		{Name: "DaylightDate", InType: payload.InSystemTime},
		{Name: "DaylightBias", InType: payload.InInt32},
		{Name: "Padding", InType: payload.InUInt32},
		{Name: "BootTime", InType: payload.InFileTime},
		{Name: "PerfFreq", InType: payload.InInt64},
		{Name: "StartTime", InType: payload.InFileTime},
		{Name: "ReservedFlags", InType: payload.InUInt32},
		{Name: "BuffersLost", InType: payload.InUInt32},
		{Name: "SessionName", InType: payload.InUnicodeString},
		{Name: "LogFileName", InType: payload.InUnicodeString},
	})
	// PartitionInfoExtension: the partition and parent ids are GUIDs, and
	// strings from event version 2.
	partitionInfoSchema   = partitionSchema(payload.InGUID)
	partitionInfoV2Schema = partitionSchema(payload.InUnicodeString)
)

// partitionSchema is the PartitionInfoExtension layout with the partition
// and parent ids of the given type.
func partitionSchema(id payload.InType) *tracelogging.Schema {
	return tracelogging.MustSchema("PartitionInfoExtension", []tracelogging.Field{
		{Name: "EventVersion", InType: payload.InUInt16},
		{Name: "Reserved", InType: payload.InUInt16},
		{Name: "PartitionType", InType: payload.InUInt32},
		{Name: "QpcOffsetFromRoot", InType: payload.InInt64},
		{Name: "PartitionId", InType: id},
		{Name: "ParentId", InType: id},
	})
}

// EventTraceFields decodes the payload of a group-0 (EventTrace) kernel
// event of the given type into named values, in payload order, reusing dst
// as tracelogging.Schema.Decode does: the logfile header (as in a 64-bit
// session; Record.EventTraceFields uses the record's pointer size), Extension and EndExtension
// (GroupMask1–8, KernelEventVersion), RundownComplete (no fields),
// DbgIdRSDS (GuidSig, Age, PdbFileName), BuildLab, and
// PartitionInfoExtension (EventVersion, Reserved, PartitionType,
// QpcOffsetFromRoot, PartitionId, ParentId). Other types give
// ErrNoDecoder; a payload that does not fit gives an error wrapping
// buffer.ErrMalformed or buffer.ErrTruncated.
func EventTraceFields(opcode uint8, payload []byte, dst []tracelogging.Value) ([]tracelogging.Value, error) {
	return eventTraceFields(opcode, payload, 8, dst)
}

func eventTraceFields(opcode uint8, payload []byte, pointerSize int, dst []tracelogging.Value) ([]tracelogging.Value, error) {
	var s *tracelogging.Schema
	switch opcode {
	case EventTraceHeader:
		s = logfileHeaderSchema
	case EventTraceHeaderExtension, EventTraceEndExtension:
		s = headerExtensionSchema
		if len(payload) == 0x20 {
			s = headerExtensionOldSchema
		}
	case EventTraceRundownComplete:
		s = rundownCompleteSchema
	case EventTraceDbgIdRSDS:
		s = dbgIdRSDSSchema
	case EventTraceBuildLab:
		s = buildLabSchema
	case EventTracePartitionInfo:
		s = partitionInfoSchema
		if len(payload) >= 2 && binary.LittleEndian.Uint16(payload) >= 2 {
			s = partitionInfoV2Schema
		}
	default:
		return dst[:0], ErrNoDecoder
	}
	// Only the logfile header holds pointers, as wide as its header type says.
	vals, err := s.Decode(payload, pointerSize, dst)
	if err != nil {
		return vals, fmt.Errorf("%s: %w", KernelEventName(0, opcode), err)
	}
	return vals, nil
}

// EventTraceFields decodes the record's payload when it is a group-0
// (EventTrace) kernel event; see the package function.
func (r *Record) EventTraceFields(dst []tracelogging.Value) ([]tracelogging.Value, error) {
	if !r.HeaderType.IsKernel() || r.HookId>>8 != GroupEventTrace {
		return dst[:0], ErrNoDecoder
	}
	return eventTraceFields(uint8(r.HookId), r.UserData, r.PointerSize(), dst)
}

// The build fails if a group gets a name without a GUID or the reverse.
var _ = [1]struct{}{}[len(kernelGroupNames)-len(kernelGroupGUIDs)]
