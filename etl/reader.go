// Package etl is the front door of etlkit: it opens an ETW trace log (plain,
// or wrapped in gzip, zstd, bzip2, xz or zip), reads its logfile header, and
// iterates its buffers and records.
//
// Reader.Events is the way to read a trace: records in time order, as
// ProcessTrace delivers them (the header buffer first, then the processors'
// streams merged by time; see package order). Reader.Records gives them in
// file order, buffer by buffer, which is faster but steps back in time
// wherever the processors' buffers interleave. Reader.EventsWith chooses a
// mode explicitly, including order.Sorted, which also repairs records out of
// order inside a stream. OpenMany reads several traces as one timeline.
package etl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/digits"
	"github.com/etlkit/etlkit/internal/fileorder"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/record"
)

// Re-exported so that library users need only this package for errors.
type FormatError = buffer.FormatError

var (
	ErrTruncated         = buffer.ErrTruncated
	ErrUnknownHeaderType = buffer.ErrUnknownHeaderType
	ErrDecompress        = buffer.ErrDecompress
	ErrNotETL            = buffer.ErrNotETL
	ErrRealTimeBackup    = buffer.ErrRealTimeBackup
	ErrMalformed         = buffer.ErrMalformed
)

// Header is the trace's logfile header with what its record carried.
type Header struct {
	header.LogfileHeader
	// HeaderType is SYSTEM32 or SYSTEM64: which form of the header was read.
	HeaderType header.Type
	// RawTimeStamp is the header record's timestamp in the session clock;
	// it stands for StartTime and anchors the clock.
	RawTimeStamp int64
	ThreadId     uint32
	ProcessId    uint32
	Clock        header.Clock
	// RealTimeBackup is set for an RlFs real-time backup file, which has no
	// logfile-header record: the fields above are then built from its
	// container header (BufferSize, StartTime = ReferenceTime, clock).
	RealTimeBackup *buffer.RTBackupHeader
	// ClockAssumed: the clock's frequency is not recorded in the file and
	// was assumed (QPC at 10 MHz in RlFs files whose clock is not system time).
	ClockAssumed bool
}

// MaxErrors bounds the errors kept in Stats; ErrorCount counts them all.
const MaxErrors = 64

// Stats counts what a pass over the file saw. Read it after an iteration.
type Stats struct {
	Buffers           int // buffers met, damaged ones included
	BuffersSkipped    int // buffers that could not be read at all
	CompressedBuffers int
	// Compression counts buffers by the algorithm that decompressed them.
	Compression    [4]int
	Records        int // records delivered
	RecordsSkipped int // records whose header could be read but not decoded
	// BuffersCut counts buffers whose records stopped early on damage: the
	// records after it in that buffer are lost.
	BuffersCut int
	Bytes      int64 // bytes of input covered by the buffers walked
	// BytesSkipped counts the bytes passed over from each damaged buffer
	// header to the next buffer found (FormatError.Skipped).
	BytesSkipped int64
	// BuffersCounted counts the skipped buffers whose records could be
	// counted all the same (FormatError.RecordsKnown), and RecordsLost
	// the records they held.
	BuffersCounted int
	RecordsLost    int
	HeaderTypes    [256]int // records by header type
	// EventsLostBuffers and BufferLostBuffers count buffers flagged
	// EVENTS_LOST and BUFFER_LOST; EventsLost and BuffersLost are the
	// logfile header's counters.
	EventsLostBuffers int
	BufferLostBuffers int
	EventsLost        uint32
	BuffersLost       uint32
	// Truncated: the last buffer was cut short by the end of the file, or
	// a wrapped input's content ended early (see Unwrap).
	Truncated bool
	ZeroTail  bool // the walk ended at a zero-filled tail
	// Unwrap is set when a wrapped input's content ended early (the
	// stream breaks off or is damaged: ErrTruncated) or at the size
	// limit (ErrUnwrapLimit), at its Offset in the content: what came
	// before it is read. It is in Errors too.
	Unwrap *FormatError
	// Errors are the first MaxErrors errors in file order (by offset).
	Errors     []*FormatError
	ErrorCount int
	// Order describes the order of an iteration by Events or EventsWith
	// (nil after Records and Buffers): inversions inside each processor's
	// stream, backward steps and ties in the output, late records.
	Order *order.Stats
}

// Damaged reports whether anything was skipped or cut.
func (s *Stats) Damaged() bool {
	return s.ErrorCount > 0 || s.Truncated
}

