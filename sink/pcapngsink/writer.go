// Package pcapngsink writes packets as pcapng, the capture format Wireshark,
// tshark and tcpdump read: a Writer for the blocks themselves, and a
// Capture that turns the packet records of ETW traces (package packets)
// into them.
//
// A file is one section: a Section Header Block, one Interface Description
// Block per interface, and one Enhanced Packet Block per packet, all
// little-endian. Every interface counts time in 100 ns units (if_tsresol 7),
// the unit of ETW timestamps, so that no digit of a record's time is lost.
//
// Interface blocks must come before the first packet that refers to them,
// and a trace names its interfaces late (PktMon writes its component
// rundown when the capture stops, after every packet). The Writer can
// therefore keep the section header and the interfaces until Close, and
// write them, described with all the trace said of them, before the
// packets: a Writer to a file (NewFileWriter) writes the packet blocks
// after room left at the start of the file, which Close fills with the
// header, the interfaces and a padding block that readers skip; a Writer
// to a stream with Options.Spool keeps the packet blocks in the spool
// file until Close and copies them out after the interfaces. Memory stays
// bounded either way, whatever the capture's size.
package pcapngsink

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/packets"
)

// Block types.
const (
	blockSectionHeader        = 0x0A0D0D0A
	blockInterfaceDescription = 1
	blockEnhancedPacket       = 6
	// blockPadding fills the room left for the interfaces that they do not
	// take. Block types with the high bit set are for local use, and
	// readers skip blocks they do not know (tshark, capinfos and libpcap
	// do).
	blockPadding = 0x80000000 | 0x45544C // "ETL"
)

// DefaultHeaderRoom is the room NewFileWriter leaves for the section
// header and the interfaces: about a hundred interfaces with their names.
// More move the packets up at Close.
const DefaultHeaderRoom = 16 << 10

// byteOrderMagic is written in the byte order of the section: little-endian.
const byteOrderMagic = 0x1A2B3C4D

// Option codes.
const (
	optEndOfOpt = 0
	optComment  = 1

	optSHBHardware = 2
	optSHBOS       = 3
	optSHBUserAppl = 4

	optIfName        = 2
	optIfDescription = 3
	optIfIPv4Addr    = 4
	optIfIPv6Addr    = 5
	optIfMACAddr     = 6
	optIfTSResol     = 9

	optEPBFlags             = 2
	optEPBPacketID          = 5
	optEPBProcessIDThreadID = 8
)

// TimestampResolution is the if_tsresol of every interface: 10^-7 s, the
// 100 ns unit of ETW timestamps.
const TimestampResolution = 7

// Fixed sizes of the blocks, options excluded.
const (
	shbSize      = 28
	idbSize      = 20
	epbSize      = 32
	optionHeader = 4
	// maxBlock bounds one block: its total length is a u32.
	maxBlock = math.MaxUint32 &^ 3
)

// Direction bits of epb_flags.
const (
	FlagInbound  uint32 = 1
	FlagOutbound uint32 = 2
)

// Interface describes one Interface Description Block.
type Interface struct {
	LinkType packets.LinkType
	// SnapLen is the most bytes of a packet captured; 0 is no limit.
	SnapLen     uint32
	Name        string // if_name
	Description string // if_description
	// MAC is if_MACaddr, written when it holds 6 bytes.
	MAC []byte
	// IPv4 and IPv6 are if_IPv4addr (netmask 255.255.255.255) and
	// if_IPv6addr (prefix length 128) options, one per address.
	IPv4     [][4]byte
	IPv6     [][16]byte
	Comments []string
}

// Packet is one Enhanced Packet Block.
type Packet struct {
	Interface uint32
	// Timestamp counts 100 ns units since 1970-01-01 UTC (see Timestamp).
	Timestamp      uint64
	Data           []byte
	OriginalLength uint32
	// Flags is epb_flags (FlagInbound, FlagOutbound, …), written when not 0.
	Flags uint32
	// Comment is one opt_comment, UTF-8, written when not empty.
	Comment []byte
	// PacketID is epb_packetid, written when HasPacketID is set.
	PacketID    uint64
	HasPacketID bool
	// ProcessID and ThreadID are epb_processid_threadid, written when
	// HasProcessThread is set.
	ProcessID, ThreadID uint32
	HasProcessThread    bool
}

// Timestamp converts a FILETIME (100 ns units since 1601, UTC) to the
// timestamp of a packet; ok is false for a time before 1970, which the
// format cannot hold.
func Timestamp(fileTime int64) (ts uint64, ok bool) {
	if fileTime < header.FileTimeEpochDelta {
		return 0, false
	}
	return uint64(fileTime - header.FileTimeEpochDelta), true
}

