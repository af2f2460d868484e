package packets

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// fuzzRecord is an EVENT_HEADER record of provider p with id and user
// data, as the converter sees it.
func fuzzRecord(r *record.Record, p [16]byte, id uint16, kw uint64, cpu uint16, ts int64, data []byte) {
	*r = record.Record{HeaderType: header.TypeEventHeader64, ProviderId: p, ProcessorNumber: cpu,
		RawTimeStamp: ts, HasThreadProcess: true, ProcessId: 4, ThreadId: uint32(cpu), UserData: data}
	r.EventDescriptor.Id, r.EventDescriptor.Keyword = id, kw
}

// fuzzMedia are the keyword media bits a fuzzed fragment picks from.
var fuzzMedia = [...]uint64{0, kwEthernet, kwNative80211, kwWirelessWAN, kwTunnel, kwEthernet | kwNative80211}

// FuzzNDISReassembly feeds sequences of NDIS fragment and metadata events
// (well-formed, damaged and out of order) and checks every packet against
// a model of the reassembly: the fragments of one stream from a start to
// an end, whole only if it fits MaxPacketSize; and that the state stays
// within its bounds.
//
// Each event is read from the input as: a control byte (bits 0-1 start and
// end, 2-4 media, 5-6 direction, 7 a VMSwitch event), a byte of stream
// (processor 0-3, interface 0-3), a fragment length byte and that many
// bytes; a control byte of 0xFF makes the next length byte's bytes a raw
// payload instead (damage), and 0xFE a metadata event.
func FuzzNDISReassembly(f *testing.F) {
	f.Add([]byte{0x03 | 1<<2 | 1<<5, 0x00, 4, 1, 2, 3, 4})
	f.Add([]byte{0x01 | 2<<2, 0x11, 3, 0x08, 0x41, 9, 0x00, 0x11, 2, 7, 7, 0x02, 0x11, 1, 5})
	f.Add([]byte{0x01, 0x00, 2, 1, 2, 0x01, 0x00, 2, 3, 4, 0x02, 0x00, 1, 5, 0x02, 0x05, 1, 6})
	f.Add([]byte{0xFE, 0x23, 48, 0x80, 0, 0xFF, 0x00, 12, 1, 0, 0, 0, 2, 0, 0, 0, 200, 0, 0, 0, 0x83, 0x00, 1, 9})
	f.Add([]byte{0x83, 0x01, 8, 0x45, 0, 0, 8, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		const maxSize = 600
		c := New(Options{MaxPacketSize: maxSize})
		model := map[streamKey][]byte{} // the fragments so far of each stream's packet
		var r record.Record
		ts := int64(0)
		for len(in) >= 3 {
			ctl, stream, n := in[0], in[1], int(in[2])
			in = in[3:]
			n = min(n, len(in))
			body := in[:n]
			in = in[n:]
			ts++
			cpu, ifc := uint16(stream>>4&3), uint32(stream&3)
			var ud []byte
			id, kw := uint16(ndisFragment), fuzzMedia[int(ctl>>2&7)%len(fuzzMedia)]|uint64(ctl>>5&3)<<32
			switch {
			case ctl == 0xFF:
				ud = body
			case ctl == 0xFE:
				ud = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, ifc), ifc)
				ud = append(binary.LittleEndian.AppendUint32(ud, uint32(len(body))), body...)
				id = ndisMetadata
			case ctl&0x80 != 0:
				id = ndisVMSwitchFragment
				ud = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, ifc), ifc)
				ud = binary.LittleEndian.AppendUint32(ud, 7)
				ud = append(ud, 'p', 0, 0, 0, 0, 0, 0, 0) // three strings
				ud = binary.LittleEndian.AppendUint32(ud, 1)
				ud = append(ud, make([]byte, vmsDestination)...)
				ud = append(binary.LittleEndian.AppendUint32(ud, uint32(len(body))), body...)
				ud = binary.LittleEndian.AppendUint32(ud, 80)
				ud = append(ud, make([]byte, 80)...)
			default:
				ud = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, ifc), ifc)
				ud = append(binary.LittleEndian.AppendUint32(ud, uint32(len(body))), body...)
				ud = append(ud, make([]byte, 16)...)
			}
			if ctl < 0xFE {
				kw |= uint64(ctl&1)*kwPacketStart | uint64(ctl>>1&1)*kwPacketEnd
			}
			fuzzRecord(&r, NDISPacketCapture, id, kw, cpu, ts, ud)
			p, ok := c.Packet(&r, 0)

			// The model. A raw payload that happens to be a well-formed
			// fragment is one with neither start nor end bit.
			var want []byte
			wantOK := false
			if ctl == 0xFF && len(body) >= 12 && uint64(binary.LittleEndian.Uint32(body[8:])) <= uint64(len(body)-12) {
				k := streamKey{cpu: cpu, source: SourceNDIS, miniport: binary.LittleEndian.Uint32(body), lower: binary.LittleEndian.Uint32(body[4:])}
				if cur, inFlight := model[k]; inFlight {
					model[k] = append(cur, body[12:12+binary.LittleEndian.Uint32(body[8:])]...)
					if len(model[k]) > maxSize {
						delete(model, k)
					}
				}
			}
			if ctl < 0xFE {
				k := streamKey{cpu: cpu, source: SourceNDIS, miniport: ifc, lower: ifc}
				if id == ndisVMSwitchFragment {
					k.source, k.port = SourceVMSwitch, 7
				}
				start, end := kw&kwPacketStart != 0, kw&kwPacketEnd != 0
				cur, inFlight := model[k]
				switch {
				case start && end:
					delete(model, k)
					want, wantOK = body, true
				case start:
					model[k] = append([]byte(nil), body...)
				case inFlight:
					cur = append(cur, body...)
					model[k] = cur
					if end {
						delete(model, k)
						want, wantOK = cur, true
					}
				}
				if model[k] != nil && len(model[k]) > maxSize {
					delete(model, k)
				}
				if wantOK && len(want) > maxSize && !(start && end) {
					wantOK = false
				}
			}
			if ok != wantOK {
				t.Fatalf("event %d: packet %v, the model says %v", ts, ok, wantOK)
			}
			if !ok {
				continue
			}
			if !sameFrame(p.Data, want) {
				t.Fatalf("event %d: packet % x, the model says % x", ts, p.Data, want)
			}
			checkPacket(t, c, p)
			if len(c.flights) > c.opts.MaxInFlight || len(c.metadata) > c.opts.MaxInFlight {
				t.Fatalf("%d in flight, %d metadata waiting: beyond %d", len(c.flights), len(c.metadata), c.opts.MaxInFlight)
			}
			for i := range c.flights {
				if cap(c.flights[i].data) > 2*(maxSize+256) {
					t.Fatalf("a reassembly buffer of %d bytes", cap(c.flights[i].data))
				}
			}
		}
		c.Finish()
	})
}

