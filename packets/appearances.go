package packets

import (
	"hash/maphash"
	"slices"
	"time"
)

// PktMon reports a packet at every component edge it crosses. How the
// reports of one packet are tied together depends on the Windows build:
//
//   - up to build 19044 at least, every report of a packet carries the same
//     (PktGroupId, PktNumber), and AppearanceCount counts 1, 2, 3 … along
//     its path;
//   - on builds 26100 and later AppearanceCount is 0 and every report gets
//     a PktGroupId of its own.
//
// A report with AppearanceCount above 0 is therefore known by its ids. One
// with 0 is known by its network-layer bytes: the frame's link header
// changes on the way (802.11 below nwifi.sys, Ethernet above it, none at
// TCP/IP), what it carries does not. Two reports with the same bytes and
// direction within AppearanceWindow of each other are one packet, unless
// the second comes to a component edge the first already passed: a packet
// sent again (a retransmission, a repeated broadcast) starts its path over.
// A full table (more packets within the window than it holds) forgets the
// oldest, whose later reports are then kept as packets: the option can keep
// a repeated report, it does not lose a packet.

// AppearanceWindow is how far apart in time two reports of one packet may
// be, counted from the latest report.
const AppearanceWindow = 50 * time.Millisecond

const (
	appearanceWindowTicks = int64(AppearanceWindow / 100) // FILETIME units
	appearanceSlots       = 1 << 14                       // a power of 2
	appearanceProbes      = 8
	appearancePlaces      = 14
	// appearanceBytes is how much of the network-layer packet identifies
	// it: IP header, transport header and the start of the data, which
	// every report logs even with the default 128-byte truncation.
	appearanceBytes = 64
)

// appearance is a packet recently seen: its fingerprint, when it was last
// reported, and the component edges that reported it.
type appearance struct {
	fingerprint uint64 // 0 for a free slot
	last        int64
	order       uint64 // when the entry was made
	places      uint8
	place       [appearancePlaces]uint32
}

// appearances is a fixed table of the packets seen within the window, so
// that memory stays the same whatever the capture's size.
type appearances struct {
	seed  maphash.Seed
	slots []appearance
	order uint64
}

func newAppearances() *appearances {
	return &appearances{seed: maphash.MakeSeed(), slots: make([]appearance, appearanceSlots)}
}

// repeated reports whether ev is another report of a packet already
// reported, and remembers it. Packets with the same bytes may be on their
// way at once (a frame sent twice in a burst): each has its own entry, and
// a report goes to the oldest that has not passed its component edge yet.
func (a *appearances) repeated(input int, ev *pmEvent, link LinkType, dir Direction, t int64) bool {
	fp := a.fingerprint(input, ev, link, dir)
	place := uint32(ev.componentID)<<16 | uint32(ev.edgeID)
	home := int(fp & (appearanceSlots - 1))
	var free, oldest, match *appearance
	for i := range appearanceProbes {
		s := &a.slots[(home+i)&(appearanceSlots-1)]
		live := s.fingerprint != 0 && within(t, s.last)
		if live && s.fingerprint == fp && !slices.Contains(s.place[:s.places], place) &&
			(match == nil || s.order < match.order) {
			match = s
		}
		if !live && free == nil {
			free = s
		}
		if oldest == nil || s.last < oldest.last {
			oldest = s
		}
	}
	if match != nil {
		match.last = t
		if match.places < appearancePlaces {
			match.place[match.places] = place
			match.places++
		}
		return true
	}
	if free == nil {
		free = oldest
	}
	a.order++
	*free = appearance{fingerprint: fp, last: t, order: a.order, places: 1}
	free.place[0] = place
	return false
}

func within(t, last int64) bool {
	d := t - last
	return d <= appearanceWindowTicks && d >= -appearanceWindowTicks
}

// fingerprint identifies the packet of a report: its ids when the build
// ties reports together, else its direction and network-layer bytes.
func (a *appearances) fingerprint(input int, ev *pmEvent, link LinkType, dir Direction) uint64 {
	var h uint64
	if ev.hasGroup && ev.appearance != 0 {
		h = mix(ev.groupID ^ mix(uint64(ev.pktNumber)|1<<32))
	} else {
		b := ev.data
		n := int(ev.originalSize)
		if at, _, ok := networkLayer(link, b); ok {
			b, n = b[at:], n-at
		} else {
			n |= int(link) << 24 // not comparable across link types
		}
		h = maphash.Bytes(a.seed, b[:min(len(b), appearanceBytes)])
		h ^= mix(uint64(uint32(n)) | uint64(dir)<<40 | 1<<48)
	}
	h ^= mix(uint64(input) | 1<<56)
	if h == 0 {
		h = 1
	}
	return h
}

// mix is a 64-bit finalizer (splitmix64's), so that ids which differ in a
// few bits land far apart.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
