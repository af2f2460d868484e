package etltest

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/buffer/xca"
	"github.com/etlkit/etlkit/header"
)

// Buffer describes the WMI_BUFFER_HEADER of one buffer and the ways it may
// deviate from a clean one. The zero value is a generic buffer of processor
// 0 with the session's buffer size.
type Buffer struct {
	CPU uint16
	// ProcIndex stores CPU as a 16-bit ProcessorIndex and sets PROC_INDEX;
	// without it CPU is the 8-bit ProcessorNumber and Alignment the byte
	// after it (relogged Win7 files have garbage there).
	ProcIndex      bool
	Alignment      uint8
	LoggerId       uint16
	SequenceNumber int64
	TimeStamp      int64
	// Flags are written as given, plus PROC_INDEX and COMPRESSED when
	// ProcIndex and Compress (or BadCompression) ask for them.
	Flags buffer.Flag
	Type  buffer.Type
	State *buffer.State // nil: StateFlush, as nearly all real buffers
	Size  uint32        // 0: the session's BufferSize

	// SavedOffset overrides the field, which is otherwise equal to Offset.
	// SavedOffsetRecords > 0 sets it to the end of that many records
	// instead: real header buffers hold events after SavedOffset.
	SavedOffset        *uint32
	SavedOffsetRecords int
	// Offset overrides the end of records (a damaged buffer); CurrentOffset
	// overrides the writer's cursor, otherwise equal to Offset.
	Offset        *uint32
	CurrentOffset *uint32
	ClockInfo     uint64   // the union at 0x20, garbage in real files
	ReferenceTime [16]byte // the union at 0x38

	// Compress stores the records with plain LZ77 XPRESS after an
	// uncompressed header; BufferSize becomes 0x48 plus the compressed
	// length. BadCompression writes the COMPRESSED flag over bytes that do
	// not decompress.
	Compress       bool
	BadCompression bool
	// Truncate > 0 writes only the first Truncate bytes of the buffer, as in
	// a file cut short. Nothing should follow it.
	Truncate int
}

func (spec *Buffer) damaged() bool {
	return spec.Truncate > 0 || spec.BadCompression || spec.Offset != nil
}

// Stats counts what a Builder wrote. Kinds are named as header.Type names
// them (SYSTEM64, EVENT_HEADER32, MESSAGE, …); Raw records count as "RAW".
type Stats struct {
	Buffers int // buffers written, the header buffer included
	Bytes   int64
	Records map[string]int
	// Damaged counts the records written inside buffers damaged on purpose
	// (truncated, bad compression, wrong Offset, or holding a Raw record);
	// a reader may lose some or all of them.
	Damaged map[string]int
}

// Kinds returns the record kinds of Records in sorted order.
func (s *Stats) Kinds() []string { return slices.Sorted(maps.Keys(s.Records)) }

// Builder writes a trace to an io.Writer, buffer by buffer.
//
// The header buffer is kept until the first data buffer is written (or
// Close), so records can be added to it with AddToHeader. When the
// Session leaves BuffersWritten to the Builder, the count is patched in at
// Close: through Seek when the writer is an io.WriteSeeker, otherwise by
// keeping the whole output in memory until Close. Give BuffersWritten
// explicitly to stream large traces to a plain writer.
type Builder struct {
	s    Session
	w    io.Writer
	seek io.WriteSeeker
	base int64  // position of the trace in seek
	mem  []byte // output held back until Close
	hold bool
	err  error

	pos       int64
	buffers   int
	seq       int64
	hdr       *Stream
	hdrDone   bool
	hdrPatch  bool // the header buffer can take the BuffersWritten patch
	streams   []*Stream
	scratch   *Stream
	cbuf      []byte
	ff        []byte
	closed    bool
	stats     Stats
	countKind bool
}

