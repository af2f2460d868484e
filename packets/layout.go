package packets

import "github.com/google/uuid"

// The providers whose events carry packets.
var (
	// NDISPacketCapture is Microsoft-Windows-NDIS-PacketCapture, the
	// provider of `netsh trace start capture=yes` (ndiscap).
	NDISPacketCapture = uuid.MustParse("2ed6006e-4729-4609-b423-3ee7bcd678ef")
	// PktMon is Microsoft-Windows-PktMon, the provider of `pktmon start
	// --capture`.
	PktMon = uuid.MustParse("4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac")
)

// NDIS-PacketCapture events (all version 0).
const (
	ndisFragment         = 1001 // one fragment of a packet
	ndisMetadata         = 1002 // packet metadata: the Wi-Fi receive context
	ndisVMSwitchFragment = 1003 // one fragment of a packet crossing a Hyper-V switch
)

// Layout of events 1001 and 1002: fixed offsets into the user data.
const (
	ndisMiniportIfIndex = 0
	ndisLowerIfIndex    = 4
	ndisFragmentSize    = 8 // MetadataSize in 1002
	ndisFragmentData    = 12
)

// Layout of event 1003 up to its first string; the rest is read in turn:
// str16z SourcePortName, SourceNicName, SourceNicType, u32
// DestinationCount, 8 bytes per destination, u32 FragmentSize, Fragment,
// u32 OOBDataSize, OOBData.
const (
	vmsSourcePortID   = 8
	vmsSourcePortName = 12
	vmsDestination    = 8 // bytes per Destination entry
	// maxVMSDestinations bounds DestinationCount; the field is read only to
	// step over, and a larger count cannot fit a 64 KiB event.
	maxVMSDestinations = 8192
)

// NDIS-PacketCapture keyword bits, which ndiscap sets per event.
const (
	kwEthernet    = 0x1
	kwWirelessWAN = 0x200
	kwTunnel      = 0x8000
	kwNative80211 = 0x10000
	kwTruncated   = 0x2000000
	kwPacketStart = 0x40000000
	kwPacketEnd   = 0x80000000
	kwSendPath    = 0x100000000
	kwReceivePath = 0x200000000
)

// DOT11_EXTSTA_RECV_CONTEXT, the metadata of event 1002, for 32- and 64-bit
// writers alike (the pointer's slot is followed by an 8-byte-aligned u64).
const (
	dot11RecvContextSize = 48
	dot11ReceiveFlags    = 4
	dot11PhyID           = 8
	dot11CenterFrequency = 12 // MHz
	dot11MPDUsReceived   = 16
	dot11RSSI            = 20 // dBm, signed
	dot11DataRate        = 24 // an index into the adapter's rate table
)

// dot11PhyNames names DOT11_PHY_TYPE values 0 to 10.
var dot11PhyNames = [...]string{"Unknown", "Fhss", "Dsss", "IrBaseband", "802.11a", "802.11b",
	"802.11g", "802.11n", "802.11ac", "802.11ad", "802.11ax"}

// Slots of a 1003 event's OOBData, an array of pointer-sized
// NET_BUFFER_LIST_INFO values.
const (
	oobIeee8021Q = 4 // UserPriority:3, CanonicalFormatId:1, VlanId:12
	oobHashValue = 8
)

// PktMon events.
const (
	pktmonComponent     = 20  // u16 Id, u16 Type, str16z Name, str16z Description
	pktmonPropertyIPv4  = 65  // u16 ComponentId, u16 Type, 4 bytes
	pktmonPropertyIPv6  = 66  // u16 ComponentId, u16 Type, 16 bytes
	pktmonPropertyBytes = 70  // u16 ComponentId, u16 Type, u32 Size, u8[Size]
	pktmonFrame         = 160 // FramePayload: a packet at a component's edge
	pktmonFrameDrop     = 170 // FrameDropPayload: a packet dropped
	pktmonDuplicateDrop = 240 // same layout as 170
	pktmonIPv4Frame     = 200 // header-info form, IPv4 addresses
	pktmonIPv4Drop      = 210
	pktmonIPv6Frame     = 220 // header-info form, IPv6 addresses
	pktmonIPv6Drop      = 230
)

// Layout of events 160, 170 and 240: packed, the payload right after the
// fixed part.
const (
	pmGroupID      = 0  // u64 PktGroupId
	pmPktNumber    = 8  // u16
	pmAppearance   = 10 // u16 AppearanceCount
	pmDirTag       = 12 // u16
	pmPacketType   = 14 // u16
	pmComponentID  = 16 // u16
	pmEdgeID       = 18 // u16
	pmFilterID     = 20 // u16
	pmDropReason   = 22 // u32
	pmDropLocation = 26 // u32
	pmOriginalSize = 30 // u16 OriginalPayloadSize
	pmLoggedSize   = 32 // u16 LoggedPayloadSize
	pmPayload      = 34
)

