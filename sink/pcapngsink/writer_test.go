package pcapngsink_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/tshark"
	"github.com/etlkit/etlkit/packets"
	"github.com/etlkit/etlkit/sink/pcapngsink"
)

var le = binary.LittleEndian

// block is one block of a pcapng file as the spec lays it out.
type block struct {
	typ     uint32
	body    []byte // between the lengths, options included
	options map[uint16][][]byte
}

// readBlocks splits a file into blocks, checking what every block must
// hold: equal leading and trailing lengths, a multiple of 4.
func readBlocks(t *testing.T, b []byte) []block {
	t.Helper()
	var out []block
	for len(b) > 0 {
		require.GreaterOrEqual(t, len(b), 12)
		n := int(le.Uint32(b[4:]))
		require.GreaterOrEqual(t, n, 12, "block length")
		require.Zero(t, n%4, "block length %d", n)
		require.LessOrEqual(t, n, len(b))
		require.Equal(t, le.Uint32(b[4:]), le.Uint32(b[n-4:]), "trailing length")
		out = append(out, block{typ: le.Uint32(b), body: b[8 : n-4]})
		b = b[n:]
	}
	return out
}

// parseOptions reads an option list, which must end with opt_endofopt.
func parseOptions(t *testing.T, b []byte) map[uint16][][]byte {
	t.Helper()
	opts := map[uint16][][]byte{}
	if len(b) == 0 {
		return opts
	}
	for {
		require.GreaterOrEqual(t, len(b), 4)
		code, n := le.Uint16(b), int(le.Uint16(b[2:]))
		if code == 0 {
			require.Zero(t, n)
			require.Len(t, b, 4, "nothing after the end of options")
			return opts
		}
		padded := (n + 3) &^ 3
		require.GreaterOrEqual(t, len(b), 4+padded)
		require.Equal(t, make([]byte, padded-n), b[4+n:4+padded], "zero padding")
		opts[code] = append(opts[code], b[4:4+n])
		b = b[4+padded:]
	}
}