// Options are the settings of a Writer.
type Options struct {
	// Application, OS and Hardware are the section header's shb_userappl,
	// shb_os and shb_hardware options, written when not empty.
	Application, OS, Hardware string
	// Comments are the section header's comments.
	Comments []string
	// Spool, when set, holds the packet blocks of a Writer to a stream
	// until Close; see the package documentation. It must be empty; the
	// Writer does not close it.
	Spool io.ReadWriteSeeker
	// HeaderRoom is the room a Writer to a file leaves for the section
	// header and the interfaces; 0 is DefaultHeaderRoom.
	HeaderRoom int
}

// File is an output a Writer can go back in, such as an *os.File.
type File interface {
	io.ReaderAt
	io.WriterAt
}

// ErrClosed is returned by the calls made after Close.
var ErrClosed = errors.New("pcapngsink: writer closed")

// Writer writes one pcapng section. Streaming (NewWriter without a
// spool), the section header goes out with the first block and each
// interface when it is added; deferred (NewFileWriter, or NewWriter with a
// spool), everything but the packets waits for Close.
type Writer struct {
	out      io.Writer
	file     File // the output of a Writer to a file
	opts     Options
	w        *bufio.Writer // the output, the spool, or the file after the room
	deferred bool
	started  bool // the section header is written
	closed   bool
	// interfaces are the interfaces added; deferred, they are written at
	// Close, and SetInterface may change them until then.
	interfaces []Interface
	packets    int64
	written    int64 // bytes written through w
	scratch    []byte
	err        error
}

// outputBuffer is the size of the buffer blocks are gathered in.
const outputBuffer = 256 << 10

// NewWriter returns a Writer to the stream out, deferred when opts has a
// spool. Nothing is written before the first block (or Close), so that
// section comments can still be added.
func NewWriter(out io.Writer, opts Options) *Writer {
	w := &Writer{out: out, opts: opts, scratch: make([]byte, 0, 256)}
	if opts.Spool != nil {
		w.deferred = true
		w.w = bufio.NewWriterSize(opts.Spool, outputBuffer)
	} else {
		w.w = bufio.NewWriterSize(out, outputBuffer)
	}
	return w
}

// NewFileWriter returns a deferred Writer to f, an empty file: the packet
// blocks go after opts.HeaderRoom bytes, which Close fills.
func NewFileWriter(f File, opts Options) *Writer {
	if opts.HeaderRoom <= 0 {
		opts.HeaderRoom = DefaultHeaderRoom
	}
	opts.HeaderRoom = pad4(opts.HeaderRoom)
	return &Writer{file: f, opts: opts, deferred: true, scratch: make([]byte, 0, 256),
		w: bufio.NewWriterSize(io.NewOffsetWriter(f, int64(opts.HeaderRoom)), outputBuffer)}
}

// Deferred reports whether the section header and interfaces wait for
// Close, so that SetInterface and AddComment work until then.
func (w *Writer) Deferred() bool { return w.deferred }

// AddComment adds a comment to the section header. It fails once the
// header is written: without a spool, at the first block.
func (w *Writer) AddComment(s string) error {
	if w.closed {
		return ErrClosed
	}
	if w.started {
		return errors.New("pcapngsink: the section header is already written")
	}
	w.opts.Comments = append(w.opts.Comments, s)
	return nil
}

