package kernel

import (
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// Image group (0x14), kernel-events.md §6; Load arrives as HookId 0x030A
// too (LookupRecord sends it here). TraceEvent's names are used in every
// version (ImageBase, ImageSize and FileName for the v0 MOF's BaseAddress,
// ModuleSize and ImageFileName), and every event that carries a
// TimeDateStamp gets TraceEvent's BuildTime beside it.

// imageTimeDateStamp is the index of TimeDateStamp in the v2 and v3
// layouts.
const imageTimeDateStamp = 4

func init() {
	later(func() {
		const g = record.GroupImage
		load := []uint8{10, 2, 3, 4}
		loader := func(text ...payload.Field) []payload.Field {
			return append(fields(u64("BaseAddress"), u8("ErrorOpcode"), i8("Code")), text...)
		}
		basic := make([]uint8, 0, 8)
		for op := uint8(128); op <= 135; op++ {
			basic = append(basic, op)
		}
		register(
			class{name: "Image_V0_Load", group: g, version: 0, opcodes: []uint8{10}, fields: fields(
				ptr("ImageBase"), u32("ImageSize"), wstr("FileName"))},
			class{name: "Image_V1_Load", group: g, version: 1, opcodes: []uint8{10}, fields: fields(
				ptr("ImageBase"), size("ImageSize"), u32("ProcessID"), wstr("FileName"))},
			class{name: "Image_Load_V2", group: g, version: 2, opcodes: load, computed: withBuildTime(imageTimeDateStamp), fields: fields(
				ptr("ImageBase"), size("ImageSize"), u32("ProcessID"), u32("ImageChecksum"), u32("TimeDateStamp"),
				u32("Reserved0"), ptr("DefaultBase"), u32("Reserved1"), u32("Reserved2"), u32("Reserved3"),
				u32("Reserved4"), wstr("FileName"))},
			class{name: "KernelImageBase", group: g, version: 2, opcodes: []uint8{33}, fields: fields(ptr("ImageBase")),
				provider: SystemTraceName},
			class{name: "HypercallPage", group: g, version: 2, opcodes: []uint8{34}, fields: fields(ptr("HypercallPageVa"))},
			class{name: "LoaderBasicEvent", group: g, version: 2, opcodes: basic, fields: fields()},
			class{name: "LoaderBaseEvent", group: g, version: 2, opcodes: []uint8{144, 145, 146, 147, 148, 149, 150},
				fields: fields(u64("BaseAddress"))},
			class{name: "LoaderCodedEvent", group: g, version: 2, opcodes: []uint8{160, 161, 162, 163, 164},
				fields: loader(wstr("String"))},
			class{name: "Image_Load", group: g, version: 3, opcodes: load, computed: withBuildTime(imageTimeDateStamp), fields: fields(
				ptr("ImageBase"), size("ImageSize"), u32("ProcessID"), u32("ImageChecksum"), u32("TimeDateStamp"),
				u8("SignatureLevel"), u8("SignatureType"), u16("Reserved0"), ptr("DefaultBase"), u32("Reserved1"),
				u32("Reserved2"), u32("Reserved3"), u32("Reserved4"), wstr("FileName"))},
			class{name: "LoaderCodedEventStatus", group: g, version: 3, opcodes: []uint8{
				165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 208, 209, 210, 211}, fields: loader(wstr("String"))},
			class{name: "LoaderCodedEventPath", group: g, version: 3, opcodes: []uint8{192, 193},
				fields: loader(wstr("String1"), wstr("String2"))},
			class{name: "LoaderNewDllEvent", group: g, version: 3, opcodes: []uint8{176, 177}, fields: fields(
				ptr("NewDllBaseAddress"), ptr("ParentDllBaseAddress"), u32("LoadReason"), wstr("FilePath"))},
			class{name: "LoaderDllSearchResults", group: g, version: 3, opcodes: []uint8{212}, fields: fields(
				hex(u32("LdrLoadFlags")), hex(u32("LdrSearchFlags")), u32("SearchInfo"), u32("LoadReason"), wstr("FullDllName"))},
			class{name: "LoaderPathSearchResults", group: g, version: 3, opcodes: []uint8{213}, fields: fields(
				u32("SearchInfo"), wstr("Cwd"), wstr("AppDir"), wstr("DllDir"), wstr("DllLoadDir"))},
		)
	})
}
