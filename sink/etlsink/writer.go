// Package etlsink writes Windows ETW trace logs (.etl): the records of one
// or more traces, all of them or those a filter kept, copied byte for byte
// into a new trace that readers, Windows' own included, open as they open
// one written by ETW.
//
// A Writer lays the trace out as ETW does. The first buffer is the header
// buffer (type HEADER, sequence number 0): the logfile-header record that
// describes the new file, then the records given to WriteHeaderRecord (the
// EventTrace events a session logs at its start). Every other record goes
// to the buffer of the processor that logged it, one open buffer per
// processor, each record 8-byte aligned and padded with zeros, the unused
// tail of a buffer filled with 0xFF. A full buffer is written with the next
// sequence number, its processor, its Offset and SavedOffset at the end of
// its records and its TimeStamp at its latest record, so that a reader that
// merges the processors' streams by time gets the records back in the order
// they were written. A trace of a compressed session is written
// compressed, as ETW's relogger writes one (see Options.Compression).
//
// Memory stays bounded: one buffer per processor being written, within
// Options.MemoryLimit, at most four batches of 1 MiB (or of one buffer
// each, when buffers are larger) of finished buffers on their way to the
// file, and when compressing one buffer more to compress into. Buffers are
// at most Options.MaxBufferSize, whatever the input's. The output must be an io.WriteSeeker (a file):
// Close goes back to the header buffer to record how many buffers were
// written and when the trace ends.
package etlsink

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/buffer/xca"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// DefaultMemoryLimit bounds the bytes of the buffers a Writer holds open
// when Options.MemoryLimit is 0: 1024 processors of 64 KiB buffers.
const DefaultMemoryLimit = 64 << 20

// DefaultMaxBufferSize bounds the buffers a Writer writes when
// Options.MaxBufferSize is 0: the smallest multiple of 4 KiB that holds a
// record of the largest size (0xFFFF bytes) after a buffer header. A
// session's buffers can be up to 16 MiB; written at that size, a trace
// with a few records per processor would be mostly padding, and a Writer
// would hold 16 MiB per processor.
const DefaultMaxBufferSize = 0x11000

// Options tunes a Writer. The zero value is ready to use.
type Options struct {
	// MemoryLimit bounds the bytes of the buffers held open at a time, one
	// per processor being written. When opening one more would pass it,
	// the buffer written to least recently is written out first, part
	// full, as ETW flushes a buffer on a timer. One buffer is always
	// allowed.
	MemoryLimit int
	// MaxBufferSize bounds the size of the buffers written (see
	// NewWriter); 0 means DefaultMaxBufferSize. Below it, a record of the
	// largest size does not fit, and Write refuses such records.
	MaxBufferSize int
	// Compression says whether buffers are written compressed.
	Compression Compression
}

// Compression says whether a Writer compresses the buffers it writes.
type Compression uint8

const (
	// CompressLikeInput compresses when the header given to NewWriter is
	// that of a compressed session (header.ModeCompressed in LogFileMode),
	// as a relogged trace is: a trace stays about its input's size.
	CompressLikeInput Compression = iota
	// CompressNever writes every buffer whole.
	CompressNever
	// CompressAlways compresses.
	CompressAlways
)

// ErrClosed is returned by a Writer used after Close.
var ErrClosed = errors.New("etlsink: writer is closed")

// RecordError reports a record the Writer cannot place. The Writer stays
// usable: the record is left out and the next one is written.
type RecordError struct {
	HeaderType header.Type
	Processor  uint16
	Size       int
	Reason     string
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("etlsink: %v record of %d bytes on processor %d: %s", e.HeaderType, e.Size, e.Processor, e.Reason)
}

// Stats counts what a Writer wrote.
type Stats struct {
	Buffers       int   // buffers written, the header buffer included
	Bytes         int64 // bytes written
	Records       int   // records written, the logfile-header record not included
	HeaderRecords int   // of Records, those in the header buffer
	// Replaced counts the input logfile-header records Copy met: the
	// Writer writes its own in their place.
	Replaced int
}

