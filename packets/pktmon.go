package packets

import (
	"slices"

	"github.com/etlkit/etlkit/internal/digits"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// pmEvent is what a PktMon packet event says.
type pmEvent struct {
	groupID             uint64
	pktNumber           uint16
	appearance          uint16
	hasGroup            bool // events 160-240 carry the three above
	dirTag, packetType  uint16
	componentID, edgeID uint16
	filterID            uint16
	dropReason          uint32
	dropLocation        uint32
	originalSize        uint16
	drop                bool
	data                []byte
}

func (c *Converter) pktmon(r *record.Record, input int) (*Packet, bool) {
	var ev pmEvent
	var ok bool
	switch id := r.EventDescriptor.Id; id {
	case pktmonFrame, pktmonFrameDrop, pktmonDuplicateDrop:
		c.stats.Records++
		ok = parsePktMon(r.UserData, &ev)
		ev.drop = id != pktmonFrame
	case pktmonIPv4Frame, pktmonIPv4Drop:
		c.stats.Records++
		ok = parseHeaderInfo(r.UserData, 4, &ev)
		ev.drop = id == pktmonIPv4Drop
	case pktmonIPv6Frame, pktmonIPv6Drop:
		c.stats.Records++
		ok = parseHeaderInfo(r.UserData, 16, &ev)
		ev.drop = id == pktmonIPv6Drop
	default:
		c.learnComponent(r, input)
		return nil, false
	}
	if !ok {
		c.stats.Malformed++
		return nil, false
	}
	link, corrected, known := pktmonLinkType(ev.packetType, ev.data, int(ev.originalSize))
	if !known {
		c.stats.UnknownType++
		return nil, false
	}
	p := c.startPacket(r)
	switch ev.dirTag {
	case 1, 3, 5:
		p.Direction = Inbound
	case 2, 4, 6:
		p.Direction = Outbound
	}
	if c.appearances != nil && !ev.drop && c.appearances.repeated(input, &ev, link, p.Direction, p.FileTime) {
		c.stats.Repeated++
		return nil, false
	}
	p.Interface = c.interfaceIndex(Interface{Input: input, Source: SourcePktMon, LinkType: link, ComponentID: ev.componentID})
	p.Data = ev.data
	p.OriginalLength = uint32(max(ev.originalSize, uint16(len(ev.data))))
	p.Dropped = ev.drop
	b := c.comment
	if ev.hasGroup {
		b = c.hex(b, "PktGroupId", ev.groupID)
		b = c.number(b, "PktNumber", uint64(ev.pktNumber))
		if ev.appearance != 0 {
			b = c.number(b, "AppearanceCount", uint64(ev.appearance))
		}
	}
	b = c.number(b, "EdgeId", uint64(ev.edgeID))
	b = c.field(b, "DirTag")
	if int(ev.dirTag) < len(dirTagNames) {
		b = append(b, dirTagNames[ev.dirTag]...)
	} else {
		b = digits.AppendDecimal(b, uint64(ev.dirTag))
	}
	if ev.filterID != 0 {
		b = c.number(b, "FilterId", uint64(ev.filterID))
	}
	if ev.drop {
		c.stats.Dropped++
		b = c.note(b, "dropped:")
		b = c.number(b, "DropReason", uint64(ev.dropReason))
		b = appendDropReason(b, ev.dropReason)
		b = c.hex(b, "DropLocation", uint64(ev.dropLocation))
		b = appendDropLocation(b, ev.dropLocation)
	}
	if int(ev.originalSize) < len(ev.data) {
		b = c.note(b, "OriginalPayloadSize ")
		b = digits.AppendDecimal(b, uint64(ev.originalSize))
		b = append(b, " is less than the bytes logged"...)
	}
	if corrected {
		c.stats.Corrected++
		b = c.note(b, "PacketType ")
		b = c.packetTypeName(b, ev.packetType)
		b = append(b, ", the bytes are "...)
		b = append(b, link.String()...)
	}
	c.comment = b
	if link == LinkTypeIEEE80211 {
		c.fixProtected(p)
	}
	p.Comment = c.comment
	c.stats.Packets++
	return p, true
}

// parsePktMon reads events 160, 170 and 240.
func parsePktMon(u []byte, ev *pmEvent) bool {
	if len(u) < pmPayload {
		return false
	}
	logged := int(le.Uint16(u[pmLoggedSize:]))
	if len(u)-pmPayload < logged {
		return false
	}
	*ev = pmEvent{
		groupID:      le.Uint64(u[pmGroupID:]),
		pktNumber:    le.Uint16(u[pmPktNumber:]),
		appearance:   le.Uint16(u[pmAppearance:]),
		hasGroup:     true,
		dirTag:       le.Uint16(u[pmDirTag:]),
		packetType:   le.Uint16(u[pmPacketType:]),
		componentID:  le.Uint16(u[pmComponentID:]),
		edgeID:       le.Uint16(u[pmEdgeID:]),
		filterID:     le.Uint16(u[pmFilterID:]),
		dropReason:   le.Uint32(u[pmDropReason:]),
		dropLocation: le.Uint32(u[pmDropLocation:]),
		originalSize: le.Uint16(u[pmOriginalSize:]),
		data:         u[pmPayload : pmPayload+logged],
	}
	return true
}

// parseHeaderInfo reads events 200 to 230, whose addresses are addr bytes
// long.
func parseHeaderInfo(u []byte, addr int, ev *pmEvent) bool {
	sizes := hiAddresses + 2*addr + hiAfterAddresses
	if len(u) < sizes+4 {
		return false
	}
	logged := int(le.Uint16(u[sizes+2:]))
	if len(u)-sizes-4 < logged {
		return false
	}
	*ev = pmEvent{
		dirTag:       le.Uint16(u[hiDirTag:]),
		packetType:   le.Uint16(u[hiPacketType:]),
		componentID:  le.Uint16(u[hiComponentID:]),
		edgeID:       le.Uint16(u[hiEdgeID:]),
		filterID:     le.Uint16(u[hiFilterID:]),
		dropReason:   le.Uint32(u[hiDropReason:]),
		dropLocation: le.Uint32(u[hiDropLocation:]),
		originalSize: le.Uint16(u[sizes:]),
		data:         u[sizes+4 : sizes+4+logged],
	}
	return true
}

// pktmonLinkType is the link type of a PktMon packet of type t with bytes
// b, originally orig bytes long: the one its type names, unless its bytes
// show another (corrected), and known false when neither tells one.
func pktmonLinkType(t uint16, b []byte, orig int) (link LinkType, corrected, known bool) {
	switch t {
	case pmTypeEthernet:
		return LinkTypeEthernet, false, true
	case pmTypeWiFi:
		// Filters above nwifi.sys report their lower edge as Wi-Fi while
		// the bytes there are already an Ethernet frame.
		if looksEthernet(b) {
			return LinkTypeEthernet, true, true
		}
		return LinkTypeIEEE80211, false, true
	case pmTypeIP:
		return LinkTypeRaw, false, true
	}
	// Unknown, or a type naming a header above IP (TCP, UDP, HTTP, …): the
	// bytes decide, and only an IP header whose length is the packet's
	// does, since text such as "GET /" starts like an IPv4 header.
	if looksIP(b) && ipLength(b) == orig {
		return LinkTypeRaw, true, true
	}
	if looksEthernet(b) {
		at, _, _ := networkLayer(LinkTypeEthernet, b)
		if n := at + ipLength(b[at:]); n == orig || n > at && orig <= minEthernetFrame && n <= orig {
			return LinkTypeEthernet, true, true
		}
	}
	return 0, false, false
}

func (c *Converter) packetTypeName(b []byte, t uint16) []byte {
	if int(t) < len(pmTypeNames) {
		return append(b, pmTypeNames[t]...)
	}
	return digits.AppendDecimal(b, uint64(t))
}

// componentKey names a PktMon component of one input.
type componentKey struct {
	input int32
	id    uint16
}

// component is what a trace says of one PktMon component.
type component struct {
	typ               uint16
	name, description string
	mac               []byte
	ipv4              [][4]byte
	ipv6              [][16]byte
}

// maxAddresses bounds the addresses kept per component.
const maxAddresses = 64

// learnComponent reads the component events: 20 names a component, 65
// and 66 give its IP addresses, 70 its MAC address.
func (c *Converter) learnComponent(r *record.Record, input int) {
	u := r.UserData
	if len(u) < 4 {
		return
	}
	id, typ := le.Uint16(u), le.Uint16(u[2:])
	switch r.EventDescriptor.Id {
	case pktmonComponent:
		name, rest, ok := payload.CutUTF16(u[4:])
		if !ok {
			return
		}
		desc, _, ok := payload.CutUTF16(rest)
		if !ok {
			return
		}
		cp := c.component(input, id)
		cp.typ = typ
		cp.name = string(payload.AppendUTF16(nil, name))
		cp.description = string(payload.AppendUTF16(nil, desc))
	case pktmonPropertyIPv4:
		if typ == pmPropIPAddress && len(u) >= 8 {
			cp := c.component(input, id)
			cp.ipv4 = addAddress(cp.ipv4, [4]byte(u[4:8]))
		}
	case pktmonPropertyIPv6:
		if typ == pmPropIPAddress && len(u) >= 20 {
			cp := c.component(input, id)
			cp.ipv6 = addAddress(cp.ipv6, [16]byte(u[4:20]))
		}
	case pktmonPropertyBytes:
		if typ != pmPropMAC || len(u) < 8 {
			return
		}
		if v, ok := cut(u[4:]); ok && len(v) == 6 {
			c.component(input, id).mac = append([]byte(nil), v...)
		}
	}
}

// addAddress adds a to the addresses of a component, once, up to
// maxAddresses.
func addAddress[A [4]byte | [16]byte](list []A, a A) []A {
	if len(list) < maxAddresses && !slices.Contains(list, a) {
		list = append(list, a)
	}
	return list
}

func (c *Converter) component(input int, id uint16) *component {
	k := componentKey{int32(input), id}
	cp := c.components[k]
	if cp == nil {
		cp = &component{}
		c.components[k] = cp
	}
	return cp
}
