package packettest

import (
	"testing"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
)

// Decoded is a PktMon packet event (160 or 170) as the trace's own TDH
// metadata decodes it, independently of the offsets package packets reads
// at.
type Decoded struct {
	ID                   uint16
	FileTime             int64
	ProcessID, ThreadID  uint32
	HasThreadProcess     bool
	DirTag, PacketType   string // the names the trace's maps give
	ComponentID          uint64
	Original, Logged     uint64
	DropReason, Location uint64
	Payload              []byte
}

// ReadPktMon returns the packet events of the trace at path in time order,
// decoded with the metadata the trace carries. It fails the test when an
// event cannot be decoded so.
func ReadPktMon(t testing.TB, path string) []Decoded {
	t.Helper()
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := describe.NewLearner()
	for r, err := range f.Records() {
		if err != nil {
			t.Fatal(err)
		}
		l.Learn(r)
	}
	z := describe.New(describe.Options{Trace: l.Set()})
	var ds describe.Description
	var out []Decoded
	for r, err := range f.Events() {
		if err != nil {
			t.Fatal(err)
		}
		id := r.EventDescriptor.Id
		if r.ProviderId != PktMonProvider || (id != 160 && id != 170) {
			continue
		}
		z.Describe(r, &ds, true)
		if !ds.Decoded {
			t.Fatalf("event %d at offset 0x%x not decoded by the trace's metadata: %v", id, r.FileOffset, ds.Err)
		}
		d := Decoded{ID: id, ProcessID: r.ProcessId, ThreadID: r.ThreadId, HasThreadProcess: r.HasThreadProcess}
		d.FileTime, _ = r.FileTime()
		for _, v := range ds.Fields {
			switch v.Name() {
			case "DirTag":
				d.DirTag, _ = v.MapName()
			case "PacketType":
				d.PacketType, _ = v.MapName()
			case "ComponentId":
				d.ComponentID = v.Uint()
			case "OriginalPayloadSize":
				d.Original = v.Uint()
			case "LoggedPayloadSize":
				d.Logged = v.Uint()
			case "DropReason":
				d.DropReason = v.Uint()
			case "DropLocation":
				d.Location = v.Uint()
			case "Payload":
				d.Payload = append([]byte(nil), v.Bytes()...)
			}
		}
		if d.DirTag == "" || d.PacketType == "" {
			t.Fatalf("event %d at offset 0x%x: no DirTag or PacketType name in the trace's maps", id, r.FileOffset)
		}
		out = append(out, d)
	}
	return out
}

// IsEthernetBytes reports whether a Wi-Fi-typed payload is an Ethernet
// frame by the rule packets.md gives: an EtherType PktMon's filters pass
// at bytes 12-13.
func IsEthernetBytes(b []byte) bool {
	if len(b) < 14 {
		return false
	}
	switch uint16(b[12])<<8 | uint16(b[13]) {
	case 0x0800, 0x86DD, 0x0806, 0x888E, 0x8100:
		return true
	}
	return false
}
