package kernel

// PageFault group (0x02), which TraceEvent calls Memory, kernel-events.md
// §7. PageFault v3 defines only HRRundown (at v4): its other opcodes are
// read with the v2 classes.

// memFlags are the MEM_* allocation type bits of VirtualAlloc/VirtualFree.
var memFlags = bits("MemoryFlags",
	entry(0x1000, "MEM_COMMIT"), entry(0x2000, "MEM_RESERVE"), entry(0x4000, "MEM_DECOMMIT"),
	entry(0x8000, "MEM_RELEASE"), entry(0x80000, "MEM_RESET"), entry(0x100000, "MEM_TOP_DOWN"),
	entry(0x200000, "MEM_WRITE_WATCH"), entry(0x400000, "MEM_PHYSICAL"), entry(0x1000000, "MEM_RESET_UNDO"),
	entry(0x20000000, "MEM_LARGE_PAGES"),
)

// hardFaultInitialTime is the index of HardFault's InitialTime.
const hardFaultInitialTime = 0

func init() {
	later(func() {
		const g = 0x02
		rundown := fields(ptr("HeapHandle"), hex(u32("HRFlags")), u32("HRPid"), u32("HRRangeCount"))
		register(
			class{name: "PageFault_TypeGroup1", group: g, version: 2, opcodes: []uint8{10, 11, 12, 13, 14, 15}, fields: fields(
				ptr("VirtualAddress"), ptr("ProgramCounter"))},
			// TraceEvent calls the FILE_OBJECT the FileKey (FileIO events name
			// the file by it) and shows the time the read took.
			class{name: "PageFault_HardFault", group: g, version: 2, opcodes: []uint8{32},
				computed: withElapsed(hardFaultInitialTime, "InitialTime"), fields: fields(
					wmiTime("InitialTime"), u64("ReadOffset"), ptr("VirtualAddress"), ptr("FileKey"), u32("ThreadID"),
					u32("ByteCount"))},
			class{name: "PageFault_HeapRangeRundown_V2", group: g, version: 2, opcodes: []uint8{100}, fields: rundown},
			class{name: "PageFault_HeapRangeCreate", group: g, version: 2, opcodes: []uint8{101}, fields: fields(
				ptr("HeapHandle"), size("FirstRangeSize"), hex(u32("HRCreateFlags")))},
			class{name: "PageFault_HeapRangeTypeGroup", group: g, version: 2, opcodes: []uint8{102, 103}, fields: fields(
				ptr("HeapHandle"), ptr("HRAddress"), size("HRSize"))},
			class{name: "PageFault_HeapRangeDestroy", group: g, version: 2, opcodes: []uint8{104}, fields: fields(
				ptr("HeapHandle"))},
			class{name: "PageFault_ImageLoadBacked", group: g, version: 2, opcodes: []uint8{105}, fields: fields(
				ptr("FileObject"), hex(u32("DeviceChar")), hex(u16("FileChar")), hex(u16("LoadFlags")))},
			class{name: "PageFault_VirtualAlloc", group: g, version: 2, opcodes: []uint8{98, 99}, fields: fields(
				ptr("BaseAddress"), size("RegionSize"), u32("ProcessID"), mapped(u32("Flags"), memFlags))},
			class{name: "PageFault_VirtualAllocRundown", group: g, version: 2, opcodes: []uint8{128, 129}, fields: fields(
				ptr("BaseAddress"), size("RegionSize"), u32("ProcessID"), mapped(u32("Flags"), memFlags),
				size("CommitSizeInBytes"))},
			class{name: "PageFault_VirtualRotate", group: g, version: 2, opcodes: []uint8{127}, fields: fields(
				ptr("BaseAddress"), size("SizeInBytes"), hex(u32("Flags")))},
			class{name: "PageFault_MemReset", group: g, version: 2, opcodes: []uint8{134}, fields: fields(
				ptr("BaseAddress"), size("SizeInBytes"), hex(u32("Flags")))},
			// HRRundown's own classes carry versions 3 and 4.
			class{name: "PageFault_HeapRangeRundown_V3", group: g, version: 3, opcodes: []uint8{100}, fields: append(
				rundown[:4:4], u32("Reserved"))},
			class{name: "PageFault_HeapRangeRundown_V4", group: g, version: 4, opcodes: []uint8{100}, fields: append(
				rundown[:4:4], hex(u64("HRHeapTag")))},
		)
	})
}
