package header

import (
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/guid"
)

// Fixed sizes of the record headers.
const (
	SystemHeaderSize      = 0x20
	CompactHeaderSize     = 0x18
	PerfInfoHeaderSize    = 0x10
	EventTraceHeaderSize  = 0x30
	InstanceHeaderSize    = 0x48
	EventHeaderSize       = 0x50
	MarkerSize            = 4
	MaxRecordSize         = 0xFFFF
	recordAlignment       = 8
	versionPEBSFlag       = 0x8000 // TRACE_HEADER_PEBS_INDEX_FLAG
	versionPMCMask        = 0x0700 // TRACE_HEADER_PMC_COUNTERS_MASK
	versionPMCShift       = 8
	versionExtensionsMask = versionPEBSFlag | versionPMCMask
)

// Align rounds a record size up to the record alignment.
func Align(n int) int { return (n + recordAlignment - 1) &^ (recordAlignment - 1) }

// Prefix is what the first bytes of any record say: its kind and its size.
type Prefix struct {
	Type Type
	Size int // total record size, header included, alignment padding excluded
}

// ParsePrefix reads the marker of the record at the start of b. It returns
// end=true at the 0xFFFFFFFF fill that ends a buffer's records (also when fewer
// than 4 bytes remain). A record that is not a trace header, names an unknown
// type, or has a size that does not fit gives an error.
func ParsePrefix(b []byte) (p Prefix, end bool, err error) {
	if len(b) < MarkerSize {
		return Prefix{}, true, nil
	}
	marker := binary.LittleEndian.Uint32(b)
	if marker == buffer.EndMarker {
		return Prefix{}, true, nil
	}
	flags := uint8(marker >> 24)
	switch {
	case flags&(MarkerTraceHeader|MarkerEventTrace) == MarkerTraceHeader|MarkerEventTrace:
		p.Type = Type(b[2])
		if p.Type == TypeMessage {
			// 0x0F is the message's value in the type enum, but only the
			// 0x90 flags mark a message on disk; under 0xC0 the bytes
			// have no layout, and a writer could not keep them apart.
			return Prefix{}, false, fmt.Errorf("%w: 0x%02x under marker flags 0x%02x", buffer.ErrUnknownHeaderType, uint8(p.Type), flags)
		}
	case flags&(MarkerTraceHeader|MarkerEventTrace|MarkerMessage) == MarkerTraceHeader|MarkerMessage:
		p.Type = TypeMessage
	default:
		return Prefix{}, false, fmt.Errorf("%w: marker 0x%08x is not a trace header", buffer.ErrUnknownHeaderType, marker)
	}
	min := 0
	switch p.Type {
	case TypeSystem32, TypeSystem64, TypeCompact32, TypeCompact64, TypePerfInfo32, TypePerfInfo64:
		if len(b) < 6 {
			return Prefix{}, false, fmt.Errorf("%w: record header cut short", buffer.ErrTruncated)
		}
		p.Size = int(binary.LittleEndian.Uint16(b[4:]))
		min = kernelHeaderSize(p.Type, binary.LittleEndian.Uint16(b))
	case TypeFull32, TypeFull64:
		p.Size, min = int(binary.LittleEndian.Uint16(b)), EventTraceHeaderSize
	case TypeInstance32, TypeInstance64:
		p.Size, min = int(binary.LittleEndian.Uint16(b)), InstanceHeaderSize
	case TypeEventHeader32, TypeEventHeader64:
		p.Size, min = int(binary.LittleEndian.Uint16(b)), EventHeaderSize
	case TypeMessage:
		p.Size, min = int(binary.LittleEndian.Uint16(b)), MessageHeaderSize
	case TypeError, TypeTimed, TypeWnode:
		// No public layout: skipped by size.
		p.Size, min = int(binary.LittleEndian.Uint16(b)), MarkerSize
	default:
		return Prefix{}, false, fmt.Errorf("%w: 0x%02x", buffer.ErrUnknownHeaderType, uint8(p.Type))
	}
	if p.Size < min {
		return Prefix{}, false, fmt.Errorf("%w: %v record of %d bytes is smaller than its %d-byte header", buffer.ErrMalformed, p.Type, p.Size, min)
	}
	if p.Size > len(b) {
		return Prefix{}, false, fmt.Errorf("%w: %v record of %d bytes runs past the buffer's %d remaining bytes", buffer.ErrTruncated, p.Type, p.Size, len(b))
	}
	return p, false, nil
}