// AddInterface adds an interface and returns its id, the Interface of the
// packets that use it.
func (w *Writer) AddInterface(ifc Interface) (uint32, error) {
	if w.closed {
		return 0, ErrClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	id := uint32(len(w.interfaces))
	w.interfaces = append(w.interfaces, ifc)
	if !w.deferred {
		w.start()
		b := appendInterface(w.scratch[:0], &w.interfaces[id])
		w.write(b)
		w.scratch = b[:0]
	}
	return id, w.err
}

// SetInterface replaces the description of interface id. It needs a
// deferred Writer: a streaming one has written the interface already.
func (w *Writer) SetInterface(id uint32, ifc Interface) error {
	if w.closed {
		return ErrClosed
	}
	if !w.deferred {
		return errors.New("pcapngsink: an interface can be changed only by a Writer to a file or with a spool")
	}
	if int(id) >= len(w.interfaces) {
		return fmt.Errorf("pcapngsink: interface %d not added (%d interfaces)", id, len(w.interfaces))
	}
	w.interfaces[id] = ifc
	return nil
}

// Interfaces returns the number of interfaces added.
func (w *Writer) Interfaces() int { return len(w.interfaces) }

// Packets returns the number of packets written.
func (w *Writer) Packets() int64 { return w.packets }

// WritePacket writes one packet. Its interface must have been added.
func (w *Writer) WritePacket(p *Packet) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if int(p.Interface) >= len(w.interfaces) {
		return fmt.Errorf("pcapngsink: packet on interface %d, which is not added (%d interfaces)", p.Interface, len(w.interfaces))
	}
	opts := 0
	if p.Flags != 0 {
		opts += optionHeader + 4
	}
	if len(p.Comment) > 0 {
		opts += optionHeader + pad4(len(p.Comment))
	}
	if p.HasPacketID {
		opts += optionHeader + 8
	}
	if p.HasProcessThread {
		opts += optionHeader + 8
	}
	if opts > 0 {
		opts += optionHeader
	}
	total := uint64(epbSize) + uint64(pad4(len(p.Data))) + uint64(opts)
	if total > maxBlock || len(p.Comment) > math.MaxUint16 {
		return fmt.Errorf("pcapngsink: a packet of %d bytes with a %d-byte comment does not fit a block", len(p.Data), len(p.Comment))
	}
	if !w.deferred {
		w.start()
	}
	b := w.scratch[:0]
	b = le.AppendUint32(b, blockEnhancedPacket)
	b = le.AppendUint32(b, uint32(total))
	b = le.AppendUint32(b, p.Interface)
	b = le.AppendUint32(b, uint32(p.Timestamp>>32))
	b = le.AppendUint32(b, uint32(p.Timestamp))
	b = le.AppendUint32(b, uint32(len(p.Data)))
	b = le.AppendUint32(b, p.OriginalLength)
	w.write(b)
	w.write(p.Data)
	b = appendPadding(b[:0], len(p.Data))
	if p.Flags != 0 {
		b = appendOptionHeader(b, optEPBFlags, 4)
		b = le.AppendUint32(b, p.Flags)
	}
	if p.HasPacketID {
		b = appendOptionHeader(b, optEPBPacketID, 8)
		b = le.AppendUint64(b, p.PacketID)
	}
	if p.HasProcessThread {
		b = appendOptionHeader(b, optEPBProcessIDThreadID, 8)
		b = le.AppendUint32(b, p.ProcessID)
		b = le.AppendUint32(b, p.ThreadID)
	}
	if len(p.Comment) > 0 {
		b = appendOptionHeader(b, optComment, len(p.Comment))
		w.write(b)
		w.write(p.Comment)
		b = appendPadding(b[:0], len(p.Comment))
	}
	if opts > 0 {
		b = appendOptionHeader(b, optEndOfOpt, 0)
	}
	b = le.AppendUint32(b, uint32(total))
	w.write(b)
	w.scratch = b[:0]
	if w.err == nil {
		w.packets++
	}
	return w.err
}

// Close finishes the section. Deferred, it writes the section header and
// the interfaces before the packet blocks: into the room at the start of
// the file, or to the output followed by a copy of the spool. A capture
// with no packet is a section header alone (and its interfaces), which
// readers open as an empty capture. Close does not close the output or
// the spool.
func (w *Writer) Close() error {
	if w.closed {
		return ErrClosed
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if !w.deferred {
		w.start()
		w.err = w.w.Flush()
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		return err
	}
	w.started = true
	head := w.appendSectionHeader(nil)
	for i := range w.interfaces {
		head = appendInterface(head, &w.interfaces[i])
	}
	if w.file != nil {
		return w.placeHead(head, w.written)
	}
	if _, err := w.out.Write(head); err != nil {
		return err
	}
	if _, err := w.opts.Spool.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("pcapngsink: rewinding the spool: %w", err)
	}
	_, err := io.Copy(w.out, w.opts.Spool)
	return err
}

// placeHead writes head, the section header and interfaces, at the start
// of the file, before the packet blocks (n bytes after the room). Room the
// head does not take is one padding block, at least a block's 12 bytes;
// a head the room cannot hold moves the packet blocks up.
func (w *Writer) placeHead(head []byte, n int64) error {
	room, want := int64(w.opts.HeaderRoom), int64(len(head))
	switch gap := room - want; {
	case gap >= 12:
		want = room
	case gap > 0:
		want += 12
	}
	if want != room {
		if err := moveUp(w.file, room, room+n, want-room); err != nil {
			return fmt.Errorf("pcapngsink: making room for the interfaces: %w", err)
		}
	}
	if pad := want - int64(len(head)); pad > 0 {
		head = le.AppendUint32(le.AppendUint32(head, blockPadding), uint32(pad))
		if want != room {
			// The padding's body held packet bytes before they moved.
			head = append(head, make([]byte, pad-12)...)
		}
		if _, err := w.file.WriteAt(le.AppendUint32(nil, uint32(pad)), want-4); err != nil {
			return err
		}
	}
	_, err := w.file.WriteAt(head, 0)
	return err
}