// Writer writes one trace. Its methods are not safe for use by several
// goroutines at a time.
type Writer struct {
	out  io.WriteSeeker
	base int64 // where the trace starts in out
	pos  int64 // bytes written since base
	size int   // buffer size
	// maxRecord is the largest record a buffer holds: a record's size
	// field bounds it, and so does the room after the buffer header.
	maxRecord int
	limit     int
	err       error // the first write error; it ends the trace
	done      bool  // Close was called
	// compress: buffers of records are written compressed, each its
	// header then its records in MS-XCA Plain LZ77, as ETW writes a
	// compressed session's; zbuf is where they are compressed.
	compress bool
	zbuf     []byte

	lh      header.LogfileHeader
	rec     header.SystemHeader // the fields of the logfile-header record's own header
	recLen  int                 // size of the logfile-header record
	endTime bool                // EndTime is worked out at Close
	clock   header.Clock
	single  bool // EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING: one stream

	hdr     stream // the header buffer
	hdrSet  bool   // its processor is settled
	hdrDone bool   // it is written; records go to the streams
	adopted bool
	streams []*stream // by processor, or just [0] when single
	open    int       // streams holding a page
	// Past the first asyncAfter bytes, buffers are written on a goroutine
	// of their own, so that the copy into the file overlaps the reading of
	// the next records: pages go out on queue, batchBytes at a time, and
	// come back to spare once written. Before, they are written at once.
	queue    chan []*page
	batch    []*page // finished pages not yet handed to the goroutine
	batched  int     // their bytes
	finished chan struct{}
	outErr   atomic.Pointer[error]
	spareMu  sync.Mutex
	spare    []*page
	batches  [][]*page // emptied batches, for reuse
	seq      int64
	tick     uint64
	maxCPU   int
	latest   int64 // the latest raw timestamp written
	anyTime  bool
	stats    Stats
	fillFrom []byte // 0xFF, to refill pages
}

// page is the storage of one buffer. Past dirty, and past the 8 bytes
// that follow the records being written into it, it holds 0xFF only, so a
// buffer is finished by refilling what lies between its end and there.
type page struct {
	b     []byte
	out   []byte // what is written: b, or its start when compressed
	dirty int
	keep  bool // the header buffer's: not handed back for reuse
}

// inFlight is how many batches of written buffers may wait for the
// output at a time.
const inFlight = 2

// batchBytes is how many bytes of finished buffers are handed to the
// output goroutine at once. Handing over each 64 KiB buffer alone, the
// two threads woke each other ~16 000 times a GiB; at 1 MiB they meet
// ~1 000 times. Larger writes themselves save little: the kernel's copy
// into the file dominates a 64 KiB write.
const batchBytes = 1 << 20

// asyncAfter is where a trace is large enough for writing on a goroutine
// of its own to pay: below it, handing each buffer over between threads
// costs more than the copy it overlaps (and small traces are many, in
// tests and fuzzing).
const asyncAfter = 4 << 20

// stream is the open buffer of one processor (or the header buffer).
type stream struct {
	p       *page
	used    int
	cpu     uint16
	index   bool  // the processor is stored as a 16-bit index (PROC_INDEX)
	ts      int64 // the buffer's TimeStamp
	inherit bool  // ts was set by a record that takes its time from the buffer
	records int
	last    uint64 // when it was written to last, for the memory limit
}

