package buffer

import (
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/etlkit/etlkit/buffer/xca"
	"github.com/etlkit/etlkit/internal/prefault"
)

// Compression names the algorithm that decompressed a buffer.
type Compression uint8

const (
	CompressionNone Compression = iota
	CompressionLZ77             // MS-XCA plain LZ77 ("XPRESS"), what ETW writes
	CompressionLZ77Huffman
	CompressionLZNT1
)

func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "none"
	case CompressionLZ77:
		return "lz77"
	case CompressionLZ77Huffman:
		return "lz77+huffman"
	case CompressionLZNT1:
		return "lznt1"
	}
	return fmt.Sprintf("Compression(%d)", uint8(c))
}

// Buffer is one buffer of the file. Data holds the buffer from its first
// byte up to the end of its valid records: the 0x48-byte header, then the
// records (decompressed when the buffer was compressed). Data is reused by
// the Walker for the next buffer.
type Buffer struct {
	Header
	Index      int   // position in file order, from 0
	FileOffset int64 // where the buffer starts in the file
	Data       []byte
	// Compression is the algorithm that decompressed the buffer.
	Compression Compression
	// Truncated: the file ended before the buffer's BufferSize; Data holds
	// what was there.
	Truncated bool
}

// ProcessorNumber is the processor that wrote the buffer.
func (b *Buffer) ProcessorNumber() uint16 { return b.Header.ProcessorNumber() }

// Records returns the byte range of the buffer's records: Data[HeaderSize:].
func (b *Buffer) Records() []byte {
	if len(b.Data) <= HeaderSize {
		return nil
	}
	return b.Data[HeaderSize:]
}

// MaxSessionBufferSize is the largest buffer ETW allocates (16 MiB).
const MaxSessionBufferSize = 16 << 20

// MaxCompressionRatio bounds how much larger than its compressed bytes a
// buffer may claim to be, so that the memory a buffer costs stays in
// proportion to the input. Real buffers stay below 14:1 (the shared samples'
// largest is 13.6).
const MaxCompressionRatio = 256

// Walker reads the buffers of an ETL file one after another, stepping by
// each buffer's own BufferSize.
type Walker struct {
	r      io.ReaderAt
	size   int64
	off    int64
	index  int
	done   bool
	raw    []byte // compressed bytes of the current buffer
	data   []byte // storage behind Buffer.Data
	hdr    [HeaderSize]byte
	held   []byte   // the buffer of an untrusted header, whose records are counted
	extent []Extent // when set, buffers come from these extents instead
	// compressedSeen: a compressed buffer was taken; an uncompressed one
	// among them must prove its size (see endsWell).
	compressedSeen bool
	// SessionBufferSize, set for an uncompressed file, is the size of its
	// buffers (the logfile header's BufferSize): where the walk looks
	// first for the buffer after one whose header is damaged, and a check
	// of each buffer's own size (see resync.go).
	SessionBufferSize uint32
	// MaxBufferSize bounds the decompressed size of a compressed buffer: a
	// decompressed buffer never exceeds the session's buffer size, and the
	// bound keeps a few hostile bytes from asking for gigabytes. Zero means
	// MaxSessionBufferSize.
	MaxBufferSize uint32
	// ZeroTail is set when the walk ended at a buffer header of zero bytes,
	// which is how a preallocated file's unused tail looks. (A BufferSize
	// of 0 in a header that holds anything else is damage.)
	ZeroTail bool
	// NoResync ends the walk at a buffer whose header cannot be trusted,
	// where it otherwise looks for the next buffer header and goes on
	// from there (see resync.go): for a caller that reads the first
	// buffer only, such as the check that an input is a trace.
	NoResync bool
	// BuffersWritten, when set, is how many buffers the file holds by its
	// logfile header (header buffer included). A zero-filled header met
	// after that many buffers is the tail of a preallocated file, and the
	// input after it is not scanned for buffers; met before, or when
	// BuffersWritten is 0, it may be a zeroed block with buffers after it.
	BuffersWritten int
	// CountRecords, when set, counts the records of a buffer whose header
	// cannot be trusted, for the error that reports its loss (see
	// FormatError.Records): data is the buffer, its header included, and
	// end the end of its records by the header's Offset, or 0 when that
	// is not plausible. ok is false when the records cannot be followed
	// to their end. The buffer package reads no records itself.
	CountRecords func(data []byte, end int) (n int, ok bool)
	// HeadersOnly makes Next stop after the buffer header: b.Data stays
	// empty and the checks that need the records (decompression) are
	// left to reading the buffer itself, with a Loader. A scan that only
	// locates buffers then reads 0x48 bytes each, and a compressed
	// buffer's check reads the header after it, which the next step takes.
	HeadersOnly bool
	// ahead, when set, reads headers ahead of a HeadersOnly walk.
	ahead *headerAhead
	// peek is the header at peekAt-1 (when peekAt is set), which the
	// check of the buffer before it read.
	peek   [HeaderSize]byte
	peekAt int64
	// trusted skips the checks of the header, which a walk that located
	// the buffer has made (Loader).
	trusted bool
	// scanning is set during the resync scan, which may decompress
	// budget bytes, and has tried that many.
	scanning      bool
	tried, budget int64
	// scan and trial are the storage of the resync scan: input read, and
	// the output of a compressed buffer tried.
	scan, trial []byte
	// sized, when set, is where the next buffer's records are expected to
	// end: Next reads that much, header included, in one call.
	sized int64
}

