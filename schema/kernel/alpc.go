package kernel

// ALPC group (0x1A), kernel-events.md §15: messages on advanced local
// procedure call ports. The MOF names its events ALPC-Send-Message and
// so on.

const groupALPC = 0x1A

func init() {
	later(func() {
		const g = groupALPC
		register(
			class{name: "ALPC_Send_Message", group: g, version: 2, opcodes: []uint8{33}, fields: fields(u32("MessageID"))},
			class{name: "ALPC_Receive_Message", group: g, version: 2, opcodes: []uint8{34}, fields: fields(u32("MessageID"))},
			class{name: "ALPC_Wait_For_Reply", group: g, version: 2, opcodes: []uint8{35}, fields: fields(u32("MessageID"))},
			class{name: "ALPC_Wait_For_New_Message", group: g, version: 2, opcodes: []uint8{36}, fields: fields(
				u32("IsServerPort"), wstr("PortName"))},
			class{name: "ALPC_Unwait", group: g, version: 2, opcodes: []uint8{37}, fields: fields(hex(u32("Status")))},
		)
	})
}