// NewWriter starts a trace on out, at out's current position, described by
// h: the logfile header of an input (etl.Reader.Header) or of several
// (SessionFor). The logfile-header record is written with h's fields but
// for these, which describe the new file:
//
//   - BufferSize: h.BufferSize rounded up to a multiple of 8, at most
//     Options.MaxBufferSize, and raised when the logfile-header record
//     would not fit in a buffer.
//   - LogFileMode: the bits of circular, appending, new-file, preallocated,
//     real-time, delayed-open, in-memory and compressed sessions (and the
//     hybrid-shutdown ones) cleared; FILE_MODE_SEQUENTIAL and RELOG_MODE
//     set, and COMPRESSED_MODE when the Writer compresses
//     (Options.Compression).
//   - BuffersWritten: the buffers written, the header buffer included.
//   - EndTime: h.EndTime, or when it is 0 the time of the latest record.
//   - NumberOfProcessors: raised to cover every processor written, unless
//     the session has no per-processor buffering.
//   - The log-format version (SubVersion.SubMinorVersion) 1.5 when h gives
//     0.0, or 2.0 when below that and the Writer compresses, as ETW marks
//     compressed files; PointerSize that of the form when h's is neither 4
//     nor 8.
//   - The 32-bit form (SYSTEM32, 0x110 bytes) when h.HeaderType is
//     SYSTEM32, otherwise the 64-bit form.
//
// The clock fields (ReservedFlags, PerfFreq, CPUSpeedInMHz, StartTime) and
// h.RawTimeStamp, the record's own timestamp, are written as given, so the
// records' raw timestamps convert to the times they had.
func NewWriter(out io.WriteSeeker, h *etl.Header, opts Options) (*Writer, error) {
	base, err := out.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, fmt.Errorf("etlsink: the output cannot seek: %w", err)
	}
	w := &Writer{out: out, base: base, limit: opts.MemoryLimit, maxCPU: -1}
	switch opts.Compression {
	case CompressLikeInput:
		w.compress = h.LogFileMode&header.ModeCompressed != 0
	case CompressAlways:
		w.compress = true
	case CompressNever:
	default:
		return nil, fmt.Errorf("etlsink: unknown Compression %d", opts.Compression)
	}
	if w.limit <= 0 {
		w.limit = DefaultMemoryLimit
	}
	w.lh = h.LogfileHeader
	lh := &w.lh
	lh.Is64 = h.HeaderType != header.TypeSystem32
	if lh.PointerSize != 4 && lh.PointerSize != 8 {
		lh.PointerSize = 8
		if !lh.Is64 {
			lh.PointerSize = 4
		}
	}
	if lh.SubVersion == 0 && lh.SubMinorVersion == 0 {
		lh.SubVersion, lh.SubMinorVersion = 1, 5
	}
	if w.compress && lh.SubVersion < 2 {
		lh.SubVersion, lh.SubMinorVersion = 2, 0
	}
	lh.Version = uint32(lh.MajorVersion) | uint32(lh.MinorVersion)<<8 | uint32(lh.SubVersion)<<16 | uint32(lh.SubMinorVersion)<<24
	lh.LogFileMode = lh.LogFileMode&^modeDropped | header.ModeFileSequential | header.ModeRelog
	if w.compress {
		lh.LogFileMode |= header.ModeCompressed
	}
	w.single = lh.LogFileMode&header.ModeNoPerProcessorBuffering != 0
	w.endTime = lh.EndTime == 0
	w.rec = header.SystemHeader{Version: 2, ThreadId: h.ThreadId, ProcessId: h.ProcessId, SystemTime: h.RawTimeStamp}
	rec, err := header.AppendLogfileRecord(nil, &w.rec, lh)
	if err != nil {
		return nil, fmt.Errorf("etlsink: %w", err)
	}
	w.recLen = len(rec)
	largest := opts.MaxBufferSize
	if largest == 0 {
		largest = DefaultMaxBufferSize
	}
	if largest < 0 || largest > buffer.MaxSessionBufferSize {
		return nil, fmt.Errorf("etlsink: MaxBufferSize 0x%x is not within ETW's 0x%x", largest, buffer.MaxSessionBufferSize)
	}
	size := header.Align(int(min(lh.BufferSize, uint32(largest))))
	if need := buffer.HeaderSize + header.Align(w.recLen); size < need {
		size = roundPage(need)
	}
	w.size = size
	w.maxRecord = min(header.MaxRecordSize, size-buffer.HeaderSize)
	lh.BufferSize = uint32(size)
	w.clock = header.NewClock(lh, h.RawTimeStamp)
	w.hdr.p = w.newPage()
	w.hdr.p.keep = true
	w.hdr.used = buffer.HeaderSize + header.Align(w.recLen)
	return w, nil
}

