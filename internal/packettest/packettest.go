// Package packettest builds the packet events of NDIS-PacketCapture and
// PktMon from their documented layouts, and the frames they carry, for the
// tests and benchmarks of package packets, the pcapng sink and etldump.
package packettest

import (
	"encoding/binary"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
)

var (
	le = binary.LittleEndian
	be = binary.BigEndian
)

// The providers, as the traces name them.
var (
	NDISProvider   = uuid.MustParse("2ed6006e-4729-4609-b423-3ee7bcd678ef")
	PktMonProvider = uuid.MustParse("4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac")
)

// NDIS-PacketCapture keyword bits.
const (
	KeywordEthernet    = 0x1
	KeywordWirelessWAN = 0x200
	KeywordTunnel      = 0x8000
	KeywordNative80211 = 0x10000
	KeywordVMSwitch    = 0x1000000
	KeywordTruncated   = 0x2000000
	KeywordStart       = 0x40000000
	KeywordEnd         = 0x80000000
	KeywordSend        = 0x100000000
	KeywordReceive     = 0x200000000
	// keywordStatic are the bits every fragment event carries: the
	// manifest's two and the channel bit seen on real events.
	keywordStatic = 0x20000000000 | 0x40000000000 | 1<<63
)

// NDISPacket is one packet as ndiscap logs it: the fragments of Data, each
// an event 1001 (or 1003 with VMSwitch), with the media and direction bits
// in their keyword.
type NDISPacket struct {
	Name            string
	CPU             int   // the processor that logs it
	TimeStamp       int64 // raw clock of the first fragment; the others follow by 1 tick
	ProcessID       uint32
	ThreadID        uint32
	MiniportIfIndex uint32
	LowerIfIndex    uint32
	Media           uint64 // KeywordEthernet, KeywordNative80211, …, or 0 for none
	Direction       uint64 // KeywordSend, KeywordReceive, both or none
	Truncated       bool
	Data            []byte
	// Fragments splits Data into that many events (1 when 0); Data must
	// hold at least that many bytes.
	Fragments int
	// VMSwitch, when set, makes the fragments events 1003.
	VMSwitch *VMSwitch
	// Metadata, when set, logs an event 1002 (Wi-Fi receive context) just
	// before the packet: flags 1, 802.11ax, 5180 MHz, 1 MPDU, -52 dBm,
	// rate index 12.
	Metadata bool
}

// VMSwitch holds the fields of event 1003.
type VMSwitch struct {
	SourcePortID                    uint32
	PortName, NicName, NicType      string
	Destinations                    uint32
	VlanID, UserPriority, HashValue uint64
}

// Events returns the fragment events of the packet.
func (p NDISPacket) Events() []*etltest.Event {
	n := max(p.Fragments, 1)
	var out []*etltest.Event
	size := len(p.Data) / n
	for i := range n {
		part := p.Data[i*size : (i+1)*size]
		if i == n-1 {
			part = p.Data[i*size:]
		}
		kw := p.Media | p.Direction | keywordStatic
		if i == 0 {
			kw |= KeywordStart
		}
		if i == n-1 {
			kw |= KeywordEnd
		}
		if p.Truncated {
			kw |= KeywordTruncated
		}
		id := uint16(1001)
		var pl etltest.Payload
		pl.U32(p.MiniportIfIndex).U32(p.LowerIfIndex)
		if v := p.VMSwitch; v != nil {
			id = 1003
			kw |= KeywordVMSwitch
			pl.U32(v.SourcePortID).UTF16Z(v.PortName).UTF16Z(v.NicName).UTF16Z(v.NicType).U32(v.Destinations)
			for d := range v.Destinations {
				pl.F64(float64(d))
			}
			pl.U32(uint32(len(part))).Raw(part)
			oob := make([]byte, 9*8)
			le.PutUint64(oob[4*8:], v.UserPriority|v.VlanID<<4)
			le.PutUint64(oob[8*8:], v.HashValue)
			pl.U32(uint32(len(oob))).Raw(oob)
		} else {
			pl.U32(uint32(len(part))).Raw(part).U64(0).U64(0)
		}
		out = append(out, ndisEvent(p.TimeStamp+int64(i), p.ProcessID, p.ThreadID, id, kw, pl.Bytes()))
	}
	return out
}

// NDISMetadata returns an event 1002 carrying the Wi-Fi receive context
// (DOT11_EXTSTA_RECV_CONTEXT, 48 bytes) with these values.
func NDISMetadata(ts int64, miniport, lower uint32, flags, phy, freqMHz uint32, mpdus uint16, rssi int32, rate uint8) *etltest.Event {
	ctx := make([]byte, 48)
	ctx[0], ctx[1] = 0x80, 1
	le.PutUint16(ctx[2:], 48)
	le.PutUint32(ctx[4:], flags)
	le.PutUint32(ctx[8:], phy)
	le.PutUint32(ctx[12:], freqMHz)
	le.PutUint16(ctx[16:], mpdus)
	le.PutUint32(ctx[20:], uint32(rssi))
	ctx[24] = rate
	var pl etltest.Payload
	pl.U32(miniport).U32(lower).U32(uint32(len(ctx))).Raw(ctx)
	return ndisEvent(ts, 4, 0, 1002, 0x20000000000|0x40000000000|1<<63, pl.Bytes())
}

