package packets

import (
	"github.com/etlkit/etlkit/internal/digits"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// streamKey names one stream of NDIS fragments: ndiscap logs the fragments
// of a packet one after another, from one processor, for one interface.
// The Wi-Fi metadata of a packet is logged just before it on the same
// stream.
type streamKey struct {
	input    int32
	cpu      uint16
	source   Source
	miniport uint32
	lower    uint32
	port     uint32
}

// flight is a packet whose first fragments are read and whose end is
// awaited.
type flight struct {
	key       streamKey
	used      bool
	fragments int
	tick      uint64 // when it started, to give up the oldest first
	keyword   uint64
	head      Packet // the packet as its first fragment began it
	data      []byte
	comment   []byte
}

// pendingMetadata is the metadata of event 1002 waiting for its packet.
type pendingMetadata struct {
	key  streamKey
	size uint32
	data [dot11RecvContextSize]byte
}

// ndisEvent is what a fragment event says besides its bytes.
type ndisEvent struct {
	key     streamKey
	keyword uint64
	// The Hyper-V switch's fields of event 1003: the UTF-16 strings as
	// they are in the record, the number of destinations and OOB data.
	portName, nicName, nicType []byte
	destinations               uint32
	oob                        []byte
	pointerSize                int
}

func (c *Converter) ndis(r *record.Record, input int) (*Packet, bool) {
	switch r.EventDescriptor.Id {
	case ndisFragment, ndisVMSwitchFragment:
	case ndisMetadata:
		c.ndisMetadata(r, input)
		return nil, false
	default:
		return nil, false
	}
	c.stats.Records++
	var ev ndisEvent
	frag, ok := c.parseFragment(r, input, &ev)
	if !ok {
		c.stats.Malformed++
		return nil, false
	}
	start, end := ev.keyword&kwPacketStart != 0, ev.keyword&kwPacketEnd != 0
	f := c.findFlight(ev.key)
	if start {
		if f != nil {
			// The packet before never ended.
			c.stats.Unpaired += int64(f.fragments)
			f.used = false
		}
		p := c.beginNDIS(r, &ev)
		if end {
			// The whole packet in one event, as every packet since
			// Windows 8.1: no copy.
			return c.finishNDIS(p, &ev, frag), true
		}
		f = c.newFlight(ev.key)
		f.keyword, f.head = ev.keyword, *p
		f.data = append(f.data[:0], frag...)
		f.comment = append(f.comment[:0], c.comment...)
		f.fragments = 1
		if len(f.data) > c.opts.MaxPacketSize {
			c.stats.Evicted++
			f.used = false
		}
		return nil, false
	}
	if f == nil {
		c.stats.Unpaired++
		return nil, false
	}
	f.fragments++
	f.data = append(f.data, frag...)
	if len(f.data) > c.opts.MaxPacketSize {
		c.stats.Evicted++
		f.used = false
		return nil, false
	}
	if !end {
		return nil, false
	}
	f.used = false
	c.pkt = f.head
	c.comment = append(c.comment[:0], f.comment...)
	ev.keyword = f.keyword
	return c.finishNDIS(&c.pkt, &ev, f.data), true
}

// parseFragment reads the fields of a fragment event into ev and returns
// the fragment, false when the event is too short for what it announces.
func (c *Converter) parseFragment(r *record.Record, input int, ev *ndisEvent) ([]byte, bool) {
	u := r.UserData
	if len(u) < ndisFragmentData {
		return nil, false
	}
	ev.keyword = r.EventDescriptor.Keyword
	ev.key = streamKey{input: int32(input), cpu: r.ProcessorNumber, source: SourceNDIS,
		miniport: le.Uint32(u[ndisMiniportIfIndex:]), lower: le.Uint32(u[ndisLowerIfIndex:])}
	if r.EventDescriptor.Id == ndisFragment {
		return cut(u[ndisFragmentSize:])
	}
	ev.key.source = SourceVMSwitch
	ev.key.port = le.Uint32(u[vmsSourcePortID:])
	ev.pointerSize = r.PointerSize()
	rest := u[vmsSourcePortName:]
	var ok bool
	for _, s := range []*[]byte{&ev.portName, &ev.nicName, &ev.nicType} {
		if *s, rest, ok = payload.CutUTF16(rest); !ok {
			return nil, false
		}
	}
	if len(rest) < 4 {
		return nil, false
	}
	ev.destinations = le.Uint32(rest)
	skip := 4 + uint64(ev.destinations)*vmsDestination
	if ev.destinations > maxVMSDestinations || skip > uint64(len(rest)) {
		return nil, false
	}
	frag, ok := cut(rest[skip:])
	if !ok {
		return nil, false
	}
	rest = rest[skip+4+uint64(len(frag)):]
	// The OOB data is kept when it is all there; the packet does not
	// depend on it.
	if oob, ok := cut(rest); ok {
		ev.oob = oob
	}
	return frag, true
}

// cut reads a u32 size and that many bytes after it.
func cut(b []byte) ([]byte, bool) {
	if len(b) < 4 {
		return nil, false
	}
	n := uint64(le.Uint32(b))
	if n > uint64(len(b)-4) {
		return nil, false
	}
	return b[4 : 4+n], true
}

// beginNDIS starts the packet of a first fragment: the record's time,
// process and thread, and the comment on what the event and the metadata
// before it say.
func (c *Converter) beginNDIS(r *record.Record, ev *ndisEvent) *Packet {
	p := c.startPacket(r)
	if m := c.takeMetadata(ev.key); m != nil {
		c.comment = c.metadataComment(c.comment, m)
	}
	if ev.key.source == SourceVMSwitch {
		b := c.number(c.comment, "SourcePortId", uint64(ev.key.port))
		b = c.utf16(b, "SourcePortName", ev.portName)
		b = c.utf16(b, "SourceNicName", ev.nicName)
		b = c.utf16(b, "SourceNicType", ev.nicType)
		b = c.number(b, "DestinationCount", uint64(ev.destinations))
		if v, ok := oobSlot(ev.oob, ev.pointerSize, oobIeee8021Q); ok && v != 0 {
			b = c.number(b, "VlanId", v>>4&0xFFF)
			b = c.number(b, "UserPriority", v&7)
		}
		if v, ok := oobSlot(ev.oob, ev.pointerSize, oobHashValue); ok && v != 0 {
			b = c.hex(b, "HashValue", v&0xFFFFFFFF)
		}
		c.comment = b
	}
	return p
}

// finishNDIS completes packet p with its bytes: link type, interface,
// lengths, direction and the notes of the comment.
func (c *Converter) finishNDIS(p *Packet, ev *ndisEvent, data []byte) *Packet {
	kw := ev.keyword
	link := LinkTypeEthernet
	switch {
	case kw&kwNative80211 != 0:
		link = LinkTypeIEEE80211
	case kw&kwWirelessWAN != 0:
		link = LinkTypeRaw
	case kw&kwTunnel != 0 && looksIP(data) && !looksEthernet(data):
		// The tunnel medium's frame format is not documented; its bytes
		// tell.
		link = LinkTypeRaw
		c.stats.Corrected++
		c.comment = c.note(c.comment, "tunnel medium: the bytes are an IP packet")
	}
	k := ev.key
	p.Interface = c.interfaceIndex(Interface{Input: int(k.input), Source: k.source, LinkType: link,
		MiniportIfIndex: k.miniport, LowerIfIndex: k.lower, SourcePortID: k.port})
	if k.source == SourceVMSwitch {
		c.namePort(p.Interface, ev)
	}
	switch kw & (kwSendPath | kwReceivePath) {
	case kwSendPath:
		p.Direction = Outbound
	case kwReceivePath:
		p.Direction = Inbound
	}
	p.Data = data
	// At most MaxPacketSize (below 2^30) or a record's bytes, plus an IP
	// header's length: it fits.
	n := originalLength(link, data)
	p.OriginalLength = uint32(n)
	if kw&kwTruncated != 0 {
		c.comment = c.note(c.comment, "truncated by the capture")
	}
	if n > len(data) {
		c.comment = c.note(c.comment, "original length from the IP header")
	}
	if link == LinkTypeIEEE80211 {
		c.fixProtected(p)
	}
	p.Comment = c.comment
	c.stats.Packets++
	return p
}

// findFlight returns the packet in flight on stream k, nil for none.
func (c *Converter) findFlight(k streamKey) *flight {
	for i := range c.flights {
		if f := &c.flights[i]; f.used && f.key == k {
			return f
		}
	}
	return nil
}

// newFlight takes a free slot for stream k, giving up the oldest packet
// in flight when all MaxInFlight are taken.
func (c *Converter) newFlight(k streamKey) *flight {
	c.tick++
	var f *flight
	for i := range c.flights {
		if !c.flights[i].used {
			f = &c.flights[i]
			break
		}
	}
	if f == nil && len(c.flights) < c.opts.MaxInFlight {
		c.flights = append(c.flights, flight{})
		f = &c.flights[len(c.flights)-1]
	}
	if f == nil {
		f = &c.flights[0]
		for i := range c.flights {
			if c.flights[i].tick < f.tick {
				f = &c.flights[i]
			}
		}
		c.stats.Evicted++
	}
	f.key, f.used, f.tick, f.fragments = k, true, c.tick, 0
	return f
}

// ndisMetadata keeps the metadata of event 1002 for the next packet of
// its stream.
func (c *Converter) ndisMetadata(r *record.Record, input int) {
	u := r.UserData
	if len(u) < ndisFragmentData {
		c.stats.Malformed++
		return
	}
	m, ok := cut(u[ndisFragmentSize:])
	if !ok {
		c.stats.Malformed++
		return
	}
	k := streamKey{input: int32(input), cpu: r.ProcessorNumber, source: SourceNDIS,
		miniport: le.Uint32(u[ndisMiniportIfIndex:]), lower: le.Uint32(u[ndisLowerIfIndex:])}
	var slot *pendingMetadata
	for i := range c.metadata {
		if c.metadata[i].key == k {
			slot = &c.metadata[i]
			break
		}
	}
	if slot == nil {
		if len(c.metadata) >= c.opts.MaxInFlight {
			// The oldest never met its packet.
			copy(c.metadata, c.metadata[1:])
			c.metadata = c.metadata[:len(c.metadata)-1]
		}
		c.metadata = append(c.metadata, pendingMetadata{})
		slot = &c.metadata[len(c.metadata)-1]
	}
	slot.key, slot.size = k, uint32(len(m))
	copy(slot.data[:], m)
}

// takeMetadata returns the metadata waiting on stream k and forgets it.
func (c *Converter) takeMetadata(k streamKey) *pendingMetadata {
	k.source, k.port = SourceNDIS, 0
	for i := range c.metadata {
		if c.metadata[i].key == k {
			m := c.metadata[i]
			c.metadata = append(c.metadata[:i], c.metadata[i+1:]...)
			c.taken = m
			return &c.taken
		}
	}
	return nil
}

// metadataComment describes the Wi-Fi receive context of a packet.
func (c *Converter) metadataComment(b []byte, m *pendingMetadata) []byte {
	if m.size != dot11RecvContextSize {
		return c.number(b, "PacketMetadataSize", uint64(m.size))
	}
	d := m.data[:]
	b = c.hex(b, "ReceiveFlags", uint64(le.Uint32(d[dot11ReceiveFlags:])))
	b = c.field(b, "PhyType")
	if phy := le.Uint32(d[dot11PhyID:]); phy < uint32(len(dot11PhyNames)) {
		b = append(b, dot11PhyNames[phy]...)
	} else {
		b = digits.AppendDecimal(b, uint64(phy))
	}
	b = c.number(b, "CenterFrequencyMHz", uint64(le.Uint32(d[dot11CenterFrequency:])))
	b = c.number(b, "MPDUsReceived", uint64(le.Uint16(d[dot11MPDUsReceived:])))
	b = c.field(b, "RSSIdBm")
	b = digits.AppendInt(b, int64(int32(le.Uint32(d[dot11RSSI:]))))
	return c.number(b, "DataRateIndex", uint64(d[dot11DataRate]))
}

// oobSlot reads slot i of OOB data made of pointer-sized values.
func oobSlot(oob []byte, ptr, i int) (uint64, bool) {
	switch {
	case ptr == 8 && len(oob) >= (i+1)*8:
		return le.Uint64(oob[i*8:]), true
	case ptr == 4 && len(oob) >= (i+1)*4:
		return uint64(le.Uint32(oob[i*4:])), true
	}
	return 0, false
}

// utf16 appends " name=text" with UTF-16 text as UTF-8.
func (c *Converter) utf16(b []byte, name string, s []byte) []byte {
	b = c.field(b, name)
	return payload.AppendUTF16(b, s)
}