// send writes out a finished page: at once, or on the output goroutine
// once the trace has grown past asyncAfter.
func (w *Writer) send(p *page) {
	if w.queue == nil && w.pos >= asyncAfter && w.err == nil {
		w.queue = make(chan []*page, inFlight)
		w.finished = make(chan struct{})
		go w.output()
	}
	w.pos += int64(len(p.out))
	w.stats.Bytes += int64(len(p.out))
	if w.queue != nil {
		w.batch = append(w.batch, p)
		if w.batched += len(p.out); w.batched >= batchBytes {
			w.handOver()
		}
		return
	}
	if w.err == nil {
		if _, err := w.out.Write(p.out); err != nil {
			w.err = fmt.Errorf("etlsink: writing the trace: %w", err)
		}
	}
	w.release(p)
}

// handOver queues the batch of finished pages for the output goroutine.
func (w *Writer) handOver() {
	if len(w.batch) == 0 {
		return
	}
	if e := w.outErr.Load(); e != nil && w.err == nil {
		w.err = *e
	}
	w.queue <- w.batch
	w.batch, w.batched = nil, 0
	w.spareMu.Lock()
	if n := len(w.batches); n > 0 {
		w.batch = w.batches[n-1]
		w.batches = w.batches[:n-1]
	}
	w.spareMu.Unlock()
}

// output writes the pages of the queue in order, until it is closed. After
// an error it only hands the pages back.
func (w *Writer) output() {
	defer close(w.finished)
	failed := false
	for batch := range w.queue {
		for _, p := range batch {
			if !failed {
				if _, err := w.out.Write(p.out); err != nil {
					werr := fmt.Errorf("etlsink: writing the trace: %w", err)
					w.outErr.Store(&werr)
					failed = true
				}
			}
			w.release(p)
		}
		clear(batch)
		w.spareMu.Lock()
		w.batches = append(w.batches, batch[:0])
		w.spareMu.Unlock()
	}
}

// release keeps a written page for reuse. The pages are those open, those
// of the batch being gathered, of the at most inFlight batches queued and
// of the one being written, and those back here: a new
// one is made only when all the others are in use, so their number stays
// bounded without anyone waiting for a page.
func (w *Writer) release(p *page) {
	if p.keep {
		return
	}
	w.spareMu.Lock()
	w.spare = append(w.spare, p)
	w.spareMu.Unlock()
}

// modeDropped are the LogFileMode bits that say how a session wrote or
// delivered its buffers, which a file written afterwards does not share
// (EVENT_TRACE_STOP_ON_HYBRID_SHUTDOWN and PERSIST_ON_HYBRID_SHUTDOWN are
// 0x00400000 and 0x00800000; Windows clears them in files too).
const modeDropped = header.ModeFileCircular | header.ModeFileAppend | header.ModeFileNewFile |
	header.ModeFilePrealloc | header.ModeRealTime | header.ModeDelayOpenFile | header.ModeBuffering |
	header.ModeCompressed | 0x00400000 | 0x00800000

// roundPage rounds a buffer size that had to be raised up to 4 KiB, the
// granularity of the sizes ETW allocates.
func roundPage(n int) int { return (n + 0xFFF) &^ 0xFFF }

// BufferSize is the size of every buffer the Writer writes.
func (w *Writer) BufferSize() int { return w.size }

// Stats returns what has been written so far.
func (w *Writer) Stats() Stats { return w.stats }

// Write adds a record to the buffer of its processor: r.Raw as it is, in
// a buffer whose processor number and PROC_INDEX flag are r's
// (r.ProcessorNumber, r.Flags&header.FlagProcessorIndex). Records of one
// processor must come in the order a reader is to deliver them; across
// processors any interleaving will do, but in a session without
// per-processor buffering (EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING) every
// record is of one stream, read back in the order written. A record that
// takes its time from its buffer (a WPP message without a timestamp,
// ERROR, TIMED, WNODE) gets a buffer whose TimeStamp is r.RawTimeStamp.
//
// The first Write ends the header buffer: it is written then, and
// WriteHeaderRecord puts its records on the streams from there on.
func (w *Writer) Write(r *record.Record) error {
	if err := w.check(r); err != nil {
		return err
	}
	return w.write(r)
}

