package order

import "time"

// Stats describes the order an iteration found and delivered. Read it after
// the iteration; it is reset when an iteration starts.
type Stats struct {
	Mode    Mode
	Records int // records delivered

	// Sources counts the records delivered from each source, in the order
	// the sources were given.
	Sources []SourceStats

	// Streams lists the streams of the merge (Ordered and Sorted), header
	// streams first, then by source and processor.
	Streams []StreamStats
	// Inversions counts records earlier than the record before them in
	// their own stream, over all streams; LargestInversion is the largest of
	// those backward steps.
	Inversions       int
	LargestInversion time.Duration

	// BackwardSteps counts delivered records earlier than the record
	// delivered just before them; LargestBackwardStep is the largest such
	// step. In Ordered mode each one is an inversion inside a stream.
	BackwardSteps       int
	LargestBackwardStep time.Duration
	// Ties counts delivered records with the same time as the record
	// delivered just before them, from another stream: the order between
	// them came from the processor number and the file position.
	Ties int

	// Late (Sorted) counts records that arrived after the window had moved
	// past them and were delivered at once, out of order; LargestLateness
	// is how far before the last record delivered the latest of them was.
	Late            int
	LargestLateness time.Duration
	// MaxHeld (Sorted) is the largest number of records the window held.
	MaxHeld int

	// ReadAhead is the number of buffers per stream read ahead of the
	// merge, after the memory budget; Workers the goroutines that read them
	// (0: read on the iterating goroutine); DecodeAhead the records of each
	// buffer they decode.
	ReadAhead   int
	Workers     int
	DecodeAhead int
	// Pipelined: the merge ran on a goroutine of its own, ahead of the
	// decoding on the iterating goroutine (Options.MergeAhead).
	Pipelined bool
}

// SourceStats counts the records delivered from one source.
type SourceStats struct {
	Records     int
	HeaderTypes [256]int // records by header type
	// SequenceRuns (Ordered, Sorted) counts the runs of buffer sequence
	// numbering in the source: 1, or more where the numbers start again
	// (an appended session, a relogged or merged file).
	SequenceRuns int
}

// StreamStats describes one stream: the buffers of one processor of one
// source, or a source's header buffer.
type StreamStats struct {
	Source    int
	Processor uint16 // of the stream's first buffer under SingleStream
	Header    bool   // the header buffer, delivered before the merge
	Buffers   int
	Records   int // records decoded from the stream
	// FirstSequence and LastSequence are the SequenceNumbers of the first
	// and last buffer in stream order.
	FirstSequence, LastSequence int64
	// Inversions counts records earlier than the record before them in this
	// stream; LargestInversion is the largest of those steps.
	Inversions       int
	LargestInversion time.Duration
	// Late (Sorted) counts this stream's records delivered late.
	Late int
}
