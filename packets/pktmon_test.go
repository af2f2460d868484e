package packets_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/packettest"
	"github.com/etlkit/etlkit/packets"
)

// The link type of a PktMon packet: the one its type names, the bytes'
// when they contradict a Wi-Fi type or when the type names none; a packet
// whose bytes name none either is left out and counted. The header-info
// events (200-230) and drops carry their packets the same way.
func TestPktMonLinkTypes(t *testing.T) {
	ip := packettest.IPv4UDP(100, 1)
	eth := packettest.Ethernet(ip)
	wifi := packettest.Dot11(ip, true)
	http := []byte("GET /index.html HTTP/1.1\r\nHost: example\r\n\r\n")
	// The comment of every packet starts with the fields the cases share
	// (set below); those of events 160-240 with their group too.
	const ids, grouped = "PID=4 TID=8 ", "PID=4 TID=8 PktGroupId=0x1d2c3b4a5 PktNumber=7 "
	cases := []struct {
		name      string
		frame     packettest.PktMonFrame
		link      packets.LinkType // 0: left out
		corrected bool
		data      []byte
		comment   string
	}{
		{"Ethernet", packettest.PktMonFrame{PacketType: 1, Data: eth}, packets.LinkTypeEthernet, false, eth,
			grouped + "EdgeId=3 DirTag=Tx"},
		{"Wi-Fi, Protected on cleartext", packettest.PktMonFrame{PacketType: 2, Data: wifi}, packets.LinkTypeIEEE80211, false, append([]byte{0x88, 0x02}, wifi[2:]...),
			grouped + "EdgeId=3 DirTag=Tx; Protected bit cleared: the frame was logged decrypted"},
		{"Wi-Fi typed Ethernet", packettest.PktMonFrame{PacketType: 2, Data: eth}, packets.LinkTypeEthernet, true, eth,
			grouped + "EdgeId=3 DirTag=Tx; PacketType WiFi, the bytes are Ethernet"},
		{"IP", packettest.PktMonFrame{PacketType: 3, Data: ip}, packets.LinkTypeRaw, false, ip,
			grouped + "EdgeId=3 DirTag=Tx"},
		{"TCP type over IP bytes", packettest.PktMonFrame{PacketType: 5, Data: ip}, packets.LinkTypeRaw, true, ip,
			grouped + "EdgeId=3 DirTag=Tx; PacketType TCP, the bytes are raw IP"},
		{"unknown type over Ethernet bytes", packettest.PktMonFrame{PacketType: 0, Data: eth}, packets.LinkTypeEthernet, true, eth,
			grouped + "EdgeId=3 DirTag=Tx; PacketType Unknown, the bytes are Ethernet"},
		{"HTTP text", packettest.PktMonFrame{PacketType: 4, Data: http}, 0, false, nil, ""},
		{"IP bytes, truncated, of a TCP type", packettest.PktMonFrame{PacketType: 5, Data: ip[:40], OriginalSize: 100}, packets.LinkTypeRaw, true, ip[:40],
			grouped + "EdgeId=3 DirTag=Tx; PacketType TCP, the bytes are raw IP"},
		{"IP bytes, another length, of a TCP type", packettest.PktMonFrame{PacketType: 5, Data: ip[:40]}, 0, false, nil, ""},
		{"IPv4 header-info form", packettest.PktMonFrame{AddressBytes: 4, PacketType: 1, Data: eth, SrcIP: []byte{10, 0, 0, 1}, DstIP: []byte{10, 0, 0, 2}, Protocol: 17}, packets.LinkTypeEthernet, false, eth,
			ids + "EdgeId=3 DirTag=Tx"},
		{"IPv6 header-info drop", packettest.PktMonFrame{ID: 230, AddressBytes: 16, PacketType: 3, Data: packettest.IPv6UDP(80, 2), DropReason: 902, DropLocation: 0xE0004138}, packets.LinkTypeRaw, false, packettest.IPv6UDP(80, 2),
			ids + "EdgeId=3 DirTag=Tx; dropped: DropReason=902 (TCPIP NL NotLocallyDestined) DropLocation=0xe0004138 (TCPIP)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.frame.TimeStamp, c.frame.ProcessID, c.frame.ThreadID, c.frame.ComponentID, c.frame.DirTag = 2_000_000_000, 4, 8, 9, 4
			c.frame.GroupID, c.frame.PktNumber, c.frame.EdgeID = 0x1D2C3B4A5, 7, 3
			r := decodeEvent(t, c.frame.Event())
			conv := packets.New(packets.Options{})
			p, ok := conv.Packet(r, 0)
			if c.link == 0 {
				require.False(t, ok)
				assert.EqualValues(t, 1, conv.Stats().UnknownType)
				return
			}
			require.True(t, ok)
			assert.Equal(t, c.link, conv.Interfaces()[p.Interface].LinkType)
			assert.Equal(t, c.data, p.Data)
			assert.Equal(t, packets.Outbound, p.Direction)
			assert.EqualValues(t, max(int(c.frame.OriginalSize), len(c.data)), p.OriginalLength)
			assert.Equal(t, c.comment, string(p.Comment))
			assert.EqualValues(t, map[bool]int{true: 1}[c.corrected], conv.Stats().Corrected)
			assert.Equal(t, c.frame.ID == 230, p.Dropped)
		})
	}
}

// A record too short for the payload it announces is left out and
// counted; bytes after the payload are not part of it.
func TestPktMonMalformed(t *testing.T) {
	eth := packettest.Ethernet(packettest.IPv4UDP(100, 1))
	tr := buildTrace(t, func(b *etltest.Builder) error {
		b.CPU(0).Add((&packettest.PktMonFrame{TimeStamp: 2_000_000_000, PacketType: 1, Data: eth, Overstate: 1}).Event(),
			(&packettest.PktMonFrame{TimeStamp: 2_000_000_001, PacketType: 1, Data: eth, Trailing: 7}).Event())
		return b.Err()
	})
	out, c := convert(t, packets.Options{}, tr)
	require.Len(t, out, 1)
	assert.Equal(t, eth, out[0].Data)
	assert.EqualValues(t, 1, c.Stats().Malformed)
}
