package pcapngsink_test

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/packettest"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/internal/tshark"
	"github.com/etlkit/etlkit/packets"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/sink/pcapngsink"
)

// capture converts traces (merged in time order) into a pcapng file in a
// temporary directory, the interfaces in the room left at its start, and
// returns its path.
func capture(t *testing.T, opts packets.Options, traces ...string) (string, pcapngsink.CaptureStats) {
	t.Helper()
	dir := t.TempDir()
	var readers []*etl.Reader
	for _, p := range traces {
		f, err := etl.Open(p)
		require.NoError(t, err)
		defer f.Close()
		readers = append(readers, f.Reader)
	}
	out, err := os.Create(filepath.Join(dir, "out.pcapng"))
	require.NoError(t, err)
	defer out.Close()
	c := pcapngsink.NewFileCapture(out, pcapngsink.CaptureOptions{Packets: opts, Inputs: traces, Application: "test"})
	set := etl.NewSet(readers...)
	for r, err := range set.Events() {
		require.NoError(t, err)
		require.NoError(t, c.Add(r, set.Origin()))
	}
	st, err := c.Close()
	require.NoError(t, err)
	return out.Name(), st
}

// epochTime prints a FILETIME as tshark prints frame.time_epoch with
// if_tsresol 7.
func epochTime(ft int64) string {
	ts := ft - header.FileTimeEpochDelta
	return fmt.Sprintf("%d.%07d00", ts/10_000_000, ts%10_000_000)
}

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

var packetFields = []string{"frame.md5_hash", "frame.time_epoch", "frame.cap_len", "frame.len", "frame.encap_type",
	"frame.protocols", "frame.packet_flags_direction", "frame.interface_name", "_ws.malformed", "frame.comment"}

const (
	colMD5 = iota
	colTime
	colCapLen
	colLen
	colEncap
	colProtocols
	colDirection
	colInterface
	colMalformed
	colComment
)

// Every packet event of the shared PktMon captures comes out of tshark as
// the event says it: bytes, lengths, time to 100 ns, link type, direction,
// component, with the protocols its link type calls for and nothing
// malformed.
//
// Every appearance of a packet is in the file, at each component it
// crossed: to tshark's TCP reassembly that is the same segment again and
// again, which it reports as overlapping data on the reassembled PDU, not
// as a fault of the packet. The per-packet check therefore turns TCP
// reassembly off; the file of first appearances is checked with tshark's
// defaults.
func TestPktMonSamplesInTshark(t *testing.T) {
	tshark.Require(t)
	for _, c := range []struct {
		name       string
		interfaces int
		encaps     []string
		// The packets kept by first appearance, and the reports left out
		// as repeats of them.
		first, repeated int64
	}{
		{"pktmon-ethernet.etl", 1, []string{"Ethernet (1 - ether)"}, 51, 0},
		{"pktmon-wifi-ethernet-ip.etl", 20, []string{"Ethernet (1 - ether)", "IEEE 802.11 Wireless LAN (20 - ieee-802-11)", "Raw IP (7 - rawip)"}, 5997, 24135},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := samples.Path(t, c.name)
			events := packettest.ReadPktMon(t, path)
			file, st := capture(t, packets.Options{}, path)
			assert.EqualValues(t, len(events), st.Packets)
			rows := tshark.Fields(t, file, []string{"frame.generate_md5_hash:TRUE", "tcp.desegment_tcp_streams:FALSE"}, packetFields...)
			require.Len(t, rows, len(events))
			for i, ev := range events {
				row := rows[i]
				require.Len(t, row, len(packetFields))
				assert.Equal(t, md5hex(ev.Payload), row[colMD5], "packet %d bytes", i+1)
				assert.Equal(t, epochTime(ev.FileTime), row[colTime], "packet %d time", i+1)
				assert.Equal(t, fmt.Sprint(ev.Logged), row[colCapLen], "packet %d", i+1)
				assert.Equal(t, fmt.Sprint(ev.Original), row[colLen], "packet %d", i+1)
				want := map[string][2]string{"Ethernet": {"1", "eth:ethertype:"}, "WiFi": {"20", "wlan"}, "IP": {"7", "raw:ip"}}[ev.PacketType]
				encap, proto := want[0], want[1]
				if ev.PacketType == "WiFi" && packettest.IsEthernetBytes(ev.Payload) {
					encap, proto = "1", "eth:ethertype:"
				}
				assert.Equal(t, encap, row[colEncap], "packet %d", i+1)
				assert.True(t, strings.HasPrefix(row[colProtocols], proto), "packet %d: %s", i+1, row[colProtocols])
				assert.Equal(t, map[string]string{"Rx": "0x00000001", "Tx": "0x00000002"}[ev.DirTag], row[colDirection], "packet %d", i+1)
				if ev.Logged == ev.Original {
					assert.Empty(t, row[colMalformed], "packet %d: %s", i+1, row[colProtocols])
				}
				if ev.HasThreadProcess {
					assert.True(t, strings.HasPrefix(row[colComment], fmt.Sprintf("PID=%d TID=%d ", ev.ProcessID, ev.ThreadID)), "packet %d: %s", i+1, row[colComment])
				}
				if ev.ID == 170 {
					assert.Regexp(t, fmt.Sprintf(`dropped: DropReason=%d (\([^)]+\) )?DropLocation=0x%x\b`, ev.DropReason, ev.Location), row[colComment])
				}
			}
			info := tshark.Capinfos(t, "-t", "-I", file)
			assert.Contains(t, info, "Wireshark/... - pcapng")
			assert.Contains(t, info, fmt.Sprintf("Number of interfaces in file: %d\n", c.interfaces))
			var encaps []string
			for _, m := range regexp.MustCompile(`Encapsulation = (.*)\n`).FindAllStringSubmatch(info, -1) {
				if !slices.Contains(encaps, m[1]) {
					encaps = append(encaps, m[1])
				}
			}
			slices.Sort(encaps)
			assert.Equal(t, c.encaps, encaps)
			assert.NotContains(t, info, "Name = component:", "every interface named by the trace")

			first, st := capture(t, packets.Options{FirstAppearance: true}, path)
			assert.Equal(t, c.first, st.Packets)
			assert.Equal(t, c.repeated, st.Repeated)
			assert.EqualValues(t, len(events), st.Packets+st.Repeated, "every report a packet or a repeat")
			rows = tshark.Fields(t, first, nil, "frame.number", "_ws.malformed", "frame.comment")
			assert.EqualValues(t, st.Packets, len(rows))
			drops := 0
			for _, row := range rows {
				assert.Empty(t, row[1], "frame %s malformed", row[0])
				if strings.Contains(row[2], "; dropped: ") {
					drops++
				}
			}
			// Drop reports are all kept.
			wantDrops := 0
			for _, ev := range events {
				if ev.ID == 170 {
					wantDrops++
				}
			}
			assert.Equal(t, wantDrops, drops)
		})
	}
}

