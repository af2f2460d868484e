package buffer

import (
	"errors"
	"fmt"

	"github.com/etlkit/etlkit/internal/digits"
)

// Sentinel errors, matched with errors.Is. A FormatError wraps one of them
// so that callers can tell the kind of damage apart without parsing text.
var (
	// ErrTruncated: the data ends before a structure it announces.
	ErrTruncated = errors.New("truncated")
	// ErrUnknownHeaderType: a record's marker names no header kind we know.
	ErrUnknownHeaderType = errors.New("unknown record header type")
	// ErrDecompress: a compressed buffer did not decompress to its stated length.
	ErrDecompress = errors.New("decompression failed")
	// ErrNotETL: the input is not an ETW trace log.
	ErrNotETL = errors.New("not an ETL file")
	// ErrRealTimeBackup: the input is an RlFs real-time backup container, not a plain ETL.
	ErrRealTimeBackup = errors.New("RlFs real-time backup file")
	// ErrMalformed: a structure is internally inconsistent (a size too small for its
	// own header, an item that runs past its record, a bad count).
	ErrMalformed = errors.New("malformed")
)

// FormatError reports damage in the input at a known place. Offset is an
// absolute file offset; Buffer is the index of the buffer in file order, or
// -1 when the damage is not inside a buffer.
type FormatError struct {
	Offset int64
	Buffer int
	Reason string
	Err    error // one of the sentinels above, or nil
	// Skipped, when set, is how many bytes from Offset on were passed over
	// to reach the next buffer: a damaged buffer header says nothing of
	// where its buffer ends, and the walk looked for the next one.
	Skipped int64
	// Records is how many records the bytes skipped held, when
	// RecordsKnown: they are one buffer whose records could be followed
	// from its header to their end, though the header itself could not be
	// trusted.
	Records      int
	RecordsKnown bool
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("offset 0x%x: ", e.Offset) + e.Detail()
}

// Detail is the error without its offset: the buffer, the reason and the
// sentinel's text, for a message that gives the offset apart.
func (e *FormatError) Detail() string {
	var s string
	if e.Buffer >= 0 {
		s = fmt.Sprintf("buffer %d: ", e.Buffer)
	}
	s += e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Skipped > 0 {
		s += "; " + e.SkippedRange()
	}
	return s
}

// SkippedRange says which bytes were passed over, for messages.
func (e *FormatError) SkippedRange() string {
	if e.Skipped <= 0 {
		return ""
	}
	s := fmt.Sprintf("bytes 0x%x to 0x%x (0x%x) skipped", e.Offset, e.Offset+e.Skipped, e.Skipped)
	if e.RecordsKnown {
		s += ", which held " + digits.Counted(e.Records, "record", "records")
	}
	return s
}

func (e *FormatError) Unwrap() error { return e.Err }

// Errorf builds a FormatError; it is a helper for the decoders of this module.
func Errorf(offset int64, bufferIndex int, sentinel error, format string, args ...any) *FormatError {
	return &FormatError{Offset: offset, Buffer: bufferIndex, Reason: fmt.Sprintf(format, args...), Err: sentinel}
}
