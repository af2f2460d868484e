package packets

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema"
)

// The PktMon captures carry the TDH metadata of their events: the offsets
// this package reads at must be the ones that metadata gives.
func TestPktMonLayoutAgreesWithTheTracesMetadata(t *testing.T) {
	type field struct {
		name string
		in   payload.InType
		off  int // -1 after a variable-length field
	}
	frame := []field{
		{"PktGroupId", payload.InUInt64, pmGroupID}, {"PktNumber", payload.InUInt16, pmPktNumber},
		{"AppearanceCount", payload.InUInt16, pmAppearance}, {"DirTag", payload.InUInt16, pmDirTag},
		{"PacketType", payload.InUInt16, pmPacketType}, {"ComponentId", payload.InUInt16, pmComponentID},
		{"EdgeId", payload.InUInt16, pmEdgeID}, {"FilterId", payload.InUInt16, pmFilterID},
		{"DropReason", payload.InUInt32, pmDropReason}, {"DropLocation", payload.InUInt32, pmDropLocation},
		{"OriginalPayloadSize", payload.InUInt16, pmOriginalSize}, {"LoggedPayloadSize", payload.InUInt16, pmLoggedSize},
		{"Payload", payload.InBinary, pmPayload},
	}
	want := map[uint16][]field{
		pktmonFrame:        frame,
		pktmonFrameDrop:    frame,
		pktmonComponent:    {{"Id", payload.InUInt16, 0}, {"Type", payload.InUInt16, 2}, {"Name", payload.InUnicodeString, 4}, {"Description", payload.InUnicodeString, -1}},
		pktmonPropertyIPv4: {{"ComponentId", payload.InUInt16, 0}, {"Type", payload.InUInt16, 2}},
		pktmonPropertyIPv6: {{"ComponentId", payload.InUInt16, 0}, {"Type", payload.InUInt16, 2}},
		pktmonPropertyBytes: {{"ComponentId", payload.InUInt16, 0}, {"Type", payload.InUInt16, 2},
			{"Size", payload.InUInt32, 4}, {"Value", payload.InBinary, 8}},
	}
	sizes := map[payload.InType]int{payload.InUInt16: 2, payload.InUInt32: 4, payload.InUInt64: 8}
	checked := map[uint16]bool{}
	for _, name := range []string{"pktmon-wifi-ethernet-ip.etl", "pktmon-ethernet.etl"} {
		f, err := etl.Open(samples.Path(t, name))
		require.NoError(t, err)
		l := describe.NewLearner()
		for r, err := range f.Records() {
			if err == nil {
				l.Learn(r)
			}
		}
		f.Close()
		for id, fields := range want {
			e, _ := l.Set().Lookup(schema.Key{Provider: PktMon, ID: id})
			if e == nil || e.Payload == nil {
				continue
			}
			checked[id] = true
			got := e.Payload.Fields
			require.GreaterOrEqual(t, len(got), len(fields), "%s event %d", name, id)
			off := 0
			for i, w := range fields {
				assert.Equal(t, w.name, got[i].Name, "%s event %d field %d", name, id, i)
				assert.Equal(t, w.in, got[i].InType, "%s event %d %s", name, id, w.name)
				if w.off >= 0 {
					assert.Equal(t, w.off, off, "%s event %d %s", name, id, w.name)
				}
				if n, ok := sizes[got[i].InType]; ok && off >= 0 {
					off += n
				} else {
					off = -1
				}
			}
			if id == pktmonFrame || id == pktmonFrameDrop {
				assert.Equal(t, "LoggedPayloadSize", got[len(fields)-1].LengthField, "the payload's length")
			}
		}
	}
	for _, id := range []uint16{pktmonFrame, pktmonFrameDrop, pktmonComponent, pktmonPropertyIPv4, pktmonPropertyIPv6, pktmonPropertyBytes} {
		assert.True(t, checked[id], "no metadata for event %d in the samples", id)
	}
}

// TestDropReasonNames: a reason gets its area by PMAPI's ranges and its
// name where the documentation gives one; the numbers PMAPI and NPL read
// differently, and those of no range, get nothing.
func TestDropReasonNames(t *testing.T) {
	for reason, want := range map[uint32]string{
		0:          " (VMSwitch Unknown)",
		9:          " (VMSwitch FilteredVLAN)",
		10:         " (VMSwitch)",
		38:         " (VMSwitch LowPower)",
		39:         "",
		101:        "",
		202:        "",
		402:        " (NetVsc)",
		902:        " (TCPIP NL NotLocallyDestined)",
		922:        " (TCPIP NL)",
		1206:       " (INET SessionState)",
		1232:       " (INET)",
		1233:       "",
		1507:       " (NetCx)",
		0x7FFFFFFF: "",
		0x80000000: " (third-party)",
		0xFFFFFFFF: " (third-party)",
	} {
		assert.Equal(t, want, string(appendDropReason(nil, reason)), "DropReason %d", reason)
	}
}

// TestDropLocationAreas: a DropLocation of the 0xE000N000 form gets the
// area its digit N names; a digit naming none, one past the table, and
// locations of another form get nothing.
func TestDropLocationAreas(t *testing.T) {
	for location, want := range map[uint32]string{
		0xE0004138: " (TCPIP)",
		0xE0001000: " (NDIS)",
		0xE0002FFF: " (VMSwitch)",
		0xE0009000: " (NetCx)",
		0xE000A000: "",
		0xE0003000: "",
		0xE0000000: "",
		0xD0004000: "",
		0xE0014000: "",
	} {
		// Appended to what the comment holds already.
		const before = "DropLocation=0x…"
		assert.Equal(t, before+want, string(appendDropLocation([]byte(before), location)), "DropLocation 0x%x", location)
	}
}