// NewBuilder starts a trace for session s on w.
func NewBuilder(w io.Writer, s Session) (*Builder, error) {
	if s.BufferSize < buffer.HeaderSize+0x20 {
		return nil, fmt.Errorf("etltest: session BufferSize 0x%x is too small", s.BufferSize)
	}
	b := &Builder{s: s, w: w, seq: 1, countKind: true}
	b.stats.Records = map[string]int{}
	b.stats.Damaged = map[string]int{}
	if s.BuffersWritten == nil {
		if ws, ok := w.(io.WriteSeeker); ok {
			if pos, err := ws.Seek(0, io.SeekCurrent); err == nil {
				b.seek, b.base = ws, pos
			}
		}
		b.hold = b.seek == nil
	}
	hb := Buffer{Type: buffer.TypeHeader, Flags: buffer.FlagFlushMarker}
	if s.HeaderBuffer != nil {
		hb = *s.HeaderBuffer
	}
	b.hdr = b.newStream(hb)
	b.hdrPatch = !hb.Compress && !hb.BadCompression && (hb.Truncate == 0 || hb.Truncate >= BuffersWrittenOffset+4)
	if s.BuffersWritten == nil && !b.hdrPatch {
		return nil, errors.New("etltest: a compressed or cut header buffer needs an explicit Session.BuffersWritten")
	}
	if err := b.hdr.add(LogfileHeader{Session: &b.s}); err != nil {
		return nil, err
	}
	b.scratch = b.newStream(Buffer{})
	return b, nil
}

// Build runs fn on a Builder writing to memory and returns the trace.
func Build(s Session, fn func(b *Builder) error) ([]byte, Stats, error) {
	var out memWriter
	b, err := NewBuilder(&out, s)
	if err != nil {
		return nil, Stats{}, err
	}
	if err := fn(b); err != nil {
		return nil, Stats{}, err
	}
	if err := b.Close(); err != nil {
		return nil, Stats{}, err
	}
	return out.b, b.Stats(), nil
}

type memWriter struct{ b []byte }

func (m *memWriter) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }

// Session returns the session the Builder writes.
func (b *Builder) Session() *Session { return &b.s }

// Err returns the first error met, if any.
func (b *Builder) Err() error { return b.err }

// Offset is the file offset where the next buffer will start. The header
// buffer counts from the moment it is written.
func (b *Builder) Offset() int64 { return b.pos }

// Stats returns counts of what has been written so far.
func (b *Builder) Stats() Stats {
	s := b.stats
	s.Buffers, s.Bytes = b.buffers, b.pos
	s.Records = maps.Clone(b.stats.Records)
	s.Damaged = maps.Clone(b.stats.Damaged)
	return s
}

// AddToHeader appends records to the header buffer, after the logfile
// header record; real files put group-0 EventTrace events there.
func (b *Builder) AddToHeader(recs ...Record) error {
	if b.err != nil {
		return b.err
	}
	if b.hdrDone {
		return b.fail(errors.New("etltest: the header buffer is already written"))
	}
	for _, r := range recs {
		if err := b.hdr.add(r); err != nil {
			return b.fail(err)
		}
	}
	return nil
}

// CPU returns the stream of automatically filled buffers of processor n.
// Its Template starts as Session.DataBuffer with CPU n; change it to alter
// the buffers flushed from then on.
func (b *Builder) CPU(n int) *Stream {
	for len(b.streams) <= n {
		t := b.s.DataBuffer
		t.CPU = uint16(len(b.streams))
		b.streams = append(b.streams, b.newStream(t))
	}
	return b.streams[n]
}

// WriteBuffer writes one buffer holding exactly recs, with the header that
// spec describes: the low-level way to control buffer order, sequence
// numbers and quirks. Records that do not fit are an error.
func (b *Builder) WriteBuffer(spec Buffer, recs ...Record) error {
	if b.err != nil {
		return b.err
	}
	st := b.scratch
	st.Template = spec
	st.reset()
	for _, r := range recs {
		if err := st.add(r); err != nil {
			return b.fail(err)
		}
	}
	return b.emit(st, &st.Template)
}

// WriteRaw writes p where the next buffer would start: a region that is not
// a buffer, such as garbage or a zero-filled tail. It does not count as a
// buffer.
func (b *Builder) WriteRaw(p []byte) error {
	if err := b.writeHeader(); err != nil {
		return err
	}
	b.write(p)
	return b.err
}

// WriteZeros writes n zero bytes: the zero-filled tail of a preallocated
// file, which starts with a BufferSize of 0.
func (b *Builder) WriteZeros(n int) error { return b.WriteRaw(make([]byte, n)) }