// kernelHeaderSize is the fixed size of a SYSTEM/COMPACT/PERFINFO header plus
// its PEBS and PMC extension bytes.
func kernelHeaderSize(t Type, version uint16) int {
	n := SystemHeaderSize
	switch t {
	case TypeCompact32, TypeCompact64:
		n = CompactHeaderSize
	case TypePerfInfo32, TypePerfInfo64:
		n = PerfInfoHeaderSize
	}
	if version&versionPEBSFlag != 0 {
		n += 8
	}
	return n + 8*int((version&versionPMCMask)>>versionPMCShift)
}

// SystemHeader mirrors SYSTEM_TRACE_HEADER, its compact form, and
// PERFINFO_TRACE_HEADER, which share Version/Type/Size/HookId; fields a form
// lacks stay zero and Has* say which are present.
type SystemHeader struct {
	Version     uint16 // payload version, extension bits masked off
	RawVersion  uint16 // as on disk
	HeaderType  Type
	Flags       uint8
	Size        uint16
	HookId      uint16
	ThreadId    uint32 // SYSTEM and COMPACT only
	ProcessId   uint32
	SystemTime  int64
	KernelTime  uint32 // SYSTEM only
	UserTime    uint32
	PEBSIndex   uint64
	HasPEBS     bool
	PMCCount    int
	PMCOffset   int // where the PMC counters start, from the record start
	DataOffset  int // where the payload starts, from the record start
	HasIds      bool
	HasCPUTimes bool
}

// Group is the HookId's high byte: the kernel event group.
func (h *SystemHeader) Group() uint8 { return uint8(h.HookId >> 8) }

// Opcode is the HookId's low byte: the event type.
func (h *SystemHeader) Opcode() uint8 { return uint8(h.HookId) }

// ParseSystemHeader decodes a SYSTEM, COMPACT or PERFINFO header. b holds the
// whole record (b[:Size]).
func ParseSystemHeader(b []byte) (SystemHeader, error) {
	if len(b) < PerfInfoHeaderSize {
		return SystemHeader{}, fmt.Errorf("%w: kernel record header needs %d bytes, have %d", buffer.ErrTruncated, PerfInfoHeaderSize, len(b))
	}
	le := binary.LittleEndian
	raw := le.Uint16(b)
	h := SystemHeader{
		RawVersion: raw,
		Version:    raw &^ versionExtensionsMask,
		HeaderType: Type(b[2]),
		Flags:      b[3],
		Size:       le.Uint16(b[4:]),
		HookId:     le.Uint16(b[6:]),
	}
	fixed := SystemHeaderSize
	switch h.HeaderType {
	case TypeSystem32, TypeSystem64:
		h.HasIds, h.HasCPUTimes = true, true
	case TypeCompact32, TypeCompact64:
		h.HasIds, fixed = true, CompactHeaderSize
	case TypePerfInfo32, TypePerfInfo64:
		fixed = PerfInfoHeaderSize
	default:
		return SystemHeader{}, fmt.Errorf("%w: %v is not a kernel header", buffer.ErrUnknownHeaderType, h.HeaderType)
	}
	need := kernelHeaderSize(h.HeaderType, raw)
	if len(b) < need || int(h.Size) < need {
		return SystemHeader{}, fmt.Errorf("%w: %v header with its extensions needs %d bytes, record has %d", buffer.ErrTruncated, h.HeaderType, need, min(len(b), int(h.Size)))
	}
	if h.HasIds {
		h.ThreadId = le.Uint32(b[8:])
		h.ProcessId = le.Uint32(b[0xC:])
		h.SystemTime = int64(le.Uint64(b[0x10:]))
	} else {
		h.SystemTime = int64(le.Uint64(b[8:]))
	}
	if h.HasCPUTimes {
		h.KernelTime = le.Uint32(b[0x18:])
		h.UserTime = le.Uint32(b[0x1C:])
	}
	pos := fixed
	if raw&versionPEBSFlag != 0 {
		h.PEBSIndex, h.HasPEBS = le.Uint64(b[pos:]), true
		pos += 8
	}
	h.PMCCount = int((raw & versionPMCMask) >> versionPMCShift)
	h.PMCOffset = pos
	h.DataOffset = pos + 8*h.PMCCount
	return h, nil
}