// NewWalker walks the buffers of r, which holds size bytes.
func NewWalker(r io.ReaderAt, size int64) *Walker {
	return &Walker{r: r, size: size}
}

// NewExtentWalker walks buffers stored at the given extents.
func NewExtentWalker(r io.ReaderAt, size int64, extents []Extent) *Walker {
	return &Walker{r: r, size: size, extent: extents}
}

// Offset is where the next buffer starts.
func (w *Walker) Offset() int64 { return w.off }

// Span is how many bytes of the input the walk has covered since it stood
// at start (an earlier Offset): nothing when it did not move, and never
// past the input's end. Readers count a buffer's bytes with it.
func (w *Walker) Span(start int64) int64 {
	if w.off <= start {
		return 0
	}
	return min(w.off, w.size) - start
}

// Next reads the next buffer into b. It returns io.EOF after the last
// buffer. A *FormatError describes a buffer that could not be read; when
// the walk can go on past it, the next call reads the following buffer,
// otherwise the call after it returns io.EOF. A truncated last buffer is
// returned with b.Truncated set and a nil error; the caller reports it.
func (w *Walker) Next(b *Buffer) error {
	if w.done {
		return io.EOF
	}
	var stored int64 // bytes of this buffer present in the input
	if w.extent != nil {
		if w.index >= len(w.extent) {
			w.done = true
			return io.EOF
		}
		e := w.extent[w.index]
		w.off, stored = e.Offset, e.Length
	} else {
		if w.off >= w.size {
			w.done = true
			return io.EOF
		}
		stored = w.size - w.off
	}
	off, index := w.off, w.index
	*b = Buffer{Index: index, FileOffset: off, Data: b.Data[:0]}
	if stored < HeaderSize {
		w.done = true
		if allZero(w.r, off, stored) {
			w.ZeroTail = true
			return io.EOF
		}
		return Errorf(off, index, ErrTruncated, "%d bytes left, too few for a buffer header", stored)
	}
	ahead := w.ahead
	if !w.HeadersOnly {
		ahead = nil
	}
	// pre bytes of the buffer, header first, are in w.data already.
	pre := int64(0)
	if w.sized > HeaderSize && !w.HeadersOnly {
		n := min(w.sized, stored)
		w.data = grow(w.data, int(n))
		if _, err := w.r.ReadAt(w.data[:n], off); err == nil {
			copy(w.hdr[:], w.data)
			pre = n
		}
	}
	w.sized = 0
	if pre > 0 {
		// The header came with the records.
	} else if w.peekAt == off+1 {
		w.hdr = w.peek
	} else if ahead == nil || !ahead.header(&w.hdr, off) {
		if _, err := w.r.ReadAt(w.hdr[:], off); err != nil {
			w.done = true
			return Errorf(off, index, ErrTruncated, "reading buffer header: %v", err)
		}
	}
	h, _ := ParseHeader(w.hdr[:])
	if ahead != nil {
		ahead.start(h.BufferSize)
	}
	b.Header = h
	if h.BufferSize == 0 && (w.extent != nil || isZero(w.hdr[:])) {
		// A header of zero bytes marks the zero-filled tail of a
		// preallocated file, unless buffers follow it: then it is damage
		// (a zeroed block of the disk), which costs its buffer only.
		if w.extent == nil && !w.NoResync && !w.trusted && (w.BuffersWritten == 0 || w.index < w.BuffersWritten) {
			if next := w.find(off); next >= 0 {
				w.index++
				return w.resync(b, off, index, "a buffer header of zero bytes, with buffers after it", next)
			}
		}
		w.done = true
		w.ZeroTail = true
		return io.EOF
	}
	w.index++
	if w.extent == nil {
		if !w.NoResync && !w.trusted {
			if why, next := w.check(&h, off, index); why != "" {
				return w.resync(b, off, index, why, next)
			}
		}
		w.off = off + int64(h.BufferSize)
	}
	if h.Compressed() {
		w.compressedSeen = true
	}
	if h.BufferSize < HeaderSize {
		return w.damaged(off, index, "BufferSize 0x%x is smaller than the buffer header", h.BufferSize)
	}
	if h.Offset < HeaderSize && h.Offset != 0 {
		return Errorf(off, index, ErrMalformed, "Offset 0x%x points inside the buffer header", h.Offset)
	}
	avail := min(int64(h.BufferSize), stored)
	if w.extent != nil {
		// Extents store a buffer only up to its valid records.
		b.Truncated = int64(h.Offset) > stored
	} else if int64(h.BufferSize) > stored {
		b.Truncated = true
	}
	if w.HeadersOnly {
		return nil
	}
	if h.Compressed() {
		return w.readCompressed(b, off, index, avail)
	}
	// Records end at Offset; the rest of the buffer is fill.
	end := int64(h.Offset)
	if end == 0 || end > int64(h.BufferSize) {
		if end > int64(h.BufferSize) {
			return Errorf(off, index, ErrMalformed, "Offset 0x%x is past BufferSize 0x%x", h.Offset, h.BufferSize)
		}
		end = HeaderSize
	}
	end = min(end, avail)
	// A size that fell short of the records: grow keeps the pre bytes.
	b.Data = grow(w.data, int(end))
	w.data = b.Data
	copy(b.Data, w.hdr[:])
	if from := max(pre, HeaderSize); end > from {
		if _, err := w.r.ReadAt(b.Data[from:end], off+from); err != nil && !errors.Is(err, io.EOF) {
			return Errorf(off, index, ErrTruncated, "reading buffer: %v", err)
		}
	}
	return nil
}

