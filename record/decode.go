package record

import (
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
)

// Context is what a record inherits from its buffer and its file.
type Context struct {
	Clock           *header.Clock
	ProcessorNumber uint16
	ProcessorIndex  bool  // the buffer carried a 16-bit processor index
	BufferTimeStamp int64 // for records without a timestamp of their own
	BufferIndex     int
	// BufferFileOffset is where the buffer starts in the file; Compressed says
	// whether record positions inside it map to file offsets.
	BufferFileOffset int64
	Compressed       bool
}

// pointerFlags are the EVENT_HEADER_FLAG_32/64_BIT_HEADER bits ProcessTrace
// sets from each header type.
var pointerFlags = func() (t [256]uint16) {
	for i := range t {
		switch header.Type(i).PointerSize() {
		case 4:
			t[i] = header.Flag32BitHeader
		case 8:
			t[i] = header.Flag64BitHeader
		}
	}
	return
}()

// Decode decodes the record that starts at b[0] and is Prefix.Size bytes
// long (b may be longer) into r, reusing r's storage. bufferOffset is the
// record's position inside its buffer. Every field of r is overwritten.
//
// Each header kind's decoder sets every field the kinds share, so nothing
// is written twice: this is the hot path of every iteration.
func Decode(r *Record, b []byte, p header.Prefix, bufferOffset int, ctx *Context) error {
	b = b[:p.Size]
	ctx.place(r, p.Type, b, bufferOffset)
	flags := ctx.flags(p.Type)
	var err error
	switch p.Type {
	case header.TypeEventHeader32, header.TypeEventHeader64:
		err = r.decodeEventHeader(b, flags, ctx.processorTime())
	case header.TypeSystem32, header.TypeSystem64, header.TypeCompact32, header.TypeCompact64,
		header.TypePerfInfo32, header.TypePerfInfo64:
		err = r.decodeKernel(b, flags)
	case header.TypeFull32, header.TypeFull64, header.TypeInstance32, header.TypeInstance64:
		err = r.decodeClassic(b, flags, ctx.processorTime())
	case header.TypeMessage:
		err = r.decodeMessage(b, ctx)
	default:
		// ERROR, TIMED, WNODE: no public layout; keep the bytes.
		r.setCommon(flags, uuid.Nil, header.EventDescriptor{}, 0, 0, ctx.BufferTimeStamp)
		r.ThreadId, r.ProcessId, r.HasThreadProcess = 0, 0, false
		r.KernelTime, r.UserTime, r.HasCPUTime, r.HasProcessorTime = 0, 0, false, false
		r.UserData = nil
		if len(b) > header.MarkerSize {
			r.UserData = b[header.MarkerSize:]
		}
	}
	return err
}

// place sets the fields that say where a record is and what kind it is,
// and clears those only INSTANCE and WPP records set, after a record of
// such a kind, and the extended items.
func (ctx *Context) place(r *Record, typ header.Type, b []byte, at int) {
	switch r.HeaderType {
	case header.TypeInstance32, header.TypeInstance64:
		r.InstanceId, r.ParentInstanceId, r.ParentGuid = 0, 0, uuid.Nil
	case header.TypeMessage:
		r.Message = header.Message{}
	}
	if r.ext != nil {
		r.ext.n = 0
	}
	r.HeaderType = typ
	r.Clock = ctx.Clock
	r.Raw = b
	r.ProcessorNumber = ctx.ProcessorNumber
	r.BufferIndex = ctx.BufferIndex
	r.BufferOffset = at
	r.FileOffset = ctx.BufferFileOffset
	if !ctx.Compressed {
		r.FileOffset += int64(at)
	}
}

// flags are the EVENT_HEADER flags ProcessTrace sets for every record of
// the header type in this buffer.
func (ctx *Context) flags(typ header.Type) uint16 {
	f := pointerFlags[typ]
	if ctx.ProcessorIndex {
		f |= header.FlagProcessorIndex
	}
	return f
}

// processorTime reports whether the classic and EVENT_HEADER records of the
// file hold a 64-bit ProcessorTime in place of KernelTime and UserTime.
func (ctx *Context) processorTime() bool {
	return ctx.Clock != nil && ctx.Clock.ProcessorTime
}

// setCommon sets the fields every kind has, and clears the ones only
// EVENT_HEADER and PERFINFO records carry; their decoders set them after.
func (r *Record) setCommon(flags uint16, provider uuid.UUID, d header.EventDescriptor, classVersion, hook uint16, raw int64) {
	r.Flags = flags
	r.EventProperty = 0
	r.ProviderId = provider
	r.EventDescriptor = d
	r.ClassVersion = classVersion
	r.HookId = hook
	r.RawTimeStamp = raw
	r.ActivityId = uuid.Nil
	r.PEBSIndex, r.HasPEBS = 0, false
	r.pmcRaw = nil
}

func (r *Record) decodeKernel(b []byte, flags uint16) error {
	h, err := header.ParseSystemHeader(b)
	if err != nil {
		return err
	}
	// The SYSTEM header keeps KernelTime and UserTime in private sessions
	// too: the logfile-header record of a private logger's file holds a few
	// ticks there, not a 64-bit count.
	r.setCommon(flags, KernelGroupGUID(h.Group(), h.Opcode()),
		header.EventDescriptor{Opcode: h.Opcode(), Version: uint8(h.Version)}, h.Version, h.HookId, h.SystemTime)
	r.ThreadId, r.ProcessId, r.HasThreadProcess = h.ThreadId, h.ProcessId, h.HasIds
	r.KernelTime, r.UserTime, r.HasCPUTime, r.HasProcessorTime = h.KernelTime, h.UserTime, h.HasCPUTimes, false
	if h.DataOffset > h.PMCOffset || h.HasPEBS {
		r.PEBSIndex, r.HasPEBS = h.PEBSIndex, h.HasPEBS
		r.pmcRaw = b[h.PMCOffset:h.DataOffset]
	}
	r.UserData = b[h.DataOffset:]
	return nil
}

