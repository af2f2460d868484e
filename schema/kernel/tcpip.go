package kernel

import "github.com/etlkit/etlkit/payload"

// TcpIp group (0x06), kernel-events.md §12: TCP sends, receives,
// connections and retransmits, for IPv4 (opcodes 10–22) and IPv6
// (26–34). Addresses are in network order, ports big-endian; PID is the
// process that owns the connection, which the header may not name.

const groupTcpIp = 0x06

// endpoints are the fields every TCP and UDP event of v1 and later starts
// with: the owning process, the size, and the two ends of the connection.
func endpoints(addr func(string) payload.Field) []payload.Field {
	return fields(u32("PID"), u32("size"), addr("daddr"), addr("saddr"), port("dport"), port("sport"))
}

// tcpOptions are the TCP options a connect or accept negotiated.
func tcpOptions() []payload.Field {
	return fields(u16("mss"), u16("sackopt"), u16("tsopt"), u16("wsopt"), u32("rcvwin"), i16("rcvwinscale"),
		i16("sndwinscale"))
}

func init() {
	later(func() {
		const g = groupTcpIp
		// v1 comes in two forms: the class pages give opcodes 10–16 only the
		// six endpoint fields (20 bytes), the MOF adds a connection id and a
		// sequence number and more; optional marks where the short form ends.
		v1 := func(rest ...payload.Field) []payload.Field {
			rest[0] = optional(rest[0])
			return append(endpoints(ipv4), rest...)
		}
		connSeq := func() []payload.Field { return fields(ptr("connid"), u32("seqnum")) }
		seqConn := func() []payload.Field { return fields(u32("seqnum"), ptr("connid")) }
		register(
			class{name: "TcpIp_V0_TypeGroup1", group: g, version: 0, opcodes: []uint8{10, 11, 12, 13, 14, 15}, fields: fields(
				ipv4("daddr"), ipv4("saddr"), port("dport"), port("sport"), u32("size"), u32("PID"))},

			class{name: "TcpIp_V1_Send", group: g, version: 1, opcodes: []uint8{10}, fields: v1(
				u32("startime"), u32("endtime"), ptr("connid"), u32("seqnum"))},
			class{name: "TcpIp_V1_Receive", group: g, version: 1, opcodes: []uint8{11}, fields: v1(connSeq()...)},
			class{name: "TcpIp_V1_TypeGroup1", group: g, version: 1, opcodes: []uint8{13, 14, 16}, fields: v1(connSeq()...)},
			class{name: "TcpIp_V1_TypeGroup2", group: g, version: 1, opcodes: []uint8{12, 15}, fields: v1(
				append(tcpOptions(), connSeq()...)...)},
			class{name: "TcpIp_V1_Fail", group: g, version: 1, opcodes: []uint8{17}, fields: fields(u32("Proto"))},
			class{name: "TcpIp_V1_TypeGroup3", group: g, version: 1, opcodes: []uint8{18, 19, 20, 21, 22}, fields: append(
				endpoints(ipv4), connSeq()...)},

			class{name: "TcpIp_SendIPV4", group: g, version: 2, opcodes: []uint8{10}, fields: append(endpoints(ipv4),
				u32("startime"), u32("endtime"), u32("seqnum"), ptr("connid"))},
			class{name: "TcpIp_TypeGroup1", group: g, version: 2, opcodes: []uint8{11, 13, 14, 16, 18}, fields: append(
				endpoints(ipv4), seqConn()...)},
			class{name: "TcpIp_TypeGroup2", group: g, version: 2, opcodes: []uint8{12, 15}, fields: append(append(
				endpoints(ipv4), tcpOptions()...), seqConn()...)},
			class{name: "TcpIp_Fail", group: g, version: 2, opcodes: []uint8{17}, fields: fields(
				u16("Proto"), u16("FailureCode"))},
			class{name: "TcpIp_SendIPV6", group: g, version: 2, opcodes: []uint8{26}, fields: append(endpoints(ipv6),
				u32("startime"), u32("endtime"), u32("seqnum"), ptr("connid"))},
			class{name: "TcpIp_TypeGroup3", group: g, version: 2, opcodes: []uint8{27, 29, 30, 32, 34}, fields: append(
				endpoints(ipv6), seqConn()...)},
			class{name: "TcpIp_TypeGroup4", group: g, version: 2, opcodes: []uint8{28, 31}, fields: append(append(
				endpoints(ipv6), tcpOptions()...), seqConn()...)},
		)
	})
}