// DamageSummary says in one line how much a damaged pass lost and where
// the first damage is, for a log line or a person with a hex viewer:
//
//	offset 0x1048: damaged: 1 buffer skipped (it held 60 records), 2 records skipped; 1830 records read; first: buffer 3: …
//
// A count of one takes the singular.
//
// It is "" when nothing was damaged.
func (s *Stats) DamageSummary() string {
	if !s.Damaged() {
		return ""
	}
	var parts []string
	plural := func(n int, one, many string) {
		if n > 0 {
			parts = append(parts, digits.Counted(n, one, many))
		}
	}
	plural(s.BuffersSkipped, "buffer skipped", "buffers skipped")
	switch lost := digits.Counted(s.RecordsLost, "record", "records"); {
	case s.BuffersCounted == 0:
	case s.BuffersCounted == 1 && s.BuffersSkipped == 1:
		parts[len(parts)-1] += " (it held " + lost + ")"
	case s.BuffersCounted == s.BuffersSkipped:
		parts[len(parts)-1] += " (they held " + lost + ")"
	default:
		parts[len(parts)-1] += fmt.Sprintf(" (%d of them held %s)", s.BuffersCounted, lost)
	}
	plural(s.RecordsSkipped, "record skipped", "records skipped")
	plural(s.BuffersCut, "buffer cut short", "buffers cut short")
	switch {
	case s.Unwrap != nil && errors.Is(s.Unwrap, ErrUnwrapLimit):
		parts = append(parts, "its content stops at the unwrapped size limit")
	case s.Unwrap != nil:
		parts = append(parts, "its content breaks off")
	case s.Truncated:
		parts = append(parts, "the file ends inside its last buffer")
	}
	if len(parts) == 0 {
		plural(s.ErrorCount, "error", "errors")
	}
	var off int64
	first := ""
	if len(s.Errors) > 0 {
		off = s.Errors[0].Offset
		// The notice of a last buffer cut by the end of the file says
		// what "the file ends inside its last buffer" already says. The
		// content's end is told last.
		if fe := s.Errors[0]; !(s.Truncated && fe.Buffer == s.Buffers-1 && errors.Is(fe, ErrTruncated)) && fe != s.Unwrap {
			first = fe.Detail()
		}
	}
	msg := fmt.Sprintf("offset 0x%x: damaged: %s; %s read", off, strings.Join(parts, ", "), digits.Counted(s.Records, "record", "records"))
	if first != "" {
		msg += "; first: " + first
	}
	if fe := s.Unwrap; fe != nil {
		msg += "; " + fe.Reason
	}
	return msg
}

// add sums o's counts into s; ZeroTail and Truncated are set when either
// had them, and Unwrap keeps the first content cut. Errors follow each
// other as added (the files in turn, each in file order). Order is left
// alone.
func (s *Stats) add(o *Stats) {
	s.Buffers += o.Buffers
	s.BuffersSkipped += o.BuffersSkipped
	s.CompressedBuffers += o.CompressedBuffers
	for i := range s.Compression {
		s.Compression[i] += o.Compression[i]
	}
	s.Records += o.Records
	s.RecordsSkipped += o.RecordsSkipped
	s.BuffersCut += o.BuffersCut
	s.Bytes += o.Bytes
	s.BytesSkipped += o.BytesSkipped
	s.BuffersCounted += o.BuffersCounted
	s.RecordsLost += o.RecordsLost
	for i := range s.HeaderTypes {
		s.HeaderTypes[i] += o.HeaderTypes[i]
	}
	s.EventsLostBuffers += o.EventsLostBuffers
	s.BufferLostBuffers += o.BufferLostBuffers
	s.EventsLost += o.EventsLost
	s.BuffersLost += o.BuffersLost
	s.Truncated = s.Truncated || o.Truncated
	s.ZeroTail = s.ZeroTail || o.ZeroTail
	if s.Unwrap == nil {
		s.Unwrap = o.Unwrap
	}
	s.Errors = append(s.Errors, o.Errors[:min(len(o.Errors), MaxErrors-len(s.Errors))]...)
	s.ErrorCount += o.ErrorCount
}

// addError counts err and keeps it in Errors, which holds the MaxErrors
// errors earliest in the file in file order, whatever order the iteration
// met them in: the first damage is Errors[0] in every mode.
func (s *Stats) addError(err error) {
	s.ErrorCount++
	var fe *FormatError
	if !errors.As(err, &fe) {
		return
	}
	i := len(s.Errors)
	for i > 0 && s.Errors[i-1].Offset > fe.Offset {
		i--
	}
	if i >= MaxErrors {
		return
	}
	if len(s.Errors) == MaxErrors {
		s.Errors = s.Errors[:MaxErrors-1]
	}
	s.Errors = slices.Insert(s.Errors, i, fe)
}