func (r *Record) decodeClassic(b []byte, flags uint16, processorTime bool) error {
	h, err := header.ParseEventTraceHeader(b)
	if err != nil {
		return err
	}
	// ProcessTrace gives the descriptor the low byte of the USHORT
	// Class.Version; ClassVersion keeps all of it.
	r.setCommon(flags|header.FlagClassicHeader, h.Guid,
		header.EventDescriptor{Opcode: h.ClassType, Level: h.ClassLevel, Version: uint8(h.ClassVersion)}, h.ClassVersion, 0, h.TimeStamp)
	r.ThreadId, r.ProcessId, r.HasThreadProcess = h.ThreadId, h.ProcessId, true
	r.KernelTime, r.UserTime = h.KernelTime, h.UserTime
	r.HasCPUTime, r.HasProcessorTime = !processorTime, processorTime
	r.InstanceId, r.ParentInstanceId = h.InstanceId, h.ParentInstanceId
	r.ParentGuid = h.ParentGuid
	r.UserData = b[h.DataOffset:]
	return nil
}

// eventHeaderDiskFlags are the EVENT_HEADER flag bits a file can say
// something about; the others are set from the header type, as ProcessTrace
// does.
const eventHeaderDiskFlags = ^uint16(header.Flag32BitHeader | header.Flag64BitHeader | header.FlagClassicHeader | header.FlagTraceMessage | header.FlagProcessorIndex)

func (r *Record) decodeEventHeader(b []byte, flags uint16, processorTime bool) error {
	h, err := header.ParseEventHeader(b)
	if err != nil {
		return err
	}
	r.Flags = flags | h.Flags&eventHeaderDiskFlags
	r.EventProperty = h.EventProperty
	r.ProviderId = h.ProviderId
	r.EventDescriptor = h.Descriptor
	r.ClassVersion = uint16(h.Descriptor.Version)
	r.HookId = 0
	r.ThreadId, r.ProcessId, r.HasThreadProcess = h.ThreadId, h.ProcessId, true
	r.RawTimeStamp = h.TimeStamp
	r.KernelTime, r.UserTime = h.KernelTime, h.UserTime
	r.HasCPUTime, r.HasProcessorTime = !processorTime, processorTime
	r.ActivityId = h.ActivityId
	if r.HasPEBS || r.pmcRaw != nil {
		r.PEBSIndex, r.HasPEBS, r.pmcRaw = 0, false, nil
	}
	pos := header.EventHeaderSize
	if h.Flags&header.FlagExtendedInfo != 0 {
		pos, err = r.decodeExtended(b, pos)
		if err != nil {
			return err
		}
	}
	r.UserData = b[pos:]
	return nil
}

// extItemHeaderSize is the on-disk header of an extended item: total size,
// type, linkage and data size, each a u16; the data follows inline.
const extItemHeaderSize = 8

func (r *Record) decodeExtended(b []byte, pos int) (int, error) {
	if r.ext == nil {
		r.ext = new(extStore)
	}
	ext := r.ext
	for {
		if ext.n == MaxExtendedItems {
			return 0, fmt.Errorf("%w: more than %d extended data items", buffer.ErrMalformed, MaxExtendedItems)
		}
		if pos+extItemHeaderSize > len(b) {
			return 0, fmt.Errorf("%w: extended item header at +0x%x runs past the %d-byte record", buffer.ErrMalformed, pos, len(b))
		}
		typ := binary.LittleEndian.Uint16(b[pos+2:])
		linkage := binary.LittleEndian.Uint16(b[pos+4:])
		dataSize := int(binary.LittleEndian.Uint16(b[pos+6:]))
		start := pos + extItemHeaderSize
		if start+dataSize > len(b) {
			return 0, fmt.Errorf("%w: extended item %v at +0x%x with %d data bytes runs past the %d-byte record", buffer.ErrMalformed, ExtType(typ), pos, dataSize, len(b))
		}
		ext.items[ext.n] = ExtendedItem{Type: ExtType(typ), Data: b[start : start+dataSize : start+dataSize]}
		ext.n++
		pos = min(header.Align(start+dataSize), len(b))
		if linkage&1 == 0 {
			return pos, nil
		}
	}
}

func (r *Record) decodeMessage(b []byte, ctx *Context) error {
	m, err := header.ParseMessage(b)
	if err != nil {
		return err
	}
	// The option flags, not the header type, give the pointer size.
	flags := ctx.flags(header.TypeMessage) | header.FlagTraceMessage
	switch m.PointerSize() {
	case 4:
		flags |= header.Flag32BitHeader
	case 8:
		flags |= header.Flag64BitHeader
	}
	raw := ctx.BufferTimeStamp
	if m.HasTimeStamp() {
		raw = m.TimeStamp
	}
	r.setCommon(flags, m.Guid, header.EventDescriptor{Id: m.MessageNumber}, 0, 0, raw)
	r.Message = m
	r.ThreadId, r.ProcessId, r.HasThreadProcess = 0, 0, false
	if m.HasSystemInfo() {
		r.ThreadId, r.ProcessId, r.HasThreadProcess = m.ThreadId, m.ProcessId, true
	}
	r.KernelTime, r.UserTime, r.HasCPUTime, r.HasProcessorTime = 0, 0, false, false
	r.UserData = b[m.DataOffset:]
	return nil
}
