package packets

import "encoding/binary"

// What the bytes of a frame show: the checks that decide a link type when
// the event's own type is wrong or silent, and the lengths a truncated
// frame's IP header gives.

// EtherTypes the sniffing accepts.
const (
	etherTypeIPv4  = 0x0800
	etherTypeARP   = 0x0806
	etherTypeVLAN  = 0x8100
	etherTypeIPv6  = 0x86DD
	etherTypeEAPOL = 0x888E
)

const (
	ethernetHeader = 14
	// minEthernetFrame is the shortest Ethernet frame without its FCS:
	// shorter payloads are padded up to it.
	minEthernetFrame = 60
	vlanTag          = 4
	llcSNAPHeader    = 8 // AA AA 03, OUI, EtherType
	ipv6Header       = 40
)

var be = binary.BigEndian

// looksEthernet reports whether b is an Ethernet II frame: an EtherType
// the sniffing accepts at bytes 12-13, and after it the start of what that
// type names. A Wi-Fi frame whose address bytes happen to read as an
// EtherType fails the second check.
func looksEthernet(b []byte) bool {
	if len(b) < ethernetHeader+2 {
		return false
	}
	et := be.Uint16(b[12:])
	rest := b[ethernetHeader:]
	if et == etherTypeVLAN {
		if len(b) < ethernetHeader+vlanTag+2 {
			return false
		}
		et, rest = be.Uint16(b[16:]), b[ethernetHeader+vlanTag:]
	}
	return startsWith(et, rest)
}

// startsWith reports whether b starts as a payload of EtherType et.
func startsWith(et uint16, b []byte) bool {
	if len(b) < 2 {
		return false
	}
	switch et {
	case etherTypeIPv4:
		return b[0]>>4 == 4 && b[0]&0xF >= 5
	case etherTypeIPv6:
		return b[0]>>4 == 6
	case etherTypeARP:
		return b[0] == 0 && b[1] == 1 // hardware type Ethernet
	case etherTypeEAPOL:
		return b[0] >= 1 && b[0] <= 3 // protocol version
	}
	return false
}

// looksIP reports whether b starts with an IPv4 or IPv6 header.
func looksIP(b []byte) bool {
	if len(b) < 1 {
		return false
	}
	switch b[0] >> 4 {
	case 4:
		if len(b) < 4 || b[0]&0xF < 5 {
			return false
		}
		return int(be.Uint16(b[2:])) >= int(b[0]&0xF)*4
	case 6:
		return len(b) >= ipv6Header
	}
	return false
}

// ipLength is the length of the IP packet at the start of b as its header
// says it, 0 when b does not start with one or the header says nothing (a
// large-send IPv4 packet has total length 0; an IPv6 jumbogram payload
// length 0).
func ipLength(b []byte) int {
	if !looksIP(b) {
		return 0
	}
	if b[0]>>4 == 4 {
		return int(be.Uint16(b[2:]))
	}
	if n := int(be.Uint16(b[4:])); n > 0 {
		return ipv6Header + n
	}
	return 0
}

// 802.11 frame control: byte 0 holds the type and subtype, byte 1 the flags.
const (
	dot11TypeData   = 2
	dot11ToDSFromDS = 0x03
	dot11Protected  = 0x40
	dot11Order      = 0x80
	dot11QoS        = 0x08 // the QoS bit of a data subtype
	dot11Header     = 24
	dot11Addr4      = 6
	dot11QoSControl = 2
	dot11HTControl  = 4
)

// dot11DataHeader is the length of the MAC header of the 802.11 data frame
// b, and false for another kind of frame or one too short for its header.
func dot11DataHeader(b []byte) (int, bool) {
	if len(b) < dot11Header {
		return 0, false
	}
	if (b[0]>>2)&3 != dot11TypeData || b[0]&3 != 0 {
		return 0, false
	}
	n := dot11Header
	if b[1]&dot11ToDSFromDS == dot11ToDSFromDS {
		n += dot11Addr4
	}
	if b[0]>>4&dot11QoS != 0 {
		n += dot11QoSControl
		if b[1]&dot11Order != 0 {
			n += dot11HTControl
		}
	}
	return n, len(b) >= n
}

// dot11Payload is where the LLC/SNAP-encapsulated payload of the 802.11
// data frame b starts, with its EtherType, and false when b is not such a
// frame in cleartext.
func dot11Payload(b []byte) (at int, etherType uint16, ok bool) {
	n, ok := dot11DataHeader(b)
	if !ok || len(b) < n+llcSNAPHeader {
		return 0, 0, false
	}
	s := b[n:]
	if s[0] != 0xAA || s[1] != 0xAA || s[2] != 0x03 || s[3] != 0 || s[4] != 0 || (s[5] != 0 && s[5] != 0xF8) {
		return 0, 0, false
	}
	return n + llcSNAPHeader, be.Uint16(s[6:]), true
}

// clearProtected reports whether the 802.11 frame b is marked Protected
// although its body is cleartext LLC/SNAP: the capture logged it after
// decryption, and readers that see the bit would not decode the body.
func clearProtected(b []byte) bool {
	if len(b) < 2 || b[1]&dot11Protected == 0 {
		return false
	}
	_, _, ok := dot11Payload(b)
	return ok
}

// networkLayer is where the payload of the link layer starts in frame b of
// link type t, with its EtherType (0 for raw IP), and false when it cannot
// be told.
func networkLayer(t LinkType, b []byte) (at int, etherType uint16, ok bool) {
	switch t {
	case LinkTypeRaw:
		return 0, 0, true
	case LinkTypeEthernet:
		if len(b) < ethernetHeader {
			return 0, 0, false
		}
		if et := be.Uint16(b[12:]); et != etherTypeVLAN {
			return ethernetHeader, et, true
		}
		if len(b) < ethernetHeader+vlanTag {
			return 0, 0, false
		}
		return ethernetHeader + vlanTag, be.Uint16(b[16:]), true
	case LinkTypeIEEE80211:
		return dot11Payload(b)
	}
	return 0, 0, false
}

// originalLength is the length of frame b of link type t on the wire as
// its IP header tells it, when that is more than the bytes captured; else
// len(b). ndiscap logs no length beside the bytes: when a rule truncated
// the frame, the IP header is what is left of its length.
func originalLength(t LinkType, b []byte) int {
	at, et, ok := networkLayer(t, b)
	if !ok || (et != 0 && et != etherTypeIPv4 && et != etherTypeIPv6) {
		return len(b)
	}
	if n := at + ipLength(b[at:]); n > len(b) {
		return n
	}
	return len(b)
}
