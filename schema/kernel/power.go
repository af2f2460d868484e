package kernel

// Power group (0x12), kernel-events.md §18.5: of its events only
// IdleExitLatency has a MOF layout.

const groupPower = 0x12

func init() {
	later(func() {
		register(class{name: "IdleExitLatency", group: groupPower, version: 2, opcodes: []uint8{60}, fields: fields(
			hex(u32("Flags")), u32("PlatformState"), u32("ProcessorState"), u32("ReturnLatency"), u32("TotalLatency"))})
	})
}