// A trace with no packet events is a valid capture with no packets.
func TestNoPacketsInTshark(t *testing.T) {
	tshark.Require(t)
	file, st := capture(t, packets.Options{}, samples.Path(t, "pktmon-no-packets.etl"))
	assert.Zero(t, st.Packets)
	assert.Zero(t, st.Interfaces)
	assert.Empty(t, tshark.Fields(t, file, nil, "frame.number"))
	info := tshark.Capinfos(t, "-t", "-c", file)
	assert.Contains(t, info, "Wireshark/... - pcapng")
	assert.Regexp(t, `Number of packets:\s+0\n`, info)
}

// An NDIS-PacketCapture trace with fragmented packets of every medium
// reads back in tshark as the packets that went in: bytes, lengths,
// direction, interface, the link type of the medium.
func TestNDISInTshark(t *testing.T) {
	tshark.Require(t)
	pkts := packettest.NDISPackets()
	trace := filepath.Join(t.TempDir(), "ndis.etl")
	var b bytes.Buffer
	require.NoError(t, packettest.WriteNDIS(&b, pkts))
	require.NoError(t, os.WriteFile(trace, b.Bytes(), 0o644))
	file, st := capture(t, packets.Options{}, trace)
	assert.EqualValues(t, len(pkts), st.Packets)
	rows := tshark.Fields(t, file, []string{"frame.generate_md5_hash:TRUE"}, packetFields...)
	require.Len(t, rows, len(pkts))
	s := packettest.NDISSession()
	for i, p := range pkts {
		t.Run(p.Name, func(t *testing.T) {
			row := rows[i]
			data := p.Data
			encap, proto, kind := "1", "eth:ethertype:ip", "eth"
			switch {
			case p.Media == packettest.KeywordNative80211:
				encap, proto, kind = "20", "wlan:llc:ip:udp:data", "wifi"
				data = bytes.Clone(data)
				data[1] &^= 0x40 // logged decrypted: the Protected bit goes
			case p.Media == packettest.KeywordWirelessWAN, p.Media == packettest.KeywordTunnel && data[0]>>4 == 4:
				encap, proto, kind = "7", "raw:ip", "ip"
			}
			assert.Equal(t, md5hex(data), row[colMD5])
			assert.Equal(t, fmt.Sprint(len(data)), row[colCapLen])
			wantLen := len(data)
			if p.Truncated {
				wantLen = 1014 // from the IP header
			}
			assert.Equal(t, fmt.Sprint(wantLen), row[colLen])
			assert.Equal(t, encap, row[colEncap])
			assert.True(t, strings.HasPrefix(row[colProtocols], proto), row[colProtocols])
			assert.Equal(t, map[uint64]string{packettest.KeywordSend: "0x00000002", packettest.KeywordReceive: "0x00000001", 0: ""}[p.Direction], row[colDirection])
			name := fmt.Sprintf("%s:%d", kind, p.LowerIfIndex)
			if p.VMSwitch != nil {
				name = fmt.Sprintf("vmswitch:%s:%d", p.VMSwitch.PortName, p.LowerIfIndex)
			}
			assert.Equal(t, name, row[colInterface])
			assert.Equal(t, epochTime(s.StartTime+p.TimeStamp-s.HeaderTimeStamp), row[colTime])
			assert.Empty(t, row[colMalformed])
			assert.True(t, strings.HasPrefix(row[colComment], fmt.Sprintf("PID=%d TID=%d", p.ProcessID, p.ThreadID)), row[colComment])
		})
	}
	info := tshark.Capinfos(t, "-I", file)
	assert.Contains(t, info, "Number of interfaces in file: 7\n")
}

