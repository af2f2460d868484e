package packets

import (
	"encoding/binary"
	"strconv"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/digits"
	"github.com/etlkit/etlkit/record"
)

// Defaults of Options.
const (
	// DefaultMaxInFlight is the number of NDIS packets reassembled at once:
	// ndiscap logs the fragments of a packet one after another on one
	// processor, so a handful per processor is already generous.
	DefaultMaxInFlight = 64
	// DefaultMaxPacketSize bounds a reassembled packet: a large-send frame
	// is at most 64 KiB of payload with its headers, and a jumbogram the
	// capture could not log whole anyway.
	DefaultMaxPacketSize = 256 << 10
	// maxPacketSize bounds MaxPacketSize, so that lengths fit a pcapng
	// block's 32 bits.
	maxPacketSize = 1 << 30
)

// Options are the settings of a Converter.
type Options struct {
	// FirstAppearance keeps only the first appearance of each PktMon
	// packet, which PktMon reports at every component it crosses; drop
	// reports are kept. By default every appearance is a packet, as `pktmon
	// etl2pcap` writes them. See firstAppearance for how appearances of one
	// packet are recognised.
	FirstAppearance bool
	// MaxInFlight bounds the NDIS packets whose fragments are being
	// reassembled at once; the oldest is given up for a new one beyond it.
	// 0 is DefaultMaxInFlight.
	MaxInFlight int
	// MaxPacketSize bounds a reassembled NDIS packet; one that grows past
	// it is given up. 0 is DefaultMaxPacketSize.
	MaxPacketSize int
}

// Converter turns packet records into packets. Records are given in time
// order, each with the index of the input it comes from; Packet returns a
// packet when a record completes one. A Converter is not safe for use by
// several goroutines at once.
type Converter struct {
	opts Options

	interfaces []Interface
	byKey      map[Interface]int
	// last caches the latest interface looked up: packets come in runs on
	// one interface.
	last      Interface
	lastIndex int

	// The NDIS streams being reassembled, and the Wi-Fi metadata waiting
	// for the packet it describes.
	flights  []flight
	metadata []pendingMetadata
	taken    pendingMetadata
	tick     uint64
	// ports names the Hyper-V switch ports of the interfaces of event 1003.
	ports map[int]portNames

	components map[componentKey]*component

	appearances *appearances

	pkt     Packet
	comment []byte
	frame   []byte // a copy of a frame whose bytes are corrected
	stats   Stats
}

// New returns a Converter with the given options.
func New(opts Options) *Converter {
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.MaxPacketSize <= 0 {
		opts.MaxPacketSize = DefaultMaxPacketSize
	}
	opts.MaxPacketSize = min(opts.MaxPacketSize, maxPacketSize)
	c := &Converter{
		opts:       opts,
		byKey:      map[Interface]int{},
		lastIndex:  -1,
		components: map[componentKey]*component{},
		ports:      map[int]portNames{},
		comment:    make([]byte, 0, 256),
	}
	if opts.FirstAppearance {
		c.appearances = newAppearances()
	}
	return c
}

// IsPacketProvider reports whether r comes from a provider whose events
// the Converter reads.
func IsPacketProvider(r *record.Record) bool {
	return r.ProviderId == PktMon || r.ProviderId == NDISPacketCapture
}

// Packet reads one record of input in. When the record completes a packet
// it returns it, valid until the next call; the record's other events that
// describe interfaces are learned (see Learn). A record of another provider
// returns nothing, as does one whose packet is malformed (counted in
// Stats).
func (c *Converter) Packet(r *record.Record, input int) (*Packet, bool) {
	if !isEventHeader(r) {
		return nil, false
	}
	switch r.ProviderId {
	case NDISPacketCapture:
		return c.ndis(r, input)
	case PktMon:
		return c.pktmon(r, input)
	}
	return nil, false
}

// Learn reads what a record says of the interfaces without making a packet
// of it: PktMon's component events, which name the components and give
// their addresses. A program that filters records gives Learn those its
// filter leaves out, so that the interfaces are named all the same.
func (c *Converter) Learn(r *record.Record, input int) {
	if r.ProviderId == PktMon && isEventHeader(r) {
		c.learnComponent(r, input)
	}
}

// Interfaces returns the interfaces met so far, in the order of their
// first packet. The slice belongs to the Converter; it grows with new
// interfaces.
func (c *Converter) Interfaces() []Interface { return c.interfaces }

// Stats returns the counts so far.
func (c *Converter) Stats() Stats { return c.stats }

// Finish ends the input: the fragments still waiting for the rest of
// their packet are counted as Unpaired and dropped.
func (c *Converter) Finish() {
	for i := range c.flights {
		if c.flights[i].used {
			c.stats.Unpaired += int64(c.flights[i].fragments)
			c.flights[i].used = false
		}
	}
	c.metadata = c.metadata[:0]
}

// interfaceIndex returns the index of interface k, adding it when new.
func (c *Converter) interfaceIndex(k Interface) int {
	if c.lastIndex >= 0 && k == c.last {
		return c.lastIndex
	}
	i, ok := c.byKey[k]
	if !ok {
		i = len(c.interfaces)
		c.interfaces = append(c.interfaces, k)
		c.byKey[k] = i
	}
	c.last, c.lastIndex = k, i
	return i
}

// startPacket fills the parts of c.pkt every packet has from the record,
// and starts the comment with its process and thread.
func (c *Converter) startPacket(r *record.Record) *Packet {
	p := &c.pkt
	*p = Packet{ProcessID: r.ProcessId, ThreadID: r.ThreadId, HasProcessThread: r.HasThreadProcess}
	p.FileTime, _ = r.FileTime()
	c.comment = c.comment[:0]
	if r.HasThreadProcess {
		c.comment = c.number(c.number(c.comment, "PID", uint64(r.ProcessId)), "TID", uint64(r.ThreadId))
	}
	return p
}

// number appends " name=n" (without the space first) to b.
func (c *Converter) number(b []byte, name string, n uint64) []byte {
	b = c.field(b, name)
	return digits.AppendDecimal(b, n)
}

// hex appends " name=0x…" with n in lower-case hex digits.
func (c *Converter) hex(b []byte, name string, n uint64) []byte {
	b = c.field(b, name)
	return strconv.AppendUint(append(b, "0x"...), n, 16)
}

func (c *Converter) field(b []byte, name string) []byte {
	if len(b) > 0 {
		b = append(b, ' ')
	}
	b = append(b, name...)
	return append(b, '=')
}

// note appends a remark in words.
func (c *Converter) note(b []byte, s string) []byte {
	if len(b) > 0 {
		b = append(b, "; "...)
	}
	return append(b, s...)
}

// fixProtected clears the Protected bit of an 802.11 frame whose body is
// cleartext, in a copy, and says so in the comment.
func (c *Converter) fixProtected(p *Packet) {
	if !clearProtected(p.Data) {
		return
	}
	c.frame = append(c.frame[:0], p.Data...)
	c.frame[1] &^= dot11Protected
	p.Data = c.frame
	c.stats.Unprotected++
	c.comment = c.note(c.comment, "Protected bit cleared: the frame was logged decrypted")
}

// isEventHeader reports whether r has an EVENT_HEADER, the header of
// manifest events, whose event id the layouts are chosen by.
func isEventHeader(r *record.Record) bool {
	return r.HeaderType == header.TypeEventHeader64 || r.HeaderType == header.TypeEventHeader32
}

var le = binary.LittleEndian