// moveUp moves the bytes of f in [from, to) up by delta, from the end
// down so that nothing is overwritten before it is read.
func moveUp(f File, from, to, delta int64) error {
	buf := make([]byte, 1<<20)
	for end := to; end > from; {
		start := max(from, end-int64(len(buf)))
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil {
			return err
		}
		if _, err := f.WriteAt(b, start+delta); err != nil {
			return err
		}
		end = start
	}
	return nil
}

// start writes the section header, once.
func (w *Writer) start() {
	if w.started {
		return
	}
	w.started = true
	b := w.appendSectionHeader(w.scratch[:0])
	w.write(b)
	w.scratch = b[:0]
}

// appendSectionHeader appends the Section Header Block to b.
func (w *Writer) appendSectionHeader(b []byte) []byte {
	var opts []option
	for _, c := range w.opts.Comments {
		opts = append(opts, option{optComment, []byte(c)})
	}
	for _, o := range []struct {
		code uint16
		s    string
	}{{optSHBHardware, w.opts.Hardware}, {optSHBOS, w.opts.OS}, {optSHBUserAppl, w.opts.Application}} {
		if o.s != "" {
			opts = append(opts, option{o.code, []byte(o.s)})
		}
	}
	start := len(b)
	b = le.AppendUint32(b, blockSectionHeader)
	b = le.AppendUint32(b, 0) // total length, set by appendBlock
	b = le.AppendUint32(b, byteOrderMagic)
	b = le.AppendUint16(b, 1) // major version
	b = le.AppendUint16(b, 0) // minor version
	b = le.AppendUint64(b, math.MaxUint64)
	return appendBlock(b, start, opts)
}

// appendInterface appends the Interface Description Block of ifc to b.
func appendInterface(b []byte, ifc *Interface) []byte {
	var opts []option
	for _, c := range ifc.Comments {
		opts = append(opts, option{optComment, []byte(c)})
	}
	if ifc.Name != "" {
		opts = append(opts, option{optIfName, []byte(ifc.Name)})
	}
	if ifc.Description != "" {
		opts = append(opts, option{optIfDescription, []byte(ifc.Description)})
	}
	for _, a := range ifc.IPv4 {
		opts = append(opts, option{optIfIPv4Addr, append(a[:], 255, 255, 255, 255)})
	}
	for _, a := range ifc.IPv6 {
		opts = append(opts, option{optIfIPv6Addr, append(a[:], 128)})
	}
	if len(ifc.MAC) == 6 {
		opts = append(opts, option{optIfMACAddr, ifc.MAC})
	}
	opts = append(opts, option{optIfTSResol, []byte{TimestampResolution}})
	start := len(b)
	b = le.AppendUint32(b, blockInterfaceDescription)
	b = le.AppendUint32(b, 0) // total length, set by appendBlock
	b = le.AppendUint16(b, uint16(ifc.LinkType))
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, ifc.SnapLen)
	return appendBlock(b, start, opts)
}

type option struct {
	code  uint16
	value []byte
}

// appendBlock finishes a block of the section header or interface kind
// whose fixed part is b[start:] (total length at start+4 left for it to
// fill): it appends the options and the trailing length. Values longer
// than an option holds are cut.
func appendBlock(b []byte, start int, opts []option) []byte {
	for _, o := range opts {
		v := o.value
		if len(v) > math.MaxUint16 {
			v = v[:math.MaxUint16]
		}
		b = appendOptionHeader(b, o.code, len(v))
		b = append(b, v...)
		b = appendPadding(b, len(v))
	}
	if len(opts) > 0 {
		b = appendOptionHeader(b, optEndOfOpt, 0)
	}
	total := len(b) - start + 4
	le.PutUint32(b[start+4:], uint32(total))
	return le.AppendUint32(b, uint32(total))
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	var n int
	n, w.err = w.w.Write(b)
	w.written += int64(n)
}

var le = binary.LittleEndian

func pad4(n int) int { return (n + 3) &^ 3 }

var zeros [4]byte

func appendPadding(b []byte, n int) []byte { return append(b, zeros[:pad4(n)-n]...) }

func appendOptionHeader(b []byte, code uint16, n int) []byte {
	b = le.AppendUint16(b, code)
	return le.AppendUint16(b, uint16(n))
}
