package pdb

import "encoding/binary"

// The writers below make small PDBs for tests and fuzz seeds: an MSF
// container, a DBI stream with its module list, and module symbol streams
// with procedures and annotations.

// Symbols writes a module symbol stream: the C13 signature, then records.
type Symbols struct {
	b    []byte
	open []int // offsets of the procedures not yet ended
}

// NewSymbols starts a symbol stream.
func NewSymbols() *Symbols {
	return &Symbols{b: binary.LittleEndian.AppendUint32(nil, cvSignatureC13)}
}

// record appends one record of the given kind and body, padded to 4 bytes.
func (s *Symbols) record(kind uint16, body []byte) int {
	at := len(s.b)
	n := 2 + len(body)
	pad := (4 - (2+n)%4) % 4
	le := binary.LittleEndian
	s.b = le.AppendUint16(s.b, uint16(n+pad))
	s.b = le.AppendUint16(s.b, kind)
	s.b = append(s.b, body...)
	for i := 0; i < pad; i++ {
		s.b = append(s.b, 0xF0+byte(pad-i))
	}
	return at
}

// Proc opens an S_GPROC32 procedure named name; End closes it.
func (s *Symbols) Proc(name string) {
	body := make([]byte, procNameAt-4)
	body = append(body, name...)
	body = append(body, 0)
	s.open = append(s.open, s.record(sGProc32, body))
}

// End writes the S_END of the last open procedure and points the
// procedure's pEnd at it.
func (s *Symbols) End() {
	at := s.record(sEnd, nil)
	if n := len(s.open); n > 0 {
		binary.LittleEndian.PutUint32(s.b[s.open[n-1]+8:], uint32(at))
		s.open = s.open[:n-1]
	}
}

// Annotation writes an S_ANNOTATION with the given strings.
func (s *Symbols) Annotation(strs ...string) {
	le := binary.LittleEndian
	body := le.AppendUint32(nil, 0x1234) // code offset
	body = le.AppendUint16(body, 1)      // section
	body = le.AppendUint16(body, uint16(len(strs)))
	for _, str := range strs {
		body = append(body, str...)
		body = append(body, 0)
	}
	s.record(sAnnotation, body)
}

// Raw appends a record as given: kind and body.
func (s *Symbols) Raw(kind uint16, body []byte) { s.record(kind, body) }

// Bytes is the stream so far.
func (s *Symbols) Bytes() []byte { return s.b }

// BuildModule is one module of a PDB to build; Symbols nil gives it no
// symbol stream, as stripping does.
type BuildModule struct {
	Name    string
	Symbols []byte
}

// Build writes a PDB with the given modules, in blocks of blockSize:
// streams 0–4 (old directory, PDB info, TPI, DBI, IPI), then one symbol
// stream per module that has symbols. stripped sets the DBI flag that
// PDBCopy sets.
func Build(blockSize int, mods []BuildModule, stripped bool) []byte {
	le := binary.LittleEndian
	streams := [][]byte{nil, make([]byte, 28), nil, nil, nil}
	// The module info records.
	var modInfo []byte
	for _, m := range mods {
		rec := make([]byte, modInfoFixed)
		stream, size := uint16(noStream), uint32(0)
		if m.Symbols != nil {
			stream, size = uint16(len(streams)), uint32(len(m.Symbols))
			streams = append(streams, m.Symbols)
		}
		le.PutUint16(rec[0x22:], stream)
		le.PutUint32(rec[0x24:], size)
		rec = append(rec, m.Name...)
		rec = append(rec, 0)
		rec = append(rec, m.Name...)
		rec = append(rec, ".obj"...)
		rec = append(rec, 0)
		for len(rec)%4 != 0 {
			rec = append(rec, 0)
		}
		modInfo = append(modInfo, rec...)
	}
	dbi := make([]byte, dbiHeaderSize)
	le.PutUint32(dbi[0:], dbiVersionSig)
	le.PutUint32(dbi[4:], 19990903)
	le.PutUint32(dbi[0x18:], uint32(len(modInfo)))
	if stripped {
		le.PutUint16(dbi[0x38:], flagStripped)
	}
	le.PutUint16(dbi[0x3A:], 0x8664)
	streams[dbiStream] = append(dbi, modInfo...)
	return BuildMSF(blockSize, streams)
}

// BuildMSF writes an MSF container holding streams: the superblock in
// block 0, the free block maps left empty in blocks 1 and 2 of every
// interval, the streams, the directory and its block map.
func BuildMSF(blockSize int, streams [][]byte) []byte {
	le := binary.LittleEndian
	bs := blockSize
	// Block 0 is the superblock's.
	blocks := [][]byte{make([]byte, bs)}
	next := func() uint32 {
		for {
			i := len(blocks)
			blocks = append(blocks, make([]byte, bs))
			if r := i % bs; r != 1 && r != 2 {
				return uint32(i)
			}
		}
	}
	put := func(data []byte) []uint32 {
		var list []uint32
		for off := 0; off < len(data); off += bs {
			i := next()
			copy(blocks[i], data[off:])
			list = append(list, i)
		}
		return list
	}
	dir := le.AppendUint32(nil, uint32(len(streams)))
	var lists [][]uint32
	for _, s := range streams {
		dir = le.AppendUint32(dir, uint32(len(s)))
		lists = append(lists, put(s))
	}
	for _, l := range lists {
		for _, b := range l {
			dir = le.AppendUint32(dir, b)
		}
	}
	dirList := put(dir)
	var mapBytes []byte
	for _, b := range dirList {
		mapBytes = le.AppendUint32(mapBytes, b)
	}
	mapList := put(mapBytes)
	sb := blocks[0]
	copy(sb, Magic)
	le.PutUint32(sb[0x20:], uint32(bs))
	le.PutUint32(sb[0x24:], 1)
	le.PutUint32(sb[0x28:], uint32(len(blocks)))
	le.PutUint32(sb[0x2C:], uint32(len(dir)))
	for i, b := range mapList {
		le.PutUint32(sb[0x34+4*i:], b)
	}
	out := make([]byte, 0, len(blocks)*bs)
	for _, b := range blocks {
		out = append(out, b...)
	}
	return out
}