// sameFrame compares a packet with the model's bytes, but for the 802.11
// Protected bit, which the converter clears on cleartext frames.
func sameFrame(got, want []byte) bool {
	if len(got) != len(want) {
		return false
	}
	if len(got) > 1 && got[1] != want[1] {
		return got[1] == want[1]&^dot11Protected && bytes.Equal(got[2:], want[2:]) && got[0] == want[0]
	}
	return bytes.Equal(got, want)
}

// checkPacket checks what every packet must hold.
func checkPacket(t *testing.T, c *Converter, p *Packet) {
	t.Helper()
	if p.Interface < 0 || p.Interface >= len(c.Interfaces()) {
		t.Fatalf("interface %d of %d", p.Interface, len(c.Interfaces()))
	}
	if int64(p.OriginalLength) < int64(len(p.Data)) {
		t.Fatalf("original length %d below the %d bytes captured", p.OriginalLength, len(p.Data))
	}
	if p.Direction > Outbound {
		t.Fatalf("direction %d", p.Direction)
	}
	d := c.Describe(p.Interface)
	if d.Name == "" {
		t.Fatal("an interface with no name")
	}
}

// pktmonIDs are the events a fuzzed PktMon record picks from.
var pktmonIDs = [...]uint16{pktmonFrame, pktmonFrameDrop, pktmonDuplicateDrop, pktmonIPv4Frame, pktmonIPv4Drop,
	pktmonIPv6Frame, pktmonIPv6Drop, pktmonComponent, pktmonPropertyIPv4, pktmonPropertyIPv6, pktmonPropertyBytes, 30, 90}