// EventTraceHeader mirrors EVENT_TRACE_HEADER (classic, "FULL_HEADER") and,
// for the INSTANCE types, EVENT_INSTANCE_GUID_HEADER.
type EventTraceHeader struct {
	Size             uint16
	HeaderType       Type
	MarkerFlags      uint8
	ClassType        uint8 // Class.Type: the opcode
	ClassLevel       uint8
	ClassVersion     uint16
	ThreadId         uint32
	ProcessId        uint32
	TimeStamp        int64
	Guid             uuid.UUID // class GUID
	KernelTime       uint32
	UserTime         uint32
	InstanceId       uint32 // INSTANCE only
	ParentInstanceId uint32
	ParentGuid       uuid.UUID
	DataOffset       int
}

// ParseEventTraceHeader decodes a FULL_HEADER or INSTANCE record header.
func ParseEventTraceHeader(b []byte) (EventTraceHeader, error) {
	if len(b) < EventTraceHeaderSize {
		return EventTraceHeader{}, fmt.Errorf("%w: EVENT_TRACE_HEADER needs %d bytes, have %d", buffer.ErrTruncated, EventTraceHeaderSize, len(b))
	}
	le := binary.LittleEndian
	h := EventTraceHeader{
		Size:         le.Uint16(b),
		HeaderType:   Type(b[2]),
		MarkerFlags:  b[3],
		ClassType:    b[4],
		ClassLevel:   b[5],
		ClassVersion: le.Uint16(b[6:]),
		ThreadId:     le.Uint32(b[8:]),
		ProcessId:    le.Uint32(b[0xC:]),
		TimeStamp:    int64(le.Uint64(b[0x10:])),
		KernelTime:   le.Uint32(b[0x28:]),
		UserTime:     le.Uint32(b[0x2C:]),
		DataOffset:   EventTraceHeaderSize,
	}
	h.Guid = guid.FromWindows(b[0x18:])
	if h.HeaderType == TypeInstance32 || h.HeaderType == TypeInstance64 {
		if len(b) < InstanceHeaderSize {
			return EventTraceHeader{}, fmt.Errorf("%w: EVENT_INSTANCE_GUID_HEADER needs %d bytes, have %d", buffer.ErrTruncated, InstanceHeaderSize, len(b))
		}
		h.InstanceId = le.Uint32(b[0x30:])
		h.ParentInstanceId = le.Uint32(b[0x34:])
		h.ParentGuid = guid.FromWindows(b[0x38:])
		h.DataOffset = InstanceHeaderSize
	}
	return h, nil
}

// EventHeader mirrors EVENT_HEADER as stored in a file.
type EventHeader struct {
	Size          uint16
	HeaderType    Type
	MarkerFlags   uint8
	Flags         uint16
	EventProperty uint16
	ThreadId      uint32
	ProcessId     uint32
	TimeStamp     int64
	ProviderId    uuid.UUID
	Descriptor    EventDescriptor
	KernelTime    uint32
	UserTime      uint32
	ActivityId    uuid.UUID
}

// ParseEventHeader decodes the fixed 0x50-byte EVENT_HEADER.
func ParseEventHeader(b []byte) (EventHeader, error) {
	if len(b) < EventHeaderSize {
		return EventHeader{}, fmt.Errorf("%w: EVENT_HEADER needs %d bytes, have %d", buffer.ErrTruncated, EventHeaderSize, len(b))
	}
	le := binary.LittleEndian
	h := EventHeader{
		Size:          le.Uint16(b),
		HeaderType:    Type(b[2]),
		MarkerFlags:   b[3],
		Flags:         le.Uint16(b[4:]),
		EventProperty: le.Uint16(b[6:]),
		ThreadId:      le.Uint32(b[8:]),
		ProcessId:     le.Uint32(b[0xC:]),
		TimeStamp:     int64(le.Uint64(b[0x10:])),
		ProviderId:    guid.FromWindows(b[0x18:]),
		Descriptor:    ParseEventDescriptor(b[0x28:]),
		KernelTime:    le.Uint32(b[0x38:]),
		UserTime:      le.Uint32(b[0x3C:]),
		ActivityId:    guid.FromWindows(b[0x40:]),
	}
	return h, nil
}

