// Package order restores the time order in which ProcessTrace delivers the
// events of one or more trace files.
//
// Windows writes each processor's events into that processor's own buffers
// and flushes a buffer when it fills, so a file holds the processors'
// streams interleaved buffer by buffer, and reading it front to back steps
// backwards in time at every change of stream. The package puts the streams
// back together:
//
//   - A first pass reads only the 0x48-byte buffer headers and groups the
//     buffers of each file by processor (one group for the whole file under
//     EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING), each group ordered by
//     SequenceNumber and then file position. Sequence numbers are taken as
//     they are: they may start high, have gaps or exceed BuffersWritten.
//     A number met a second time starts a new run of numbering (an
//     appended session restarts at 1; relogged and merged files restart
//     too): each run is ordered by its own numbers and the runs by file
//     position, so that a stream's buffers never interleave two runs and
//     each buffer covers a span of time no other buffer of its stream
//     overlaps, as ProcessTrace assumes. Its cost is one read call per
//     buffer, which the merge waits for; where the file can (Linux, with
//     io_uring) the headers are read 256 to a call where buffers the size
//     of the first would put them, and the walk takes those it was about
//     to read (buffer.Walker.ReadHeadersAhead).
//   - The header buffer of each file (its first buffer, which holds the
//     logfile-header record) is delivered first, as ProcessTrace delivers
//     the logfile-header event first, in the order the files were given.
//   - A k-way merge (a loser tree) then repeatedly takes the stream whose
//     next record is earliest, comparing raw timestamps within one file
//     (exact, where UTC in 100 ns units would round a 3 GHz cycle counter
//     or a 24 MHz QPC) and, across files, UTC time with the fraction of
//     100 ns each clock resolves (so that files with different clocks
//     share one timeline), then processor number, then file. Records tie
//     only when their timestamps are equal. It never reorders two records
//     of one stream:
//     a stream's order is the order its processor wrote them in, and when
//     that order is not time order (a clock set backwards, a buffer written
//     out of order, a forged timestamp) the merge says so in Stats rather
//     than hiding it.
//
// Three modes are offered. Ordered, the zero value, is the merge above and
// matches ProcessTrace. FileOrder is the raw order of the file, the fastest.
// Sorted runs the merge through a bounded reorder window that also repairs
// inversions inside a stream, and delivers at once, counting them, the
// records that arrive later than the window allows.
//
// Memory is bounded by the number of streams times the buffer size, plus a
// small index of every buffer (24 bytes each), whatever the size of the
// file. Worker goroutines read and decompress the next buffers of each stream
// ahead of the merge, so that compressed traces use every core and the
// merge of uncompressed ones does not wait for its reads; an uncompressed
// buffer takes one read call, header and records together, as far as the
// first pass saw its records end. While the merge serves other streams,
// each stream's next record is prefetched into the cache. Asked
// (Options.MergeAhead), the merge itself runs on a goroutine of its own, a
// little ahead: it steps over records reading only their timestamps and
// hands the iterating goroutine the order in which to decode them.
//
// The package does not open files; package etl builds Sources from its
// readers and exposes the modes (etl.Reader.Events is the ordered default).
package order
