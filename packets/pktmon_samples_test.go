package packets_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/packets"
	"github.com/etlkit/etlkit/payload"
)

// pmFields is a PktMon packet event as the trace's own metadata decodes
// it, independently of the offsets the package reads at.
type pmFields struct {
	dirTag, packetType, componentID string
	original, logged                uint64
	payload                         []byte
}

func decodedFields(t *testing.T, vals []payload.Value) pmFields {
	var f pmFields
	for _, v := range vals {
		switch v.Name() {
		case "DirTag":
			f.dirTag, _ = v.MapName()
		case "PacketType":
			f.packetType, _ = v.MapName()
		case "ComponentId":
			f.componentID = v.String()
		case "OriginalPayloadSize":
			f.original = v.Uint()
		case "LoggedPayloadSize":
			f.logged = v.Uint()
		case "Payload":
			f.payload = append([]byte(nil), v.Bytes()...)
		}
	}
	require.NotEmpty(t, f.dirTag)
	require.NotEmpty(t, f.packetType)
	return f
}

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
			f, err := etl.Open(path)
			require.NoError(t, err)
			defer f.Close()
			l := describe.NewLearner()
			for r, err := range f.Records() {
				require.NoError(t, err)
				l.Learn(r)
			}
			z := describe.New(describe.Options{Trace: l.Set()})
			conv := packets.New(packets.Options{})
			var ds describe.Description
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
				n++
				z.Describe(r, &ds, true)
				require.True(t, ds.Decoded, "%v", ds.Err)
				want := decodedFields(t, ds.Fields)
				assert.Equal(t, want.payload, p.Data)
				assert.EqualValues(t, want.logged, len(p.Data))
				assert.EqualValues(t, want.original, p.OriginalLength)
				ft, _ := r.FileTime()
				assert.Equal(t, ft, p.FileTime)
				ifc := conv.Interfaces()[p.Interface]
				assert.Equal(t, want.componentID, itoa(ifc.ComponentID))
				switch want.dirTag {
				case "Rx", "In", "Ingress":
					assert.Equal(t, packets.Inbound, p.Direction)
				case "Tx", "Out", "Egress":
					assert.Equal(t, packets.Outbound, p.Direction)
				default:
					t.Fatalf("DirTag %q", want.dirTag)
				}
				// The link type the type calls for; a Wi-Fi type whose
				// bytes carry an EtherType at 12-13 is an Ethernet frame.
				wantLink := map[string]packets.LinkType{"Ethernet": packets.LinkTypeEthernet,
					"WiFi": packets.LinkTypeIEEE80211, "IP": packets.LinkTypeRaw}[want.packetType]
				if want.packetType == "WiFi" && len(p.Data) > 14 {
					switch uint16(p.Data[12])<<8 | uint16(p.Data[13]) {
					case 0x0800, 0x86DD, 0x0806, 0x888E, 0x8100:
						wantLink = packets.LinkTypeEthernet
					}
				}
				require.NotZero(t, wantLink, "PacketType %q", want.packetType)
				assert.Equal(t, wantLink, ifc.LinkType)
				links[ifc.LinkType]++
				assert.Equal(t, id == 170, p.Dropped)
				if id == 170 {
					drops++
					assert.Contains(t, string(p.Comment), "dropped: DropReason=")
				}
				if r.HasThreadProcess {
					assert.Contains(t, string(p.Comment), "PID="+itoa(r.ProcessId)+" TID="+itoa(r.ThreadId))
				}
			}
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
				if d.Name != "" && d.Description != "" && d.Name[:min(10, len(d.Name))] != "component:" {
					named++
				}
			}
			assert.Equal(t, c.named, named, "every component with packets is named by the trace")
		})
	}
}

func itoa[T ~uint16 | ~uint32](v T) string { return strconv.FormatUint(uint64(v), 10) }
