package buffer_test

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
)

// resyncTrace is a trace of buffers of a few records each, uncompressed
// (session-sized buffers) or compressed, with the offset of each buffer.
type resyncTrace struct {
	data    []byte
	offs    []int64
	session uint32 // the walker's SessionBufferSize: 0 when compressed
}

var resyncTraces = sync.OnceValues(func() ([2]resyncTrace, error) {
	var out [2]resyncTrace
	for i, compressed := range []bool{false, true} {
		s := etltest.DefaultSession()
		s.BufferSize = 0x400
		if compressed {
			s.LogFileMode |= etltest.ModeCompressed
		}
		var offs []int64
		data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
			for k := range 24 {
				var recs []etltest.Record
				for j := range 1 + k%5 {
					// Payloads of 0xEE: nothing in them looks like a header.
					recs = append(recs, &etltest.PerfInfo{HookId: 0x0524, TimeStamp: int64(1000 + 10*k + j), Payload: bytes.Repeat([]byte{0xEE}, 8+8*(j%4))})
				}
				if err := b.WriteBuffer(etltest.Buffer{CPU: uint16(k % 3), SequenceNumber: int64(k + 1), Compress: compressed}, recs...); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return out, err
		}
		// The offsets of the sound walk: the builder places the header
		// buffer itself.
		offs = offs[:0]
		w := buffer.NewWalker(bytes.NewReader(data), int64(len(data)))
		var b buffer.Buffer
		for {
			err := w.Next(&b)
			if err == io.EOF {
				break
			}
			if err != nil {
				return out, err
			}
			offs = append(offs, b.FileOffset)
		}
		out[i] = resyncTrace{data: data, offs: offs}
		if !compressed {
			out[i].session = s.BufferSize
		}
	}
	return out, nil
})

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.n += int64(len(p))
	return c.r.ReadAt(p, off)
}