// Close flushes every open CPU stream in processor order, writes the header
// buffer if nothing else did, and settles BuffersWritten.
func (b *Builder) Close() error {
	if b.closed {
		return b.err
	}
	b.closed = true
	for _, st := range b.streams {
		if st.n > 0 {
			st.Flush()
		}
	}
	if err := b.writeHeader(); err != nil {
		return err
	}
	if b.s.BuffersWritten != nil {
		return b.err
	}
	var n [4]byte
	le.PutUint32(n[:], uint32(b.buffers))
	switch {
	case b.hold:
		if len(b.mem) >= BuffersWrittenOffset+4 {
			copy(b.mem[BuffersWrittenOffset:], n[:])
		}
		if _, err := b.w.Write(b.mem); err != nil {
			return b.fail(err)
		}
		b.mem = nil
	case b.seek != nil:
		if _, err := b.seek.Seek(b.base+BuffersWrittenOffset, io.SeekStart); err != nil {
			return b.fail(err)
		}
		if _, err := b.seek.Write(n[:]); err != nil {
			return b.fail(err)
		}
		if _, err := b.seek.Seek(b.base+b.pos, io.SeekStart); err != nil {
			return b.fail(err)
		}
	}
	return b.err
}

func (b *Builder) fail(err error) error {
	if b.err == nil {
		b.err = err
	}
	return b.err
}

func (b *Builder) write(p []byte) {
	if b.err != nil {
		return
	}
	b.pos += int64(len(p))
	if b.hold {
		b.mem = append(b.mem, p...)
		return
	}
	if _, err := b.w.Write(p); err != nil {
		b.fail(err)
	}
}

func (b *Builder) writeHeader() error {
	if b.hdrDone || b.err != nil {
		return b.err
	}
	b.hdrDone = true
	return b.emit(b.hdr, &b.hdr.Template)
}

// Stream fills the buffers of one processor. Records are packed until one
// does not fit, then the buffer is flushed with the next sequence number
// and the timestamp of its last record.
type Stream struct {
	b        *Builder
	Template Buffer
	page     []byte
	ends     []int // end of each record, for SavedOffsetRecords
	n        int
	firstRaw int // index of the first Raw record, or -1
	kinds    []string
	lastTS   int64
}

func (b *Builder) newStream(t Buffer) *Stream {
	st := &Stream{b: b, Template: t}
	st.reset()
	return st
}

func (st *Stream) size() int {
	if st.Template.Size != 0 {
		return int(st.Template.Size)
	}
	return int(st.b.s.BufferSize)
}

func (st *Stream) reset() {
	// Slack past the buffer size lets a record that will not fit be
	// appended before it is taken back, without growing the page.
	need := st.size() + 0x10000 + 8
	if cap(st.page) < need {
		st.page = make([]byte, buffer.HeaderSize, need)
	}
	st.page = st.page[:buffer.HeaderSize]
	st.ends = st.ends[:0]
	st.kinds = st.kinds[:0]
	st.n = 0
	st.firstRaw = -1
	st.lastTS = 0
}

// Len is the number of records in the open buffer.
func (st *Stream) Len() int { return st.n }

// Add appends records, flushing the buffer when the next one does not fit.
// Errors are kept by the Builder (see Err and Close).
func (st *Stream) Add(recs ...Record) *Stream {
	for _, r := range recs {
		if st.b.err != nil {
			return st
		}
		err := st.add(r)
		if errors.Is(err, errFull) && st.n > 0 {
			st.Flush()
			err = st.add(r)
		}
		if err != nil {
			st.b.fail(err)
		}
	}
	return st
}

// Flush writes the open buffer, even if it holds no record.
func (st *Stream) Flush() *Stream {
	t := st.Template
	t.SequenceNumber = st.b.seq
	t.TimeStamp = st.lastTS
	st.b.emit(st, &t)
	return st
}

var errFull = errors.New("etltest: record does not fit in the buffer")

func (st *Stream) add(r Record) error {
	start := len(st.page)
	page, err := r.AppendRecord(st.page)
	if err != nil {
		return err
	}
	end := len(page)
	if end > st.size() {
		st.page = page[:start]
		return fmt.Errorf("%w (0x%x bytes at 0x%x, buffer 0x%x)", errFull, end-start, start, st.size())
	}
	for len(page)&7 != 0 {
		page = append(page, 0)
	}
	if len(page) > st.size() {
		// Only a buffer size that is not a multiple of 8 leaves room for a
		// record but not for its padding; the record then ends the buffer.
		page = page[:end]
	}
	st.page = page
	st.ends = append(st.ends, end)
	if t, ok := r.(timed); ok {
		if ts, ok := t.timeStamp(); ok {
			st.lastTS = ts
		}
	}
	if st.b.countKind {
		k := kindOf(r, st.page[start:end])
		if k == "RAW" && st.firstRaw < 0 {
			st.firstRaw = st.n
		}
		st.kinds = append(st.kinds, k)
	}
	st.n++
	return nil
}