// Layout of events 200 to 230, the header-info forms: no PktGroupId,
// PktNumber or AppearanceCount; the addresses, protocol and ports of the
// packet before its sizes.
const (
	hiDirTag       = 0
	hiPacketType   = 2
	hiComponentID  = 4
	hiEdgeID       = 6
	hiFilterID     = 8
	hiDropReason   = 10
	hiDropLocation = 14
	hiAddresses    = 18
	// The sizes follow the two addresses (4 or 16 bytes each), u8
	// Protocol, u16 DestinationPort and u16 SourcePort.
	hiAfterAddresses = 5
)

// PktMon property types (the Type of events 30 to 75) used here.
const (
	pmPropMAC       = 6
	pmPropIPAddress = 13
)

// PacketType values of PktMon (PKTMON_PACKET_TYPE).
const (
	pmTypeEthernet = 1
	pmTypeWiFi     = 2
	pmTypeIP       = 3 // named MBB on the oldest builds; raw IP either way
)

// pmTypeNames names PacketType values 0 to 11.
var pmTypeNames = [...]string{"Unknown", "Ethernet", "WiFi", "IP", "HTTP", "TCP", "UDP", "ARP", "ICMP", "ESP", "AH", "L4Payload"}

// dirTagNames names DirTag values (PKTMON_DIRECTION_TAG) 0 to 6: 1, 3 and
// 5 are the receive path (edge, NIC, switch port), 2, 4 and 6 the send
// path.
var dirTagNames = [...]string{"Unspecified", "In", "Out", "Rx", "Tx", "Ingress", "Egress"}

// dropReasonNames names the DropReasons PMAPI's PKTMON_DROP_REASON gives
// (docs: packets.md, "DropReason"). 101–104 and 201–204 are left
// unnamed: PMAPI and NPL (2018) give those numbers different meanings.
var dropReasonNames = map[uint32]string{
	0: "Unknown", 1: "InvalidData", 2: "InvalidPacket", 3: "Resources", 4: "NotReady",
	5: "Disconnected", 6: "NotAccepted", 7: "Busy", 8: "Filtered", 9: "FilteredVLAN",
	23: "MTUMismatch", 38: "LowPower",
	902: "NotLocallyDestined", 909: "InspectionDrop",
	1204: "EndpointNotFound", 1206: "SessionState", 1207: "ReceiveInspection",
	1210: "Rst", 1217: "DuplicateSegment", 1220: "FinWait2",
}

// dropReasonAreas names the area of a DropReason by its range, as PMAPI
// numbers them.
var dropReasonAreas = [...]struct {
	first, last uint32
	area        string
}{
	{0, 38, "VMSwitch"},
	{401, 404, "NetVsc"},
	{601, 613, "TCPIP FL"},
	{701, 719, "VFP"},
	{801, 801, "HTTP"},
	{901, 997, "TCPIP NL"},
	{1200, 1232, "INET"},
	{1301, 1327, "SlbMux"},
	{1401, 1418, "IPsec"},
	{1501, 1507, "NetCx"},
	{0x80000000, 0xFFFFFFFF, "third-party"},
}

// appendDropReason appends what is known of a DropReason: " (INET
// SessionState)", " (TCPIP NL)", or nothing.
func appendDropReason(b []byte, reason uint32) []byte {
	for _, a := range dropReasonAreas {
		if a.first <= reason && reason <= a.last {
			b = append(b, " ("...)
			b = append(b, a.area...)
			if name, ok := dropReasonNames[reason]; ok {
				b = append(b, ' ')
				b = append(b, name...)
			}
			return append(b, ')')
		}
	}
	return b
}

// dropLocationAreas names the area of a DropLocation by its 0xE000N000
// digit.
var dropLocationAreas = [...]string{1: "NDIS", 2: "VMSwitch", 4: "TCPIP", 5: "HTTP", 6: "VFP", 7: "SlbMux", 8: "IPsec", 9: "NetCx"}

// appendDropLocation appends the area of a DropLocation of the 0xE000N000
// form when its digit N names one: " (TCPIP)", " (NDIS)", or nothing.
func appendDropLocation(b []byte, location uint32) []byte {
	area := location >> 12
	if area&^0xF != 0xE0000 || int(area&0xF) >= len(dropLocationAreas) || dropLocationAreas[area&0xF] == "" {
		return b
	}
	b = append(b, " ("...)
	b = append(b, dropLocationAreas[area&0xF]...)
	return append(b, ')')
}
