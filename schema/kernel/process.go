package kernel

import (
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// Process group (0x03), kernel-events.md §4. SessionID is signed, as
// TraceEvent reads it: the MOF says uint32, but the processes outside any
// session (Idle, System, smss) hold -1.

// processFlags are the ETW_PROCESS_EVENT_FLAG_* bits of the v4 Flags field.
var processFlags = bits("ProcessFlags",
	entry(0, "None"),
	entry(0x1, "PackageFullName"),
	entry(0x2, "Wow64"),
	entry(0x4, "Protected"),
	entry(0x8, "Packaged"),
)

func init() {
	later(func() {
		const g = record.GroupProcess
		start := []uint8{1, 2, 3, 4}
		register(
			class{name: "Process_V0_TypeGroup1", group: g, version: 0, opcodes: start, fields: fields(
				ptr("ProcessID"), ptr("ParentID"), sid("UserSID"), astr("ImageFileName"))},
			class{name: "Process_V1_TypeGroup1", group: g, version: 1, opcodes: start, fields: fields(
				ptr("PageDirectoryBase"), u32("ProcessID"), u32("ParentID"), i32("SessionID"), i32("ExitStatus"),
				sid("UserSID"), astr("ImageFileName"))},
			class{name: "Process_V2_TypeGroup1", group: g, version: 2, opcodes: []uint8{1, 2, 3, 4, 39}, fields: fields(
				ptr("UniqueProcessKey"), u32("ProcessID"), u32("ParentID"), i32("SessionID"), i32("ExitStatus"),
				sid("UserSID"), astr("ImageFileName"), wstr("CommandLine"))},
			class{name: "Process_Terminate_TypeGroup1", group: g, version: 2, opcodes: []uint8{11}, fields: fields(
				u32("ProcessID"))},
			// TraceEvent calls the MOF's PageFaultCount MemoryCount.
			class{name: "Process_V2_TypeGroup2", group: g, version: 2, opcodes: []uint8{32, 33}, fields: fields(
				u32("ProcessID"), u32("MemoryCount"), u32("HandleCount"), u32("Reserved"),
				size("PeakVirtualSize"), size("PeakWorkingSetSize"), size("PeakPagefileUsage"),
				size("QuotaPeakPagedPoolUsage"), size("QuotaPeakNonPagedPoolUsage"), size("VirtualSize"),
				size("WorkingSetSize"), size("PagefileUsage"), size("QuotaPagedPoolUsage"),
				size("QuotaNonPagedPoolUsage"), size("PrivatePageCount"))},
			class{name: "Process_V2_TypeGroup3", group: g, version: 2, opcodes: []uint8{35}, fields: fields(
				ptr("DirectoryTableBase"), u32("ProcessID"))},
			class{name: "Process_V2_TypeGroup4", group: g, version: 2, opcodes: []uint8{
				48, 49, 50, 51, 52, 64, 65, 66, 67, 68, 80, 81, 82, 83, 84}, fields: fields(
				ptr("Object"), ptr("Tag"), u32("ProcessID"), u32("Count"))},
			class{name: "Process_V2_TypeGroup5", group: g, version: 2, opcodes: []uint8{96, 97, 98, 99}, fields: fields(
				ptr("Object"))},
			class{name: "Process_V3_TypeGroup1", group: g, version: 3, opcodes: []uint8{1, 2, 3, 4, 39}, fields: fields(
				ptr("UniqueProcessKey"), u32("ProcessID"), u32("ParentID"), i32("SessionID"), i32("ExitStatus"),
				ptr("PageDirectoryBase"), sid("UserSID"), astr("ImageFileName"), wstr("CommandLine"))},
			class{name: "Process_V4_TypeGroup1", group: g, version: 4, opcodes: []uint8{1, 2, 3, 4, 39}, fields: process4()},
			// ExitTime holds a FILETIME in the samples.
			class{name: "Process_Defunct_TypeGroup1", group: g, version: 5, opcodes: []uint8{39}, fields: append(process4(),
				payload.Field{Name: "ExitTime", InType: payload.InFileTime})},
		)
	})
}

// process4 is the v4 layout (TraceEvent calls DirectoryTableBase
// PageDirectoryBase, as the v1 field was named).
func process4() []payload.Field {
	return fields(
		ptr("UniqueProcessKey"), u32("ProcessID"), u32("ParentID"), i32("SessionID"), i32("ExitStatus"),
		ptr("PageDirectoryBase"), mapped(u32("Flags"), processFlags), sid("UserSID"), astr("ImageFileName"),
		wstr("CommandLine"), wstr("PackageFullName"), wstr("ApplicationID"))
}
