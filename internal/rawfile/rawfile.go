// Package rawfile reads a plain trace file the way the reader wants it
// read: on Linux (amd64, arm64) from the page cache with reads that never
// wait for the disk on the scheduler's account, and buffer headers in
// batches through io_uring (buffer.BatchReaderAt); elsewhere through
// os.File as it is.
package rawfile

import "io"

// File is a trace file as the reader reads it.
type File interface {
	io.ReaderAt
	Close() error
}

// BatchEntries is how many reads a file makes in one system call where it
// reads in batches.
const BatchEntries = 256
