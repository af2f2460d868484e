package etlsink_test

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/etlkit/etlkit/buffer/xca"
)

// This file is a second reader, written apart from packages buffer,
// header, record and etl and sharing no code with them, from the format
// notes alone (compressed buffers are decompressed with package xca,
// whose decoder reads ETW's own): it walks a written trace buffer by
// buffer and record by record, checks the invariants a trace written by
// ETW holds, and lists each record's processor, header type and raw
// timestamp. Tests compare what it finds with what the library reads from
// the input.

// walkedRecord is one record as the second reader sees it.
type walkedRecord struct {
	cpu  uint16
	typ  uint8 // header type; 0x0F for WPP messages
	ts   int64 // raw timestamp, or the buffer's for records without one
	size int
}

// walked is a whole trace as the second reader sees it.
type walked struct {
	bufferSize     uint32
	buffers        int
	compressed     int // buffers written compressed
	buffersWritten uint32
	processors     uint32
	logFileMode    uint32
	headerTS       int64 // the logfile-header record's timestamp
	header         []walkedRecord
	data           []walkedRecord // data buffers in file order
	// perCPU holds the data records of each processor in file order.
	perCPU map[uint16][]walkedRecord
}

var le = binary.LittleEndian

// walkTrace reads b and reports the first invariant it breaks. In a
// compressed trace (COMPRESSED_MODE), the header buffer is written whole
// but may be smaller than the session's buffers, and the others are
// compressed, each as long as its compressed bytes, or written whole.
func walkTrace(b []byte) (*walked, error) {
	w := &walked{perCPU: map[uint16][]walkedRecord{}}
	if len(b) < 0x48 {
		return nil, fmt.Errorf("%d bytes: no buffer header", len(b))
	}
	var lastSeq int64
	for off := 0; off < len(b); {
		if len(b)-off < 0x48 {
			return nil, fmt.Errorf("offset 0x%x: %d bytes left, too few for a buffer header", off, len(b)-off)
		}
		h := b[off : off+0x48]
		size := le.Uint32(h[0x00:])
		saved := le.Uint32(h[0x04:])
		current := le.Uint32(h[0x08:])
		stamp := int64(le.Uint64(h[0x10:]))
		seq := int64(le.Uint64(h[0x18:]))
		ctx := le.Uint16(h[0x28:])
		state := le.Uint32(h[0x2C:])
		end := le.Uint32(h[0x30:])
		flags := le.Uint16(h[0x34:])
		kind := le.Uint16(h[0x36:])
		cpu := ctx & 0xFF
		if flags&0x20 != 0 {
			cpu = ctx & 0x7FF
		}
		first := off == 0
		compressed := flags&0x40 != 0
		switch {
		case first && w.bufferSize == 0:
			// The session's buffer size is read from the header record below.
		case compressed && w.logFileMode&0x04000000 == 0:
			return nil, fmt.Errorf("buffer %d: compressed in a trace that is not", w.buffers)
		case compressed:
			if size <= 0x48 || size >= w.bufferSize {
				return nil, fmt.Errorf("buffer %d: compressed to 0x%x bytes, session 0x%x", w.buffers, size, w.bufferSize)
			}
		case size != w.bufferSize:
			return nil, fmt.Errorf("buffer %d: BufferSize 0x%x, session 0x%x", w.buffers, size, w.bufferSize)
		}
		if off+int(size) > len(b) {
			return nil, fmt.Errorf("buffer %d: 0x%x bytes run past the end of the file", w.buffers, size)
		}
		if end < 0x48 || (end > size && !compressed) || end%8 != 0 || saved != end || current != end ||
			(compressed && end > w.bufferSize) {
			return nil, fmt.Errorf("buffer %d: Offset 0x%x, SavedOffset 0x%x, CurrentOffset 0x%x in 0x%x bytes", w.buffers, end, saved, current, size)
		}
		if state != 3 || (first && compressed) {
			return nil, fmt.Errorf("buffer %d: state %d, flags 0x%x", w.buffers, state, flags)
		}
		var buf []byte
		if compressed {
			w.compressed++
			buf = make([]byte, end)
			copy(buf, h)
			n, err := xca.DecompressLZ77(buf[0x48:], b[off+0x48:off+int(size)])
			if err != nil || n != int(end)-0x48 {
				return nil, fmt.Errorf("buffer %d: 0x%x bytes decompressed of 0x%x: %v", w.buffers, n, end-0x48, err)
			}
		} else {
			buf = b[off : off+int(end)]
			if tail := b[off+int(end) : off+int(size)]; bytes.Count(tail, []byte{0xFF}) != len(tail) {
				return nil, fmt.Errorf("buffer %d: bytes after Offset 0x%x are not all 0xFF", w.buffers, end)
			}
		}
		if first {
			if kind != 4 || seq != 0 || flags&0x01 == 0 {
				return nil, fmt.Errorf("header buffer: type %d, sequence %d, flags 0x%x", kind, seq, flags)
			}
		} else {
			if kind != 0 || seq <= lastSeq {
				return nil, fmt.Errorf("buffer %d: type %d, sequence %d after %d", w.buffers, kind, seq, lastSeq)
			}
			lastSeq = seq
		}
		recs, err := walkRecords(buf, stamp)
		if err != nil {
			return nil, fmt.Errorf("buffer %d: %w", w.buffers, err)
		}
		for i := range recs {
			recs[i].cpu = cpu
		}
		if first {
			if err := w.readLogfileHeader(b[off:], recs); err != nil {
				return nil, err
			}
			if size != w.bufferSize && (w.logFileMode&0x04000000 == 0 || size > w.bufferSize || size%0x200 != 0) {
				return nil, fmt.Errorf("header buffer of 0x%x bytes, session 0x%x, mode 0x%x", size, w.bufferSize, w.logFileMode)
			}
			w.header = recs[1:]
		} else {
			if len(recs) == 0 {
				return nil, fmt.Errorf("buffer %d holds no record", w.buffers)
			}
			w.data = append(w.data, recs...)
			w.perCPU[cpu] = append(w.perCPU[cpu], recs...)
			if w.logFileMode&0x10000000 == 0 && uint32(cpu) >= w.processors {
				return nil, fmt.Errorf("buffer %d: processor %d of %d", w.buffers, cpu, w.processors)
			}
		}
		w.buffers++
		off += int(size)
	}
	if uint32(w.buffers) != w.buffersWritten {
		return nil, fmt.Errorf("%d buffers, BuffersWritten %d", w.buffers, w.buffersWritten)
	}
	return w, nil
}

