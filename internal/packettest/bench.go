package packettest

import (
	"errors"
	"io"

	"github.com/etlkit/etlkit/etltest"
)

// The kinds of capture WriteCapture writes.
const (
	CapturePktMon = "pktmon"
	CaptureNDIS   = "ndis"
)

// CaptureResult describes a capture WriteCapture wrote.
type CaptureResult struct {
	Bytes   int64 // bytes of the trace
	Records int64 // packet events
	Packets int64 // packets they make
}

// pktmonPath is a received packet's way up a Wi-Fi stack, as PktMon
// reports it on build 26100: (component, edge, packet type, link header),
// the lower edge of npcap.sys typed Wi-Fi over an Ethernet frame.
var pktmonPath = [...]struct {
	component, edge, packetType uint16
	dot11                       bool
}{
	{13, 1, 2, true}, {42, 2, 2, true}, {42, 1, 2, true}, {40, 2, 2, true},
	{40, 1, 1, false}, {39, 2, 2, false}, {39, 1, 1, false}, {80, 1, 1, false},
}

var pktmonComponents = [...]struct {
	id, typ     uint16
	name, descr string
}{
	{13, 2, "Netwtw14.sys", "Intel(R) Wi-Fi 6E AX211 160MHz"}, {42, 3, "wfplwfs.sys", "WFP Native MAC Layer LightWeight Filter"},
	{40, 3, "nwifi.sys", "Native WiFi Filter Driver"}, {39, 3, "npcap.sys", "Npcap Packet Driver (NPCAP)"},
	{80, 4, "tcpip.sys", "TCPIP"}, {98, 11, "tcpip.sys", "TCP/IPv4 - L3/L4"},
}

// WriteCapture writes a packet capture of about size bytes to w, for
// benchmarks: with CapturePktMon, packets of 60 to 1500 bytes each
// reported at the eight edges of a Wi-Fi stack, one in 64 dropped by
// TCP/IP, and the component rundown at the end; with CaptureNDIS, packets
// on an Ethernet and a Wi-Fi interface, one in eight in three fragments,
// the Wi-Fi receive metadata before each Wi-Fi packet. Packets spread over
// cpus processors; memory stays at one buffer per processor.
func WriteCapture(w io.Writer, size int64, kind string, cpus int) (CaptureResult, error) {
	if cpus < 1 || cpus > 64 {
		return CaptureResult{}, errors.New("packettest: cpus must be 1..64")
	}
	s := NDISSession()
	s.NumberOfProcessors = uint32(cpus)
	b, err := etltest.NewBuilder(w, s)
	if err != nil {
		return CaptureResult{}, err
	}
	var res CaptureResult
	var frames [][]byte
	for i := range 16 {
		frames = append(frames, IPv4UDP(60+i*96, uint16(i)))
	}
	ts := s.HeaderTimeStamp
	for n := 0; b.Offset() < size; n++ {
		ip := frames[n%len(frames)]
		cpu := n % cpus
		ts += 40
		switch kind {
		case CapturePktMon:
			for hop, h := range pktmonPath {
				data := Ethernet(ip)
				if h.dot11 {
					data = Dot11(ip, false)
				}
				f := PktMonFrame{TimeStamp: ts + int64(hop), ProcessID: 4, ThreadID: uint32(100 + cpu), GroupID: uint64(cpu)<<48 | uint64(n*8+hop),
					PktNumber: 1, DirTag: 3, PacketType: h.packetType, ComponentID: h.component, EdgeID: h.edge, Data: data}
				b.CPU(cpu).Add(f.Event())
				res.Records++
				res.Packets++
			}
			if n%64 == 63 {
				f := PktMonFrame{ID: 170, TimeStamp: ts + 10, ProcessID: 4, ThreadID: uint32(100 + cpu), GroupID: uint64(cpu)<<48 | uint64(n*8+9),
					PktNumber: 1, DirTag: 3, PacketType: 3, ComponentID: 98, DropReason: 902, DropLocation: 0xE0004138, Data: ip}
				b.CPU(cpu).Add(f.Event())
				res.Records++
				res.Packets++
			}
		case CaptureNDIS:
			p := NDISPacket{TimeStamp: ts, ProcessID: 4, ThreadID: uint32(100 + cpu), MiniportIfIndex: 7, LowerIfIndex: 7,
				Media: KeywordEthernet, Direction: KeywordSend, Data: Ethernet(ip)}
			if n%2 == 1 {
				p.MiniportIfIndex, p.LowerIfIndex, p.Media, p.Direction, p.Data = 12, 12, KeywordNative80211, KeywordReceive, Dot11(ip, true)
				b.CPU(cpu).Add(NDISMetadata(ts-1, 12, 12, 1, 10, 5180, 1, -52, 12))
			}
			if n%8 == 7 {
				p.Fragments = 3
			}
			for _, ev := range p.Events() {
				b.CPU(cpu).Add(ev)
				res.Records++
			}
			res.Packets++
		default:
			return res, errors.New("packettest: unknown capture kind " + kind)
		}
		if err := b.Err(); err != nil {
			return res, err
		}
	}
	if kind == CapturePktMon {
		for _, c := range pktmonComponents {
			ts++
			b.CPU(0).Add(PktMonComponent(ts, c.id, c.typ, c.name, c.descr))
		}
	}
	if err := b.Close(); err != nil {
		return res, err
	}
	res.Bytes = b.Offset()
	return res, nil
}