func (w *Writer) write(r *record.Record) error {
	if !w.hdrDone {
		if err := w.writeHeaderBuffer(); err != nil {
			return err
		}
	}
	cpu := r.ProcessorNumber
	s := w.stream(cpu)
	index, ts, inherit := r.Flags&header.FlagProcessorIndex != 0, r.RawTimeStamp, inheritsTime(r)
	if s.p != nil && !s.fits(len(r.Raw), cpu, index, ts, inherit, w.size) {
		w.flush(s, false)
	}
	if s.p == nil {
		w.openStream(s, cpu, index)
	}
	w.tick++
	s.last = w.tick
	w.put(s, r.Raw, ts, inherit)
	return w.err
}

// WriteHeaderRecord adds a record to the header buffer, after the
// logfile-header record: where a session's first EventTrace events go.
// The header buffer takes the processor and PROC_INDEX flag of its first
// record. A record that cannot join it (the header buffer is written
// already or full, or the record has another processor, or another time
// to take from the buffer) goes to its processor's stream, as by Write.
func (w *Writer) WriteHeaderRecord(r *record.Record) error {
	if err := w.check(r); err != nil {
		return err
	}
	if w.hdrDone {
		return w.write(r)
	}
	cpu, index, ts, inherit := r.ProcessorNumber, r.Flags&header.FlagProcessorIndex != 0, r.RawTimeStamp, inheritsTime(r)
	if !w.hdrSet {
		w.hdr.cpu, w.hdr.index, w.hdrSet = cpu, index, true
	}
	if !w.hdr.fits(len(r.Raw), cpu, index, ts, inherit, w.size) {
		return w.write(r)
	}
	w.put(&w.hdr, r.Raw, ts, inherit)
	w.stats.HeaderRecords++
	return w.err
}

// Copy adds a record read from src, placed where src had it: src's
// logfile-header record is not copied (the Writer writes its own; when it
// is the record h was taken from, its processor and its own header fields
// are kept), the other records of src's header buffer go to the header
// buffer (WriteHeaderRecord), and the rest to their processors' streams
// (Write).
func (w *Writer) Copy(r *record.Record, src *etl.Reader) error {
	if r.BufferIndex != 0 || src.Header().RealTimeBackup != nil {
		// Write, one call fewer for almost every record.
		if err := w.check(r); err != nil {
			return err
		}
		return w.write(r)
	}
	if isLogfileHeader(r) {
		if w.err != nil || w.done {
			return w.fault()
		}
		w.stats.Replaced++
		w.adopt(r)
		return nil
	}
	return w.WriteHeaderRecord(r)
}

// isLogfileHeader reports the record a reader takes a trace's logfile
// header from: the first record of the first buffer, SYSTEM with HookId 0.
func isLogfileHeader(r *record.Record) bool {
	return (r.HeaderType == header.TypeSystem32 || r.HeaderType == header.TypeSystem64) &&
		r.HookId == 0 && r.BufferIndex == 0 && r.BufferOffset == buffer.HeaderSize
}

// adopt keeps what the logfile-header record r says beyond the logfile
// header itself, when it is the one the Writer's header was taken from.
func (w *Writer) adopt(r *record.Record) {
	if w.adopted || w.hdrDone || r.RawTimeStamp != w.rec.SystemTime ||
		r.ThreadId != w.rec.ThreadId || r.ProcessId != w.rec.ProcessId {
		return
	}
	sh, err := header.ParseSystemHeader(r.Raw)
	if err != nil {
		return
	}
	w.adopted = true
	w.rec.Version, w.rec.KernelTime, w.rec.UserTime = sh.Version, sh.KernelTime, sh.UserTime
	if w.hdr.records == 0 {
		w.hdr.cpu, w.hdr.index, w.hdrSet = r.ProcessorNumber, r.Flags&header.FlagProcessorIndex != 0, true
	}
}