// readLogfileHeader checks the header buffer's first record and reads
// the fields of TRACE_LOGFILE_HEADER the walk needs.
func (w *walked) readLogfileHeader(buf []byte, recs []walkedRecord) error {
	if len(recs) == 0 || (recs[0].typ != 1 && recs[0].typ != 2) {
		return fmt.Errorf("header buffer does not start with a SYSTEM record")
	}
	rec := buf[0x48:]
	if hook := le.Uint16(rec[6:]); hook != 0 {
		return fmt.Errorf("first record has HookId 0x%x", hook)
	}
	p := rec[0x20:]
	w.bufferSize = le.Uint32(p[0x00:])
	w.processors = le.Uint32(p[0x0C:])
	w.logFileMode = le.Uint32(p[0x20:])
	w.buffersWritten = le.Uint32(p[0x24:])
	w.headerTS = recs[0].ts
	fixed := 0x118
	if recs[0].typ == 1 {
		fixed = 0x110
	}
	if ptr := le.Uint32(p[0x2C:]); ptr != 4 && ptr != 8 {
		return fmt.Errorf("logfile header with PointerSize %d", ptr)
	}
	if recs[0].size < 0x20+fixed+4 {
		return fmt.Errorf("logfile-header record of 0x%x bytes", recs[0].size)
	}
	return nil
}

// walkRecords lists the records of one buffer, b[:Offset]. Every record
// starts 8-byte aligned, its padding is zero, and the last one ends at
// Offset.
func walkRecords(b []byte, bufferTS int64) ([]walkedRecord, error) {
	var out []walkedRecord
	pos := 0x48
	for pos < len(b) {
		if len(b)-pos < 8 {
			return nil, fmt.Errorf("record at 0x%x: %d bytes left", pos, len(b)-pos)
		}
		marker := le.Uint32(b[pos:])
		flags := uint8(marker >> 24)
		r := walkedRecord{ts: bufferTS}
		var fixed int
		switch {
		case flags&0xC0 == 0xC0:
			r.typ = b[pos+2]
			switch r.typ {
			case 0x01, 0x02, 0x03, 0x04, 0x10, 0x11:
				r.size, fixed = int(le.Uint16(b[pos+4:])), 0x20
				switch r.typ {
				case 0x03, 0x04:
					fixed = 0x18
				case 0x10, 0x11:
					fixed = 0x10
				}
				if r.typ >= 0x10 {
					r.ts = int64(le.Uint64(b[pos+8:]))
				} else {
					r.ts = int64(le.Uint64(b[pos+0x10:]))
				}
			case 0x0A, 0x14, 0x0B, 0x15, 0x12, 0x13:
				r.size, fixed = int(le.Uint16(b[pos:])), 0x30
				switch r.typ {
				case 0x0B, 0x15:
					fixed = 0x48
				case 0x12, 0x13:
					fixed = 0x50
				}
				r.ts = int64(le.Uint64(b[pos+0x10:]))
			case 0x0C, 0x0D, 0x0E:
				r.size, fixed = int(le.Uint16(b[pos:])), 4
			default:
				return nil, fmt.Errorf("record at 0x%x: header type 0x%02x", pos, r.typ)
			}
		case flags&0xD0 == 0x90:
			r.typ, r.size, fixed = 0x0F, int(le.Uint16(b[pos:])), 8
			opts := le.Uint16(b[pos+6:])
			at := pos + 8
			if opts&0x01 != 0 {
				at += 4
			}
			if opts&0x04 != 0 {
				at += 4
			} else if opts&0x02 != 0 {
				at += 16
			}
			if opts&0x08 != 0 {
				if at+8 > len(b) {
					return nil, fmt.Errorf("message at 0x%x: timestamp past the buffer", pos)
				}
				r.ts = int64(le.Uint64(b[at:]))
			}
		default:
			return nil, fmt.Errorf("record at 0x%x: marker 0x%08x", pos, marker)
		}
		if r.size < fixed || pos+r.size > len(b) {
			return nil, fmt.Errorf("record at 0x%x: size 0x%x (fixed header 0x%x, 0x%x bytes left)", pos, r.size, fixed, len(b)-pos)
		}
		next := (pos + r.size + 7) &^ 7
		if next > len(b) {
			return nil, fmt.Errorf("record at 0x%x: padding runs past Offset", pos)
		}
		for i := pos + r.size; i < next; i++ {
			if b[i] != 0 {
				return nil, fmt.Errorf("record at 0x%x: padding byte 0x%02x", pos, b[i])
			}
		}
		out = append(out, r)
		pos = next
	}
	return out, nil
}
