package kernel

// SplitIo group (0x1B), kernel-events.md §18.1: a disk request split into
// several (by a volume manager, e.g. for mirroring).

const groupSplitIo = 0x1B

func init() {
	later(func() {
		register(class{name: "SplitIo_Info", group: groupSplitIo, version: 2, opcodes: []uint8{32}, fields: fields(
			ptr("ParentIrp"), ptr("ChildIrp"))})
	})
}
