package etl

import (
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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

// SpillThreshold is how much of an unwrapped trace is kept in memory; a
// larger one is written to a temporary file so that memory stays bounded.
var SpillThreshold int64 = 32 << 20

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

// readerAtCloser is a plain trace file as the Reader reads it.
type readerAtCloser interface {
	io.ReaderAt
	Close() error
}

// Open opens the trace at path. Inputs wrapped in gzip, zstd, bzip2, xz or
// zip (the first .etl member, or the only member) are detected by their
// magic bytes and unwrapped.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	f := &File{Name: path, closers: []func() error{fh.Close}}
	st, err := fh.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	var head [8]byte
	n, _ := fh.ReadAt(head[:], 0)
	f.Wrapper = DetectWrapper(head[:n])
	size := st.Size()
	var ra io.ReaderAt = fh
	if f.Wrapper == WrapperNone {
		raw := newRawFile(fh)
		ra, f.closers[0] = raw, raw.Close
	} else {
		ra, size, err = f.unwrap(fh, st.Size())
		if err != nil {
			f.Close()
			// The place in the compressed stream is not known: no offset.
			return nil, fmt.Errorf("unwrapping %s: %w", f.Wrapper, err)
		}
	}
	r, err := NewReader(ra, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	f.Reader = r
	return f, nil
}

func (f *File) unwrap(fh *os.File, size int64) (io.ReaderAt, int64, error) {
	var src io.Reader
	switch f.Wrapper {
	case WrapperGzip:
		zr, err := gzip.NewReader(io.NewSectionReader(fh, 0, size))
		if err != nil {
			return nil, 0, err
		}
		zr.Multistream(true)
		src = zr
	case WrapperZstd:
		zr, err := zstd.NewReader(io.NewSectionReader(fh, 0, size), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<30))
		if err != nil {
			return nil, 0, err
		}
		f.closers = append(f.closers, func() error { zr.Close(); return nil })
		src = zr
	case WrapperBzip2:
		src = bzip2.NewReader(io.NewSectionReader(fh, 0, size))
	case WrapperXz:
		zr, err := xz.NewReader(io.NewSectionReader(fh, 0, size))
		if err != nil {
			return nil, 0, err
		}
		src = zr
	case WrapperZip:
		zr, err := zip.NewReader(fh, size)
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
		src = rc
	default:
		return nil, 0, fmt.Errorf("unknown wrapper %q", f.Wrapper)
	}
	return f.spill(src)
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

// spill reads src into memory up to SpillThreshold, and into a temporary
// file beyond it.
func (f *File) spill(src io.Reader) (io.ReaderAt, int64, error) {
	var mem bytes.Buffer
	n, err := io.CopyN(&mem, src, SpillThreshold+1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, err
	}
	if n <= SpillThreshold {
		return bytes.NewReader(mem.Bytes()), n, nil
	}
	tmp, err := os.CreateTemp("", "etlkit-*.etl")
	if err != nil {
		return nil, 0, err
	}
	name := tmp.Name()
	f.closers = append(f.closers, func() error { tmp.Close(); return os.Remove(name) })
	if _, err := tmp.Write(mem.Bytes()); err != nil {
		return nil, 0, err
	}
	mem = bytes.Buffer{}
	rest, err := io.Copy(tmp, src)
	if err != nil {
		return nil, 0, err
	}
	return tmp, n + rest, nil
}