// check refuses what cannot be written at all. The test that lets a
// record through is one branch, as it runs for every record; refuse
// finds out why when it does not.
func (w *Writer) check(r *record.Record) error {
	n, cpu := len(r.Raw), r.ProcessorNumber
	if w.err == nil && !w.done && n >= header.MarkerSize && n <= w.maxRecord &&
		(cpu <= 0xFF || cpu <= buffer.ProcessorIndexMask && r.Flags&header.FlagProcessorIndex != 0) {
		return nil
	}
	return w.refuse(r)
}

// refuse is check's error for a record it does not let through.
func (w *Writer) refuse(r *record.Record) error {
	if w.err != nil || w.done {
		return w.fault()
	}
	n := len(r.Raw)
	fail := func(reason string) error {
		return &RecordError{HeaderType: r.HeaderType, Processor: r.ProcessorNumber, Size: n, Reason: reason}
	}
	switch {
	case n < header.MarkerSize:
		return fail("too short to be a record")
	case n > header.MaxRecordSize:
		return fail("larger than a record can be")
	case n > w.size-buffer.HeaderSize:
		return fail(fmt.Sprintf("does not fit in a 0x%x-byte buffer", w.size))
	case r.ProcessorNumber > buffer.ProcessorIndexMask:
		return fail("the processor number does not fit in a buffer header")
	case r.ProcessorNumber > 0xFF && r.Flags&header.FlagProcessorIndex == 0:
		return fail("a processor above 255 needs a 16-bit processor index")
	}
	return nil
}

func (w *Writer) fault() error {
	if w.err != nil {
		return w.err
	}
	return ErrClosed
}

// inheritsTime reports a record that has no timestamp of its own: a reader
// gives it its buffer's TimeStamp.
func inheritsTime(r *record.Record) bool {
	switch r.HeaderType {
	case header.TypeMessage:
		return r.Message.OptionFlags&header.MessageTimestamp == 0
	case header.TypeError, header.TypeTimed, header.TypeWnode:
		return true
	}
	return false
}

// stream gives the stream of processor cpu, made when first met. It is
// small enough to be inlined where each record is written; newStream is
// kept out of line for that. With a single stream, w.streams holds it
// alone: processor 0 finds it here, the others through newStream.
func (w *Writer) stream(cpu uint16) *stream {
	if i := int(cpu); i < len(w.streams) {
		return w.streams[i]
	}
	return w.newStream(cpu)
}

// newStream is stream for a processor past those met so far, or for the
// single stream. Every slot up to it gets a stream, so that none is nil.
//
//go:noinline
func (w *Writer) newStream(cpu uint16) *stream {
	i := int(cpu)
	if w.single {
		i = 0
	}
	for len(w.streams) <= i {
		w.streams = append(w.streams, &stream{})
	}
	return w.streams[i]
}

// fits reports whether a record of n bytes, of processor cpu, can join the
// open buffer of s.
func (s *stream) fits(n int, cpu uint16, index bool, ts int64, inherit bool, size int) bool {
	return s.used+n <= size && s.cpu == cpu && s.index == index && !(inherit && s.inherit && s.ts != ts)
}

// put appends raw to the open buffer of s, zero-padded to 8 bytes.
func (w *Writer) put(s *stream, raw []byte, ts int64, inherit bool) {
	// The counts first: then little is live across the copy's call.
	switch {
	case inherit:
		s.ts, s.inherit = ts, true
	case s.inherit:
	case s.records == 0 || ts > s.ts:
		s.ts = ts
	}
	s.records++
	if !w.anyTime || ts > w.latest {
		w.latest, w.anyTime = ts, true
	}
	w.stats.Records++
	b := s.p.b[s.used:]
	end := copy(b, raw)
	next := header.Align(end)
	if end+8 <= len(b) {
		// One store zeroes the padding; what it writes past it is written
		// over by the next record or refilled with 0xFF at the flush.
		binary.LittleEndian.PutUint64(b[end:end+8], 0)
	} else {
		clear(b[end:next])
	}
	s.used += next
}

