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

	"github.com/etlkit/etlkit/internal/rawfile"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
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
}

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
// magic bytes and unwrapped.
func Open(path string) (*File, error) { return OpenWith(path, nil) }

// OpenWith is Open with options; nil gives the defaults.
func OpenWith(path string, opts *Options) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	f := &File{Name: path, closers: []func() error{fh.Close}, inMemory: opts.spillThreshold(DefaultSpillThreshold)}
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
	f := &File{Name: name, inMemory: opts.spillThreshold(DefaultSpillThreshold)}
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
		return xz.NewReader(r)
	}
	return nil, fmt.Errorf("unknown wrapper %q", f.Wrapper)
}

// unzip opens the trace member of a zip archive.
func (f *File) unzip(ra io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, 0, err
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
// temporary file beyond it.
func (f *File) spill(src io.Reader) (io.ReaderAt, int64, error) {
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

// spillFile writes head and then the rest of src into a temporary file,
// which Close removes.
func (f *File) spillFile(head []byte, src io.Reader) (*os.File, int64, error) {
	tmp, err := os.CreateTemp("", "etlkit-*.etl")
	if err != nil {
		return nil, 0, err
	}
	name := tmp.Name()
	f.closers = append(f.closers, func() error { tmp.Close(); return os.Remove(name) })
	if _, err := tmp.Write(head); err != nil {
		return nil, 0, err
	}
	rest, err := io.Copy(tmp, src)
	if err != nil {
		return nil, 0, err
	}
	return tmp, int64(len(head)) + rest, nil
}
