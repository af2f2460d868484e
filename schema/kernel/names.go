package kernel

import "strconv"

// ProviderName is the provider name of kernel (SYSTEM, COMPACT and
// PERFINFO) records, as TraceEvent shows it.
const ProviderName = "Windows Kernel"

// kernelGroupNames are the task names of the kernel groups. Where
// TraceEvent's spelling is known (from the events it prints) it is used:
// DiskIO for the notes' DiskIo, Memory for PageFault, FileIO for FileIo,
// SystemConfig for Config. Group 0x0C (SPARE1) is Lbr, the task TraceEvent
// files its last-branch records under, and 0x1A is ALPC as the MOF class.
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
	0x0C: "Lbr",
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
	0x1A: "ALPC",
	0x1B: "SplitIo",
	0x1C: "ThreadPool",
	0x1D: "Hypervisor",
	0x1E: "HypervisorX",
}

// KernelGroupName is the task name of a kernel group (the high byte of a
// HookId), "" for groups without one.
func GroupName(group uint8) string {
	if int(group) < len(kernelGroupNames) {
		return kernelGroupNames[group]
	}
	return ""
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
		16: "DiskIO/RedirectedInit",
		34: "DiskIO/DrvMjFnCall",
		35: "DiskIO/DrvMjFnRet",
		37: "DiskIO/DrvComplRout",
		52: "DiskIO/DrvComplReq",
		53: "DiskIO/DrvComplReqRet",
		55: "DiskIO/OpticalRead",
		56: "DiskIO/OpticalWrite",
		57: "DiskIO/OpticalFlushBuffers",
		58: "DiskIO/OpticalReadInit",
		59: "DiskIO/OpticalWriteInit",
		60: "DiskIO/OpticalFlushInit",
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
		0:   "FileIO/Name",
		32:  "FileIO/FileCreate",
		35:  "FileIO/FileDelete",
		36:  "FileIO/FileRundown",
		37:  "FileIO/MapFile",
		38:  "FileIO/UnmapFile",
		39:  "FileIO/MapFileDCStart",
		40:  "FileIO/MapFileDCEnd",
		64:  "FileIO/Create",
		65:  "FileIO/Cleanup",
		66:  "FileIO/Close",
		67:  "FileIO/Read",
		68:  "FileIO/Write",
		69:  "FileIO/SetInfo",
		70:  "FileIO/Delete",
		71:  "FileIO/Rename",
		72:  "FileIO/DirEnum",
		73:  "FileIO/Flush",
		74:  "FileIO/QueryInfo",
		75:  "FileIO/FSControl",
		76:  "FileIO/OperationEnd",
		77:  "FileIO/DirNotify",
		79:  "FileIO/DeletePath", // DletePath in the MOF
		80:  "FileIO/RenamePath",
		81:  "FileIO/SetLinkPath",
		96:  "FileIO/PreOpInit",
		97:  "FileIO/PostOpInit",
		98:  "FileIO/PreOpCompletion",
		99:  "FileIO/PostOpCompletion",
		100: "FileIO/PreOpFailure",
		101: "FileIO/PostOpFailure",
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
		28: "Registry/SetSecurity",
		29: "Registry/QuerySecurity",
		30: "Registry/TxRCommit",
		31: "Registry/TxRPrepare",
		32: "Registry/TxRRollback",
		34: "Registry/Counters",
		35: "Registry/Config",
		36: "Registry/HiveInit",
		37: "Registry/HiveDestroy",
		38: "Registry/HiveLink",
		39: "Registry/HiveDCEnd",
		40: "Registry/HiveDirty",
		48: "Registry/ChangeNotify",
	},
	0x0A: {
		32: "DbgPrint/DebugPrint",
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
		18: "SystemConfig/OpticalDisk",
		21: "SystemConfig/IRQ",
		22: "SystemConfig/PnP",
		23: "SystemConfig/IDEChannel",
		24: "SystemConfig/NumaNode",
		25: "SystemConfig/Platform",
		26: "SystemConfig/ProcessorGroup",
		27: "SystemConfig/ProcessorNumber",
		28: "SystemConfig/DPI",
		29: "SystemConfig/CodeIntegrity",
		30: "SystemConfig/TelemetryConfiguration",
		31: "SystemConfig/Defragmentation",
		32: "SystemConfig/MobilePlatform",
		33: "SystemConfig/DeviceFamily",
		34: "SystemConfig/FlightIds",
		35: "SystemConfig/Processors",
		36: "SystemConfig/Virtualization",
		37: "SystemConfig/Boot",
	},
	0x0C: {
		32: "Lbr/LbrRecord",
	},
	0x0D: {
		32: "Wnf/Subscribe",
		33: "Wnf/Unsubscribe",
		34: "Wnf/Callback",
		35: "Wnf/Publish",
		36: "Wnf/NameSubRundown",
	},
	0x0E: {
		32: "Pool/PoolAllocation",
		33: "Pool/SessionPoolAllocation",
		34: "Pool/PoolFree",
		35: "Pool/SessionPoolFree",
		40: "Pool/PoolSnapDCStart",
		41: "Pool/PoolSnapDCEnd",
		42: "Pool/BigPoolSnapDCStart",
		43: "Pool/BigPoolSnapDCEnd",
		44: "Pool/SessionPoolSnapDCStart",
		45: "Pool/SessionPoolSnapDCEnd",
		46: "Pool/SessionBigPoolSnapDCStart",
		47: "Pool/SessionBigPoolSnapDCEnd",
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
	0x10: {
		32: "Heap/Create",
		33: "Heap/Alloc",
		34: "Heap/ReAlloc",
		35: "Heap/Destroy",
		36: "Heap/Free",
		37: "Heap/Expand",
		38: "Heap/SnapShot",
		42: "Heap/Contract",
		43: "Heap/Lock",
		44: "Heap/Unlock",
		45: "Heap/Validate",
		46: "Heap/Walk",
		47: "Heap/SubsegmentAlloc",
		48: "Heap/SubsegmentFree",
		49: "Heap/SubsegmentAllocCached",
		50: "Heap/SubsegmentFreeCached",
		51: "Heap/Commit",
		52: "Heap/Decommit",
		53: "Heap/SubsegmentInit",
		54: "Heap/AffinityManagerEnable",
		55: "Heap/AffinitySlotAssigned",
		56: "Heap/SubSegmentActivated",
		57: "Heap/AffinitySlotChanged",
		58: "Heap/SubsegmentReuseThresholdActivated",
	},
	0x11: {
		32: "Object/CreateHandle",
		33: "Object/CloseHandle",
		34: "Object/DuplicateHandle",
		36: "Object/TypeDCStart",
		37: "Object/TypeDCEnd",
		38: "Object/HandleDCStart",
		39: "Object/HandleDCEnd",
		48: "Object/CreateObject",
		49: "Object/DeleteObject",
		50: "Object/ReferenceObject",
		51: "Object/DereferenceObject",
	},
	0x12: {
		60: "Power/IdleExitLatency",
	},
	0x14: {
		2:  "Image/Unload",
		3:  "Image/DCStart",
		4:  "Image/DCStop",
		10: "Image/Load",
		33: "Image/KernelBase",
	},
	0x17: {
		34: "CritSec/Collision",
		35: "CritSec/Initialize",
	},
	0x18: {
		32: "StackWalk/Stack",
		34: "StackWalk/KeyCreate",
		35: "StackWalk/KeyDelete",
		36: "StackWalk/KeyRundown",
		37: "StackWalk/StackKeyKernel",
		38: "StackWalk/StackKeyUser",
	},
	0x19: {
		32: "Ums/DSwitchStart",
		33: "Ums/DSwitchEnd",
		34: "Ums/ScheduledPark",
		35: "Ums/Disassociate",
		36: "Ums/CSwitch",
	},
	0x1A: {
		33: "ALPC/ALPC-Send-Message",
		34: "ALPC/ALPC-Receive-Message",
		35: "ALPC/ALPC-Wait-For-Reply",
		36: "ALPC/ALPC-Wait-For-New-Message",
		37: "ALPC/ALPC-Unwait",
	},
	0x1B: {
		32: "SplitIo/VolMgr",
	},
	0x1C: {
		32: "ThreadPool/CBEnqueue",
		33: "ThreadPool/CBDequeue",
		34: "ThreadPool/CBStart",
		35: "ThreadPool/CBStop",
		36: "ThreadPool/CBCancel",
		37: "ThreadPool/PoolCreate",
		38: "ThreadPool/PoolClose",
		39: "ThreadPool/ThreadMinSet",
		40: "ThreadPool/ThreadMaxSet",
		41: "ThreadPool/WTNodeSwitch",
		42: "ThreadPool/TimerSet",
		43: "ThreadPool/TimerCancelled",
		44: "ThreadPool/TimerSetNtTimer",
		45: "ThreadPool/TimerCancelNtTimer",
		46: "ThreadPool/TimerExpirationBegin",
		47: "ThreadPool/TimerExpirationEnd",
		48: "ThreadPool/TimerExpiration",
	},
}

// KernelEventName is the "Group/Opcode" name of a kernel event, e.g.
// "Process/Start", "Thread/CSwitch" or "Image/Load" (also for the Process
// group's type 10); "" when the opcode has no name here
// (AppendEventName has a fallback).
func EventName(group, opcode uint8) string {
	if int(group) < len(kernelEvents) {
		if names := kernelEvents[group]; int(opcode) < len(names) {
			return names[opcode]
		}
	}
	return ""
}

// AppendEventName appends the event's name, falling back to
// "Group/Opcode(N)" for an opcode without a name, as TraceEvent does, and to
// "Group(0xGG)/Opcode(N)" for a group without one.
func AppendEventName(dst []byte, group, opcode uint8) []byte {
	if n := EventName(group, opcode); n != "" {
		return append(dst, n...)
	}
	if g := GroupName(group); g != "" {
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