// kindOf names the header kind of an encoded record for Stats.
func kindOf(r Record, enc []byte) string {
	switch r.(type) {
	case Raw:
		return "RAW"
	case *Message:
		return header.TypeMessage.String()
	}
	if len(enc) < 3 {
		return "RAW"
	}
	return header.Type(enc[2]).String()
}

func (b *Builder) emit(st *Stream, spec *Buffer) error {
	if st != b.hdr {
		if err := b.writeHeader(); err != nil {
			return err
		}
	}
	defer st.reset()
	if b.err != nil {
		return b.err
	}
	size := st.size()
	page := st.page
	used := len(page)
	if used > size {
		return b.fail(fmt.Errorf("etltest: 0x%x bytes of records in a 0x%x-byte buffer", used, size))
	}
	offset := uint32(used)
	if spec.Offset != nil {
		offset = *spec.Offset
	}
	saved := offset
	if spec.SavedOffsetRecords > 0 && spec.SavedOffsetRecords <= len(st.ends) {
		saved = uint32(header.Align(st.ends[spec.SavedOffsetRecords-1]))
	}
	if spec.SavedOffset != nil {
		saved = *spec.SavedOffset
	}
	current := offset
	if spec.CurrentOffset != nil {
		current = *spec.CurrentOffset
	}
	flags := spec.Flags
	if spec.ProcIndex {
		flags |= buffer.FlagProcIndex
	}
	compressed := spec.Compress || spec.BadCompression
	if compressed {
		flags |= buffer.FlagCompressed
	}
	state := buffer.StateFlush
	if spec.State != nil {
		state = *spec.State
	}

	var payload []byte
	bufferSize := uint32(size)
	if compressed {
		if spec.BadCompression {
			payload = badLZ77(b.cbuf[:0])
		} else {
			payload = xca.CompressLZ77(b.cbuf[:0], page[buffer.HeaderSize:used])
		}
		b.cbuf = payload[:0]
		bufferSize = uint32(buffer.HeaderSize + len(payload))
	}

	h := buffer.Header{
		BufferSize:     bufferSize,
		SavedOffset:    saved,
		CurrentOffset:  current,
		TimeStamp:      spec.TimeStamp,
		SequenceNumber: spec.SequenceNumber,
		ClockInfo:      spec.ClockInfo,
		ClientContext:  uint16(spec.Alignment)<<8 | spec.CPU,
		LoggerId:       spec.LoggerId,
		State:          state,
		Offset:         offset,
		BufferFlag:     flags,
		BufferType:     spec.Type,
		ReferenceTime:  spec.ReferenceTime,
	}
	if spec.ProcIndex {
		h.ClientContext = spec.CPU
	} else if spec.CPU > 0xFF {
		return b.fail(fmt.Errorf("etltest: processor %d needs ProcIndex", spec.CPU))
	}
	h.Put(page)

	var out []byte
	if compressed {
		// The records were already compressed into cbuf, so the page past
		// the header is free to take the compressed bytes.
		out = append(page[:buffer.HeaderSize], payload...)
	} else {
		out = page[:size]
		fillFF(b, out[used:])
	}
	if spec.Truncate > 0 && spec.Truncate < len(out) {
		out = out[:spec.Truncate]
	}
	b.write(out)
	b.buffers++
	if st.b.countKind {
		damaged := spec.damaged()
		for i, k := range st.kinds {
			b.stats.Records[k]++
			if damaged || (st.firstRaw >= 0 && i >= st.firstRaw) {
				b.stats.Damaged[k]++
			}
		}
	}
	if st != b.hdr {
		b.seq++
	}
	return b.err
}

func fillFF(b *Builder, p []byte) {
	if len(b.ff) < len(p) {
		b.ff = make([]byte, len(p))
		for i := range b.ff {
			b.ff[i] = 0xFF
		}
	}
	copy(p, b.ff)
}

// badLZ77 is compressed data that no plain LZ77 decoder accepts: the first
// flag bit announces a match while nothing has been output yet.
func badLZ77(dst []byte) []byte {
	dst = le.AppendUint32(dst, 0x80000000)
	dst = le.AppendUint16(dst, 0xFFF8)
	for i := 0; i < 18; i++ {
		dst = append(dst, 0xA5)
	}
	return dst
}
