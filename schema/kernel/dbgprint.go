package kernel

// DbgPrint group (0x0A, the MOF's Debugger), kernel-events.md §18.6: the
// DbgPrint output of kernel components, an 8-bit string.

const groupDbgPrint = 0x0A

func init() {
	later(func() {
		register(class{name: "DebugPrint_Event", group: groupDbgPrint, version: 2, opcodes: []uint8{32}, fields: fields(
			u32("Component"), u32("Level"), astr("Message"))})
	})
}
