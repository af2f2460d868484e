package record

import (
	"encoding/binary"
	"fmt"
	"time"

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

// Decode decodes the record that starts at b[0] and is Prefix.Size bytes
// long (b may be longer) into r, reusing r's storage. bufferOffset is the
// record's position inside its buffer. Every field of r is overwritten.
func Decode(r *Record, b []byte, p header.Prefix, bufferOffset int, ctx *Context) error {
	b = b[:p.Size]
	prev := r.HeaderType
	// Fields are reset one by one: assigning a whole struct literal clears
	// hundreds of bytes through write barriers, the costliest step per record.
	r.HeaderType = p.Type
	r.Flags = 0
	r.EventProperty = 0
	r.ProviderId = uuid.Nil
	r.EventDescriptor = header.EventDescriptor{}
	r.HookId = 0
	r.ThreadId, r.ProcessId, r.HasThreadProcess = 0, 0, false
	r.RawTimeStamp = 0
	r.TimeStamp = time.Time{}
	r.KernelTime, r.UserTime, r.HasCPUTime = 0, 0, false
	r.ActivityId = uuid.Nil
	r.ProcessorNumber = ctx.ProcessorNumber
	// Fields only some kinds set are cleared after a record of such a kind.
	switch prev {
	case header.TypeInstance32, header.TypeInstance64:
		r.InstanceId, r.ParentInstanceId, r.ParentGuid = 0, 0, uuid.Nil
	case header.TypeMessage:
		r.Message = header.Message{}
	}
	r.PEBSIndex, r.HasPEBS = 0, false
	r.pmcRaw = nil
	if r.ext != nil {
		r.ext.n = 0
	}
	r.UserData = nil
	r.Raw = b
	r.BufferIndex = ctx.BufferIndex
	r.BufferOffset = bufferOffset
	r.FileOffset = ctx.BufferFileOffset
	if !ctx.Compressed {
		r.FileOffset += int64(bufferOffset)
	}
	switch ps := p.Type.PointerSize(); ps {
	case 4:
		r.Flags = header.Flag32BitHeader
	case 8:
		r.Flags = header.Flag64BitHeader
	}
	if ctx.ProcessorIndex {
		r.Flags |= header.FlagProcessorIndex
	}
	var err error
	switch p.Type {
	case header.TypeSystem32, header.TypeSystem64, header.TypeCompact32, header.TypeCompact64,
		header.TypePerfInfo32, header.TypePerfInfo64:
		err = r.decodeKernel(b)
	case header.TypeFull32, header.TypeFull64, header.TypeInstance32, header.TypeInstance64:
		err = r.decodeClassic(b)
	case header.TypeEventHeader32, header.TypeEventHeader64:
		err = r.decodeEventHeader(b)
	case header.TypeMessage:
		err = r.decodeMessage(b, ctx)
	default:
		// ERROR, TIMED, WNODE: no public layout; keep the bytes.
		r.RawTimeStamp = ctx.BufferTimeStamp
		if len(b) > header.MarkerSize {
			r.UserData = b[header.MarkerSize:]
		}
	}
	if err != nil {
		return err
	}
	if ctx.Clock != nil {
		r.TimeStamp = ctx.Clock.UTC(r.RawTimeStamp)
	}
	return nil
}

func (r *Record) decodeKernel(b []byte) error {
	h, err := header.ParseSystemHeader(b)
	if err != nil {
		return err
	}
	r.HookId = h.HookId
	r.ProviderId = KernelGroupGUID(h.Group(), h.Opcode())
	r.EventDescriptor = header.EventDescriptor{Opcode: h.Opcode(), Version: uint8(h.Version)}
	r.ThreadId, r.ProcessId, r.HasThreadProcess = h.ThreadId, h.ProcessId, h.HasIds
	r.RawTimeStamp = h.SystemTime
	r.KernelTime, r.UserTime, r.HasCPUTime = h.KernelTime, h.UserTime, h.HasCPUTimes
	r.PEBSIndex, r.HasPEBS = h.PEBSIndex, h.HasPEBS
	r.pmcRaw = b[h.PMCOffset:h.DataOffset]
	r.UserData = b[h.DataOffset:]
	return nil
}

func (r *Record) decodeClassic(b []byte) error {
	h, err := header.ParseEventTraceHeader(b)
	if err != nil {
		return err
	}
	r.Flags |= header.FlagClassicHeader
	r.ProviderId = h.Guid
	r.EventDescriptor = header.EventDescriptor{Opcode: h.ClassType, Level: h.ClassLevel, Version: uint8(h.ClassVersion)}
	r.ThreadId, r.ProcessId, r.HasThreadProcess = h.ThreadId, h.ProcessId, true
	r.RawTimeStamp = h.TimeStamp
	r.KernelTime, r.UserTime, r.HasCPUTime = h.KernelTime, h.UserTime, true
	r.InstanceId, r.ParentInstanceId = h.InstanceId, h.ParentInstanceId
	r.ParentGuid = h.ParentGuid
	r.UserData = b[h.DataOffset:]
	return nil
}

func (r *Record) decodeEventHeader(b []byte) error {
	h, err := header.ParseEventHeader(b)
	if err != nil {
		return err
	}
	// On disk only EXTENDED_INFO and STRING_ONLY-style bits are meaningful;
	// the pointer-size bits come from the header type, as ProcessTrace does.
	r.Flags |= h.Flags &^ (header.Flag32BitHeader | header.Flag64BitHeader | header.FlagClassicHeader | header.FlagTraceMessage | header.FlagProcessorIndex)
	r.EventProperty = h.EventProperty
	r.ProviderId = h.ProviderId
	r.EventDescriptor = h.Descriptor
	r.ThreadId, r.ProcessId, r.HasThreadProcess = h.ThreadId, h.ProcessId, true
	r.RawTimeStamp = h.TimeStamp
	r.KernelTime, r.UserTime, r.HasCPUTime = h.KernelTime, h.UserTime, true
	r.ActivityId = h.ActivityId
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
	r.Message = m
	r.Flags = header.FlagTraceMessage
	switch m.PointerSize() {
	case 4:
		r.Flags |= header.Flag32BitHeader
	case 8:
		r.Flags |= header.Flag64BitHeader
	}
	if ctx.ProcessorIndex {
		r.Flags |= header.FlagProcessorIndex
	}
	r.ProviderId = uuid.UUID(m.Guid)
	r.EventDescriptor = header.EventDescriptor{Id: m.MessageNumber}
	if m.HasSystemInfo() {
		r.ThreadId, r.ProcessId, r.HasThreadProcess = m.ThreadId, m.ProcessId, true
	}
	if m.HasTimeStamp() {
		r.RawTimeStamp = m.TimeStamp
	} else {
		r.RawTimeStamp = ctx.BufferTimeStamp
	}
	r.UserData = b[m.DataOffset:]
	return nil
}