func TestBlocks(t *testing.T) {
	var out bytes.Buffer
	w := pcapngsink.NewWriter(&out, pcapngsink.Options{Application: "etldump", Comments: []string{"hello"}})
	id, err := w.AddInterface(pcapngsink.Interface{LinkType: packets.LinkTypeIEEE80211, Name: "wifi:12", Description: "IfIndex 12",
		MAC: []byte{2, 0, 0, 0, 0, 1}, IPv4: [][4]byte{{10, 0, 0, 1}}, IPv6: [][16]byte{{0xfd, 15: 1}}, Comments: []string{"c"}})
	require.NoError(t, err)
	require.Zero(t, id)
	pkts := []pcapngsink.Packet{
		{Timestamp: 1<<32 + 5, Data: []byte{1, 2, 3}, OriginalLength: 3},
		{Timestamp: 17_684_000_000_000_000, Data: []byte{1, 2, 3, 4, 5}, OriginalLength: 100, Flags: pcapngsink.FlagOutbound,
			Comment: []byte("PID=4 TID=8"), PacketID: 0x1234, HasPacketID: true, ProcessID: 4, ThreadID: 8, HasProcessThread: true},
		{Data: nil, Comment: []byte("x")},
	}
	for i := range pkts {
		require.NoError(t, w.WritePacket(&pkts[i]))
	}
	require.NoError(t, w.Close())
	assert.EqualValues(t, 3, w.Packets())

	blocks := readBlocks(t, out.Bytes())
	require.Len(t, blocks, 5)
	shb := blocks[0]
	assert.EqualValues(t, 0x0A0D0D0A, shb.typ)
	assert.Equal(t, []byte{0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0}, shb.body[:8], "magic, version 1.0")
	assert.Equal(t, bytes.Repeat([]byte{0xff}, 8), shb.body[8:16], "section length unknown")
	o := parseOptions(t, shb.body[16:])
	assert.Equal(t, [][]byte{[]byte("hello")}, o[1])
	assert.Equal(t, [][]byte{[]byte("etldump")}, o[4])

	idb := blocks[1]
	assert.EqualValues(t, 1, idb.typ)
	assert.EqualValues(t, 105, le.Uint16(idb.body))
	assert.Zero(t, le.Uint32(idb.body[4:]), "no snap length")
	o = parseOptions(t, idb.body[8:])
	assert.Equal(t, [][]byte{[]byte("wifi:12")}, o[2])
	assert.Equal(t, [][]byte{[]byte("IfIndex 12")}, o[3])
	assert.Equal(t, [][]byte{{10, 0, 0, 1, 255, 255, 255, 255}}, o[4])
	assert.Equal(t, [][]byte{{0xfd, 15: 1, 16: 128}}, o[5])
	assert.Equal(t, [][]byte{{2, 0, 0, 0, 0, 1}}, o[6])
	assert.Equal(t, [][]byte{{7}}, o[9], "if_tsresol 7")
	assert.Equal(t, [][]byte{[]byte("c")}, o[1])

	for i, p := range pkts {
		epb := blocks[2+i]
		assert.EqualValues(t, 6, epb.typ)
		b := epb.body
		assert.Zero(t, le.Uint32(b), "interface")
		assert.Equal(t, p.Timestamp, uint64(le.Uint32(b[4:]))<<32|uint64(le.Uint32(b[8:])))
		n := int(le.Uint32(b[12:]))
		assert.Equal(t, len(p.Data), n)
		assert.Equal(t, p.OriginalLength, le.Uint32(b[16:]))
		padded := (n + 3) &^ 3
		assert.True(t, bytes.Equal(p.Data, b[20:20+n]), "packet bytes")
		assert.Equal(t, make([]byte, padded-n), b[20+n:20+padded])
		o := parseOptions(t, b[20+padded:])
		if p.Flags != 0 {
			assert.Equal(t, [][]byte{le.AppendUint32(nil, p.Flags)}, o[2])
		} else {
			assert.NotContains(t, o, uint16(2))
		}
		if len(p.Comment) > 0 {
			assert.Equal(t, [][]byte{p.Comment}, o[1])
		}
		if p.HasPacketID {
			assert.Equal(t, [][]byte{le.AppendUint64(nil, p.PacketID)}, o[5])
		}
		if p.HasProcessThread {
			assert.Equal(t, [][]byte{le.AppendUint32(le.AppendUint32(nil, p.ProcessID), p.ThreadID)}, o[8])
		}
		if i == 0 {
			assert.Len(t, b, 20+padded, "no options, no end of options")
		}
	}
}

// writeDirect writes the interfaces, then the packets, with a streaming
// Writer.
func writeDirect(t *testing.T, opts pcapngsink.Options, ifcs []pcapngsink.Interface, pkts []pcapngsink.Packet) *bytes.Buffer {
	var out bytes.Buffer
	w := pcapngsink.NewWriter(&out, opts)
	for _, ifc := range ifcs {
		_, err := w.AddInterface(ifc)
		require.NoError(t, err)
	}
	for i := range pkts {
		require.NoError(t, w.WritePacket(&pkts[i]))
	}
	require.NoError(t, w.Close())
	return &out
}

// With a spool, interfaces may be added and described after the packets
// that use them; the file is the one a writer that knew them from the
// start writes.
func TestSpoolMatchesDirect(t *testing.T) {
	final := []pcapngsink.Interface{
		{LinkType: packets.LinkTypeEthernet, Name: "tcpip.sys", Description: "TCPIP"},
		{LinkType: packets.LinkTypeRaw, Name: "component:98"},
	}
	pkts := []pcapngsink.Packet{
		{Interface: 0, Timestamp: 10, Data: []byte("abcdef"), OriginalLength: 6, Flags: 1},
		{Interface: 1, Timestamp: 11, Data: []byte("ghi"), OriginalLength: 9, Comment: []byte("dropped")},
		{Interface: 0, Timestamp: 12, Data: []byte("jk"), OriginalLength: 2},
	}
	direct := writeDirect(t, pcapngsink.Options{Comments: []string{"late"}}, final, pkts)

	spool, err := os.CreateTemp(t.TempDir(), "spool")
	require.NoError(t, err)
	defer spool.Close()
	var spooled bytes.Buffer
	w := pcapngsink.NewWriter(&spooled, pcapngsink.Options{Spool: spool})
	_, err = w.AddInterface(pcapngsink.Interface{LinkType: packets.LinkTypeEthernet, Name: "component:80"})
	require.NoError(t, err)
	require.NoError(t, w.WritePacket(&pkts[0]))
	_, err = w.AddInterface(final[1])
	require.NoError(t, err)
	require.NoError(t, w.WritePacket(&pkts[1]))
	require.NoError(t, w.WritePacket(&pkts[2]))
	require.NoError(t, w.SetInterface(0, final[0]))
	require.NoError(t, w.AddComment("late"))
	assert.Zero(t, spooled.Len(), "nothing reaches the output before Close")
	require.NoError(t, w.Close())
	assert.Equal(t, direct.Bytes(), spooled.Bytes())
}

