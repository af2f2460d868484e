package kernel_test

import "testing"

// TestFileIoFields decodes a payload of every FileIo class at both pointer
// sizes where it has pointers: v2 keeps TTID pointer-sized after IrpPtr,
// v3 a 4-byte TTID after the pointers.
func TestFileIoFields(t *testing.T) {
	const (
		irp   = 0xFFFFFA83017FFB80
		obj   = 0xFFFFFA83016048B0
		key   = 0xFFFFF8A0065FC620
		extra = 0xFFFFF8A000001000
	)
	const path = `\Device\HarddiskVolume2\Windows\System32\ntdll.dll`
	checkFields(t, []fieldCase{
		{hook: 0x0400, version: 0, ps: 4, data: newPB(4).ptr(obj).w(path).b, event: "FileIO/Name",
			want: "FileObject=0x16048B0 FileName=" + path},
		{hook: 0x0424, version: 2, ps: 8, data: newPB(8).ptr(key).w(`C:\$LogFile`).b, event: "FileIO/FileRundown",
			want: `FileObject=0xFFFFF8A0065FC620 FileName=C:\$LogFile`},
		{hook: 0x0420, version: 3, ps: 4, data: newPB(4).ptr(key).w("").b, event: "FileIO/FileCreate",
			want: "FileObject=0x65FC620 FileName="},

		{hook: 0x0440, version: 2, ps: 8, data: newPB(8).ptr(irp).ptr(1716).ptr(obj).u32(0x01000060).u32(0x80).u32(3).w(path).b,
			event: "FileIO/Create",
			want: "IrpPtr=0xFFFFFA83017FFB80 TTID=0x6B4 FileObject=0xFFFFFA83016048B0 CreateOptions=0x1000060 " +
				"FileAttributes=Normal ShareAccess=Read, Write OpenPath=" + path},
		{hook: 0x0440, version: 2, ps: 4, data: newPB(4).ptr(irp).ptr(1716).ptr(obj).u32(0x01000060).u32(0x21).u32(7).w(path).b,
			event: "FileIO/Create",
			want: "IrpPtr=0x17FFB80 TTID=0x6B4 FileObject=0x16048B0 CreateOptions=0x1000060 " +
				"FileAttributes=ReadOnly, Archive ShareAccess=Read, Write, Delete OpenPath=" + path},
		{hook: 0x0440, version: 3, ps: 8, data: newPB(8).ptr(irp).ptr(obj).u32(1716).u32(0x01000060).u32(0).u32(0).w(path).b,
			event: "FileIO/Create",
			want: "IrpPtr=0xFFFFFA83017FFB80 FileObject=0xFFFFFA83016048B0 TTID=1716 CreateOptions=0x1000060 " +
				"FileAttributes=None ShareAccess=None OpenPath=" + path},
		{hook: 0x0440, version: 3, ps: 4, data: newPB(4).ptr(irp).ptr(obj).u32(1716).u32(0x01000060).u32(0x10).u32(1).w(path).b,
			event: "FileIO/Create",
			want: "IrpPtr=0x17FFB80 FileObject=0x16048B0 TTID=1716 CreateOptions=0x1000060 " +
				"FileAttributes=Directory ShareAccess=Read OpenPath=" + path},

		{hook: 0x0442, version: 2, ps: 4, data: newPB(4).ptr(irp).ptr(1716).ptr(obj).ptr(key).b, event: "FileIO/Close",
			want: "IrpPtr=0x17FFB80 TTID=0x6B4 FileObject=0x16048B0 FileKey=0x65FC620"},
		{hook: 0x0441, version: 3, ps: 8, data: newPB(8).ptr(irp).ptr(obj).ptr(key).u32(1716).b, event: "FileIO/Cleanup",
			want: "IrpPtr=0xFFFFFA83017FFB80 FileObject=0xFFFFFA83016048B0 FileKey=0xFFFFF8A0065FC620 TTID=1716"},
		{hook: 0x0449, version: 3, ps: 4, data: newPB(4).ptr(irp).ptr(obj).ptr(key).u32(1716).b, event: "FileIO/Flush",
			want: "IrpPtr=0x17FFB80 FileObject=0x16048B0 FileKey=0x65FC620 TTID=1716"},

		{hook: 0x0443, version: 2, ps: 8, data: newPB(8).u64(5475163648).ptr(irp).ptr(1716).ptr(obj).ptr(key).u32(13312).u32(0x900).b,
			event: "FileIO/Read",
			want: "Offset=5475163648 IrpPtr=0xFFFFFA83017FFB80 TTID=0x6B4 FileObject=0xFFFFFA83016048B0 " +
				"FileKey=0xFFFFF8A0065FC620 IoSize=13312 IoFlags=0x900"},
		{hook: 0x0444, version: 3, ps: 4, data: newPB(4).u64(4096).ptr(irp).ptr(obj).ptr(key).u32(1716).u32(512).u32(0).b,
			event: "FileIO/Write",
			want:  "Offset=4096 IrpPtr=0x17FFB80 FileObject=0x16048B0 FileKey=0x65FC620 TTID=1716 IoSize=512 IoFlags=0x0"},

		{hook: 0x0445, version: 2, ps: 4, data: newPB(4).ptr(irp).ptr(1716).ptr(obj).ptr(key).ptr(extra).u32(4).b,
			event: "FileIO/SetInfo",
			want:  "IrpPtr=0x17FFB80 TTID=0x6B4 FileObject=0x16048B0 FileKey=0x65FC620 ExtraInfo=0x1000 InfoClass=4"},
		{hook: 0x044A, version: 3, ps: 8, data: newPB(8).ptr(irp).ptr(obj).ptr(key).ptr(extra).u32(1716).u32(18).b,
			event: "FileIO/QueryInfo",
			want: "IrpPtr=0xFFFFFA83017FFB80 FileObject=0xFFFFFA83016048B0 FileKey=0xFFFFF8A0065FC620 " +
				"ExtraInfo=0xFFFFF8A000001000 TTID=1716 InfoClass=18"},
		{hook: 0x0447, version: 3, ps: 4, data: newPB(4).ptr(irp).ptr(obj).ptr(key).ptr(extra).u32(1716).u32(10).b,
			event: "FileIO/Rename",
			want:  "IrpPtr=0x17FFB80 FileObject=0x16048B0 FileKey=0x65FC620 ExtraInfo=0x1000 TTID=1716 InfoClass=10"},

		{hook: 0x0448, version: 2, ps: 8, data: newPB(8).ptr(irp).ptr(1716).ptr(obj).ptr(key).u32(616).u32(37).u32(0).w("*.dll").b,
			event: "FileIO/DirEnum",
			want: "IrpPtr=0xFFFFFA83017FFB80 TTID=0x6B4 FileObject=0xFFFFFA83016048B0 FileKey=0xFFFFF8A0065FC620 " +
				"Length=616 InfoClass=37 FileIndex=0 FileName=*.dll"},
		{hook: 0x044D, version: 3, ps: 4, data: newPB(4).ptr(irp).ptr(obj).ptr(key).u32(1716).u32(4096).u32(3).u32(2).w("").b,
			event: "FileIO/DirNotify",
			want:  "IrpPtr=0x17FFB80 FileObject=0x16048B0 FileKey=0x65FC620 TTID=1716 Length=4096 InfoClass=3 FileIndex=2 FileName="},

		{hook: 0x044C, version: 2, ps: 4, data: newPB(4).ptr(irp).ptr(2).u32(0xC0000034).b, event: "FileIO/OperationEnd",
			want: "IrpPtr=0x17FFB80 ExtraInfo=0x2 NtStatus=0xC0000034"},
		{hook: 0x044C, version: 3, ps: 8, data: newPB(8).ptr(irp).ptr(1).u32(0).b, event: "FileIO/OperationEnd",
			want: "IrpPtr=0xFFFFFA83017FFB80 ExtraInfo=0x1 NtStatus=0x0"},

		{hook: 0x0425, version: 2, ps: 8, data: newPB(8).ptr(0x7FF8A0000000).ptr(obj).u64(0x11).ptr(0x1A0000).u32(980).b,
			event: "FileIO/MapFile",
			want:  "ViewBase=0x7FF8A0000000 FileObject=0xFFFFFA83016048B0 MiscInfo=17 ViewSize=1703936 ProcessId=980"},
		{hook: 0x0428, version: 2, ps: 4, data: newPB(4).ptr(0x10000000).ptr(obj).u64(0x11).ptr(0x1A0000).u32(980).b,
			event: "FileIO/MapFileDCEnd",
			want:  "ViewBase=0x10000000 FileObject=0x16048B0 MiscInfo=17 ViewSize=1703936 ProcessId=980"},
		{hook: 0x0426, version: 3, ps: 8, data: newPB(8).ptr(0x7FF8A0000000).ptr(obj).u64(0).ptr(4096).u32(4).b,
			event: "FileIO/UnmapFile",
			want:  "ViewBase=0x7FF8A0000000 FileObject=0xFFFFFA83016048B0 MiscInfo=0 ViewSize=4096 ProcessId=4"},

		{hook: 0x0450, version: 3, ps: 8, data: newPB(8).ptr(irp).ptr(obj).ptr(key).ptr(extra).u32(1716).u32(10).w(`\new.txt`).b,
			event: "FileIO/RenamePath",
			want: "IrpPtr=0xFFFFFA83017FFB80 FileObject=0xFFFFFA83016048B0 FileKey=0xFFFFF8A0065FC620 " +
				`ExtraInfo=0xFFFFF8A000001000 TTID=1716 InfoClass=10 FileName=\new.txt`},
		{hook: 0x044F, version: 3, ps: 4, data: newPB(4).ptr(irp).ptr(obj).ptr(key).ptr(extra).u32(1716).u32(13).w(`\old.txt`).b,
			event: "FileIO/DeletePath",
			want:  `IrpPtr=0x17FFB80 FileObject=0x16048B0 FileKey=0x65FC620 ExtraInfo=0x1000 TTID=1716 InfoClass=13 FileName=\old.txt`},
		{hook: 0x0460, version: 3, ps: 4, data: newPB(4).ptr(0x80001000).ptr(obj).ptr(0x2000).ptr(irp).ptr(0x3000).u32(3).b,
			event: "FileIO/PreOpInit",
			want:  "RoutineAddr=0x80001000 FileObject=0x16048B0 FileContext=0x2000 IrpPtr=0x17FFB80 CallbackDataPtr=0x3000 MajorFunction=3"},
		{hook: 0x0463, version: 3, ps: 8, data: newPB(8).u64(1955107211).ptr(0x80001000).ptr(obj).ptr(0x2000).ptr(irp).ptr(0x3000).u32(4).b,
			event: "FileIO/PostOpCompletion",
			want: "InitialTime=1955107211 RoutineAddr=0x80001000 FileObject=0xFFFFFA83016048B0 FileContext=0x2000 " +
				"IrpPtr=0xFFFFFA83017FFB80 CallbackDataPtr=0x3000 MajorFunction=4"},
		{hook: 0x0464, version: 3, ps: 4, data: newPB(4).ptr(0x80001000).ptr(obj).ptr(0x2000).ptr(irp).ptr(0x3000).u32(0).u32(0xC0000022).b,
			event: "FileIO/PreOpFailure",
			want: "RoutineAddr=0x80001000 FileObject=0x16048B0 FileContext=0x2000 IrpPtr=0x17FFB80 CallbackDataPtr=0x3000 " +
				"MajorFunction=0 Status=0xC0000022"},
	})
}
