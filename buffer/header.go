// Package buffer walks an ETL file buffer by buffer and decodes each
// WMI_BUFFER_HEADER. It hands out the bytes of each buffer's valid records
// (decompressed when the buffer is compressed).
package buffer

import (
	"encoding/binary"
	"fmt"
)

// HeaderSize is the size of WMI_BUFFER_HEADER on disk, for 32- and 64-bit
// sessions alike. Records start right after it.
const HeaderSize = 0x48

// Flag is the BufferFlag field (offset 0x34).
type Flag uint16

const (
	FlagFlushMarker     Flag = 0x0001
	FlagEventsLost      Flag = 0x0002
	FlagBufferLost      Flag = 0x0004
	FlagRTBackupCorrupt Flag = 0x0008
	FlagRTBackup        Flag = 0x0010
	FlagProcIndex       Flag = 0x0020 // ClientContext holds a 16-bit processor index
	FlagCompressed      Flag = 0x0040 // payload after the header is compressed
)

var flagNames = []struct {
	f    Flag
	name string
}{
	{FlagFlushMarker, "FLUSH_MARKER"}, {FlagEventsLost, "EVENTS_LOST"}, {FlagBufferLost, "BUFFER_LOST"},
	{FlagRTBackupCorrupt, "RTBACKUP_CORRUPT"}, {FlagRTBackup, "RTBACKUP"}, {FlagProcIndex, "PROC_INDEX"},
	{FlagCompressed, "COMPRESSED"},
}

func (f Flag) String() string {
	if f == 0 {
		return "0"
	}
	s := ""
	rest := f
	for _, n := range flagNames {
		if f&n.f != 0 {
			if s != "" {
				s += "|"
			}
			s += n.name
			rest &^= n.f
		}
	}
	if rest != 0 {
		if s != "" {
			s += "|"
		}
		s += fmt.Sprintf("0x%x", uint16(rest))
	}
	return s
}

// Type is the BufferType field (offset 0x36).
type Type uint16

const (
	TypeGeneric     Type = 0
	TypeRundown     Type = 1
	TypeCtxSwap     Type = 2
	TypeRefTime     Type = 3
	TypeHeader      Type = 4
	TypeBatched     Type = 5
	TypeEmptyMarker Type = 6
	TypeDbgInfo     Type = 7
	TypeMaximum     Type = 8
)

var typeNames = [...]string{"GENERIC", "RUNDOWN", "CTX_SWAP", "REFTIME", "HEADER", "BATCHED", "EMPTY_MARKER", "DBG_INFO", "MAXIMUM"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint16(t))
}

// State is the ETW_BUFFER_STATE field (offset 0x2C).
type State uint32

const (
	StateFree               State = 0
	StateGeneralLogging     State = 1
	StateCSwitch            State = 2
	StateFlush              State = 3
	StatePendingCompression State = 4
	StateCompressed         State = 5
	StatePlaceholder        State = 6
)

// ProcessorIndexMask is ETW_PROCESSOR_INDEX_MASK: the bits of the 16-bit
// ProcessorIndex that hold the processor when FlagProcIndex is set.
const ProcessorIndexMask = 0x07FF

// EndMarker fills the unused tail of a buffer; a record slot that starts with
// it ends the buffer's records.
const EndMarker = 0xFFFFFFFF

// Header mirrors WMI_BUFFER_HEADER (0x48 bytes).
type Header struct {
	BufferSize     uint32 // 0x00: distance to the next buffer, header included
	SavedOffset    uint32 // 0x04: unreliable; see Offset
	CurrentOffset  uint32 // 0x08: writer's cursor, not meaningful in files
	ReferenceCount int32  // 0x0C
	TimeStamp      int64  // 0x10: flush time, session clock
	SequenceNumber int64  // 0x18: global flush order
	ClockInfo      uint64 // 0x20: union with list pointers; garbage in files
	ClientContext  uint16 // 0x28: ProcessorNumber+Alignment, or ProcessorIndex
	LoggerId       uint16 // 0x2A
	State          State  // 0x2C
	Offset         uint32 // 0x30: end of valid records (decompressed size + 0x48 when compressed)
	BufferFlag     Flag   // 0x34
	BufferType     Type   // 0x36
	ReferenceTime  [16]byte
}

// ParseHeader decodes a WMI_BUFFER_HEADER from the first HeaderSize bytes of b.
func ParseHeader(b []byte) (Header, bool) {
	if len(b) < HeaderSize {
		return Header{}, false
	}
	le := binary.LittleEndian
	h := Header{
		BufferSize:     le.Uint32(b[0x00:]),
		SavedOffset:    le.Uint32(b[0x04:]),
		CurrentOffset:  le.Uint32(b[0x08:]),
		ReferenceCount: int32(le.Uint32(b[0x0C:])),
		TimeStamp:      int64(le.Uint64(b[0x10:])),
		SequenceNumber: int64(le.Uint64(b[0x18:])),
		ClockInfo:      le.Uint64(b[0x20:]),
		ClientContext:  le.Uint16(b[0x28:]),
		LoggerId:       le.Uint16(b[0x2A:]),
		State:          State(le.Uint32(b[0x2C:])),
		Offset:         le.Uint32(b[0x30:]),
		BufferFlag:     Flag(le.Uint16(b[0x34:])),
		BufferType:     Type(le.Uint16(b[0x36:])),
	}
	copy(h.ReferenceTime[:], b[0x38:0x48])
	return h, true
}

// ProcessorNumber applies the PROC_INDEX rule: with the flag the 16-bit
// index masked by ProcessorIndexMask, without it the low byte only (the high
// byte is then the Alignment field, which relogged Win7 files fill).
func (h *Header) ProcessorNumber() uint16 {
	if h.BufferFlag&FlagProcIndex != 0 {
		return h.ClientContext & ProcessorIndexMask
	}
	return h.ClientContext & 0xFF
}

// Compressed reports whether the payload after the header is compressed.
func (h *Header) Compressed() bool { return h.BufferFlag&FlagCompressed != 0 }
