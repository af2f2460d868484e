package kernel

// Wnf group (0x0D), kernel-events.md §18.9: Windows Notification
// Facility subscriptions, callbacks and publications.

const groupWnf = 0x0D

func init() {
	later(func() {
		const g = groupWnf
		register(
			class{name: "WNFSubUnsub", group: g, version: 2, opcodes: []uint8{32, 33}, fields: fields(
				hex(u64("StateName")), ptr("Subscription"), ptr("NameSub"), ptr("Callback"), u32("RefCount"),
				hex(u32("DeliveryFlags")))},
			class{name: "WNFCallback", group: g, version: 2, opcodes: []uint8{34}, fields: fields(
				hex(u64("StateName")), ptr("Subscription"), ptr("NameSub"), ptr("Callback"), u32("ChangeStamp"),
				hex(u32("DeliveryFlags")), hex(u32("Return")))},
			class{name: "WNFPublish", group: g, version: 2, opcodes: []uint8{35}, fields: fields(
				hex(u64("StateName")), u32("DataLength"))},
			class{name: "WNFNameSubRundown", group: g, version: 2, opcodes: []uint8{36}, fields: fields(
				hex(u64("StateName")), ptr("NameSub"))},
		)
	})
}