// ParseEventDescriptor decodes a 16-byte EVENT_DESCRIPTOR.
func ParseEventDescriptor(b []byte) EventDescriptor {
	var d EventDescriptor
	ReadEventDescriptor(&d, b)
	return d
}

// ReadEventDescriptor is ParseEventDescriptor writing into dst, field by
// field, for the reason given at guid.ReadWindows.
func ReadEventDescriptor(dst *EventDescriptor, b []byte) {
	_ = b[15]
	le := binary.LittleEndian
	dst.Id = le.Uint16(b)
	dst.Version = b[2]
	dst.Channel = b[3]
	dst.Level = b[4]
	dst.Opcode = b[5]
	dst.Task = le.Uint16(b[6:])
	dst.Keyword = le.Uint64(b[8:])
}

// ParseMessage decodes a WPP MESSAGE_TRACE_HEADER and its optional items.
func ParseMessage(b []byte) (Message, error) {
	if len(b) < MessageHeaderSize {
		return Message{}, fmt.Errorf("%w: MESSAGE_TRACE_HEADER needs %d bytes, have %d", buffer.ErrTruncated, MessageHeaderSize, len(b))
	}
	le := binary.LittleEndian
	m := Message{
		Size:          le.Uint16(b),
		MessageNumber: le.Uint16(b[4:]),
		OptionFlags:   le.Uint16(b[6:]),
	}
	pos := MessageHeaderSize
	need := func(n int, what string) error {
		if pos+n > len(b) {
			return fmt.Errorf("%w: WPP message %s at +0x%x runs past the record", buffer.ErrTruncated, what, pos)
		}
		return nil
	}
	if m.OptionFlags&MessageSequence != 0 {
		if err := need(4, "sequence"); err != nil {
			return Message{}, err
		}
		m.Sequence = le.Uint32(b[pos:])
		pos += 4
	}
	if m.OptionFlags&MessageComponentID != 0 {
		if err := need(4, "component id"); err != nil {
			return Message{}, err
		}
		m.ComponentId = le.Uint32(b[pos:])
		pos += 4
	} else if m.OptionFlags&MessageGUID != 0 {
		if err := need(16, "GUID"); err != nil {
			return Message{}, err
		}
		m.Guid = guid.FromWindows(b[pos:])
		pos += 16
	}
	if m.OptionFlags&(MessageTimestamp|MessagePerformanceTimestamp) != 0 {
		if err := need(8, "timestamp"); err != nil {
			return Message{}, err
		}
		if m.OptionFlags&MessageTimestamp != 0 {
			m.TimeStamp = int64(le.Uint64(b[pos:]))
		}
		pos += 8
	}
	if m.OptionFlags&MessageSystemInfo != 0 {
		if err := need(8, "system info"); err != nil {
			return Message{}, err
		}
		m.ThreadId = le.Uint32(b[pos:])
		m.ProcessId = le.Uint32(b[pos+4:])
		pos += 8
	}
	m.DataOffset = pos
	return m, nil
}

// CountRecords follows the records of an uncompressed buffer (buf, its
// header included) from the buffer header to end, its Offset, or when end
// is 0 to the fill that ends them. ok is false unless every record's size
// leads to the next and the last ends where the buffer says its records
// end, and the fill starts at an end given: it tells records from other
// bytes, for a buffer whose header cannot be trusted.
func CountRecords(buf []byte, end int) (n int, ok bool) {
	limit := len(buf)
	if end > 0 {
		limit = min(end, len(buf))
	}
	at := buffer.HeaderSize
	for at < limit {
		p, stop, err := ParsePrefix(buf[at:])
		switch {
		case err != nil:
			return 0, false
		case stop:
			// The fill before the Offset: the two disagree.
			return n, end == 0
		case p.Size > limit-at:
			return 0, false
		}
		n++
		at += Align(p.Size)
	}
	// An Offset is taken only where the fill starts (or the buffer ends):
	// a damaged Offset that lands on an earlier record would count less.
	if end > 0 && at < len(buf) {
		if _, stop, _ := ParsePrefix(buf[at:]); !stop {
			return 0, false
		}
	}
	return n, true
}
