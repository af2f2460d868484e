package packets_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	pt "github.com/etlkit/etlkit/internal/packettest"
	"github.com/etlkit/etlkit/packets"
)

// ndisCase is one packet of the NDIS trace and what must come out of it.
type ndisCase struct {
	name string
	cpu  int
	pkt  pt.NDISPacket
	// metadata, when set, is logged just before the packet.
	metadata bool
	// Expected.
	link      packets.LinkType
	source    packets.Source
	dir       packets.Direction
	original  int // len(Data) when 0
	data      []byte
	comment   []string
	unchanged bool // data as logged
}

// ndisCases covers every media keyword, fragmented and whole, both
// directions and none, a truncated frame, a filter over a miniport, the
// Hyper-V switch's event and the Wi-Fi metadata.
func ndisCases() []ndisCase {
	ts := int64(2_000_000_000)
	next := func() int64 { ts += 1000; return ts }
	eth := pt.Ethernet(pt.IPv4UDP(1400, 1))
	wifi := pt.Dot11(pt.IPv4UDP(600, 2), true)
	wifiClear := bytes.Clone(wifi)
	wifiClear[1] &^= 0x40
	raw4 := pt.IPv4UDP(900, 3)
	raw6 := pt.IPv6UDP(300, 4)
	long := pt.Ethernet(pt.IPv4UDP(1000, 5))
	tunnelIP := pt.IPv4UDP(200, 6)
	tunnelEth := pt.Ethernet(pt.IPv6UDP(200, 7))
	vms := pt.Ethernet(pt.IPv4UDP(500, 8))
	lwf := pt.Ethernet(pt.IPv6UDP(120, 9))
	none := pt.Ethernet(pt.IPv4UDP(64, 10))
	return []ndisCase{
		{name: "Ethernet in 3 fragments, send", cpu: 0,
			pkt:  pt.NDISPacket{TimeStamp: next(), ProcessID: 1234, ThreadID: 5678, MiniportIfIndex: 7, LowerIfIndex: 7, Media: pt.KeywordEthernet, Direction: pt.KeywordSend, Data: eth, Fragments: 3},
			link: packets.LinkTypeEthernet, source: packets.SourceNDIS, dir: packets.Outbound, comment: []string{"PID=1234 TID=5678"}},
		{name: "802.11 in 2 fragments, receive, metadata, Protected on cleartext", cpu: 1, metadata: true,
			pkt:  pt.NDISPacket{TimeStamp: next(), ProcessID: 4, ThreadID: 100, MiniportIfIndex: 12, LowerIfIndex: 12, Media: pt.KeywordNative80211, Direction: pt.KeywordReceive, Data: wifi, Fragments: 2},
			link: packets.LinkTypeIEEE80211, source: packets.SourceNDIS, dir: packets.Inbound, data: wifiClear,
			comment: []string{"ReceiveFlags=0x1 PhyType=802.11ax CenterFrequencyMHz=5180 MPDUsReceived=1 RSSIdBm=-52 DataRateIndex=12",
				"Protected bit cleared: the frame was logged decrypted"}},
		{name: "WWAN IPv4 in 4 fragments", cpu: 2,
			pkt:  pt.NDISPacket{TimeStamp: next(), ProcessID: 4, ThreadID: 8, MiniportIfIndex: 20, LowerIfIndex: 20, Media: pt.KeywordWirelessWAN, Direction: pt.KeywordReceive, Data: raw4, Fragments: 4},
			link: packets.LinkTypeRaw, source: packets.SourceNDIS, dir: packets.Inbound, unchanged: true},
		{name: "WWAN IPv6 whole", cpu: 2,
			pkt:  pt.NDISPacket{TimeStamp: next(), ProcessID: 4, ThreadID: 8, MiniportIfIndex: 20, LowerIfIndex: 20, Media: pt.KeywordWirelessWAN, Direction: pt.KeywordSend, Data: raw6},
			link: packets.LinkTypeRaw, source: packets.SourceNDIS, dir: packets.Outbound, unchanged: true},
		{name: "truncated Ethernet: original length from the IP header", cpu: 0,
			pkt:  pt.NDISPacket{TimeStamp: next(), ProcessID: 4, ThreadID: 9, MiniportIfIndex: 7, LowerIfIndex: 7, Media: pt.KeywordEthernet, Direction: pt.KeywordReceive, Data: long[:128], Truncated: true, Fragments: 2},
			link: packets.LinkTypeEthernet, source: packets.SourceNDIS, dir: packets.Inbound, original: len(long), unchanged: true,
			comment: []string{"truncated by the capture", "original length from the IP header"}},
		{name: "tunnel carrying IP", cpu: 3,
			pkt:  pt.NDISPacket{TimeStamp: next(), ProcessID: 4, ThreadID: 9, MiniportIfIndex: 30, LowerIfIndex: 30, Media: pt.KeywordTunnel, Direction: pt.KeywordSend, Data: tunnelIP},
			link: packets.LinkTypeRaw, source: packets.SourceNDIS, dir: packets.Outbound, unchanged: true,
			comment: []string{"tunnel medium: the bytes are an IP packet"}},
		{name: "tunnel carrying Ethernet", cpu: 3,
			pkt:  pt.NDISPacket{TimeStamp: next(), ProcessID: 4, ThreadID: 9, MiniportIfIndex: 30, LowerIfIndex: 30, Media: pt.KeywordTunnel, Direction: pt.KeywordSend, Data: tunnelEth},
			link: packets.LinkTypeEthernet, source: packets.SourceNDIS, dir: packets.Outbound, unchanged: true},
		{name: "filter over a miniport", cpu: 1,
			pkt:  pt.NDISPacket{TimeStamp: next(), ProcessID: 4, ThreadID: 9, MiniportIfIndex: 7, LowerIfIndex: 9, Media: pt.KeywordEthernet, Direction: pt.KeywordReceive, Data: lwf, Fragments: 2},
			link: packets.LinkTypeEthernet, source: packets.SourceNDIS, dir: packets.Inbound, unchanged: true},
		{name: "no media and no direction bit", cpu: 0,
			pkt:  pt.NDISPacket{TimeStamp: next(), ProcessID: 0, ThreadID: 0, MiniportIfIndex: 7, LowerIfIndex: 7, Data: none},
			link: packets.LinkTypeEthernet, source: packets.SourceNDIS, dir: packets.DirectionUnknown, unchanged: true},
		{name: "Hyper-V switch in 2 fragments", cpu: 2,
			pkt: pt.NDISPacket{TimeStamp: next(), ProcessID: 4, ThreadID: 11, MiniportIfIndex: 40, LowerIfIndex: 41, Media: pt.KeywordEthernet, Direction: pt.KeywordSend, Data: vms, Fragments: 2,
				VMSwitch: &pt.VMSwitch{SourcePortID: 77, PortName: "port-1", NicName: "vm nic", NicType: "Synthetic", Destinations: 2, VlanID: 42, UserPriority: 5, HashValue: 0xdeadbeef}},
			link: packets.LinkTypeEthernet, source: packets.SourceVMSwitch, dir: packets.Outbound, unchanged: true,
			comment: []string{"SourcePortId=77 SourcePortName=port-1 SourceNicName=vm nic SourceNicType=Synthetic DestinationCount=2 VlanId=42 UserPriority=5 HashValue=0xdeadbeef"}},
	}
}