// damaged reports a buffer whose size field cannot be trusted. In an
// uncompressed file the walk can step by the session's buffer size; in a
// compressed one there is no way to find the next buffer, so the walk ends.
func (w *Walker) damaged(off int64, index int, format string, args ...any) error {
	if w.SessionBufferSize >= HeaderSize && w.extent == nil {
		w.off = off + int64(w.SessionBufferSize)
	} else {
		w.done = true
	}
	return Errorf(off, index, ErrMalformed, format, args...)
}

func (w *Walker) readCompressed(b *Buffer, off int64, index int, avail int64) error {
	h := &b.Header
	if h.Offset < HeaderSize {
		return Errorf(off, index, ErrMalformed, "compressed buffer with Offset 0x%x", h.Offset)
	}
	if b.Truncated {
		// A compressed stream cut short cannot be decoded reliably.
		return Errorf(off, index, ErrTruncated, "compressed buffer of 0x%x bytes has only 0x%x in the file", h.BufferSize, avail)
	}
	n := int(avail) - HeaderSize
	w.raw = grow(w.raw, n)
	if _, err := w.r.ReadAt(w.raw, off+HeaderSize); err != nil && !errors.Is(err, io.EOF) {
		return Errorf(off, index, ErrTruncated, "reading compressed buffer: %v", err)
	}
	limit := w.maxDecompressed()
	if h.Offset > limit {
		return Errorf(off, index, ErrMalformed, "compressed buffer claims 0x%x bytes decompressed, more than the 0x%x-byte buffer size", h.Offset, limit)
	}
	want := int(h.Offset) - HeaderSize
	if want > MaxCompressionRatio*n+4096 {
		return Errorf(off, index, ErrMalformed, "compressed buffer claims 0x%x bytes from 0x%x compressed bytes, more than %d times as many", want, n, MaxCompressionRatio)
	}
	b.Data = grow(w.data, HeaderSize+want)
	w.data = b.Data
	copy(b.Data, w.hdr[:])
	c, err := Decompress(b.Data[HeaderSize:], w.raw)
	if err != nil {
		b.Data = b.Data[:HeaderSize]
		return Errorf(off, index, ErrDecompress, "compressed buffer (0x%x bytes to 0x%x): %v", n, want, err)
	}
	b.Compression = c
	return nil
}

// Decompress decodes src into dst, which must be exactly as long as the
// expected output. Plain LZ77 is what ETW writes; when it does not give
// exactly len(dst) bytes, LZ77+Huffman and then LZNT1 are tried.
func Decompress(dst, src []byte) (Compression, error) {
	n, err := xca.DecompressLZ77(dst, src)
	if err == nil && n == len(dst) {
		return CompressionLZ77, nil
	}
	first := err
	if first == nil {
		first = fmt.Errorf("plain LZ77 gave %d bytes, want %d", n, len(dst))
	}
	for _, f := range fallbacks {
		if n, err := f.decompress(dst, src); err == nil && n == len(dst) {
			return f.c, nil
		}
	}
	return CompressionNone, fmt.Errorf("no MS-XCA algorithm gives %d bytes (plain LZ77: %v)", len(dst), first)
}

// grow returns b resliced to n bytes, in new storage when b's is too
// small, with what b held copied over.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		// The buffers of a session are filled to different lengths: sized
		// exactly, storage reused for buffer after buffer would be made
		// again at every new largest fill, and each time its pages faulted
		// in anew. To the next power of two, it is made a few times at most
		// (once for the usual 64 KiB buffers) and never over twice n.
		grown := make([]byte, n, 1<<bits.Len(uint(n-1)))
		prefault.Writable(grown)
		copy(grown, b)
		return grown
	}
	return b[:n]
}

func allZero(r io.ReaderAt, off, n int64) bool {
	if n <= 0 {
		return true
	}
	var tmp [HeaderSize]byte
	if _, err := r.ReadAt(tmp[:n], off); err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	return isZero(tmp[:n])
}

// fallbacks are tried in order when plain LZ77 does not fit.
var fallbacks = []struct {
	c          Compression
	decompress func(dst, src []byte) (int, error)
}{
	{CompressionLZ77Huffman, xca.DecompressLZ77Huffman},
	{CompressionLZNT1, xca.DecompressLZNT1},
}
