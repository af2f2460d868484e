package order

import (
	"fmt"
	"time"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
)

// Mode chooses the order records are delivered in.
type Mode uint8

const (
	// Ordered delivers records as ProcessTrace does: the header buffer
	// first, then a merge of the processors' streams by time.
	Ordered Mode = iota
	// FileOrder delivers records as they lie in the files, buffer by buffer
	// and file after file: the fastest, and the order a file dump shows.
	FileOrder
	// Sorted is Ordered followed by a bounded reorder window, which also
	// puts right the records of a stream that are out of time order. Errors
	// are delivered when met, ahead of records the window still holds.
	Sorted
)

func (m Mode) String() string {
	switch m {
	case Ordered:
		return "ordered"
	case FileOrder:
		return "file"
	case Sorted:
		return "sorted"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// DefaultWindowRecords is the reorder window of Sorted when Options gives
// neither a duration nor a count, and the bound on the records held when it
// gives only a duration.
const DefaultWindowRecords = 1 << 16

// DefaultReadAhead is the number of buffers of each stream read ahead of the
// merge when Options.ReadAhead is 0 and the input has compressed buffers
// or there are two cores or more. Compressed buffers are read ahead by a
// worker per core, which decompress them in parallel; uncompressed ones
// by one worker, which only copies them: that shortens the time order on
// two idle cores for a little more processor time, while a second worker
// adds processor time and saves none (PERFORMANCE.md). On one core the
// merge reads every uncompressed buffer itself.
const DefaultReadAhead = 2

// ReadAheadBudget bounds the memory of the read-ahead. Half goes to the
// buffers: the depth is lowered, down to none, until streams × (1 + depth)
// × buffer size fits. Half goes to the records decoded ahead
// (Options.DecodeAhead).
const ReadAheadBudget = 32 << 20

// Options tunes an iteration. The zero value is the Ordered mode with
// read-ahead where it pays (see DefaultReadAhead).
type Options struct {
	Mode Mode

	// Window and WindowRecords bound the reorder window of Sorted: a record
	// is held until one later than it by more than Window arrives, and no
	// more than WindowRecords are held. With both zero the window is
	// DefaultWindowRecords records; with only Window set, at most
	// DefaultWindowRecords records are held. Memory is bounded by the
	// records held.
	Window        time.Duration
	WindowRecords int

	// ReadAhead is how many buffers of each stream are read and
	// decompressed ahead of the merge, on worker goroutines. 0 means
	// DefaultReadAhead when the input has compressed buffers or
	// GOMAXPROCS is 2 or more, and none otherwise; a negative value means
	// none: every buffer is read on the iterating goroutine when the merge
	// reaches it.
	ReadAhead int
	// Workers is the number of goroutines that read ahead; 0 means
	// GOMAXPROCS when the input has compressed buffers and 1 otherwise.
	Workers int
	// DecodeAhead is how many records of each buffer read ahead the
	// workers also decode, within the memory budget; 0 means none. It
	// moves decoding off the iterating goroutine, at the price of memory
	// and of handing every record over between cores, which on two shared
	// cores cost more than it saved. It keeps the merge on the iterating
	// goroutine (see MergeAhead).
	DecodeAhead int
	// MergeAhead runs the merge on a goroutine of its own, a little ahead
	// of the iterating goroutine, which then only decodes the records in
	// the order handed to it (see pipeline.go); it needs two cores, and
	// read-ahead on. The records, errors and Stats are the same. On two
	// cores it takes about as long as the merge on one goroutine, at twice
	// the processor time, so it is not the default.
	MergeAhead bool
}

// Source is one trace file to iterate.
type Source struct {
	// NewWalker returns a walker over the file's buffers, configured as the
	// file-order walk is (extents, session buffer size, decompression bound).
	NewWalker func() *buffer.Walker
	// Size is the input's size in bytes.
	Size int64
	// Clock converts the file's timestamps to UTC; the merge compares UTC.
	Clock *header.Clock
	// HeaderBuffer says the first buffer holds the logfile-header record and
	// is to be delivered before the merge.
	HeaderBuffer bool
	// SingleStream puts every buffer in one stream, whatever its processor
	// number: EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING.
	SingleStream bool
	// Observer, when set, sees the buffers and records of this source.
	Observer Observer
}

// Observer sees what an iteration meets in one source, on the iterating
// goroutine, so that the caller can keep counts that come out the same in
// every mode. Every buffer is reported once by Scanned and, when Scanned
// gave no error, once by Loaded; every record error once by RecordError.
// Records themselves are counted in Stats.Sources, which costs less than a
// call per record.
type Observer interface {
	// Scanned reports a buffer found by the walk, with the bytes of input it
	// covers. err is set when the buffer cannot be read at all; the error is
	// also delivered by the iteration, in the buffer's place.
	Scanned(b *buffer.Buffer, span int64, err error)
	// Ended reports the end of the walk; zeroTail as buffer.Walker.ZeroTail.
	Ended(zeroTail bool)
	// Loaded reports a buffer read when the iteration reaches it: b on
	// success, err (a *buffer.FormatError) when it could not be read or
	// decompressed.
	Loaded(b *buffer.Buffer, err error)
	// RecordError reports a record that could not be decoded; more is
	// false when the error ends its buffer, as record.Cursor says.
	RecordError(err error, more bool)
}
