package packettest

import (
	"io"

	"github.com/etlkit/etlkit/etltest"
)

// NDISPackets returns a capture with a packet of every media, whole and in
// fragments, both directions and none, a truncated frame, a filter over a
// miniport, the Hyper-V switch's event and the Wi-Fi metadata, logged on
// four processors.
func NDISPackets() []NDISPacket {
	ts := int64(2_000_000_000)
	next := func() int64 { ts += 1000; return ts }
	long := Ethernet(IPv4UDP(1000, 5))
	return []NDISPacket{
		{Name: "Ethernet in 3 fragments, send", CPU: 0, TimeStamp: next(), ProcessID: 1234, ThreadID: 5678, MiniportIfIndex: 7, LowerIfIndex: 7,
			Media: KeywordEthernet, Direction: KeywordSend, Data: Ethernet(IPv4UDP(1400, 1)), Fragments: 3},
		{Name: "802.11 in 2 fragments, receive, metadata, Protected on cleartext", CPU: 1, Metadata: true, TimeStamp: next(), ProcessID: 4, ThreadID: 100,
			MiniportIfIndex: 12, LowerIfIndex: 12, Media: KeywordNative80211, Direction: KeywordReceive, Data: Dot11(IPv4UDP(600, 2), true), Fragments: 2},
		{Name: "WWAN IPv4 in 4 fragments", CPU: 2, TimeStamp: next(), ProcessID: 4, ThreadID: 8, MiniportIfIndex: 20, LowerIfIndex: 20,
			Media: KeywordWirelessWAN, Direction: KeywordReceive, Data: IPv4UDP(900, 3), Fragments: 4},
		{Name: "WWAN IPv6 whole", CPU: 2, TimeStamp: next(), ProcessID: 4, ThreadID: 8, MiniportIfIndex: 20, LowerIfIndex: 20,
			Media: KeywordWirelessWAN, Direction: KeywordSend, Data: IPv6UDP(300, 4)},
		{Name: "truncated Ethernet", CPU: 0, TimeStamp: next(), ProcessID: 4, ThreadID: 9, MiniportIfIndex: 7, LowerIfIndex: 7,
			Media: KeywordEthernet, Direction: KeywordReceive, Data: long[:128], Truncated: true, Fragments: 2},
		{Name: "tunnel carrying IP", CPU: 3, TimeStamp: next(), ProcessID: 4, ThreadID: 9, MiniportIfIndex: 30, LowerIfIndex: 30,
			Media: KeywordTunnel, Direction: KeywordSend, Data: IPv4UDP(200, 6)},
		{Name: "tunnel carrying Ethernet", CPU: 3, TimeStamp: next(), ProcessID: 4, ThreadID: 9, MiniportIfIndex: 30, LowerIfIndex: 30,
			Media: KeywordTunnel, Direction: KeywordSend, Data: Ethernet(IPv6UDP(200, 7))},
		{Name: "filter over a miniport", CPU: 1, TimeStamp: next(), ProcessID: 4, ThreadID: 9, MiniportIfIndex: 7, LowerIfIndex: 9,
			Media: KeywordEthernet, Direction: KeywordReceive, Data: Ethernet(IPv6UDP(120, 9)), Fragments: 2},
		{Name: "no media and no direction bit", CPU: 0, TimeStamp: next(), MiniportIfIndex: 7, LowerIfIndex: 7,
			Data: Ethernet(IPv4UDP(64, 10))},
		{Name: "Hyper-V switch in 2 fragments", CPU: 2, TimeStamp: next(), ProcessID: 4, ThreadID: 11, MiniportIfIndex: 40, LowerIfIndex: 41,
			Media: KeywordEthernet, Direction: KeywordSend, Data: Ethernet(IPv4UDP(500, 8)), Fragments: 2,
			VMSwitch: &VMSwitch{SourcePortID: 77, PortName: "port-1", NicName: "vm nic", NicType: "Synthetic", Destinations: 2,
				VlanID: 42, UserPriority: 5, HashValue: 0xdeadbeef}},
	}
}

// NDISSession is the session of the NDIS traces: QPC at 10 MHz, so that a
// raw tick is 100 ns.
func NDISSession() etltest.Session {
	s := etltest.DefaultSession()
	s.DataBuffer.ProcIndex = true
	return s
}

// WriteNDIS writes a trace with the packets' events, each on its
// processor, so that the fragments of packets on different processors
// interleave in time.
func WriteNDIS(w io.Writer, pkts []NDISPacket) error {
	b, err := etltest.NewBuilder(w, NDISSession())
	if err != nil {
		return err
	}
	for _, p := range pkts {
		if p.Metadata {
			b.CPU(p.CPU).Add(NDISMetadata(p.TimeStamp-1, p.MiniportIfIndex, p.LowerIfIndex, 1, 10, 5180, 1, -52, 12))
		}
		for _, ev := range p.Events() {
			b.CPU(p.CPU).Add(ev)
		}
	}
	return b.Close()
}