func ndisEvent(ts int64, pid, tid uint32, id uint16, kw uint64, data []byte) *etltest.Event {
	return &etltest.Event{TimeStamp: ts, ProcessId: pid, ThreadId: tid, ProviderId: NDISProvider,
		Descriptor: header.EventDescriptor{Id: id, Level: 4, Keyword: kw}, UserData: data}
}

// PktMonFrame is one PktMon packet event: 160, 170 or 240, or with
// AddressBytes one of the header-info form, 200 to 230.
type PktMonFrame struct {
	ID                         uint16 // 160 when 0
	TimeStamp                  int64
	ProcessID, ThreadID        uint32
	GroupID                    uint64
	PktNumber, AppearanceCount uint16
	DirTag, PacketType         uint16
	ComponentID, EdgeID        uint16
	FilterID                   uint16
	DropReason, DropLocation   uint32
	OriginalSize               uint16 // len(Data) when 0
	Data                       []byte
	// AddressBytes 4 or 16 makes the event one of the header-info form
	// (200-230), with these fields in place of the ids.
	AddressBytes     int
	Protocol         uint8
	SrcPort, DstPort uint16
	SrcIP, DstIP     []byte
	// Damage: Trailing bytes after the payload; Overstate adds to
	// LoggedPayloadSize beyond the bytes there are.
	Trailing, Overstate int
}

// Payload returns the event's user data.
func (f *PktMonFrame) Payload() []byte {
	orig := f.OriginalSize
	if orig == 0 {
		orig = uint16(len(f.Data))
	}
	logged := uint16(len(f.Data) + f.Overstate)
	var pl etltest.Payload
	if a := f.AddressBytes; a != 0 {
		pl.U16(f.DirTag).U16(f.PacketType).U16(f.ComponentID).U16(f.EdgeID).U16(f.FilterID).
			U32(f.DropReason).U32(f.DropLocation)
		pl.Raw(fixed(f.DstIP, a)).Raw(fixed(f.SrcIP, a))
		pl.U8(f.Protocol).U16(f.DstPort).U16(f.SrcPort)
	} else {
		pl.U64(f.GroupID).U16(f.PktNumber).U16(f.AppearanceCount).U16(f.DirTag).U16(f.PacketType).
			U16(f.ComponentID).U16(f.EdgeID).U16(f.FilterID).U32(f.DropReason).U32(f.DropLocation)
	}
	pl.U16(orig).U16(logged).Raw(f.Data).Raw(make([]byte, f.Trailing))
	return pl.Bytes()
}

func fixed(b []byte, n int) []byte {
	out := make([]byte, n)
	copy(out, b)
	return out
}

// Event returns the record of the frame.
func (f *PktMonFrame) Event() *etltest.Event {
	id := f.ID
	if id == 0 {
		id = 160
	}
	if f.AddressBytes != 0 && f.ID == 0 {
		id = 200
		if f.AddressBytes == 16 {
			id = 220
		}
	}
	return pktmonEvent(f.TimeStamp, f.ProcessID, f.ThreadID, id, 0x10, f.Payload())
}

// PktMonComponent returns event 20, which names a component.
func PktMonComponent(ts int64, id, typ uint16, name, description string) *etltest.Event {
	var pl etltest.Payload
	pl.U16(id).U16(typ).UTF16Z(name).UTF16Z(description)
	return pktmonEvent(ts, 4, 0, 20, 0x2, pl.Bytes())
}

// PktMonAddress returns event 65 (4 bytes) or 66 (16 bytes): an IP address
// of a component.
func PktMonAddress(ts int64, id uint16, addr []byte) *etltest.Event {
	ev := uint16(65)
	if len(addr) == 16 {
		ev = 66
	}
	var pl etltest.Payload
	pl.U16(id).U16(13).Raw(addr)
	return pktmonEvent(ts, 4, 0, ev, 0x2, pl.Bytes())
}

// PktMonMAC returns event 70 with the MAC address of a component.
func PktMonMAC(ts int64, id uint16, mac []byte) *etltest.Event {
	var pl etltest.Payload
	pl.U16(id).U16(6).U32(uint32(len(mac))).Raw(mac)
	return pktmonEvent(ts, 4, 0, 70, 0x2, pl.Bytes())
}

func pktmonEvent(ts int64, pid, tid uint32, id uint16, kw uint64, data []byte) *etltest.Event {
	return &etltest.Event{TimeStamp: ts, ProcessId: pid, ThreadId: tid, ProviderId: PktMonProvider,
		Descriptor: header.EventDescriptor{Id: id, Level: 4, Keyword: kw}, UserData: data}
}
