package pcapngsink_test

import (
	"bytes"
	"encoding/binary"
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

// pcapngBlocks checks the block structure of a little-endian pcapng file
// (a section header first, each block's two lengths equal and a multiple
// of 4) and returns its Enhanced Packet Blocks.
func pcapngBlocks(t *testing.T, b []byte) [][]byte {
	t.Helper()
	const shb, epb = 0x0A0D0D0A, 6
	var packets [][]byte
	for off := 0; off < len(b); {
		if len(b)-off < 12 {
			t.Fatalf("offset %d: %d bytes left, less than a block", off, len(b)-off)
		}
		typ := binary.LittleEndian.Uint32(b[off:])
		n := int(binary.LittleEndian.Uint32(b[off+4:]))
		if off == 0 && typ != shb {
			t.Fatalf("the file starts with block type 0x%x", typ)
		}
		if n < 12 || n%4 != 0 || n > len(b)-off {
			t.Fatalf("offset %d: block length %d", off, n)
		}
		if tail := int(binary.LittleEndian.Uint32(b[off+n-4:])); tail != n {
			t.Fatalf("offset %d: block length %d, trailing length %d", off, n, tail)
		}
		if typ == epb {
			packets = append(packets, b[off:off+n])
		}
		off += n
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
		inFile, inStream := pcapngBlocks(t, file.b), pcapngBlocks(t, stream.Bytes())
		if int64(len(inFile)) != st.Packets {
			t.Fatalf("%d packet blocks, %d packets counted", len(inFile), st.Packets)
		}
		if len(inStream) != len(inFile) {
			t.Fatalf("%d packet blocks to a file, %d to a stream", len(inFile), len(inStream))
		}
		// Both add the interfaces in the order of their first packet: the
		// packet blocks are the same, interface ids included.
		for i := range inFile {
			if !bytes.Equal(inFile[i], inStream[i]) {
				t.Fatalf("packet %d differs between file and stream", i)
			}
		}
	})
}