// Component events a filter left out still name the interfaces, through
// Learn; several inputs keep their components apart and say which trace
// each comes from.
func TestCaptureLearnAndInputs(t *testing.T) {
	ev := func(ts int64) *packettest.PktMonFrame {
		return &packettest.PktMonFrame{TimeStamp: ts, ProcessID: 4, ThreadID: 8, DirTag: 4, PacketType: 1, ComponentID: 5, EdgeID: 1,
			Data: packettest.Ethernet(packettest.IPv4UDP(100, 1))}
	}
	var tr bytes.Buffer
	b, err := etltest.NewBuilder(&tr, packettest.NDISSession())
	require.NoError(t, err)
	b.CPU(0).Add(ev(2_000_000_000).Event(), packettest.PktMonComponent(2_000_000_100, 5, 4, "tcpip.sys", "TCPIP"),
		packettest.PktMonAddress(2_000_000_101, 5, []byte{10, 0, 0, 1}), packettest.PktMonMAC(2_000_000_102, 5, []byte{2, 0, 0, 0, 0, 1}))
	require.NoError(t, b.Close())
	dir := t.TempDir()
	one, two := filepath.Join(dir, "one.etl"), filepath.Join(dir, "two.etl")
	require.NoError(t, os.WriteFile(one, tr.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(two, tr.Bytes(), 0o644))

	var readers []*etl.Reader
	for _, p := range []string{one, two} {
		f, err := etl.Open(p)
		require.NoError(t, err)
		defer f.Close()
		readers = append(readers, f.Reader)
	}
	out := filepath.Join(dir, "out.pcapng")
	o, err := os.Create(out)
	require.NoError(t, err)
	spool, err := os.CreateTemp(dir, "spool")
	require.NoError(t, err)
	defer spool.Close()
	c := pcapngsink.NewCapture(o, pcapngsink.CaptureOptions{Inputs: []string{"one.etl", "two.etl"}, Spool: spool})
	set := etl.NewSet(readers...)
	for r, err := range set.Events() {
		require.NoError(t, err)
		if r.EventDescriptor.Id == 160 {
			require.NoError(t, c.Add(r, set.Origin()))
		} else {
			c.Learn(r, set.Origin())
		}
	}
	st, err := c.Close()
	require.NoError(t, err)
	require.NoError(t, o.Close())
	assert.Equal(t, 2, st.Interfaces)
	info := tshark.Capinfos(t, "-I", out)
	for _, want := range []string{"Name = tcpip.sys\n", "Description = TCPIP, from one.etl\n", "Description = TCPIP, from two.etl\n"} {
		assert.Contains(t, info, want)
	}
	// capinfos does not print the addresses: they are read from the blocks.
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	blocks := readBlocks(t, raw)
	require.EqualValues(t, 1, blocks[1].typ)
	opts := parseOptions(t, blocks[1].body[8:])
	assert.Equal(t, [][]byte{{10, 0, 0, 1, 255, 255, 255, 255}}, opts[4])
	assert.Equal(t, [][]byte{{2, 0, 0, 0, 0, 1}}, opts[6])
}

// Writing a packet allocates nothing once its interface exists.
func TestCaptureAddAllocatesNothing(t *testing.T) {
	f := packettest.PktMonFrame{TimeStamp: 2_000_000_000, ProcessID: 4, ThreadID: 8, DirTag: 4, PacketType: 1, ComponentID: 5,
		EdgeID: 1, Data: packettest.Ethernet(packettest.IPv4UDP(1000, 1))}
	var tr bytes.Buffer
	b, err := etltest.NewBuilder(&tr, packettest.NDISSession())
	require.NoError(t, err)
	b.CPU(0).Add(f.Event())
	require.NoError(t, b.Close())
	file, err := etl.OpenStream(bytes.NewReader(tr.Bytes()), "t.etl", nil)
	require.NoError(t, err)
	defer file.Close()
	var r *record.Record
	for rec, err := range file.Events() {
		require.NoError(t, err)
		if rec.EventDescriptor.Id == 160 {
			r = rec.Clone()
		}
	}
	require.NotNil(t, r)
	spool, err := os.CreateTemp(t.TempDir(), "spool")
	require.NoError(t, err)
	defer spool.Close()
	c := pcapngsink.NewCapture(io.Discard, pcapngsink.CaptureOptions{Spool: spool})
	require.NoError(t, c.Add(r, 0))
	allocs := testing.AllocsPerRun(1000, func() {
		if err := c.Add(r, 0); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}
