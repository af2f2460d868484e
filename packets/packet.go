// Package packets turns the packet events of ETW traces into packets: the
// fragments of Microsoft-Windows-NDIS-PacketCapture (`netsh trace ...
// capture=yes`) and the packet events of Microsoft-Windows-PktMon (`pktmon
// start --capture`), given in time order.
//
// A Converter reads each record's payload at the fixed offsets of its
// event's layout, in place: a packet that one event holds is handed out as
// a view of the record's bytes, and only the fragments of a packet that
// spans several events are copied, into buffers reused from packet to
// packet. Each packet belongs to an Interface, one per
//
//   - NDIS: (MiniportIfIndex, LowerIfIndex, link type), and for the
//     Hyper-V switch's events also the source port;
//   - PktMon: (ComponentId, link type), described by the component events
//     of the trace (the driver's name, the adapter's, its addresses), which
//     PktMon writes when the capture stops, after the packets.
//
// What an event says is kept as it says it: the direction from NDIS's send
// and receive keyword bits or PktMon's DirTag (unknown when neither tells),
// PktMon's original length beside the logged one, a drop's reason and
// location in the packet's comment with the process and thread of the
// record. Where the event's own type is wrong about its bytes (PktMon's
// Wi-Fi type on Ethernet frames, an 802.11 frame marked Protected whose
// body is cleartext), the bytes win, and the comment says so.
package packets

import "strconv"

// LinkType is a LINKTYPE_ value (the tcpdump.org link-layer header types),
// the link layer a packet's bytes start with.
type LinkType uint16

// The link types of the packets in ETW traces.
const (
	LinkTypeEthernet  LinkType = 1
	LinkTypeRaw       LinkType = 101 // an IPv4 or IPv6 header first
	LinkTypeIEEE80211 LinkType = 105 // an 802.11 MAC header first
)

func (t LinkType) String() string {
	switch t {
	case LinkTypeEthernet:
		return "Ethernet"
	case LinkTypeRaw:
		return "raw IP"
	case LinkTypeIEEE80211:
		return "802.11"
	}
	return "LINKTYPE " + strconv.Itoa(int(t))
}

// Source names the provider, and for NDIS the event, an interface's
// packets come from.
type Source uint8

const (
	SourceNDIS     Source = iota + 1 // NDIS-PacketCapture 1001
	SourceVMSwitch                   // NDIS-PacketCapture 1003
	SourcePktMon                     // PktMon
)

// Direction is the way a packet went through its interface.
type Direction uint8

const (
	DirectionUnknown Direction = iota
	Inbound
	Outbound
)

// Packet is one packet. It belongs to the Converter and is valid until the
// next call to Packet; Data and Comment may be views of the record's bytes.
type Packet struct {
	// Interface indexes Converter.Interfaces.
	Interface int
	// FileTime is the time of the record (of the first fragment), in 100 ns
	// units since 1601-01-01 UTC, from the record's clock.
	FileTime int64
	// Data holds the captured bytes, starting at the interface's link
	// layer; OriginalLength is the length of the packet on the wire, at
	// least len(Data).
	Data           []byte
	OriginalLength uint32
	Direction      Direction
	// ProcessID and ThreadID are the record's, when HasProcessThread.
	ProcessID, ThreadID uint32
	HasProcessThread    bool
	// Dropped marks a PktMon drop report; Comment says why and where.
	Dropped bool
	// Comment is one line of text on the packet: the process and thread,
	// what the event says beside the bytes, what was corrected.
	Comment []byte
}

// Interface is one interface of the capture: the link type of its packets
// and what identifies it in the trace.
type Interface struct {
	// Input is the index of the input the interface belongs to, as given
	// to Converter.Packet: the same numbers in two traces are two
	// interfaces.
	Input    int
	Source   Source
	LinkType LinkType
	// NDIS: the interface indexes of the event, and for the Hyper-V
	// switch's events the source port.
	MiniportIfIndex, LowerIfIndex, SourcePortID uint32
	// PktMon: the component that reported the packets.
	ComponentID uint16
}

// Description is what the trace says of an interface.
type Description struct {
	// Name is the driver for PktMon components (`nwifi.sys`), and
	// kind:IfIndex for NDIS interfaces (`eth:7`, `wifi:12`, `ip:20`).
	Name string
	// Description is the adapter or role for PktMon components (`Intel(R)
	// Wi-Fi 6E AX211 160MHz`, `TCP/IPv4 - L3/L4`) and the interface indexes
	// for NDIS.
	Description string
	// MAC, IPv4 and IPv6 are the addresses the trace gives the component.
	MAC  []byte
	IPv4 [][4]byte
	IPv6 [][16]byte
	// Comment says where the interface comes from in the trace.
	Comment string
}

// Stats counts what a Converter did.
type Stats struct {
	Packets  int64 // packets made
	Records  int64 // packet records read (fragments, PktMon packet events)
	Dropped  int64 // PktMon drop reports among the packets
	Repeated int64 // PktMon appearances left out by Options.FirstAppearance
	// Malformed counts packet records too short for what they announce;
	// they are left out.
	Malformed int64
	// Unpaired counts fragments left out because the rest of their packet
	// is not in the trace: a continuation or end with no start, a start
	// that the next start of its stream replaced, fragments still in flight
	// at Finish.
	Unpaired int64
	// Evicted counts packets given up because more were in flight than
	// Options.MaxInFlight, or grew beyond Options.MaxPacketSize.
	Evicted int64
	// Corrected counts packets written with another link type than their
	// event names (PktMon's Wi-Fi type on Ethernet bytes, or a type its
	// bytes decide); Unprotected 802.11 frames whose Protected bit was
	// cleared because their body is cleartext.
	Corrected   int64
	Unprotected int64
	// UnknownType counts PktMon packets of a type with no link type whose
	// bytes are neither an Ethernet frame nor an IP packet; they are left
	// out.
	UnknownType int64
}
