package kernel

// Ums group (0x19), kernel-events.md §18.10: user-mode scheduling.

const groupUms = 0x19

func init() {
	later(func() {
		const g = groupUms
		register(
			class{name: "UmsDirectedSwitchStart", group: g, version: 2, opcodes: []uint8{32}, fields: fields(
				u32("ProcessId"), u32("ScheduledThreadId"), u32("PrimaryThreadId"), hex(u32("SwitchFlags")))},
			class{name: "UmsDirectedSwitchEnd", group: g, version: 2, opcodes: []uint8{33}, fields: fields(
				u32("ProcessId"), u32("ScheduledThreadId"), u32("PrimaryThreadId"), hex(u32("SwitchFlags")))},
			class{name: "UmsScheduledPark", group: g, version: 2, opcodes: []uint8{34}, fields: fields(
				u32("ProcessId"), u32("ScheduledThreadId"), hex(u32("ParkFlags")))},
			class{name: "UmsDisassociate", group: g, version: 2, opcodes: []uint8{35}, fields: fields(
				u32("ProcessId"), u32("ScheduledThreadId"), u32("PrimaryThreadId"), hex(u32("UmsApcControlFlags")),
				hex(u32("Status")))},
			class{name: "UmsContextSwitch", group: g, version: 2, opcodes: []uint8{36}, fields: fields(
				u32("ScheduledThreadId"), u32("SwitchCount"), u32("KernelYieldCount"), u32("MixedYieldCount"),
				u32("YieldCount"))},
		)
	})
}
