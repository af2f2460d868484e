package pcapngsink_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/packettest"
	"github.com/etlkit/etlkit/internal/seeds"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/sink/pcapngsink"
)

// memFile is a File in memory.
type memFile struct{ b []byte }

func (m *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m.b)) {
		return 0, fmt.Errorf("read past the end")
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, fmt.Errorf("short read")
	}
	return n, nil
}

func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	if end := off + int64(len(p)); end > int64(len(m.b)) {
		m.b = append(m.b, make([]byte, end-int64(len(m.b)))...)
	}
	return copy(m.b[off:], p), nil
}

// packetBlocks checks the block structure of a pcapng file (readBlocks,
// a section header first) and returns its Enhanced Packet Blocks.
func packetBlocks(t *testing.T, b []byte) []block {
	t.Helper()
	bs := readBlocks(t, b)
	if len(bs) == 0 || bs[0].typ != 0x0A0D0D0A {
		t.Fatalf("the file does not start with a section header block")
	}
	var packets []block
	for _, blk := range bs {
		if blk.typ == 6 {
			packets = append(packets, blk)
		}
	}
	return packets
}

// FuzzCapture writes the packets of arbitrary trace bytes as pcapng, to a
// file and to a stream: no panic, both outputs well-formed blocks, the same
// packets in the same order, as many as the capture counts.
func FuzzCapture(f *testing.F) {
	var ndis bytes.Buffer
	if err := packettest.WriteNDIS(&ndis, packettest.NDISPackets()); err != nil {
		f.Fatal(err)
	}
	f.Add(ndis.Bytes())
	for _, b := range seeds.SmallFiles() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
		if err != nil {
			return
		}
		file := &memFile{}
		var stream bytes.Buffer
		toFile := pcapngsink.NewFileCapture(file, pcapngsink.CaptureOptions{})
		toStream := pcapngsink.NewCapture(&stream, pcapngsink.CaptureOptions{})
		n := 0
		for rec, err := range r.EventsWith(order.Options{ReadAhead: -1}) {
			if err != nil {
				continue
			}
			if n++; n > 5000 {
				break
			}
			if err := toFile.Add(rec, 0); err != nil {
				t.Fatal(err)
			}
			if err := toStream.Add(rec, 0); err != nil {
				t.Fatal(err)
			}
		}
		st, err := toFile.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := toStream.Close(); err != nil {
			t.Fatal(err)
		}
		inFile, inStream := packetBlocks(t, file.b), packetBlocks(t, stream.Bytes())
		if int64(len(inFile)) != st.Packets {
			t.Fatalf("%d packet blocks, %d packets counted", len(inFile), st.Packets)
		}
		if len(inStream) != len(inFile) {
			t.Fatalf("%d packet blocks to a file, %d to a stream", len(inFile), len(inStream))
		}
		// Both add the interfaces in the order of their first packet: the
		// packet blocks are the same, interface ids included.
		for i := range inFile {
			if !bytes.Equal(inFile[i].body, inStream[i].body) {
				t.Fatalf("packet %d differs between file and stream", i)
			}
		}
	})
}
