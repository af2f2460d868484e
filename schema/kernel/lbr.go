package kernel

import "github.com/etlkit/etlkit/payload"

// Lbr group (0x0C, SPARE1 in ntwmi.h), kernel-events.md §18.11: last
// branch records. The entries fill the rest of the payload; each is three
// pointer-sized values, as the pointer qualifier of their uint64
// declarations says (not checked on a real trace).

const groupLbr = 0x0C

func init() {
	later(func() {
		entry := payload.Field{Name: "Entries", InType: payload.InStruct, Members: fields(
			ptr("FromAddress"), ptr("ToAddress"), ptr("Reserved"))}
		register(class{name: "LbrRecord_V2", group: groupLbr, version: 2, opcodes: []uint8{32}, fields: fields(
			u64("TimeStamp"), u32("ProcessId"), u32("ThreadId"), hex(u32("Options")), toEnd(entry))})
	})
}
