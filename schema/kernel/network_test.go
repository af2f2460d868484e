package kernel_test

import "testing"

// v6 writes the two IPv6 addresses of the merged .NET sample's SMB
// connection.
func (p *pb) v6() *pb {
	return p.raw(0x20, 0x01, 0x48, 0x98, 0x00, 0xe0, 0x00, 0x81, 0x7c, 0xb9, 0x00, 0xab, 0x0c, 0xd5, 0xe6, 0xaf).
		raw(0x20, 0x01, 0x48, 0x98, 0x00, 0xf0, 0x00, 0x26, 0xb1, 0x8e, 0xe8, 0x5f, 0xdb, 0x5d, 0x08, 0xe8)
}

const v6Ends = "daddr=2001:4898:e0:81:7cb9:ab:cd5:e6af saddr=2001:4898:f0:26:b18e:e85f:db5d:8e8"

// TestTcpIpFields decodes a payload of every TcpIp class: addresses in
// network order, big-endian ports, pointer-sized connection ids.
func TestTcpIpFields(t *testing.T) {
	ends := func(ps int) *pb {
		return newPB(ps).u32(4).u32(1460).ip4(10, 128, 0, 55).ip4(10, 128, 3, 255).be16(445).be16(64025)
	}
	const e4 = "PID=4 size=1460 daddr=10.128.0.55 saddr=10.128.3.255 dport=445 sport=64025"
	options := func(p *pb) *pb { return p.u16(1460).u16(1).u16(0).u16(1).u32(65535).u16(8).u16(0xFFFF) }
	const o = "mss=1460 sackopt=1 tsopt=0 wsopt=1 rcvwin=65535 rcvwinscale=8 sndwinscale=-1"
	checkFields(t, []fieldCase{
		{hook: 0x060A, version: 0, ps: 4, data: newPB(4).ip4(10, 128, 0, 55).ip4(10, 128, 3, 255).be16(445).be16(64025).u32(1460).u32(4).b,
			event: "TcpIp/Send", want: "daddr=10.128.0.55 saddr=10.128.3.255 dport=445 sport=64025 size=1460 PID=4"},

		{hook: 0x060A, version: 1, ps: 8, data: ends(8).u32(100).u32(101).ptr(0xFFFFFA8300001000).u32(7).b,
			event: "TcpIp/Send", want: e4 + " startime=100 endtime=101 connid=0xFFFFFA8300001000 seqnum=7"},
		{hook: 0x060A, version: 1, ps: 4, data: ends(4).b, event: "TcpIp/Send", want: e4},
		{hook: 0x060B, version: 1, ps: 4, data: ends(4).ptr(0x83001000).u32(7).b,
			event: "TcpIp/Recv", want: e4 + " connid=0x83001000 seqnum=7"},
		{hook: 0x060D, version: 1, ps: 8, data: ends(8).ptr(0xFFFFFA8300001000).u32(7).b,
			event: "TcpIp/Disconnect", want: e4 + " connid=0xFFFFFA8300001000 seqnum=7"},
		{hook: 0x060C, version: 1, ps: 8, data: options(ends(8)).ptr(0xFFFFFA8300001000).u32(7).b,
			event: "TcpIp/Connect", want: e4 + " " + o + " connid=0xFFFFFA8300001000 seqnum=7"},
		{hook: 0x060F, version: 1, ps: 4, data: ends(4).b, event: "TcpIp/Accept", want: e4},
		{hook: 0x0611, version: 1, ps: 4, data: newPB(4).u32(6).b, event: "TcpIp/Fail", want: "Proto=6"},
		{hook: 0x0613, version: 1, ps: 4, data: ends(4).ptr(0x83001000).u32(7).b,
			event: "TcpIp/ARPCopy", want: e4 + " connid=0x83001000 seqnum=7"},

		{hook: 0x060A, version: 2, ps: 8, data: ends(8).u32(1942).u32(1943).u32(0).ptr(0xFFFFFA8300001000).b,
			event: "TcpIp/Send", want: e4 + " startime=1942 endtime=1943 seqnum=0 connid=0xFFFFFA8300001000"},
		{hook: 0x060A, version: 2, ps: 4, data: ends(4).u32(1942).u32(1943).u32(0).ptr(0x83001000).b,
			event: "TcpIp/Send", want: e4 + " startime=1942 endtime=1943 seqnum=0 connid=0x83001000"},
		{hook: 0x0612, version: 2, ps: 4, data: ends(4).u32(9).ptr(0x83001000).b,
			event: "TcpIp/TCPCopy", want: e4 + " seqnum=9 connid=0x83001000"},
		{hook: 0x060F, version: 2, ps: 8, data: options(ends(8)).u32(9).ptr(0xFFFFFA8300001000).b,
			event: "TcpIp/Accept", want: e4 + " " + o + " seqnum=9 connid=0xFFFFFA8300001000"},
		{hook: 0x0611, version: 2, ps: 8, data: newPB(8).u16(6).u16(2).b, event: "TcpIp/Fail", want: "Proto=6 FailureCode=2"},

		// The SMB connection of the merged .NET sample (TraceEvent prints
		// size=65,652 … dport=445; sport=64,025; startime=1,942; …).
		{hook: 0x061A, version: 2, ps: 8, data: newPB(8).u32(4).u32(65652).v6().be16(445).be16(64025).u32(1942).u32(1942).u32(0).ptr(0).b,
			event: "TcpIp/SendIPV6", want: "PID=4 size=65652 " + v6Ends + " dport=445 sport=64025 startime=1942 endtime=1942 seqnum=0 connid=0x0"},
		{hook: 0x061B, version: 2, ps: 4, data: newPB(4).u32(4).u32(84).v6().be16(445).be16(64025).u32(3).ptr(0x83001000).b,
			event: "TcpIp/RecvIPV6", want: "PID=4 size=84 " + v6Ends + " dport=445 sport=64025 seqnum=3 connid=0x83001000"},
		{hook: 0x061C, version: 2, ps: 8, data: options(newPB(8).u32(4).u32(0).v6().be16(445).be16(64025)).u32(3).ptr(0xFFFFFA8300001000).b,
			event: "TcpIp/ConnectIPV6", want: "PID=4 size=0 " + v6Ends + " dport=445 sport=64025 " + o + " seqnum=3 connid=0xFFFFFA8300001000"},
	})
}

