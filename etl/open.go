package etl

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/internal/outfile"
	"github.com/etlkit/etlkit/internal/rawfile"
)

// Wrapper names the container an input came in.
type Wrapper string

const (
	WrapperNone  Wrapper = ""
	WrapperGzip  Wrapper = "gzip"
	WrapperZstd  Wrapper = "zstd"
	WrapperBzip2 Wrapper = "bzip2"
	WrapperXz    Wrapper = "xz"
	WrapperZip   Wrapper = "zip"
)

// Options tune how a trace is opened. The zero value, or a nil *Options,
// gives the defaults.
type Options struct {
	// SpillThreshold is how much of a trace that has to be unwrapped
	// (gzip, zstd, bzip2, xz, zip) or read from a stream is kept in
	// memory; a larger one is written to a temporary file, which Close
	// removes, so that memory stays bounded. 0 means
	// DefaultSpillThreshold for a file and DefaultStreamSpillThreshold
	// for a stream; a negative value keeps nothing in memory.
	SpillThreshold int64
	// MaxUnwrapped bounds the content a wrapped input (gzip, zstd, bzip2,
	// xz, zip) is unwrapped to, in bytes: past it the trace is read up to
	// the limit, and Stats reports the rest as an error matching
	// ErrUnwrapLimit. 0 means DefaultMaxUnwrapped; negative, no limit.
	MaxUnwrapped int64
}

// maxUnwrapped is what opts gives, DefaultMaxUnwrapped for 0.
func (opts *Options) maxUnwrapped() int64 {
	if opts == nil || opts.MaxUnwrapped == 0 {
		return DefaultMaxUnwrapped
	}
	return opts.MaxUnwrapped
}

const (
	// DefaultSpillThreshold is the SpillThreshold of a wrapped file.
	DefaultSpillThreshold = 32 << 20
	// DefaultStreamSpillThreshold is the SpillThreshold of a stream
	// (OpenStream): a pass in file order needs a few buffers of it at a
	// time, so only a small trace is kept whole in memory.
	DefaultStreamSpillThreshold = 4 << 20
)

// spillThreshold is what opts gives, with def for 0.
func (opts *Options) spillThreshold(def int64) int64 {
	switch {
	case opts == nil || opts.SpillThreshold == 0:
		return def
	case opts.SpillThreshold < 0:
		return 0
	}
	return opts.SpillThreshold
}

// DetectWrapper names the container whose magic bytes start head.
func DetectWrapper(head []byte) Wrapper {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return WrapperGzip
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return WrapperZstd
	case bytes.HasPrefix(head, []byte("BZh")) && len(head) > 3 && head[3] >= '1' && head[3] <= '9':
		return WrapperBzip2
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}):
		return WrapperXz
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return WrapperZip
	}
	return WrapperNone
}

// File is an opened trace: a Reader over the file, or over its unwrapped
// content when it came in a container.
type File struct {
	*Reader
	Name    string
	Wrapper Wrapper
	closers []func() error
	// inMemory bounds what spill keeps in memory.
	inMemory int64
	// maxUnwrapped bounds the content of a wrapped input; negative, none.
	maxUnwrapped int64
	// cut is where the content of a wrapped input ended early.
	cut *FormatError
}

// DefaultMaxUnwrapped is Options.MaxUnwrapped when left at 0: far more
// than any trace, and a bound on what a decompression bomb costs.
const DefaultMaxUnwrapped = 64 << 30

// ErrUnwrapLimit: a wrapped input's content goes on past
// Options.MaxUnwrapped.
var ErrUnwrapLimit = errors.New("unwrapped size limit reached")

// headCheck is how much of a wrapped input's content is unwrapped before
// it is checked to be a trace: a stream of anything else (a bomb of zero
// bytes, an archive of something else) stops there.
const headCheck = 64 << 10

