// Package pdb reads what WPP needs of a PDB: the MSF container, its stream
// directory, the DBI stream's module list and each module's symbol
// records, where the compiler keeps the strings of __annotation() calls.
// Every size it reads is checked against the streams' declared sizes and
// the file's size, so that no allocation exceeds the file.
package pdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Magic is the start of an MSF 7.00 file.
var Magic = []byte("Microsoft C/C++ MSF 7.00\r\n\x1aDS\x00\x00\x00")

// oldMagic starts the MSF 2.00 files of compilers before 2002.
var oldMagic = []byte("Microsoft C/C++ program database 2.00\r\n")

// Errors wrapped by what Open and Annotations return.
var (
	// ErrNotPDB: the file is no MSF 7.00 container.
	ErrNotPDB = errors.New("not a PDB (MSF 7.00) file")
	// ErrStripped: the DBI stream says private symbols were removed.
	ErrStripped = errors.New("private symbols stripped")
)

// FormatError is damage in a PDB: what and where (a file offset, or for
// stream contents the stream and its offset).
type FormatError struct {
	Stream int   // -1 for the container itself
	Offset int64 // file offset, or offset in Stream
	Msg    string
}

func (e *FormatError) Error() string {
	if e.Stream < 0 {
		return fmt.Sprintf("offset 0x%x: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("stream %d offset 0x%x: %s", e.Stream, e.Offset, e.Msg)
}

func fileErr(off int64, format string, args ...any) error {
	return &FormatError{Stream: -1, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func streamErr(stream int, off int, format string, args ...any) error {
	return &FormatError{Stream: stream, Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
}

// File is an open MSF container.
type File struct {
	r         io.ReaderAt
	size      int64
	blockSize int64
	numBlocks int64
	// sizes and blocks describe each stream; blocks index into dir.
	sizes  []uint32
	blocks [][]byte // each stream's u32 block numbers, as stored
}

// nilStream marks a deleted stream in the directory.
const nilStream = 0xFFFFFFFF

// Open reads the superblock and the stream directory.
func Open(r io.ReaderAt, size int64) (*File, error) {
	var sb [0x38]byte
	if size < int64(len(sb)) {
		if size >= int64(len(oldMagic)) {
			if head := readHead(r, len(oldMagic)); string(head) == string(oldMagic) {
				return nil, fmt.Errorf("%w: an MSF 2.00 PDB, from a compiler before 2002", ErrNotPDB)
			}
		}
		return nil, ErrNotPDB
	}
	if _, err := r.ReadAt(sb[:], 0); err != nil {
		return nil, err
	}
	if string(sb[:len(Magic)]) != string(Magic) {
		if string(sb[:len(oldMagic)]) == string(oldMagic) {
			return nil, fmt.Errorf("%w: an MSF 2.00 PDB, from a compiler before 2002", ErrNotPDB)
		}
		return nil, ErrNotPDB
	}
	le := binary.LittleEndian
	f := &File{r: r, size: size}
	f.blockSize = int64(le.Uint32(sb[0x20:]))
	switch f.blockSize {
	case 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536:
	default:
		return nil, fileErr(0x20, "block size %d is not a power of two from 512 to 65536", f.blockSize)
	}
	f.numBlocks = int64(le.Uint32(sb[0x28:]))
	if f.numBlocks*f.blockSize > size {
		return nil, fileErr(0x28, "%d blocks of %d bytes need %d bytes, the file has %d", f.numBlocks, f.blockSize, f.numBlocks*f.blockSize, size)
	}
	dirBytes := int64(le.Uint32(sb[0x2C:]))
	if dirBytes < 4 || dirBytes > size {
		return nil, fileErr(0x2C, "stream directory of %d bytes in a file of %d", dirBytes, size)
	}
	// The directory's block numbers fill ceil(dirBlocks·4 / blockSize)
	// blocks, whose numbers follow in the superblock.
	dirBlocks := (dirBytes + f.blockSize - 1) / f.blockSize
	mapBlocks := (dirBlocks*4 + f.blockSize - 1) / f.blockSize
	if 0x34+4*mapBlocks > f.blockSize {
		return nil, fileErr(0x34, "stream directory needs %d block map blocks, more than the superblock holds", mapBlocks)
	}
	mapAddrs, err := f.readAt(0x34, 4*mapBlocks)
	if err != nil {
		return nil, err
	}
	blockMap := make([]byte, 0, 4*dirBlocks)
	for i := int64(0); i < mapBlocks; i++ {
		b, err := f.block(le.Uint32(mapAddrs[4*i:]))
		if err != nil {
			return nil, err
		}
		blockMap = append(blockMap, b[:min(int64(len(b)), 4*dirBlocks-int64(len(blockMap)))]...)
	}
	dir, err := f.gather(-1, blockMap, dirBytes)
	if err != nil {
		return nil, err
	}
	n := int64(le.Uint32(dir))
	if 4+4*n > dirBytes {
		return nil, fileErr(0x2C, "stream directory of %d bytes cannot list %d streams", dirBytes, n)
	}
	f.sizes = make([]uint32, n)
	f.blocks = make([][]byte, n)
	pos := 4 + 4*n
	for i := int64(0); i < n; i++ {
		sz := le.Uint32(dir[4+4*i:])
		f.sizes[i] = sz
		if sz == nilStream {
			continue
		}
		if int64(sz) > f.numBlocks*f.blockSize {
			return nil, fileErr(0x2C, "stream %d of %d bytes is larger than the file's blocks", i, sz)
		}
		nb := (int64(sz) + f.blockSize - 1) / f.blockSize
		if pos+4*nb > dirBytes {
			return nil, fileErr(0x2C, "stream directory ends inside the block list of stream %d", i)
		}
		f.blocks[i] = dir[pos : pos+4*nb]
		pos += 4 * nb
	}
	return f, nil
}

func readHead(r io.ReaderAt, n int) []byte {
	b := make([]byte, n)
	if _, err := r.ReadAt(b, 0); err != nil {
		return nil
	}
	return b
}

// readAt reads n bytes at off, checked against the file's size.
func (f *File) readAt(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off+n > f.size {
		return nil, fileErr(off, "%d bytes past the end of the file", off+n-f.size)
	}
	b := make([]byte, n)
	if _, err := f.r.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("offset 0x%x: %w", off, err)
	}
	return b, nil
}

// block reads block i.
func (f *File) block(i uint32) ([]byte, error) {
	if int64(i) >= f.numBlocks {
		return nil, fileErr(0x28, "block %d of %d", i, f.numBlocks)
	}
	return f.readAt(int64(i)*f.blockSize, f.blockSize)
}

// gather concatenates the blocks numbered in list into size bytes.
func (f *File) gather(stream int, list []byte, size int64) ([]byte, error) {
	out := make([]byte, 0, size)
	for i := 0; i+4 <= len(list) && int64(len(out)) < size; i += 4 {
		bn := binary.LittleEndian.Uint32(list[i:])
		if int64(bn) >= f.numBlocks {
			return nil, streamErr(stream, len(out), "block %d of %d", bn, f.numBlocks)
		}
		n := min(f.blockSize, size-int64(len(out)))
		start := len(out)
		out = out[:start+int(n)]
		if _, err := f.r.ReadAt(out[start:], int64(bn)*f.blockSize); err != nil {
			return nil, fmt.Errorf("stream %d block %d: %w", stream, bn, err)
		}
	}
	if int64(len(out)) < size {
		return nil, streamErr(stream, len(out), "stream of %d bytes has blocks for %d", size, len(out))
	}
	return out, nil
}

// NumStreams is the number of streams in the directory.
func (f *File) NumStreams() int { return len(f.sizes) }

// Stream reads stream i whole. A deleted stream reads as empty.
func (f *File) Stream(i int) ([]byte, error) {
	if i < 0 || i >= len(f.sizes) {
		return nil, fileErr(0x2C, "stream %d of %d", i, len(f.sizes))
	}
	if f.sizes[i] == nilStream {
		return nil, nil
	}
	return f.gather(i, f.blocks[i], int64(f.sizes[i]))
}

// DBI stream and module records (the DBI stream is stream 3).
const (
	dbiStream       = 3
	dbiHeaderSize   = 64
	dbiVersionSig   = 0xFFFFFFFF
	modInfoFixed    = 64
	noStream        = 0xFFFF
	flagStripped    = 0x2
	cvSignatureC13  = 4
	maxScopeDepth   = 1024
	maxStringsInAnn = 4096
)

// Module is one module (object file) of the DBI stream.
type Module struct {
	Name, ObjectName string
	// SymStream is the module's symbol stream, 0xFFFF for none;
	// SymBytes the size of its symbol records, signature included.
	SymStream uint16
	SymBytes  uint32
}

// DBI is what the DBI stream says of the program.
type DBI struct {
	Machine  uint16
	Stripped bool // private symbols removed (PDBCopy)
	Modules  []Module
}

// ReadDBI reads the DBI stream's header and module list.
func (f *File) ReadDBI() (*DBI, error) {
	if dbiStream >= len(f.sizes) || f.sizes[dbiStream] == nilStream {
		return nil, fileErr(0x2C, "no DBI stream")
	}
	b, err := f.Stream(dbiStream)
	if err != nil {
		return nil, err
	}
	if len(b) < dbiHeaderSize {
		return nil, streamErr(dbiStream, 0, "DBI header needs %d bytes, the stream has %d", dbiHeaderSize, len(b))
	}
	le := binary.LittleEndian
	if le.Uint32(b) != dbiVersionSig {
		return nil, streamErr(dbiStream, 0, "DBI version signature 0x%x is not -1 (an old PDB format)", le.Uint32(b))
	}
	d := &DBI{Machine: le.Uint16(b[0x3A:]), Stripped: le.Uint16(b[0x38:])&flagStripped != 0}
	modSize := int64(int32(le.Uint32(b[0x18:])))
	if modSize < 0 || dbiHeaderSize+modSize > int64(len(b)) {
		return nil, streamErr(dbiStream, 0x18, "module info of %d bytes in a stream of %d", modSize, len(b))
	}
	mods := b[dbiHeaderSize : dbiHeaderSize+modSize]
	for pos := 0; pos < len(mods); {
		if len(mods)-pos < modInfoFixed {
			return nil, streamErr(dbiStream, dbiHeaderSize+pos, "module record needs %d bytes, %d left", modInfoFixed, len(mods)-pos)
		}
		m := Module{SymStream: le.Uint16(mods[pos+0x22:]), SymBytes: le.Uint32(mods[pos+0x24:])}
		p := pos + modInfoFixed
		var ok bool
		if m.Name, p, ok = cstring(mods, p); !ok {
			return nil, streamErr(dbiStream, dbiHeaderSize+p, "module name not terminated")
		}
		if m.ObjectName, p, ok = cstring(mods, p); !ok {
			return nil, streamErr(dbiStream, dbiHeaderSize+p, "object file name not terminated")
		}
		d.Modules = append(d.Modules, m)
		pos = (p + 3) &^ 3
	}
	return d, nil
}

// cstring reads a NUL-terminated string at p.
func cstring(b []byte, p int) (string, int, bool) {
	for i := p; i < len(b); i++ {
		if b[i] == 0 {
			return string(b[p:i]), i + 1, true
		}
	}
	return "", len(b), false
}

// Symbol record kinds (cvinfo.h).
const (
	sEnd          = 0x0006
	sAnnotation   = 0x1019
	sLProc32      = 0x110F
	sGProc32      = 0x1110
	sLProc32ID    = 0x1146
	sGProc32ID    = 0x1147
	sLProc32DPC   = 0x1155
	sLProc32DPCID = 0x1156
	procNameAt    = 0x27 // the name's offset in a PROCSYM32 record
)

// Annotation is one S_ANNOTATION record: its strings, the innermost
// procedure around it, and where it is.
type Annotation struct {
	Strings  []string
	Function string
	Module   string
	Offset   int // in the module's symbol stream
}

// Annotations calls fn with every S_ANNOTATION record of every module, in
// module order and stream order. A module whose symbols are damaged
// stops the walk with an error; the annotations before it were given.
func (f *File) Annotations(d *DBI, fn func(Annotation)) error {
	seen := map[uint16]bool{}
	for _, m := range d.Modules {
		if m.SymStream == noStream || seen[m.SymStream] {
			continue
		}
		seen[m.SymStream] = true
		b, err := f.Stream(int(m.SymStream))
		if err != nil {
			return fmt.Errorf("module %s: %w", m.Name, err)
		}
		if int64(m.SymBytes) > int64(len(b)) {
			return fmt.Errorf("module %s: %w", m.Name, streamErr(int(m.SymStream), 0, "symbols of %d bytes in a stream of %d", m.SymBytes, len(b)))
		}
		if err := walkSymbols(b[:m.SymBytes], int(m.SymStream), m.Name, fn); err != nil {
			return fmt.Errorf("module %s: %w", m.Name, err)
		}
	}
	return nil
}

// scope is an open procedure: its name and the offset of its S_END.
type scope struct {
	name string
	end  int
}

// walkSymbols reads the symbol records after the signature.
func walkSymbols(b []byte, stream int, module string, fn func(Annotation)) error {
	if len(b) < 4 {
		return nil
	}
	le := binary.LittleEndian
	if sig := le.Uint32(b); sig != cvSignatureC13 {
		return streamErr(stream, 0, "symbol signature %d is not 4 (C13)", sig)
	}
	var scopes []scope
	for pos := 4; pos+4 <= len(b); {
		n := int(le.Uint16(b[pos:]))
		if n < 2 || pos+2+n > len(b) {
			return streamErr(stream, pos, "symbol record of %d bytes runs past the symbols' %d", n, len(b))
		}
		rec := b[pos : pos+2+n]
		kind := le.Uint16(rec[2:])
		for len(scopes) > 0 && scopes[len(scopes)-1].end < pos {
			scopes = scopes[:len(scopes)-1]
		}
		switch kind {
		case sLProc32, sGProc32, sLProc32ID, sGProc32ID, sLProc32DPC, sLProc32DPCID:
			if len(rec) >= procNameAt {
				name, _, _ := cstring(rec, procNameAt)
				end := int(le.Uint32(rec[8:]))
				if end <= pos {
					// No end given: the scope lasts until the next
					// procedure replaces it.
					end = len(b)
					scopes = scopes[:0]
				}
				if len(scopes) < maxScopeDepth {
					scopes = append(scopes, scope{name: name, end: end})
				}
			}
		case sAnnotation:
			if len(rec) < 12 {
				return streamErr(stream, pos, "annotation record of %d bytes", len(rec))
			}
			count := int(le.Uint16(rec[10:]))
			if count > maxStringsInAnn {
				return streamErr(stream, pos, "annotation with %d strings", count)
			}
			a := Annotation{Module: module, Offset: pos, Strings: make([]string, 0, min(count, len(rec)))}
			p := 12
			for i := 0; i < count; i++ {
				s, next, ok := cstring(rec, p)
				if !ok {
					return streamErr(stream, pos+p, "annotation string %d of %d not terminated", i, count)
				}
				a.Strings = append(a.Strings, s)
				p = next
			}
			if len(scopes) > 0 {
				a.Function = scopes[len(scopes)-1].name
			}
			fn(a)
		}
		pos += 2 + n
	}
	return nil
}