// ndisTrace writes the cases' events on their processors; the fragments of
// packets on different processors interleave in time.
func ndisTrace(t testing.TB, cases []ndisCase) []byte {
	return buildTrace(t, func(b *etltest.Builder) error {
		for _, c := range cases {
			if c.metadata {
				b.CPU(c.cpu).Add(pt.NDISMetadata(c.pkt.TimeStamp-1, c.pkt.MiniportIfIndex, c.pkt.LowerIfIndex, 1, 10, 5180, 1, -52, 12))
			}
			for _, ev := range c.pkt.Events() {
				b.CPU(c.cpu).Add(ev)
			}
		}
		return b.Err()
	})
}

func TestNDISPackets(t *testing.T) {
	cases := ndisCases()
	out, c := convert(t, packets.Options{}, ndisTrace(t, cases))
	require.Len(t, out, len(cases))
	st := c.Stats()
	assert.Equal(t, packets.Stats{Packets: int64(len(cases)), Records: int64(recordCount(cases)), Corrected: 1, Unprotected: 1}, st)
	for i, want := range cases {
		t.Run(want.name, func(t *testing.T) {
			p := out[i]
			wantData := want.data
			if wantData == nil {
				wantData = want.pkt.Data
			}
			assert.Equal(t, wantData, p.Data)
			orig := want.original
			if orig == 0 {
				orig = len(want.pkt.Data)
			}
			assert.EqualValues(t, orig, p.OriginalLength)
			assert.Equal(t, want.dir, p.Direction)
			assert.Equal(t, fileTime(want.pkt.TimeStamp), p.FileTime, "the time of the first fragment")
			assert.Equal(t, packets.Interface{Source: want.source, LinkType: want.link, MiniportIfIndex: want.pkt.MiniportIfIndex,
				LowerIfIndex: want.pkt.LowerIfIndex, SourcePortID: portOf(want.pkt)}, p.Interface)
			assert.True(t, p.HasProcessThread)
			assert.Equal(t, [2]uint32{want.pkt.ProcessID, want.pkt.ThreadID}, [2]uint32{p.ProcessID, p.ThreadID})
			assert.Contains(t, p.Comment, fmt.Sprintf("PID=%d TID=%d", want.pkt.ProcessID, want.pkt.ThreadID))
			for _, s := range want.comment {
				assert.Contains(t, p.Comment, s)
			}
		})
	}
	// One interface per (miniport, lower, link type[, port]).
	assert.Len(t, c.Interfaces(), 7)
	names := map[string]string{}
	for i := range c.Interfaces() {
		d := c.Describe(i)
		names[d.Name] = d.Description
	}
	assert.Equal(t, map[string]string{
		"eth:7": "IfIndex 7", "wifi:12": "IfIndex 12", "ip:20": "IfIndex 20", "ip:30": "IfIndex 30", "eth:30": "IfIndex 30",
		"eth:9":              "IfIndex 9, a filter over miniport IfIndex 7",
		"vmswitch:port-1:41": "Hyper-V switch port 77 (vm nic, Synthetic), IfIndex 41, miniport IfIndex 40",
	}, names)
}