// FuzzPktMonMapping feeds sequences of PktMon records with arbitrary
// payloads: a byte choosing the event, a byte of time step, a u16 length,
// the payload. Every packet must be a view of its record's payload (or a
// copy of it with the Protected bit cleared) with the lengths the event
// gives, on a valid interface, with and without first appearances.
func FuzzPktMonMapping(f *testing.F) {
	frame := func(id byte, typ byte, comp byte, data []byte) []byte {
		p := make([]byte, pmPayload)
		p[pmPacketType], p[pmComponentID], p[pmDirTag] = typ, comp, 3
		binary.LittleEndian.PutUint16(p[pmOriginalSize:], uint16(len(data)))
		binary.LittleEndian.PutUint16(p[pmLoggedSize:], uint16(len(data)))
		p = append(p, data...)
		return append([]byte{id, 1, byte(len(p)), byte(len(p) >> 8)}, p...)
	}
	eth := append(make([]byte, 12), 0x08, 0x00, 0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2)
	wifi := append([]byte{0x88, 0x42}, make([]byte, 24)...)
	wifi = append(wifi, 0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00, 0x45, 0, 0, 20)
	f.Add(frame(0, 1, 5, eth))
	f.Add(append(frame(0, 2, 5, eth), frame(0, 2, 6, wifi)...))
	f.Add(append(frame(1, 3, 7, eth[14:]), frame(0, 9, 7, eth)...))
	comp := []byte{7, 0, 4, 0, 'a', 0, 0, 0, 'b', 0, 0, 0}
	f.Add(append([]byte{7, 0, byte(len(comp)), 0}, comp...))
	f.Add([]byte{3, 0, 60, 0, 3, 0, 1, 0, 5, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		all := New(Options{})
		first := New(Options{FirstAppearance: true})
		var r record.Record
		ts := int64(0)
		for len(in) >= 4 {
			id := pktmonIDs[int(in[0])%len(pktmonIDs)]
			ts += int64(in[1]) * 1000
			n := min(int(binary.LittleEndian.Uint16(in[2:])), len(in)-4)
			ud := in[4 : 4+n]
			in = in[4+n:]
			for _, c := range []*Converter{all, first} {
				fuzzRecord(&r, PktMon, id, 0x10, 0, ts, ud)
				p, ok := c.Packet(&r, int(ts%2))
				if !ok {
					continue
				}
				checkPacket(t, c, p)
				switch id {
				case pktmonFrame, pktmonFrameDrop, pktmonDuplicateDrop:
					logged := int(binary.LittleEndian.Uint16(ud[pmLoggedSize:]))
					if !sameFrame(p.Data, ud[pmPayload:pmPayload+logged]) {
						t.Fatalf("event %d: packet % x, payload % x", id, p.Data, ud[pmPayload:pmPayload+logged])
					}
					if orig := binary.LittleEndian.Uint16(ud[pmOriginalSize:]); int(p.OriginalLength) != max(int(orig), logged) {
						t.Fatalf("original length %d, the event says %d", p.OriginalLength, orig)
					}
				}
				if p.Dropped != (id != pktmonFrame && id != pktmonIPv4Frame && id != pktmonIPv6Frame) {
					t.Fatalf("event %d: dropped %v", id, p.Dropped)
				}
			}
		}
		if a, b := all.Stats(), first.Stats(); a.Packets != b.Packets+b.Repeated {
			t.Fatalf("%d packets, but %d first appearances and %d repeats", a.Packets, b.Packets, b.Repeated)
		}
	})
}