// Close releases the file and any temporary file made while unwrapping.
func (f *File) Close() error {
	var first error
	for i := len(f.closers) - 1; i >= 0; i-- {
		if err := f.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	f.closers = nil
	return first
}

// Open opens the trace at path. Inputs wrapped in gzip, zstd, bzip2, xz or
// zip (the first .etl member, or the only member) are detected by their
// magic bytes and unwrapped. A wrapped input cut short or damaged gives
// the trace as far as its content goes, as a plain file cut short does:
// Stats reports where it ended (Unwrap).
func Open(path string) (*File, error) { return OpenWith(path, nil) }

// OpenWith is Open with options; nil gives the defaults.
func OpenWith(path string, opts *Options) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	f := &File{Name: path, closers: []func() error{fh.Close}, inMemory: opts.spillThreshold(DefaultSpillThreshold), maxUnwrapped: opts.maxUnwrapped()}
	st, err := fh.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return f.openFile(fh, st.Size())
}

// OpenStream reads a trace from a stream, such as standard input, plain or
// wrapped as Open accepts; name is the File's Name, and opts may be nil. A
// regular file (a redirected standard input) is read in place. Otherwise
// the trace is unwrapped as it streams in and kept in memory up to the
// SpillThreshold of a stream, in a temporary file beyond, since the time
// order reads the buffers of each processor out of file order. A zip
// archive, whose directory is at its end, always goes to a temporary file.
// Close removes the temporary file; it does not close r.
func OpenStream(r io.Reader, name string, opts *Options) (*File, error) {
	f := &File{Name: name, inMemory: opts.spillThreshold(DefaultSpillThreshold), maxUnwrapped: opts.maxUnwrapped()}
	if fh, ok := r.(*os.File); ok {
		if st, err := fh.Stat(); err == nil && st.Mode().IsRegular() {
			if off, err := fh.Seek(0, io.SeekCurrent); err == nil && off == 0 {
				return f.openFile(fh, st.Size())
			}
		}
	}
	f.inMemory = opts.spillThreshold(DefaultStreamSpillThreshold)
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(8)
	f.Wrapper = DetectWrapper(head)
	ra, size, err := f.unwrapStream(br)
	if err != nil {
		f.Close()
		if errors.Is(err, ErrNotETL) {
			return nil, err
		}
		if f.Wrapper == WrapperNone {
			return nil, &FormatError{Offset: 0, Buffer: -1, Reason: "reading the input", Err: err}
		}
		return nil, &FormatError{Offset: 0, Buffer: -1, Reason: fmt.Sprintf("unwrapping %s", f.Wrapper), Err: err}
	}
	return f.openAt(ra, size)
}

// openFile opens the trace in fh, of size bytes; f closes fh when it fails.
func (f *File) openFile(fh *os.File, size int64) (*File, error) {
	var head [8]byte
	n, _ := fh.ReadAt(head[:], 0)
	f.Wrapper = DetectWrapper(head[:n])
	var ra io.ReaderAt = fh
	if f.Wrapper == WrapperNone {
		raw := rawfile.New(fh)
		ra = raw
		if len(f.closers) > 0 {
			f.closers[0] = raw.Close
		}
	} else {
		var err error
		ra, size, err = f.unwrap(fh, size)
		if err != nil {
			f.Close()
			if errors.Is(err, ErrNotETL) {
				return nil, err
			}
			// The place in the compressed stream is not known: no offset.
			return nil, fmt.Errorf("unwrapping %s: %w", f.Wrapper, err)
		}
	}
	return f.openAt(ra, size)
}

// openAt reads the logfile header of the trace in ra.
func (f *File) openAt(ra io.ReaderAt, size int64) (*File, error) {
	r, err := NewReader(ra, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.cut = f.cut
	f.Reader = r
	return f, nil
}

// unwrap unwraps a file, whose content can be read at any offset.
func (f *File) unwrap(fh *os.File, size int64) (io.ReaderAt, int64, error) {
	if f.Wrapper == WrapperZip {
		return f.unzip(fh, size)
	}
	src, err := f.decompress(io.NewSectionReader(fh, 0, size))
	if err != nil {
		return nil, 0, err
	}
	return f.spill(src)
}

// unwrapStream unwraps a stream, read once from the front.
func (f *File) unwrapStream(r io.Reader) (io.ReaderAt, int64, error) {
	switch f.Wrapper {
	case WrapperNone:
		return f.spill(r)
	case WrapperZip:
		tmp, size, err := f.spillFile(nil, r)
		if err != nil {
			return nil, 0, err
		}
		return f.unzip(tmp, size)
	}
	src, err := f.decompress(r)
	if err != nil {
		return nil, 0, err
	}
	return f.spill(src)
}

// decompress returns the content of a gzip, zstd, bzip2 or xz stream.
func (f *File) decompress(r io.Reader) (io.Reader, error) {
	switch f.Wrapper {
	case WrapperGzip:
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, err
		}
		zr.Multistream(true)
		return zr, nil
	case WrapperZstd:
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<30))
		if err != nil {
			return nil, err
		}
		f.closers = append(f.closers, func() error { zr.Close(); return nil })
		return zr, nil
	case WrapperBzip2:
		return bzip2.NewReader(r), nil
	case WrapperXz:
		br := bufio.NewReaderSize(r, 64<<10)
		if err := checkXzDictionary(br); err != nil {
			return nil, err
		}
		tail := &tailReader{r: br}
		zr, err := xz.NewReader(tail)
		if err != nil {
			return nil, err
		}
		return &xzFooterCheck{r: zr, tail: tail}, nil
	}
	return nil, fmt.Errorf("unknown wrapper %q", f.Wrapper)
}