func recordCount(cases []ndisCase) int {
	n := 0
	for _, c := range cases {
		n += max(c.pkt.Fragments, 1)
	}
	return n
}

func portOf(p pt.NDISPacket) uint32 {
	if p.VMSwitch != nil {
		return p.VMSwitch.SourcePortID
	}
	return 0
}

// A whole packet in one event is handed out as a view of the record, with
// no allocation.
func TestNDISWholePacketAllocatesNothing(t *testing.T) {
	ev := (&pt.NDISPacket{TimeStamp: 2_000_000_000, MiniportIfIndex: 7, LowerIfIndex: 7, Media: pt.KeywordEthernet,
		Direction: pt.KeywordSend, Data: pt.Ethernet(pt.IPv4UDP(1000, 1))}).Events()
	r := decodeEvent(t, ev[0])
	c := packets.New(packets.Options{})
	c.Packet(r, 0)
	allocs := testing.AllocsPerRun(100, func() {
		p, ok := c.Packet(r, 0)
		if !ok || len(p.Data) != 1014 {
			t.Fatal("no packet")
		}
	})
	assert.Zero(t, allocs)
}

// Fragments whose packet is not whole in the trace are left out and
// counted; those of other streams are not disturbed.
func TestNDISUnpairedFragments(t *testing.T) {
	frame := pt.Ethernet(pt.IPv4UDP(300, 1))
	pkt := func(ts int64, frags int) pt.NDISPacket {
		return pt.NDISPacket{TimeStamp: ts, MiniportIfIndex: 7, LowerIfIndex: 7, Media: pt.KeywordEthernet, Data: frame, Fragments: frags}
	}
	a, b, whole, open := pkt(2_000_000_000, 3).Events(), pkt(2_000_001_000, 3).Events(), pkt(2_000_002_000, 2).Events(), pkt(2_000_003_000, 3).Events()
	tr := buildTrace(t, func(bd *etltest.Builder) error {
		bd.CPU(0).Add(a[1], a[2])         // no start: 2 unpaired
		bd.CPU(0).Add(b[0], b[1])         // a start and a middle, then a new start: 2 unpaired
		bd.CPU(0).Add(whole[0], whole[1]) // whole
		bd.CPU(0).Add(open[0])            // never ends: 1 unpaired at Finish
		return bd.Err()
	})
	out, c := convert(t, packets.Options{}, tr)
	require.Len(t, out, 1)
	assert.Equal(t, frame, out[0].Data)
	assert.Equal(t, fileTime(2_000_002_000), out[0].FileTime)
	assert.EqualValues(t, 5, c.Stats().Unpaired)
}

// More packets in flight than the limit: the oldest is given up, the
// others complete; a packet longer than MaxPacketSize is given up.
func TestNDISInFlightLimit(t *testing.T) {
	const streams = 5
	frame := pt.Ethernet(pt.IPv4UDP(300, 1))
	big := pt.Ethernet(pt.IPv4UDP(3000, 2))
	tr := buildTrace(t, func(bd *etltest.Builder) error {
		var evs [streams][]*etltest.Event
		for s := range streams {
			evs[s] = (&pt.NDISPacket{TimeStamp: 2_000_000_000 + int64(s), MiniportIfIndex: uint32(s), LowerIfIndex: uint32(s),
				Media: pt.KeywordEthernet, Data: frame, Fragments: 2}).Events()
		}
		// All starts, then all ends: 5 in flight at once.
		for s := range streams {
			evs[s][1].TimeStamp = 2_000_000_100 + int64(s)
			bd.CPU(0).Add(evs[s][0])
		}
		for s := range streams {
			bd.CPU(0).Add(evs[s][1])
		}
		for _, ev := range (&pt.NDISPacket{TimeStamp: 2_000_001_000, MiniportIfIndex: 9, LowerIfIndex: 9,
			Media: pt.KeywordEthernet, Data: big, Fragments: 3}).Events() {
			bd.CPU(0).Add(ev)
		}
		return bd.Err()
	})
	out, c := convert(t, packets.Options{MaxInFlight: 4, MaxPacketSize: 2000}, tr)
	require.Len(t, out, streams-1)
	for i, p := range out {
		assert.Equal(t, uint32(i+1), p.Interface.LowerIfIndex, "stream 0, the oldest, was given up")
		assert.Equal(t, frame, p.Data)
	}
	st := c.Stats()
	assert.EqualValues(t, 2, st.Evicted, "stream 0 and the long packet")
	assert.EqualValues(t, 2, st.Unpaired, "stream 0's end, and the long packet's last fragment")
}