// Reader reads one ETL file.
type Reader struct {
	ra      io.ReaderAt
	size    int64
	hdr     Header
	extents []buffer.Extent // RlFs files
	stats   Stats
	// cut is where a wrapped input's content ended early, which every
	// pass reports (Stats.Unwrap).
	cut *FormatError
	// ring is the slots of the two-goroutine file-order pass, kept between
	// passes.
	ring fileorder.Ring
}

// NewReader reads the logfile header of the trace held in ra (size bytes).
// An input that is not an ETL file gives an error matching ErrNotETL, or
// ErrRealTimeBackup for an RlFs real-time backup container.
func NewReader(ra io.ReaderAt, size int64) (*Reader, error) {
	r := &Reader{ra: ra, size: size}
	var magic [4]byte
	if size >= 4 {
		if _, err := ra.ReadAt(magic[:], 0); err != nil && !errors.Is(err, io.EOF) {
			// Not a place in the file: the file could not be read at all.
			return nil, fmt.Errorf("reading the file: %w", err)
		}
		if bytes.Equal(magic[:], []byte(buffer.RTBackupMagic)) {
			if err := r.readRTBackup(); err != nil {
				return nil, err
			}
			return r, nil
		}
	}
	if err := r.readHeader(); err != nil {
		return nil, err
	}
	return r, nil
}

func notETL(off int64, format string, args ...any) error {
	return &FormatError{Offset: off, Buffer: 0, Reason: fmt.Sprintf(format, args...), Err: ErrNotETL}
}

// assumedQPCFrequency is used for RlFs files whose clock is QPC: the
// container does not record the counter frequency, and 10 MHz is what
// Windows 10 and later report.
const assumedQPCFrequency = 10_000_000

// readRTBackup reads an RlFs real-time backup container: its buffers sit at
// the extents its header lists, and it has no logfile-header record, so the
// clock is anchored on the container's reference time. When the reference
// clock value equals the reference FILETIME the session clock is system time;
// otherwise it is QPC at an assumed frequency.
func (r *Reader) readRTBackup() error {
	rh, extents, err := buffer.RTBackupExtents(r.ra, r.size)
	if err != nil {
		return err
	}
	r.extents = extents
	lh := header.LogfileHeader{
		BufferSize:    rh.BufferSize,
		StartTime:     rh.ReferenceTime,
		ReservedFlags: header.ClockSystemTime,
		PointerSize:   8,
		LoggerName:    "RlFs real-time backup",
	}
	assumed := false
	if rh.ReferenceClock != rh.ReferenceTime {
		lh.ReservedFlags, lh.PerfFreq, assumed = header.ClockQPC, assumedQPCFrequency, true
	}
	r.hdr = Header{LogfileHeader: lh, RawTimeStamp: rh.ReferenceClock, RealTimeBackup: &rh, ClockAssumed: assumed}
	r.hdr.Clock = header.NewClock(&lh, rh.ReferenceClock)
	return nil
}

// readHeader validates the first buffer and decodes the logfile-header record.
func (r *Reader) readHeader() error {
	w := buffer.NewWalker(r.ra, r.size)
	// Only the first buffer is read: a damaged one ends the check, with
	// no scan of the rest of the input for a buffer after it.
	w.NoResync = true
	var b buffer.Buffer
	if err := w.Next(&b); err != nil {
		if err == io.EOF {
			if r.size == 0 {
				return fmt.Errorf("empty file: %w", ErrNotETL)
			}
			// No trace starts with zero bytes, though a file of them (or
			// a wrapper holding them) is no more empty than any other.
			return notETL(0, "the input starts with zero bytes where a buffer header should be")
		}
		// A first buffer that cannot be read says the input is not a
		// trace: the walker's place and reason, with that one cause.
		var fe *FormatError
		if errors.As(err, &fe) {
			return &FormatError{Offset: fe.Offset, Buffer: fe.Buffer, Reason: fe.Reason, Err: ErrNotETL}
		}
		return err
	}
	if b.BufferSize < buffer.HeaderSize+header.SystemHeaderSize || int64(b.BufferSize) > r.size && !b.Truncated {
		return notETL(0, "first buffer size 0x%x is not plausible", b.BufferSize)
	}
	if b.Compressed() {
		return notETL(0, "first buffer is compressed; a header buffer never is")
	}
	recs := b.Records()
	p, end, err := header.ParsePrefix(recs)
	if end || err != nil {
		return notETL(buffer.HeaderSize, "first record is not a trace header")
	}
	if p.Type != header.TypeSystem32 && p.Type != header.TypeSystem64 {
		return notETL(buffer.HeaderSize, "first record is %v, not the SYSTEM logfile header", p.Type)
	}
	sh, err := header.ParseSystemHeader(recs[:p.Size])
	if err != nil {
		return notETL(buffer.HeaderSize, "logfile header record: %v", err)
	}
	if sh.HookId != 0 {
		return notETL(buffer.HeaderSize, "first record has HookId 0x%04x, not the logfile header 0x0000", sh.HookId)
	}
	lh, err := header.ParseLogfileHeader(recs[sh.DataOffset:p.Size], p.Type == header.TypeSystem64)
	if err != nil {
		return &FormatError{Offset: buffer.HeaderSize, Buffer: 0, Reason: "logfile header", Err: err}
	}
	r.hdr = Header{
		LogfileHeader: lh,
		HeaderType:    p.Type,
		RawTimeStamp:  sh.SystemTime,
		ThreadId:      sh.ThreadId,
		ProcessId:     sh.ProcessId,
	}
	r.hdr.Clock = header.NewClock(&lh, sh.SystemTime)
	return nil
}