// xzFooterCheck passes on the content of an xz stream, and at its end
// checks that the stream ended with its footer: the decoder ends quietly
// where an input cut short ends between its blocks.
type xzFooterCheck struct {
	r    io.Reader
	tail *tailReader
}

func (x *xzFooterCheck) Read(p []byte) (int, error) {
	n, err := x.r.Read(p)
	if errors.Is(err, io.EOF) && !x.tail.endsWith("YZ") {
		err = errors.New("the stream ends without its footer")
	}
	return n, err
}

// tailReader remembers the last bytes read through it, less the zero
// bytes of stream padding after them.
type tailReader struct {
	r    io.Reader
	last [2]byte
	n    int
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	for _, c := range p[:n] {
		if c != 0 {
			t.last[0], t.last[1] = t.last[1], c
			t.n++
		}
	}
	return n, err
}

func (t *tailReader) endsWith(s string) bool {
	return t.n >= 2 && string(t.last[:]) == s
}

// unzip opens the trace member of a zip archive.
func (f *File) unzip(ra io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		// An archive cut short has lost its directory, at its end; its
		// members still start with their local headers.
		member, ferr := localZipMember(ra, size)
		if ferr != nil {
			return nil, 0, err
		}
		return f.spill(member)
	}
	member := pickZipMember(zr.File)
	if member == nil {
		return nil, 0, errors.New("zip archive holds no file")
	}
	rc, err := member.Open()
	if err != nil {
		return nil, 0, err
	}
	f.closers = append(f.closers, rc.Close)
	return f.spill(rc)
}

func pickZipMember(files []*zip.File) *zip.File {
	var first *zip.File
	for _, m := range files {
		if m.FileInfo().IsDir() {
			continue
		}
		if strings.EqualFold(filepath.Ext(m.Name), ".etl") {
			return m
		}
		if first == nil {
			first = m
		}
	}
	return first
}

// spill reads src into memory up to the SpillThreshold, and into a
// temporary file beyond it. The content of a wrapped input is checked to
// be a trace from its first bytes on, and bounded by Options.MaxUnwrapped;
// where it ends early (read error, limit), what came before is kept and
// f.cut says where.
func (f *File) spill(src io.Reader) (io.ReaderAt, int64, error) {
	if f.Wrapper != WrapperNone {
		if f.maxUnwrapped >= 0 {
			src = &limitReader{r: src, left: f.maxUnwrapped}
		}
		var err error
		if src, err = f.checkHead(&cutReader{f: f, r: src}); err != nil {
			return nil, 0, err
		}
	}
	limit := f.inMemory
	// The memory grows with what arrives, never past the threshold.
	var mem []byte
	for int64(len(mem)) <= limit {
		if len(mem) == cap(mem) {
			grown := int64(max(2*cap(mem), 64<<10))
			grown = min(grown, limit+1)
			if grown <= int64(len(mem)) {
				break
			}
			mem = append(mem[:cap(mem)], make([]byte, int(grown)-cap(mem))...)[:len(mem)]
		}
		n, err := src.Read(mem[len(mem):cap(mem)])
		mem = mem[:len(mem)+n]
		if errors.Is(err, io.EOF) {
			return bytes.NewReader(mem), int64(len(mem)), nil
		}
		if err != nil {
			return nil, 0, err
		}
	}
	tmp, size, err := f.spillFile(mem, src)
	if err != nil {
		return nil, 0, err
	}
	return tmp, size, nil
}