// TestUdpIpFields decodes a payload of every UdpIp class.
func TestUdpIpFields(t *testing.T) {
	// The SSDP datagram of the merged .NET sample: TraceEvent prints
	// saddr=10.128.0.117; sport=60,441; size=173; daddr=239.255.255.250;
	// dport=1,900.
	recv := newPB(8).u32(2108).u32(173).ip4(239, 255, 255, 250).ip4(10, 128, 0, 117).be16(1900).be16(60441).u32(0).ptr(0).b
	checkFields(t, []fieldCase{
		{hook: 0x080A, version: 0, ps: 8, data: newPB(8).ptr(0xFFFFFA8300002000).ip4(10, 128, 0, 117).be16(60441).u16(173).
			ip4(239, 255, 255, 250).be16(1900).u16(173).b, event: "UdpIp/Send",
			want: "context=0xFFFFFA8300002000 saddr=10.128.0.117 sport=60441 size=173 daddr=239.255.255.250 dport=1900 dsize=173"},
		{hook: 0x080B, version: 0, ps: 4, data: newPB(4).ptr(0x83002000).ip4(10, 128, 0, 117).be16(60441).u16(173).
			ip4(239, 255, 255, 250).be16(1900).u16(0).b, event: "UdpIp/Recv",
			want: "context=0x83002000 saddr=10.128.0.117 sport=60441 size=173 daddr=239.255.255.250 dport=1900 dsize=0"},
		{hook: 0x080A, version: 1, ps: 4, data: newPB(4).u32(2108).u32(173).ip4(239, 255, 255, 250).ip4(10, 128, 0, 117).
			be16(1900).be16(60441).b, event: "UdpIp/Send",
			want: "PID=2108 size=173 daddr=239.255.255.250 saddr=10.128.0.117 dport=1900 sport=60441"},
		{hook: 0x080B, version: 2, ps: 8, data: recv, event: "UdpIp/Recv",
			want: "PID=2108 size=173 daddr=239.255.255.250 saddr=10.128.0.117 dport=1900 sport=60441 seqnum=0 connid=0x0"},
		{hook: 0x080A, version: 2, ps: 4, data: newPB(4).u32(4).u32(201).ip4(10, 128, 3, 255).ip4(10, 128, 0, 55).be16(138).
			be16(138).u32(1).ptr(0x83002000).b, event: "UdpIp/Send",
			want: "PID=4 size=201 daddr=10.128.3.255 saddr=10.128.0.55 dport=138 sport=138 seqnum=1 connid=0x83002000"},
		{hook: 0x0811, version: 2, ps: 8, data: newPB(8).u16(17).u16(1).b, event: "UdpIp/Fail", want: "Proto=17 FailureCode=1"},
		{hook: 0x081A, version: 2, ps: 4, data: newPB(4).u32(2108).u32(146).v6().be16(1900).be16(53190).u32(0).ptr(0x83002000).b,
			event: "UdpIp/SendIPV6", want: "PID=2108 size=146 " + v6Ends + " dport=1900 sport=53190 seqnum=0 connid=0x83002000"},
		{hook: 0x081B, version: 2, ps: 8, data: newPB(8).u32(2108).u32(367).v6().be16(53191).be16(1900).u32(0).ptr(0).b,
			event: "UdpIp/RecvIPV6", want: "PID=2108 size=367 " + v6Ends + " dport=53191 sport=1900 seqnum=0 connid=0x0"},
	})
}