// A Writer to a file puts the section header and the interfaces, as they
// are at Close, in the room before the packets, the rest of the room one
// padding block; a head larger than the room moves the packets up. Read
// past the padding, the file is the one a streaming Writer that knew the
// interfaces from the start writes.
func TestFileWriter(t *testing.T) {
	final := []pcapngsink.Interface{
		{LinkType: packets.LinkTypeEthernet, Name: "tcpip.sys", Description: "TCPIP"},
		{LinkType: packets.LinkTypeRaw, Name: "component:98"},
	}
	var pkts []pcapngsink.Packet
	for i := range 3000 { // more than the 1 MiB a move takes at once
		pkts = append(pkts, pcapngsink.Packet{Interface: uint32(i % 2), Timestamp: uint64(i), Data: bytes.Repeat([]byte{byte(i)}, 400+i%7),
			OriginalLength: 500, Flags: 1, Comment: []byte("c")})
	}
	direct := writeDirect(t, pcapngsink.Options{Application: "etldump"}, final, pkts)
	headLen := 0
	for _, b := range readBlocks(t, direct.Bytes())[:3] {
		headLen += len(b.body) + 12
	}

	// The file writer's head has the late comment too: 8 bytes more.
	head := headLen + 8
	// Room the head leaves is one padding block, of 12 bytes at least;
	// room the head fills or overflows has none.
	for _, c := range []struct{ room, pads int }{
		{0, 1}, // DefaultHeaderRoom
		{head + 200, 1},
		{head, 0},
		{head + 4, 1}, // the packets move up 8 bytes for a 12-byte block
		{head - 40, 0},
		{16, 0},
	} {
		room := c.room
		t.Run(fmt.Sprint(room), func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "out.pcapng"))
			require.NoError(t, err)
			defer f.Close()
			w := pcapngsink.NewFileWriter(f, pcapngsink.Options{HeaderRoom: room, Application: "etldump"})
			_, err = w.AddInterface(pcapngsink.Interface{LinkType: packets.LinkTypeEthernet, Name: "component:80"})
			require.NoError(t, err)
			_, err = w.AddInterface(final[1])
			require.NoError(t, err)
			for i := range pkts {
				require.NoError(t, w.WritePacket(&pkts[i]))
			}
			require.NoError(t, w.SetInterface(0, final[0]))
			require.NoError(t, w.AddComment("late"))
			require.NoError(t, w.Close())
			got, err := os.ReadFile(f.Name())
			require.NoError(t, err)
			var kept []byte
			pads := 0
			for _, b := range readBlocks(t, got) {
				if b.typ == 0x8045544C {
					pads++
					continue
				}
				kept = le.AppendUint32(le.AppendUint32(kept, b.typ), uint32(len(b.body)+12))
				kept = le.AppendUint32(append(kept, b.body...), uint32(len(b.body)+12))
			}
			assert.Equal(t, c.pads, pads)
			want := direct.Bytes()
			// The late comment is the section header's.
			assert.Equal(t, len(want)+4+len("late"), len(kept))
			shb := readBlocks(t, kept)[0]
			assert.Equal(t, [][]byte{[]byte("late")}, parseOptions(t, shb.body[16:])[1])
			assert.Equal(t, want[readBlocksLen(t, want, 1):], kept[readBlocksLen(t, kept, 1):], "interfaces and packets")
		})
	}
}

