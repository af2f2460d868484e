package packets_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/packettest"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/packets"
)

// Every packet event of the shared PktMon captures is one packet, whose
// bytes, lengths, time, direction, component and link type are what the
// event says, read through the trace's own metadata.
func TestPktMonSamples(t *testing.T) {
	for _, c := range []struct {
		name              string
		packets, drops    int
		wifi, eth, raw    int
		corrected         int
		interfaces, named int
	}{
		{"pktmon-ethernet.etl", 51, 0, 0, 51, 0, 0, 1, 1},
		{"pktmon-wifi-ethernet-ip.etl", 30132, 3428, 14562, 12142, 3428, 2124, 20, 20},
		{"pktmon-no-packets.etl", 0, 0, 0, 0, 0, 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := samples.Path(t, c.name)
			events := packettest.ReadPktMon(t, path)
			f, err := etl.Open(path)
			require.NoError(t, err)
			defer f.Close()
			conv := packets.New(packets.Options{})
			n, drops := 0, 0
			links := map[packets.LinkType]int{}
			for r, err := range f.Events() {
				require.NoError(t, err)
				p, ok := conv.Packet(r, 0)
				id := r.EventDescriptor.Id
				isPacket := r.ProviderId == packets.PktMon && (id == 160 || id == 170)
				require.Equal(t, isPacket, ok, "event %d", id)
				if !ok {
					continue
				}
				require.Less(t, n, len(events))
				want := events[n]
				n++
				assert.Equal(t, want.Payload, p.Data)
				assert.EqualValues(t, want.Logged, len(p.Data))
				assert.EqualValues(t, want.Original, p.OriginalLength)
				assert.Equal(t, want.FileTime, p.FileTime)
				ifc := conv.Interfaces()[p.Interface]
				assert.EqualValues(t, want.ComponentID, ifc.ComponentID)
				switch want.DirTag {
				case "Rx", "In", "Ingress":
					assert.Equal(t, packets.Inbound, p.Direction)
				case "Tx", "Out", "Egress":
					assert.Equal(t, packets.Outbound, p.Direction)
				default:
					t.Fatalf("DirTag %q", want.DirTag)
				}
				wantLink := map[string]packets.LinkType{"Ethernet": packets.LinkTypeEthernet,
					"WiFi": packets.LinkTypeIEEE80211, "IP": packets.LinkTypeRaw}[want.PacketType]
				if want.PacketType == "WiFi" && packettest.IsEthernetBytes(want.Payload) {
					wantLink = packets.LinkTypeEthernet
				}
				require.NotZero(t, wantLink, "PacketType %q", want.PacketType)
				assert.Equal(t, wantLink, ifc.LinkType)
				links[ifc.LinkType]++
				assert.Equal(t, want.ID == 170, p.Dropped)
				if want.ID == 170 {
					drops++
					// The reason's area and name, where known, follow it.
					assert.Regexp(t, "dropped: DropReason="+strconv.FormatUint(want.DropReason, 10)+
						` (\([^)]+\) )?DropLocation=0x`+strconv.FormatUint(want.Location, 16)+`\b`, string(p.Comment))
				}
				if want.HasThreadProcess {
					assert.Contains(t, string(p.Comment), "PID="+itoa(want.ProcessID)+" TID="+itoa(want.ThreadID))
				}
			}
			assert.Equal(t, len(events), n)
			assert.Equal(t, c.packets, n)
			assert.Equal(t, c.drops, drops)
			assert.Equal(t, c.wifi, links[packets.LinkTypeIEEE80211])
			assert.Equal(t, c.eth, links[packets.LinkTypeEthernet])
			assert.Equal(t, c.raw, links[packets.LinkTypeRaw])
			st := conv.Stats()
			assert.EqualValues(t, c.corrected, st.Corrected)
			assert.EqualValues(t, c.packets, st.Packets)
			assert.Zero(t, st.Malformed+st.UnknownType+st.Unpaired)
			assert.Len(t, conv.Interfaces(), c.interfaces)
			named := 0
			for i := range conv.Interfaces() {
				d := conv.Describe(i)
				if d.Description != "" && d.Name != "component:"+itoa(conv.Interfaces()[i].ComponentID) {
					named++
				}
			}
			assert.Equal(t, c.named, named, "every component with packets is named by the trace")
		})
	}
}

func itoa[T ~uint16 | ~uint32](v T) string { return strconv.FormatUint(uint64(v), 10) }