// FuzzResync overwrites part of a sound trace with the fuzzer's bytes:
// anywhere (at), or within one buffer header (header set). The walk never
// panics, ends within two steps per buffer header's worth of input, and
// reads the input a bounded number of times over (the scan is linear).
// When the damage stays inside one buffer's header, every other buffer is
// read as it was (but those a damaged size that lands on a later buffer
// spans), and that buffer is either read or reported at its offset.
func FuzzResync(f *testing.F) {
	f.Add([]byte{0xEF, 0xBE, 0xAD, 0xDE}, uint32(5*buffer.HeaderSize), false, true)
	f.Add(bytes.Repeat([]byte{0xA5}, buffer.HeaderSize), uint32(7*buffer.HeaderSize), true, true)
	f.Add([]byte{0, 0, 0, 0}, uint32(0x1234), false, false)
	f.Add(bytes.Repeat([]byte{0}, 0x600), uint32(0x900), true, false)
	f.Fuzz(func(t *testing.T, damage []byte, at uint32, compressed, inHeader bool) {
		traces, err := resyncTraces()
		if err != nil {
			t.Fatal(err)
		}
		tr := traces[0]
		if compressed {
			tr = traces[1]
		}
		if len(tr.offs) != 25 || tr.offs[1] == 0 {
			t.Fatalf("the trace has buffers at %v, want the header's and 24 more", tr.offs)
		}
		data := bytes.Clone(tr.data)
		k := -1 // the buffer whose header the damage stays in
		var pos int64
		if inHeader {
			// Buffers 1 on: the first is the logfile header's.
			k = 1 + int(at/buffer.HeaderSize)%(len(tr.offs)-1)
			pos = tr.offs[k] + int64(at%buffer.HeaderSize)
			damage = damage[:min(len(damage), int(tr.offs[k]+buffer.HeaderSize-pos))]
		} else {
			pos = int64(at) % int64(len(data))
		}
		copy(data[pos:], damage)

		in := &countingReaderAt{r: bytes.NewReader(data)}
		w := buffer.NewWalker(in, int64(len(data)))
		w.SessionBufferSize = tr.session
		w.MaxBufferSize = 64 << 10
		// Records are counted in a buffer, to an end inside it.
		w.CountRecords = func(data []byte, end int) (int, bool) {
			if len(data) < buffer.HeaderSize || end != 0 && (end < buffer.HeaderSize || end > len(data)) {
				t.Fatalf("records counted in %d bytes to %d", len(data), end)
			}
			return header.CountRecords(data, end)
		}
		found := map[int64]buffer.Header{}
		var errs []*buffer.FormatError
		var b buffer.Buffer
		for steps := 1; ; steps++ {
			if steps > 2*len(data)/buffer.HeaderSize+3 {
				t.Fatalf("walk did not end after %d steps over %d bytes", steps, len(data))
			}
			err := w.Next(&b)
			if err == io.EOF {
				break
			}
			if err != nil {
				var fe *buffer.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a FormatError", err)
				}
				if fe.Offset < 0 || fe.Skipped < 0 || fe.Offset+fe.Skipped > int64(len(data)) {
					t.Fatalf("error %v outside the %d-byte input", err, len(data))
				}
				if fe.RecordsKnown && (fe.Records > 5 || fe.Skipped != int64(tr.session)) {
					t.Fatalf("error %v: %d records known in 0x%x bytes, buffers of 0x%x holding up to 5", err, fe.Records, fe.Skipped, tr.session)
				}
				// Damage inside buffer k's header leaves its records: a
				// count given is theirs (buffer i >= 1 holds 1+(i-1)%5).
				if fe.RecordsKnown && k > 0 && fe.Offset == tr.offs[k] && fe.Records != 1+(k-1)%5 {
					t.Fatalf("error %v: %d records counted in buffer %d, which holds %d", err, fe.Records, k, 1+(k-1)%5)
				}
				errs = append(errs, fe)
				continue
			}
			found[b.FileOffset] = b.Header
		}
		// Each byte read a few times: headers, records, the scan, and
		// the headers and decompressions that check what it finds.
		if in.n > 16*int64(len(data))+1<<20 {
			t.Fatalf("read %d bytes of a %d-byte input", in.n, len(data))
		}
		if k < 0 {
			return
		}
		for off := range found {
			if off > tr.offs[k] && off < tr.offs[k]+buffer.HeaderSize {
				// The damage itself forms a header that passes every
				// check, which the walk may take: from there on it is
				// a trace the fuzzer wrote. (Random damage forms none.)
				return
			}
		}
		want, _ := buffer.ParseHeader(tr.data[tr.offs[k]:])
		// A damaged header whose every field looks right, its size
		// landing exactly on a later buffer, cannot be told from a sound
		// one without the records: the buffers it spans are lost with it.
		spans := k + 1
		if got, _ := buffer.ParseHeader(data[tr.offs[k]:]); got.BufferSize != want.BufferSize {
			for j := k + 1; j < len(tr.offs); j++ {
				if tr.offs[k]+int64(got.BufferSize) == tr.offs[j] {
					spans = j
				}
			}
		}
		for i, off := range tr.offs {
			if i >= k && i < spans {
				continue
			}
			h, ok := found[off]
			if !ok {
				t.Fatalf("buffer %d at 0x%x, untouched by damage to buffer %d, was not read; errors %v", i, off, k, errs)
			}
			orig, _ := buffer.ParseHeader(tr.data[off:])
			if h != orig {
				t.Fatalf("buffer %d read with header %+v, want %+v", i, h, orig)
			}
		}
		if _, ok := found[tr.offs[k]]; ok {
			return // the damage left a header the walk could trust
		}
		// Reported at its offset: skipped to a buffer found after it, or
		// (a header trusted whose records do not decompress) with nothing
		// skipped. Damage can make bytes inside the buffer look like a
		// header; the buffers read from there are not checked, but they
		// cost no other buffer, as the loop above found.
		for _, fe := range errs {
			if fe.Offset == tr.offs[k] {
				return
			}
		}
		t.Fatalf("damage to buffer %d (header %+v) is not reported at 0x%x: %v", k, want, tr.offs[k], errs)
	})
}
