package record

import "github.com/google/uuid"

// Kernel event groups (the high byte of a HookId) that have a name here.
const (
	GroupEventTrace = 0x00
	GroupProcess    = 0x03
	GroupImage      = 0x14
	// ProcessImageLoadType is the Process-group type that is really Image/Load.
	ProcessImageLoadType = 10
)

// kernelGroupGUIDs maps a kernel group to the provider GUID consumers see
// for its SYSTEM, COMPACT and PERFINFO records.
var kernelGroupGUIDs = [...]uuid.UUID{
	0x00: uuid.MustParse("68fdd900-4a3e-11d1-84f4-0000f80464e3"), // EventTrace
	0x01: uuid.MustParse("3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c"), // DiskIo
	0x02: uuid.MustParse("3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c"), // PageFault
	0x03: uuid.MustParse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"), // Process
	0x04: uuid.MustParse("90cbdc39-4a3e-11d1-84f4-0000f80464e3"), // FileIo
	0x05: uuid.MustParse("3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c"), // Thread
	0x06: uuid.MustParse("9a280ac0-c8e0-11d1-84e2-00c04fb998a2"), // TcpIp
	0x07: uuid.MustParse("3282fc76-feed-498e-8aa7-e70f459d430e"), // Job
	0x08: uuid.MustParse("bf3a50c5-a9c9-4988-a005-2df0b7c80f80"), // UdpIp
	0x09: uuid.MustParse("ae53722e-c863-11d2-8659-00c04fa321a1"), // Registry
	0x0A: uuid.MustParse("13976d09-a327-438c-950b-7f03192815c7"), // DbgPrint
	0x0B: uuid.MustParse("01853a65-418f-4f36-aefc-dc0f1d2fd235"), // SystemConfig
	0x0C: uuid.MustParse("99134383-5248-43fc-834b-529454e75df3"), // Spare1
	0x0D: uuid.MustParse("42695762-ea50-497a-9068-5cbbb35e0b95"), // Wnf
	0x0E: uuid.MustParse("0268a8b6-74fd-4302-9dd0-6e8f1795c0cf"), // Pool
	0x0F: uuid.MustParse("ce1dbfb4-137e-4da6-87b0-3f59aa102cbc"), // PerfInfo
	0x10: uuid.MustParse("222962ab-6180-4b88-a825-346b75f2a24a"), // Heap
	0x11: uuid.MustParse("89497f50-effe-4440-8cf2-ce6b1cdcaca7"), // Object
	0x12: uuid.MustParse("e43445e0-0903-48c3-b878-ff0fccebdd04"), // Power
	0x13: uuid.MustParse("a9152f00-3f58-4bee-92a1-70c7d079d5dd"), // ModBound
	0x14: uuid.MustParse("2cb15d1d-5fc1-11d2-abe1-00a0c911f518"), // Image
	0x15: uuid.MustParse("b2d14872-7c5b-463d-8419-ee9bf7d23e04"), // Dpc
	0x16: uuid.MustParse("7687a439-f752-45b8-b741-321aec0f8df9"), // Cc
	0x17: uuid.MustParse("3ac66736-cc59-4cff-8115-8df50e39816b"), // CritSec
	0x18: uuid.MustParse("def2fe46-7bd6-4b80-bd94-f57fe20d0ce3"), // StackWalk
	0x19: uuid.MustParse("9aec974b-5b8e-4118-9b92-3186d8002ce5"), // Ums
	0x1A: uuid.MustParse("45d8cccd-539f-4b72-a8b7-5c683142609a"), // Alpc
	0x1B: uuid.MustParse("d837ca92-12b9-44a5-ad6a-3a65b3578aa8"), // SplitIo
	0x1C: uuid.MustParse("c861d0e2-a2c1-4d36-9f9c-970bab943a12"), // ThreadPool
	0x1D: uuid.MustParse("7f2a405c-69b5-4bf9-a1f5-30e8f1afab5e"), // Hypervisor
	0x1E: uuid.MustParse("2ce9a149-effe-42f0-a635-a1d39e26c8f2"), // HypervisorX
}

// KernelGroupGUID is the provider GUID of a kernel record with the given
// HookId group and type: the group's GUID, except that Process type 10 is
// Image/Load and gets the Image GUID. Groups without a GUID give uuid.Nil.
func KernelGroupGUID(group, opcode uint8) uuid.UUID {
	if group == GroupProcess && opcode == ProcessImageLoadType {
		return kernelGroupGUIDs[GroupImage]
	}
	if int(group) < len(kernelGroupGUIDs) {
		return kernelGroupGUIDs[group]
	}
	return uuid.Nil
}
