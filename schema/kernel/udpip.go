package kernel

// UdpIp group (0x08), kernel-events.md §13: UDP sends and receives, with
// the address and port encoding of TcpIp (tcpip.go).

const groupUdpIp = 0x08

func init() {
	later(func() {
		const g = groupUdpIp
		register(
			// v0 has its own order and 16-bit sizes.
			class{name: "UdpIp_V0_TypeGroup1", group: g, version: 0, opcodes: []uint8{10, 11}, fields: fields(
				ptr("context"), ipv4("saddr"), port("sport"), u16("size"), ipv4("daddr"), port("dport"), u16("dsize"))},
			class{name: "UdpIp_V1_TypeGroup1", group: g, version: 1, opcodes: []uint8{10, 11}, fields: endpoints(ipv4)},
			class{name: "UdpIp_TypeGroup1", group: g, version: 2, opcodes: []uint8{10, 11}, fields: append(
				endpoints(ipv4), u32("seqnum"), ptr("connid"))},
			class{name: "UdpIp_Fail", group: g, version: 2, opcodes: []uint8{17}, fields: fields(
				u16("Proto"), u16("FailureCode"))},
			class{name: "UdpIp_TypeGroup2", group: g, version: 2, opcodes: []uint8{26, 27}, fields: append(
				endpoints(ipv6), u32("seqnum"), ptr("connid"))},
		)
	})
}
