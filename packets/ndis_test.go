package packets_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/packettest"
	"github.com/etlkit/etlkit/packets"
)

// ndisWant is what must come out of each packet of packettest.NDISPackets.
type ndisWant struct {
	link     packets.LinkType
	source   packets.Source
	dir      packets.Direction
	original int    // len(Data) when 0
	data     []byte // Data when nil
	comment  []string
}

func ndisWants() []ndisWant {
	pkts := packettest.NDISPackets()
	wifiClear := bytes.Clone(pkts[1].Data)
	wifiClear[1] &^= 0x40
	return []ndisWant{
		{link: packets.LinkTypeEthernet, source: packets.SourceNDIS, dir: packets.Outbound, comment: []string{"PID=1234 TID=5678"}},
		{link: packets.LinkTypeIEEE80211, source: packets.SourceNDIS, dir: packets.Inbound, data: wifiClear,
			comment: []string{"ReceiveFlags=0x1 PhyType=802.11ax CenterFrequencyMHz=5180 MPDUsReceived=1 RSSIdBm=-52 DataRateIndex=12",
				"Protected bit cleared: the frame was logged decrypted"}},
		{link: packets.LinkTypeRaw, source: packets.SourceNDIS, dir: packets.Inbound},
		{link: packets.LinkTypeRaw, source: packets.SourceNDIS, dir: packets.Outbound},
		{link: packets.LinkTypeEthernet, source: packets.SourceNDIS, dir: packets.Inbound, original: 1014,
			comment: []string{"truncated by the capture", "original length from the IP header"}},
		{link: packets.LinkTypeRaw, source: packets.SourceNDIS, dir: packets.Outbound,
			comment: []string{"tunnel medium: the bytes are an IP packet"}},
		{link: packets.LinkTypeEthernet, source: packets.SourceNDIS, dir: packets.Outbound},
		{link: packets.LinkTypeEthernet, source: packets.SourceNDIS, dir: packets.Inbound},
		{link: packets.LinkTypeEthernet, source: packets.SourceNDIS, dir: packets.DirectionUnknown},
		{link: packets.LinkTypeEthernet, source: packets.SourceVMSwitch, dir: packets.Outbound,
			comment: []string{"SourcePortId=77 SourcePortName=port-1 SourceNicName=vm nic SourceNicType=Synthetic DestinationCount=2 VlanId=42 UserPriority=5 HashValue=0xdeadbeef"}},
	}
}

func ndisTrace(t testing.TB, pkts []packettest.NDISPacket) []byte {
	var b bytes.Buffer
	require.NoError(t, packettest.WriteNDIS(&b, pkts))
	return b.Bytes()
}

func TestNDISPackets(t *testing.T) {
	pkts, wants := packettest.NDISPackets(), ndisWants()
	require.Len(t, wants, len(pkts))
	out, c := convert(t, packets.Options{}, ndisTrace(t, pkts))
	require.Len(t, out, len(pkts))
	st := c.Stats()
	assert.Equal(t, packets.Stats{Packets: int64(len(pkts)), Records: int64(recordCount(pkts)), Corrected: 1, Unprotected: 1}, st)
	for i, in := range pkts {
		want := wants[i]
		t.Run(in.Name, func(t *testing.T) {
			p := out[i]
			wantData := want.data
			if wantData == nil {
				wantData = in.Data
			}
			assert.Equal(t, wantData, p.Data)
			orig := want.original
			if orig == 0 {
				orig = len(in.Data)
			}
			assert.EqualValues(t, orig, p.OriginalLength)
			assert.Equal(t, want.dir, p.Direction)
			assert.Equal(t, fileTime(in.TimeStamp), p.FileTime, "the time of the first fragment")
			assert.Equal(t, packets.Interface{Source: want.source, LinkType: want.link, MiniportIfIndex: in.MiniportIfIndex,
				LowerIfIndex: in.LowerIfIndex, SourcePortID: portOf(in)}, p.Interface)
			assert.True(t, p.HasProcessThread)
			assert.Equal(t, [2]uint32{in.ProcessID, in.ThreadID}, [2]uint32{p.ProcessID, p.ThreadID})
			assert.Contains(t, p.Comment, fmt.Sprintf("PID=%d TID=%d", in.ProcessID, in.ThreadID))
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

func recordCount(pkts []packettest.NDISPacket) int {
	n := 0
	for _, p := range pkts {
		n += max(p.Fragments, 1)
	}
	return n
}

func portOf(p packettest.NDISPacket) uint32 {
	if p.VMSwitch != nil {
		return p.VMSwitch.SourcePortID
	}
	return 0
}

// A whole packet in one event is handed out as a view of the record, with
// no allocation.
func TestNDISWholePacketAllocatesNothing(t *testing.T) {
	ev := (&packettest.NDISPacket{TimeStamp: 2_000_000_000, MiniportIfIndex: 7, LowerIfIndex: 7, Media: packettest.KeywordEthernet,
		Direction: packettest.KeywordSend, Data: packettest.Ethernet(packettest.IPv4UDP(1000, 1))}).Events()
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
	frame := packettest.Ethernet(packettest.IPv4UDP(300, 1))
	pkt := func(ts int64, frags int) packettest.NDISPacket {
		return packettest.NDISPacket{TimeStamp: ts, MiniportIfIndex: 7, LowerIfIndex: 7, Media: packettest.KeywordEthernet, Data: frame, Fragments: frags}
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
	frame := packettest.Ethernet(packettest.IPv4UDP(300, 1))
	big := packettest.Ethernet(packettest.IPv4UDP(3000, 2))
	tr := buildTrace(t, func(bd *etltest.Builder) error {
		var evs [streams][]*etltest.Event
		for s := range streams {
			evs[s] = (&packettest.NDISPacket{TimeStamp: 2_000_000_000 + int64(s), MiniportIfIndex: uint32(s), LowerIfIndex: uint32(s),
				Media: packettest.KeywordEthernet, Data: frame, Fragments: 2}).Events()
		}
		// All starts, then all ends: 5 in flight at once.
		for s := range streams {
			evs[s][1].TimeStamp = 2_000_000_100 + int64(s)
			bd.CPU(0).Add(evs[s][0])
		}
		for s := range streams {
			bd.CPU(0).Add(evs[s][1])
		}
		for _, ev := range (&packettest.NDISPacket{TimeStamp: 2_000_001_000, MiniportIfIndex: 9, LowerIfIndex: 9,
			Media: packettest.KeywordEthernet, Data: big, Fragments: 3}).Events() {
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

// A PktMon packet, with its comment and a corrected link type, allocates
// nothing either, once its interface exists.
func TestPktMonPacketAllocatesNothing(t *testing.T) {
	for _, first := range []bool{false, true} {
		f := packettest.PktMonFrame{TimeStamp: 2_000_000_000, ProcessID: 4, ThreadID: 8, GroupID: 7, PktNumber: 1, DirTag: 3,
			PacketType: 2, ComponentID: 39, EdgeID: 2, Data: packettest.Ethernet(packettest.IPv4UDP(1000, 1))}
		r := decodeEvent(t, f.Event())
		c := packets.New(packets.Options{FirstAppearance: first})
		c.Packet(r, 0)
		allocs := testing.AllocsPerRun(100, func() {
			r.RawTimeStamp += 10_000_000 // beyond the first-appearance window
			if _, ok := c.Packet(r, 0); !ok {
				t.Fatal("no packet")
			}
		})
		assert.Zero(t, allocs, "first appearance %v", first)
	}
}