// newStats starts the Stats of a pass.
func (r *Reader) newStats() {
	r.stats = Stats{EventsLost: r.hdr.EventsLost, BuffersLost: r.hdr.BuffersLost}
	if r.cut != nil {
		r.stats.Truncated, r.stats.Unwrap = true, r.cut
		r.stats.addError(r.cut)
	}
}

// Header returns the logfile header.
func (r *Reader) Header() *Header { return &r.hdr }

// Clock converts the raw timestamps of the file's records (Header().Clock).
func (r *Reader) Clock() *header.Clock { return &r.hdr.Clock }

// Size is the input's size in bytes.
func (r *Reader) Size() int64 { return r.size }

// Stats returns the counts of the last completed or running iteration.
func (r *Reader) Stats() *Stats { return &r.stats }

func (r *Reader) newWalker() *buffer.Walker {
	var w *buffer.Walker
	if r.extents != nil {
		w = buffer.NewExtentWalker(r.ra, r.size, r.extents)
	} else {
		w = buffer.NewWalker(r.ra, r.size)
	}
	if r.hdr.LogFileMode&header.ModeCompressed == 0 {
		w.SessionBufferSize = r.hdr.BufferSize
	}
	w.MaxBufferSize = max(r.hdr.BufferSize, 64<<10)
	w.CountRecords = header.CountRecords
	w.BuffersWritten = int(r.hdr.BuffersWritten)
	return w
}

// Buffers iterates the file's buffers in file order. The *buffer.Buffer is
// reused from one step to the next. A buffer that cannot be read yields a
// nil buffer and a *FormatError, and the walk goes on where it can.
func (r *Reader) Buffers() iter.Seq2[*buffer.Buffer, error] {
	return func(yield func(*buffer.Buffer, error) bool) {
		r.newStats()
		r.pass(nil).Buffers(yield)
	}
}

// pass is a file-order pass that keeps the reader's Stats; with c set, c
// counts the records delivered instead.
func (r *Reader) pass(c *order.Counter) *fileorder.Pass {
	return &fileorder.Pass{
		NewWalker:   r.newWalker,
		Clock:       &r.hdr.Clock,
		Observer:    statsObserver{&r.stats},
		Counter:     c,
		Records:     &r.stats.Records,
		HeaderTypes: &r.stats.HeaderTypes,
	}
}

// useParallel decides whether Records runs on two goroutines.
var useParallel = func(r *Reader) bool {
	return r.extents == nil && fileorder.Worthwhile(r.size, r.hdr.BufferSize)
}

// Records iterates every record in file order: buffer by buffer, and
// inside a buffer as written. The logfile-header record comes first. The
// *record.Record and its byte slices are valid until the next step (see
// Record.Clone). A damaged buffer or record yields a nil record and a
// *FormatError, and the iteration goes on with what follows. A last
// buffer cut short by the end of the file is not an error of the
// iteration: its complete records are delivered, and Stats (Truncated,
// Errors) reports the cut.
//
// It is the leanest pass. On a large file a second goroutine reads and
// decodes buffers ahead of the loop; memory stays bounded by a few buffers
// either way. EventsWith(order.Options{Mode: order.FileOrder, ReadAhead: -1})
// reads on the calling goroutine only.
//
// EventsWith in order.FileOrder mode gives the same records and Stats and
// also keeps the order's counts (backward steps, ties): it runs this loop
// with an order.Counter alongside when this loop runs on two goroutines,
// and package order's own file-order loop otherwise.
func (r *Reader) Records() iter.Seq2[*record.Record, error] {
	return func(yield func(*record.Record, error) bool) {
		r.records(useParallel(r), yield)
	}
}

// records is Records on two goroutines or on one.
func (r *Reader) records(parallel bool, yield func(*record.Record, error) bool) {
	r.newStats()
	if parallel {
		r.pass(nil).Parallel(&r.ring, yield)
		return
	}
	r.pass(nil).Serial(yield)
}