// checkHead unwraps the first headCheck bytes of src and checks that they
// start a trace; it returns a reader of the whole content.
func (f *File) checkHead(src *cutReader) (io.Reader, error) {
	head := make([]byte, headCheck)
	n, _ := io.ReadFull(src, head) // src ends at a break in its stream
	head = head[:n]
	if src.err != nil && n == 0 {
		// Nothing came out: the input cannot be read at all.
		return nil, src.err
	}
	if !bytes.HasPrefix(head, []byte(buffer.RTBackupMagic)) {
		if _, herr := NewReader(bytes.NewReader(head), int64(n)); errors.Is(herr, ErrNotETL) {
			if f.cut != nil {
				// Too little came out to tell: the break is the news.
				return nil, fmt.Errorf("%v; what came before it is not a trace: %w", f.cut, herr)
			}
			return nil, fmt.Errorf("the %s content is not a trace: %w", f.Wrapper, herr)
		}
	}
	return io.MultiReader(bytes.NewReader(head), src), nil
}

// cutReader ends a wrapped input's content at the first read error of its
// decompressor (or limitReader): the bytes before it are the content, and
// f.cut says where and why it broke off. err keeps that error.
type cutReader struct {
	f   *File
	r   io.Reader
	off int64
	err error
}

func (c *cutReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, io.EOF
	}
	n, err := c.r.Read(p)
	c.off += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		c.err = err
		c.f.cutAt(c.off, err)
		err = io.EOF
	}
	return n, err
}

// limitReader reads r up to left bytes, and fails with ErrUnwrapLimit
// when r holds more.
type limitReader struct {
	r    io.Reader
	left int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if l.left <= 0 {
		// One byte more tells a stream that ends at the limit from one
		// that goes on past it.
		var one [1]byte
		for {
			n, err := l.r.Read(one[:])
			if n > 0 {
				return 0, ErrUnwrapLimit
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// cutAt notes that the content ended early, at off, for err.
func (f *File) cutAt(off int64, err error) {
	if errors.Is(err, ErrUnwrapLimit) {
		f.cut = &FormatError{Offset: off, Buffer: -1, Err: ErrUnwrapLimit,
			Reason: fmt.Sprintf("the %s content goes on past the limit of %s on unwrapped content, a guard against decompression bombs; the trace is read up to it",
				f.Wrapper, byteSize(f.maxUnwrapped))}
		return
	}
	f.cut = &FormatError{Offset: off, Buffer: -1, Err: ErrTruncated,
		Reason: fmt.Sprintf("the %s stream breaks off after 0x%x bytes of content (%s)", f.Wrapper, off, printable(err.Error()))}
}

// byteSize writes n bytes in the largest binary unit that divides it.
func byteSize(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// printable keeps a message from a decoder to at most 120 printable
// characters: it may quote bytes of the input.
func printable(s string) string {
	out := make([]rune, 0, len(s))
	for _, c := range s {
		if len(out) == 120 {
			return string(out) + "..."
		}
		if !unicode.IsPrint(c) {
			c = '?'
		}
		out = append(out, c)
	}
	return string(out)
}

// spillFile writes head and then the rest of src into a temporary file
// (outfile.Scratch: gone however the process ends), which Close closes.
// A read error of a wrapped input's content has ended the content there
// (cutReader); any other read or write error fails.
func (f *File) spillFile(head []byte, src io.Reader) (*os.File, int64, error) {
	tmp, done, err := outfile.Scratch("etlkit-*.etl")
	if err != nil {
		return nil, 0, err
	}
	f.closers = append(f.closers, done)
	if _, err := tmp.Write(head); err != nil {
		return nil, 0, err
	}
	// Large reads of the decompressor, through tmp's Write alone (its
	// ReadFrom would copy in small pieces).
	n, err := io.CopyBuffer(struct{ io.Writer }{tmp}, src, make([]byte, 256<<10))
	if err != nil {
		return nil, 0, err
	}
	return tmp, int64(len(head)) + n, nil
}
