package kernel

// Pool group (0x0E), kernel-events.md §18.3: kernel pool allocations and
// frees, and pool snapshots (whose payload the MOF leaves empty). SessionId
// is signed, as the process events' SessionID: -1 is no session.

const groupPool = 0x0E

func init() {
	later(func() {
		const g = groupPool
		register(
			class{name: "PoolAllocFree", group: g, version: 2, opcodes: []uint8{32, 34}, fields: fields(
				u32("Type"), hex(u32("Tag")), size("NumberOfBytes"), ptr("Entry"))},
			class{name: "SessionPoolAllocFree", group: g, version: 2, opcodes: []uint8{33, 35}, fields: fields(
				u32("Type"), hex(u32("Tag")), size("NumberOfBytes"), ptr("Entry"), i32("SessionId"))},
			class{name: "PoolSnapshot", group: g, version: 2, opcodes: []uint8{40, 41, 42, 43, 44, 45, 46, 47}, fields: fields()},
		)
	})
}
