package kernel

import "github.com/etlkit/etlkit/payload"

// FileIo group (0x04), kernel-events.md §11: file names (keyed by the
// FileObject that other FileIo, DiskIo and PageFault events carry), the
// operations as they start, their ends, file mappings and minifilter
// callbacks.

const groupFileIo = 0x04

// fileAttributes are the FILE_ATTRIBUTE_* bits of winnt.h.
var fileAttributes = bits("FileAttributes",
	entry(0, "None"),
	entry(0x1, "ReadOnly"),
	entry(0x2, "Hidden"),
	entry(0x4, "System"),
	entry(0x10, "Directory"),
	entry(0x20, "Archive"),
	entry(0x40, "Device"),
	entry(0x80, "Normal"),
	entry(0x100, "Temporary"),
	entry(0x200, "SparseFile"),
	entry(0x400, "ReparsePoint"),
	entry(0x800, "Compressed"),
	entry(0x1000, "Offline"),
	entry(0x2000, "NotContentIndexed"),
	entry(0x4000, "Encrypted"),
	entry(0x8000, "IntegrityStream"),
	entry(0x10000, "Virtual"),
	entry(0x20000, "NoScrubData"),
	entry(0x40000, "RecallOnOpen"),
	entry(0x80000, "Pinned"),
	entry(0x100000, "Unpinned"),
	entry(0x400000, "RecallOnDataAccess"),
)

// fileShareAccess are the FILE_SHARE_* bits of winnt.h.
var fileShareAccess = bits("FileShareAccess",
	entry(0, "None"),
	entry(0x1, "Read"),
	entry(0x2, "Write"),
	entry(0x4, "Delete"),
)

func init() {
	later(func() {
		const g = groupFileIo
		name := func() []payload.Field { return fields(ptr("FileObject"), wstr("FileName")) }
		attributes := func() payload.Field { return mapped(u32("FileAttributes"), fileAttributes) }
		share := func() payload.Field { return mapped(u32("ShareAccess"), fileShareAccess) }
		opEnd := func() []payload.Field { return fields(ptr("IrpPtr"), ptr("ExtraInfo"), hex(u32("NtStatus"))) }
		register(
			class{name: "FileIo_V0_Name", group: g, version: 0, opcodes: []uint8{0}, fields: name()},
			class{name: "FileIo_V1_Name", group: g, version: 1, opcodes: []uint8{0, 32}, fields: name()},
			class{name: "FileIo_V2_Name", group: g, version: 2, opcodes: []uint8{0, 32, 35, 36}, fields: name()},
			class{name: "FileIo_Name", group: g, version: 3, opcodes: []uint8{0, 32, 35, 36}, fields: name()},

			// v2: TTID, the thread that issued the operation, is
			// pointer-sized and follows IrpPtr.
			class{name: "FileIo_V2_Create", group: g, version: 2, opcodes: []uint8{64}, fields: fields(
				ptr("IrpPtr"), ptr("TTID"), ptr("FileObject"), hex(u32("CreateOptions")), attributes(), share(),
				wstr("OpenPath"))},
			class{name: "FileIo_V2_SimpleOp", group: g, version: 2, opcodes: []uint8{65, 66, 73}, fields: fields(
				ptr("IrpPtr"), ptr("TTID"), ptr("FileObject"), ptr("FileKey"))},
			class{name: "FileIo_V2_ReadWrite", group: g, version: 2, opcodes: []uint8{67, 68}, fields: fields(
				u64("Offset"), ptr("IrpPtr"), ptr("TTID"), ptr("FileObject"), ptr("FileKey"), u32("IoSize"),
				hex(u32("IoFlags")))},
			class{name: "FileIo_V2_Info", group: g, version: 2, opcodes: []uint8{69, 70, 71, 74, 75}, fields: fields(
				ptr("IrpPtr"), ptr("TTID"), ptr("FileObject"), ptr("FileKey"), ptr("ExtraInfo"), u32("InfoClass"))},
			class{name: "FileIo_V2_DirEnum", group: g, version: 2, opcodes: []uint8{72, 77}, fields: fields(
				ptr("IrpPtr"), ptr("TTID"), ptr("FileObject"), ptr("FileKey"), u32("Length"), u32("InfoClass"),
				u32("FileIndex"), wstr("FileName"))},
			class{name: "FileIo_V2_OpEnd", group: g, version: 2, opcodes: []uint8{76}, fields: opEnd()},
			class{name: "FileIo_V2_MapFile", group: g, version: 2, opcodes: []uint8{37, 38, 39, 40}, fields: fields(
				ptr("ViewBase"), ptr("FileObject"), u64("MiscInfo"), size("ViewSize"), u32("ProcessId"))},

			// v3: TTID is a 4-byte thread id after the pointers.
			class{name: "FileIo_Create", group: g, version: 3, opcodes: []uint8{64}, fields: fields(
				ptr("IrpPtr"), ptr("FileObject"), u32("TTID"), hex(u32("CreateOptions")), attributes(), share(),
				wstr("OpenPath"))},
			class{name: "FileIo_SimpleOp", group: g, version: 3, opcodes: []uint8{65, 66, 73}, fields: fields(
				ptr("IrpPtr"), ptr("FileObject"), ptr("FileKey"), u32("TTID"))},
			class{name: "FileIo_ReadWrite", group: g, version: 3, opcodes: []uint8{67, 68}, fields: fields(
				u64("Offset"), ptr("IrpPtr"), ptr("FileObject"), ptr("FileKey"), u32("TTID"), u32("IoSize"),
				hex(u32("IoFlags")))},
			class{name: "FileIo_Info", group: g, version: 3, opcodes: []uint8{69, 70, 71, 74, 75}, fields: fields(
				ptr("IrpPtr"), ptr("FileObject"), ptr("FileKey"), ptr("ExtraInfo"), u32("TTID"), u32("InfoClass"))},
			class{name: "FileIo_DirEnum", group: g, version: 3, opcodes: []uint8{72, 77}, fields: fields(
				ptr("IrpPtr"), ptr("FileObject"), ptr("FileKey"), u32("TTID"), u32("Length"), u32("InfoClass"),
				u32("FileIndex"), wstr("FileName"))},
			class{name: "FileIo_OpEnd", group: g, version: 3, opcodes: []uint8{76}, fields: opEnd()},
			class{name: "FileIo_PathOperation", group: g, version: 3, opcodes: []uint8{79, 80, 81}, fields: fields(
				ptr("IrpPtr"), ptr("FileObject"), ptr("FileKey"), ptr("ExtraInfo"), u32("TTID"), u32("InfoClass"),
				wstr("FileName"))},
			class{name: "FltIoInit", group: g, version: 3, opcodes: []uint8{96, 97}, fields: fields(
				ptr("RoutineAddr"), ptr("FileObject"), ptr("FileContext"), ptr("IrpPtr"), ptr("CallbackDataPtr"),
				u32("MajorFunction"))},
			class{name: "FltIoCompletion", group: g, version: 3, opcodes: []uint8{98, 99}, fields: fields(
				wmiTime("InitialTime"), ptr("RoutineAddr"), ptr("FileObject"), ptr("FileContext"), ptr("IrpPtr"),
				ptr("CallbackDataPtr"), u32("MajorFunction"))},
			class{name: "FltIoFailure", group: g, version: 3, opcodes: []uint8{100, 101}, fields: fields(
				ptr("RoutineAddr"), ptr("FileObject"), ptr("FileContext"), ptr("IrpPtr"), ptr("CallbackDataPtr"),
				u32("MajorFunction"), hex(u32("Status")))},
		)
	})
}
