// Package seeds gathers fuzz seeds from the committed synthetic traces and,
// when present, the shared real samples.
package seeds

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
)

// MaxFileSeed bounds a whole-file seed so that fuzzing stays quick; larger
// traces contribute their first bytes.
const MaxFileSeed = 64 << 10

func repoDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// TracePaths lists testdata/etl traces and the shared .etl samples.
func TracePaths() []string {
	var out []string
	m, _ := filepath.Glob(filepath.Join(repoDir(), "testdata", "etl", "*.etl"))
	out = append(out, m...)
	if d := samples.Dir(); d != "" {
		m, _ := filepath.Glob(filepath.Join(d, "*.etl"))
		out = append(out, m...)
	}
	sort.Strings(out)
	return out
}

// Files returns the head (at most MaxFileSeed bytes) of every trace.
func Files() [][]byte {
	var out [][]byte
	for _, p := range TracePaths() {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(f, MaxFileSeed))
		f.Close()
		out = append(out, b)
	}
	return out
}

// Records returns up to perType raw records of each header type found in the
// buffers of every trace, compressed ones included.
func Records(perType int) [][]byte {
	var out [][]byte
	seen := map[header.Type]int{}
	var buf buffer.Buffer
	for _, f := range Files() {
		w := buffer.NewWalker(bytes.NewReader(f), int64(len(f)))
		for {
			err := w.Next(&buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				continue
			}
			recs := buf.Records()
			for pos := 0; pos < len(recs); {
				p, stop, err := header.ParsePrefix(recs[pos:])
				if stop || err != nil {
					break
				}
				if seen[p.Type] < perType {
					seen[p.Type]++
					out = append(out, bytes.Clone(recs[pos:pos+p.Size]))
				}
				pos += header.Align(p.Size)
			}
		}
	}
	return out
}

// MaxSmallFile bounds a seed of SmallFiles. A fuzzer runs, and minimizes
// what it finds, in proportion to an input's size; whole buffers of real
// traces are 64 KiB, which slowed whole-file targets to a few inputs a
// second.
const MaxSmallFile = 2 << 10

// SmallFiles returns every trace cut down to a small file of the same
// form: its header buffer and the first buffers of its other processors,
// each shortened to its first few records and resized to fit them, at
// most MaxSmallFile bytes in all. Compressed buffers are kept only when
// small enough whole.
func SmallFiles() [][]byte {
	var out [][]byte
	for _, p := range TracePaths() {
		if small := smallFile(p); len(small) > 0 {
			out = append(out, small)
		}
	}
	return out
}

func smallFile(path string) []byte {
	const perBuffer = 3 // records kept of each buffer
	fh, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil
	}
	if st.Size() <= MaxSmallFile {
		b, _ := io.ReadAll(fh)
		return b
	}
	w := buffer.NewWalker(fh, st.Size())
	w.HeadersOnly = true
	var small []byte
	var b buffer.Buffer
	cpus := map[uint16]bool{}
	for len(small) < MaxSmallFile && len(cpus) < 8 {
		err := w.Next(&b)
		if err == io.EOF {
			break
		}
		if err != nil || b.Index > 0 && cpus[b.ProcessorNumber()] {
			continue
		}
		cpus[b.ProcessorNumber()] = true
		raw := make([]byte, min(int64(b.BufferSize), st.Size()-b.FileOffset))
		if _, err := fh.ReadAt(raw, b.FileOffset); err != nil || len(raw) < buffer.HeaderSize {
			continue
		}
		if b.Compressed() {
			if len(small)+len(raw) <= MaxSmallFile {
				small = append(small, raw...)
			}
			continue
		}
		small = appendShortened(small, raw, perBuffer, MaxSmallFile)
	}
	return small
}

// appendShortened appends the buffer raw with only its first n records (as
// many as fit within limit bytes in all), its sizes set to what is kept.
func appendShortened(dst, raw []byte, n, limit int) []byte {
	end := buffer.HeaderSize
	if h, ok := buffer.ParseHeader(raw); ok {
		recs := raw[buffer.HeaderSize:min(max(int(h.Offset), buffer.HeaderSize), len(raw))]
		for pos := 0; n > 0 && pos < len(recs); n-- {
			p, stop, err := header.ParsePrefix(recs[pos:])
			if stop || err != nil || pos+header.Align(p.Size) > len(recs) {
				break
			}
			if len(dst)+buffer.HeaderSize+pos+header.Align(p.Size) > limit {
				break
			}
			pos += header.Align(p.Size)
			end = buffer.HeaderSize + pos
		}
	}
	if len(dst)+end > limit {
		return dst
	}
	at := len(dst)
	dst = append(dst, raw[:end]...)
	le := binary.LittleEndian
	le.PutUint32(dst[at+0x00:], uint32(end)) // BufferSize
	le.PutUint32(dst[at+0x04:], uint32(end)) // SavedOffset
	le.PutUint32(dst[at+0x30:], uint32(end)) // Offset
	return dst
}
