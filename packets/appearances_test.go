package packets_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/packettest"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/packets"
)

// In the Wi-Fi capture (build 26100, where every report has its own
// PktGroupId) a received packet is first reported by the miniport and a
// sent one by the protocol that sends it. The first appearances are
// therefore exactly the miniports' receive reports and the protocols' send
// reports, with every drop report kept.
func TestFirstAppearanceSample(t *testing.T) {
	path := samples.Path(t, "pktmon-wifi-ethernet-ip.etl")
	all, allConv := convertFile(t, path, packets.Options{})
	first, firstConv := convertFile(t, path, packets.Options{FirstAppearance: true})
	kind := func(c *packets.Converter, i int) string { return c.Describe(i).Comment }
	want := 0
	for _, p := range all {
		k := kind(allConv, p.Packet.Interface)
		switch {
		case p.Dropped,
			p.Direction == packets.Inbound && strings.Contains(k, "(Miniport)"),
			p.Direction == packets.Outbound && strings.Contains(k, "(Protocol)"):
			want++
		}
	}
	require.Len(t, first, want)
	assert.Equal(t, 5997, want)
	for _, p := range first {
		k := kind(firstConv, p.Packet.Interface)
		switch {
		case p.Dropped:
		case p.Direction == packets.Inbound:
			assert.Contains(t, k, "(Miniport)")
		default:
			assert.Contains(t, k, "(Protocol)")
		}
	}
	st := firstConv.Stats()
	assert.EqualValues(t, len(all)-len(first), st.Repeated)
}

func convertFile(t *testing.T, path string, opts packets.Options) ([]got, *packets.Converter) {
	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	c := packets.New(opts)
	var out []got
	for r, err := range f.Events() {
		require.NoError(t, err)
		if p, ok := c.Packet(r, 0); ok {
			out = append(out, got{Packet: *p, Interface: c.Interfaces()[p.Interface]})
		}
	}
	return out, c
}

// path is the way of a received packet up a Wi-Fi stack: (component,
// edge, packet type) in order.
var path = [][3]uint16{{13, 1, 2}, {42, 2, 2}, {42, 1, 2}, {40, 2, 2}, {40, 1, 1}, {80, 1, 1}}

// report is one report of a packet along path.
func report(ts int64, hop int, ip []byte, group uint64, appearance uint16) *etltest.Event {
	c := path[hop]
	data := packettest.Ethernet(ip)
	if c[2] == 2 {
		data = packettest.Dot11(ip, false)
	}
	f := packettest.PktMonFrame{TimeStamp: ts, ProcessID: 4, ThreadID: 1, GroupID: group, PktNumber: 1,
		AppearanceCount: appearance, DirTag: 3, PacketType: c[2], ComponentID: c[0], EdgeID: c[1], Data: data}
	return f.Event()
}

// Build 26100 and later: reports are tied by their bytes. Two packets with
// the same bytes received back to back are two packets, their reports
// interleaved; the same bytes again later are a packet again.
func TestFirstAppearanceByBytes(t *testing.T) {
	a, b := packettest.IPv4UDP(200, 1), packettest.IPv4UDP(300, 2)
	ts := int64(2_000_000_000)
	group := uint64(0)
	var evs []*etltest.Event
	add := func(hop int, ip []byte) {
		ts += 10
		group++
		evs = append(evs, report(ts, hop, ip, group, 0))
	}
	for hop := range path {
		add(hop, a) // a, and a copy of a: same bytes
		add(hop, a)
		add(hop, b)
	}
	ts += 1_000_000 // 100 ms later: beyond the window
	for hop := range path {
		add(hop, a)
	}
	for hop := range 2 { // and at once again: the miniport sees it twice
		add(hop, a)
	}
	tr := buildTrace(t, func(bd *etltest.Builder) error {
		bd.CPU(0).Add(evs[0])
		for _, ev := range evs[1:] {
			bd.CPU(0).Add(ev)
		}
		return bd.Err()
	})
	out, c := convert(t, packets.Options{FirstAppearance: true}, tr)
	require.Len(t, out, 5)
	for i, p := range out {
		assert.EqualValues(t, 13, p.Interface.ComponentID, "packet %d at the miniport", i)
	}
	assert.EqualValues(t, len(evs)-5, c.Stats().Repeated)
	all, _ := convert(t, packets.Options{}, tr)
	assert.Len(t, all, len(evs), "by default every report is a packet")
}

// Builds up to 19044: reports of one packet share (PktGroupId, PktNumber)
// and count their appearances; different packets with equal bytes have
// different ids.
func TestFirstAppearanceByIDs(t *testing.T) {
	ip := packettest.IPv4UDP(200, 1)
	ts := int64(2_000_000_000)
	var evs []*etltest.Event
	for hop := range path {
		for g := uint64(1); g <= 2; g++ {
			ts += 10
			evs = append(evs, report(ts, hop, ip, g, uint16(hop+1)))
		}
	}
	tr := buildTrace(t, func(bd *etltest.Builder) error {
		for _, ev := range evs {
			bd.CPU(0).Add(ev)
		}
		return bd.Err()
	})
	out, c := convert(t, packets.Options{FirstAppearance: true}, tr)
	require.Len(t, out, 2)
	assert.Contains(t, out[0].Comment, "PktGroupId=0x1 PktNumber=1 AppearanceCount=1")
	assert.Contains(t, out[1].Comment, "PktGroupId=0x2 PktNumber=1 AppearanceCount=1")
	assert.EqualValues(t, len(evs)-2, c.Stats().Repeated)
}