func (w *Writer) newPage() *page {
	w.spareMu.Lock()
	if n := len(w.spare); n > 0 {
		p := w.spare[n-1]
		w.spare = w.spare[:n-1]
		w.spareMu.Unlock()
		return p
	}
	w.spareMu.Unlock()
	p := &page{b: make([]byte, w.size), dirty: buffer.HeaderSize}
	fill(p.b[buffer.HeaderSize:], w.ones())
	return p
}

// ones returns a slice of 0xFF bytes to fill from.
func (w *Writer) ones() []byte {
	if w.fillFrom == nil {
		w.fillFrom = make([]byte, 64<<10)
		for i := range w.fillFrom {
			w.fillFrom[i] = 0xFF
		}
	}
	return w.fillFrom
}

func fill(b, from []byte) {
	for len(b) > 0 {
		b = b[copy(b, from):]
	}
}

// openStream gives s an empty buffer for processor cpu, first writing out
// the least recently used one when the memory limit asks for it.
func (w *Writer) openStream(s *stream, cpu uint16, index bool) {
	if w.open > 0 && (w.open+1)*w.size > w.limit {
		var oldest *stream
		for _, o := range w.streams {
			if o.p != nil && (oldest == nil || o.last < oldest.last) {
				oldest = o
			}
		}
		w.flush(oldest, false)
	}
	*s = stream{p: w.newPage(), used: buffer.HeaderSize, cpu: cpu, index: index}
	w.open++
	w.maxCPU = max(w.maxCPU, int(cpu))
}

// flush writes the open buffer of s and hands its page back; last marks
// the final buffer of the stream (FLUSH_MARKER, as ETW sets it).
func (w *Writer) flush(s *stream, last bool) {
	h := buffer.Header{
		BufferSize:     uint32(w.size),
		SavedOffset:    uint32(s.used),
		CurrentOffset:  uint32(s.used),
		TimeStamp:      s.ts,
		SequenceNumber: w.seq + 1,
		State:          buffer.StateFlush,
		Offset:         uint32(s.used),
		BufferType:     buffer.TypeGeneric,
	}
	if last {
		h.BufferFlag |= buffer.FlagFlushMarker
	}
	h.SetProcessor(s.cpu, s.index)
	if w.compress {
		w.emitCompressed(s, &h)
	} else {
		w.emit(s, &h, w.size)
	}
	w.seq++
	s.p = nil
	w.open--
}

// emit finishes the page of s under header h and writes its first size
// bytes.
func (w *Writer) emit(s *stream, h *buffer.Header, size int) {
	p := s.p
	h.Put(p.b)
	// put writes at most 8 bytes past the end of the records.
	if dirty := max(p.dirty, min(s.used+8, len(p.b))); dirty > s.used {
		fill(p.b[s.used:dirty], w.ones())
	}
	p.dirty = s.used
	p.out = p.b[:size]
	w.stats.Buffers++
	w.send(p)
}

// emitCompressed writes the page of s compressed, as ETW writes a
// compressed session's buffers: the header, whose BufferSize is the bytes
// written and whose Offset is the end of the records, then the records in
// Plain LZ77, with no padding after them. A buffer that does not compress
// to less than its size is written whole.
func (w *Writer) emitCompressed(s *stream, h *buffer.Header) {
	p := s.p
	w.zbuf = xca.CompressLZ77(w.zbuf[:0], p.b[buffer.HeaderSize:s.used])
	n := buffer.HeaderSize + len(w.zbuf)
	if n >= len(p.b) {
		w.emit(s, h, len(p.b))
		return
	}
	// The records are not needed any more: the compressed bytes take
	// their place, and the page's tail is refilled when it is next
	// written whole.
	p.dirty = max(p.dirty, min(s.used+8, len(p.b)), n)
	copy(p.b[buffer.HeaderSize:], w.zbuf)
	h.BufferSize = uint32(n)
	h.BufferFlag |= buffer.FlagCompressed
	h.Put(p.b)
	p.out = p.b[:n]
	w.stats.Buffers++
	w.send(p)
}