// readBlocksLen is the length of the first n blocks of b.
func readBlocksLen(t *testing.T, b []byte, n int) int {
	l := 0
	for _, bl := range readBlocks(t, b)[:n] {
		l += len(bl.body) + 12
	}
	return l
}

func TestWriterRefusals(t *testing.T) {
	var out bytes.Buffer
	w := pcapngsink.NewWriter(&out, pcapngsink.Options{})
	assert.ErrorContains(t, w.WritePacket(&pcapngsink.Packet{Interface: 0}), "not added")
	_, err := w.AddInterface(pcapngsink.Interface{LinkType: 1})
	require.NoError(t, err)
	assert.ErrorContains(t, w.SetInterface(0, pcapngsink.Interface{}), "only by a Writer to a file or with a spool")
	assert.ErrorContains(t, w.AddComment("x"), "already written")
	assert.ErrorContains(t, w.WritePacket(&pcapngsink.Packet{Comment: make([]byte, 70000)}), "does not fit")
	require.NoError(t, w.Close())
	assert.ErrorIs(t, w.Close(), pcapngsink.ErrClosed)
	assert.ErrorIs(t, w.WritePacket(&pcapngsink.Packet{}), pcapngsink.ErrClosed)
}

func TestTimestamp(t *testing.T) {
	ts, ok := pcapngsink.Timestamp(header.FileTimeEpochDelta + 17_684_000_001_234_567)
	assert.True(t, ok)
	assert.Equal(t, uint64(17_684_000_001_234_567), ts)
	_, ok = pcapngsink.Timestamp(header.FileTimeEpochDelta - 1)
	assert.False(t, ok)
}

// tshark reads the blocks as written: times to 100 ns, lengths,
// direction, comments, interfaces; a file with no packet is an empty
// capture.
func TestWriterInTshark(t *testing.T) {
	tshark.Require(t)
	dir := t.TempDir()
	name := filepath.Join(dir, "w.pcapng")
	f, err := os.Create(name)
	require.NoError(t, err)
	w := pcapngsink.NewWriter(f, pcapngsink.Options{Application: "etldump"})
	_, err = w.AddInterface(pcapngsink.Interface{LinkType: packets.LinkTypeRaw, Name: "ip:20", Description: "IfIndex 20"})
	require.NoError(t, err)
	ip := []byte{0x45, 0, 0, 28, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, 0x9c, 0x40, 0x9c, 0x41, 0, 8, 0, 0}
	require.NoError(t, w.WritePacket(&pcapngsink.Packet{Timestamp: 17_684_000_001_234_567, Data: ip, OriginalLength: 28,
		Flags: pcapngsink.FlagOutbound, Comment: []byte("PID=4 TID=8")}))
	require.NoError(t, w.WritePacket(&pcapngsink.Packet{Timestamp: 17_684_000_001_234_568, Data: ip[:20], OriginalLength: 28,
		Flags: pcapngsink.FlagInbound}))
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
	rows := tshark.Fields(t, name, nil, "frame.time_epoch", "frame.cap_len", "frame.len", "frame.packet_flags_direction",
		"frame.comment", "frame.interface_name", "frame.encap_type", "frame.protocols")
	assert.Equal(t, [][]string{
		{"1768400000.123456700", "28", "28", "0x00000002", "PID=4 TID=8", "ip:20", "7", "raw:ip:udp"},
		{"1768400000.123456800", "20", "28", "0x00000001", "", "ip:20", "7", "raw:ip:udp"},
	}, rows)
	info := tshark.Capinfos(t, "-t", "-c", "-I", name)
	assert.Contains(t, info, "Wireshark/... - pcapng")
	assert.Contains(t, info, "Time resolution = 0x07")

	empty := filepath.Join(dir, "empty.pcapng")
	f, err = os.Create(empty)
	require.NoError(t, err)
	require.NoError(t, pcapngsink.NewWriter(f, pcapngsink.Options{}).Close())
	require.NoError(t, f.Close())
	assert.Empty(t, tshark.Fields(t, empty, nil, "frame.number"))
	info = tshark.Capinfos(t, "-t", "-c", empty)
	assert.Contains(t, info, "Wireshark/... - pcapng")
	assert.Regexp(t, `Number of packets:\s+0\n`, info)
	assert.False(t, strings.Contains(info, "Endace"))
}
