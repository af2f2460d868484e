package packets

import (
	"strconv"

	"github.com/etlkit/etlkit/payload"
)

// portNames are the names event 1003 gives a Hyper-V switch port.
type portNames struct {
	port, nic, nicType string
}

// namePort keeps the names of the port of interface i from its first
// packet.
func (c *Converter) namePort(i int, ev *ndisEvent) {
	if _, ok := c.ports[i]; ok {
		return
	}
	c.ports[i] = portNames{
		port:    string(payload.AppendUTF16(nil, ev.portName)),
		nic:     string(payload.AppendUTF16(nil, ev.nicName)),
		nicType: string(payload.AppendUTF16(nil, ev.nicType)),
	}
}

// componentTypes names the PktMon component types (event 20's Type).
var componentTypes = [...]string{1: "Ndis", 2: "Miniport", 3: "Filter", 4: "Protocol", 5: "VmsVmNic",
	6: "VmsMiniport", 7: "VmsExtMiniport", 8: "VmsProtocolNic", 9: "NetVsc", 10: "HTTP", 11: "IpInterface",
	12: "Slbmux", 13: "Ipsec", 14: "NetCx", 15: "HTTPMessage"}

// Describe says what the trace tells of interface i so far: PktMon
// components are named by the component events, which come at the end of
// a capture, so a description is complete only once every record is read.
func (c *Converter) Describe(i int) Description {
	ifc := c.interfaces[i]
	lower := strconv.FormatUint(uint64(ifc.LowerIfIndex), 10)
	miniport := strconv.FormatUint(uint64(ifc.MiniportIfIndex), 10)
	switch ifc.Source {
	case SourceNDIS:
		kind := "eth"
		switch ifc.LinkType {
		case LinkTypeIEEE80211:
			kind = "wifi"
		case LinkTypeRaw:
			kind = "ip"
		}
		d := Description{Name: kind + ":" + lower, Comment: "NDIS-PacketCapture, " + ifc.LinkType.String()}
		if ifc.LowerIfIndex == ifc.MiniportIfIndex {
			d.Description = "IfIndex " + lower
		} else {
			d.Description = "IfIndex " + lower + ", a filter over miniport IfIndex " + miniport
		}
		return d
	case SourceVMSwitch:
		n := c.ports[i]
		port := n.port
		if port == "" {
			port = strconv.FormatUint(uint64(ifc.SourcePortID), 10)
		}
		return Description{
			Name: "vmswitch:" + port + ":" + lower,
			Description: "Hyper-V switch port " + strconv.FormatUint(uint64(ifc.SourcePortID), 10) +
				" (" + n.nic + ", " + n.nicType + "), IfIndex " + lower + ", miniport IfIndex " + miniport,
			Comment: "NDIS-PacketCapture, Hyper-V switch, " + ifc.LinkType.String(),
		}
	}
	id := strconv.FormatUint(uint64(ifc.ComponentID), 10)
	d := Description{Name: "component:" + id}
	comment := "PktMon component " + id
	if cp := c.components[componentKey{int32(ifc.Input), ifc.ComponentID}]; cp != nil {
		if cp.name != "" {
			d.Name = cp.name
		}
		d.Description = cp.description
		d.MAC, d.IPv4, d.IPv6 = cp.mac, cp.ipv4, cp.ipv6
		if int(cp.typ) < len(componentTypes) && componentTypes[cp.typ] != "" {
			comment += " (" + componentTypes[cp.typ] + ")"
		}
	}
	d.Comment = comment + ", " + ifc.LinkType.String()
	return d
}