// headerBuffer is the WMI_BUFFER_HEADER of the header buffer.
func (w *Writer) headerBuffer() buffer.Header {
	h := buffer.Header{
		BufferSize:    uint32(w.headerSize()),
		SavedOffset:   uint32(w.hdr.used),
		CurrentOffset: uint32(w.hdr.used),
		State:         buffer.StateFlush,
		Offset:        uint32(w.hdr.used),
		BufferFlag:    buffer.FlagFlushMarker,
		BufferType:    buffer.TypeHeader,
	}
	if w.hdr.inherit {
		h.TimeStamp = w.hdr.ts
	}
	h.SetProcessor(w.hdr.cpu, w.hdr.index)
	return h
}

// putLogfileRecord encodes the logfile-header record into the header page.
func (w *Writer) putLogfileRecord() {
	b, err := header.AppendLogfileRecord(w.hdr.p.b[buffer.HeaderSize:buffer.HeaderSize], &w.rec, &w.lh)
	if err != nil || len(b) != w.recLen {
		// The names, the only variable part, have not changed since NewWriter.
		panic(fmt.Sprintf("etlsink: logfile-header record changed size: %d, want %d (%v)", len(b), w.recLen, err))
	}
	clear(w.hdr.p.b[buffer.HeaderSize+w.recLen : buffer.HeaderSize+header.Align(w.recLen)])
}

// writeHeaderBuffer writes the header buffer where the trace starts; Close
// writes its logfile-header record again with the final counts.
func (w *Writer) writeHeaderBuffer() error {
	w.hdrDone = true
	w.putLogfileRecord()
	h := w.headerBuffer()
	w.emit(&w.hdr, &h, int(h.BufferSize))
	return w.err
}

// headerSize is the size of the header buffer: the buffer size, or in a
// compressed trace, whose buffers need not share a size, its records
// rounded up to 512 bytes, as ETW's relogger writes it.
func (w *Writer) headerSize() int {
	if !w.compress {
		return w.size
	}
	return min((w.hdr.used+headerRounding-1)&^(headerRounding-1), w.size)
}

// headerRounding is the granule of a compressed trace's header buffer.
const headerRounding = 0x200

// Close writes every open buffer, the last of each stream marked
// FLUSH_MARKER, then goes back to the logfile-header record to write the
// number of buffers, the end time and the number of processors, and leaves
// out positioned after the trace. It does not close out.
func (w *Writer) Close() error {
	if w.done {
		return w.fault()
	}
	w.done = true
	if !w.hdrDone {
		w.writeHeaderBuffer()
	}
	for _, s := range w.streams {
		if s.p != nil {
			w.flush(s, true)
		}
	}
	if w.queue != nil {
		w.handOver()
		close(w.queue)
		<-w.finished
		if e := w.outErr.Load(); e != nil && w.err == nil {
			w.err = *e
		}
	}
	if w.err != nil {
		return w.err
	}
	w.lh.BuffersWritten = uint32(w.stats.Buffers)
	if w.endTime {
		w.lh.EndTime = w.lh.StartTime
		if w.anyTime {
			w.lh.EndTime = max(w.clock.FileTime(w.latest), w.lh.StartTime)
		}
	}
	if !w.single && w.maxCPU >= 0 {
		w.lh.NumberOfProcessors = max(w.lh.NumberOfProcessors, uint32(w.maxCPU)+1)
	}
	w.putLogfileRecord()
	if _, err := w.out.Seek(w.base+buffer.HeaderSize, io.SeekStart); err != nil {
		w.err = fmt.Errorf("etlsink: going back to the header: %w", err)
		return w.err
	}
	if _, err := w.out.Write(w.hdr.p.b[buffer.HeaderSize : buffer.HeaderSize+w.recLen]); err != nil {
		w.err = fmt.Errorf("etlsink: writing the header: %w", err)
		return w.err
	}
	if _, err := w.out.Seek(w.base+w.pos, io.SeekStart); err != nil {
		w.err = fmt.Errorf("etlsink: returning to the end: %w", err)
	}
	return w.err
}
