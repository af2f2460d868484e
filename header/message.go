package header

import "github.com/google/uuid"

// WPP message option flags (TRACE_MESSAGE_*), the u16 at offset 6 of
// MESSAGE_TRACE_HEADER. The optional items follow the header in the order
// sequence, component id or GUID, timestamp, system info.
const (
	MessageSequence             = 0x0001
	MessageGUID                 = 0x0002
	MessageComponentID          = 0x0004
	MessageTimestamp            = 0x0008
	MessagePerformanceTimestamp = 0x0010
	MessageSystemInfo           = 0x0020
	MessagePointer32            = 0x0040
	MessagePointer64            = 0x0080
)

// MessageHeaderSize is the size of MESSAGE_TRACE_HEADER before its optional items.
const MessageHeaderSize = 8

// Message is a decoded WPP MESSAGE_TRACE_HEADER with its optional items.
type Message struct {
	Size          uint16
	MessageNumber uint16
	OptionFlags   uint16
	Sequence      uint32    // with MessageSequence
	ComponentId   uint32    // with MessageComponentID
	Guid          uuid.UUID // with MessageGUID and without MessageComponentID
	TimeStamp     int64     // with MessageTimestamp
	ThreadId      uint32    // with MessageSystemInfo
	ProcessId     uint32    // with MessageSystemInfo
	// DataOffset is where the packed arguments start, from the record start.
	DataOffset int
}

// HasSequence, HasComponentID, HasGUID, HasTimeStamp and HasSystemInfo say
// which optional items the message carries.
func (m *Message) HasSequence() bool    { return m.OptionFlags&MessageSequence != 0 }
func (m *Message) HasComponentID() bool { return m.OptionFlags&MessageComponentID != 0 }
func (m *Message) HasGUID() bool {
	return m.OptionFlags&MessageGUID != 0 && m.OptionFlags&MessageComponentID == 0
}
func (m *Message) HasTimeStamp() bool  { return m.OptionFlags&MessageTimestamp != 0 }
func (m *Message) HasSystemInfo() bool { return m.OptionFlags&MessageSystemInfo != 0 }

// PointerSize is the provider's pointer width from POINTER32/POINTER64, or 0.
func (m *Message) PointerSize() int {
	switch {
	case m.OptionFlags&MessagePointer64 != 0:
		return 8
	case m.OptionFlags&MessagePointer32 != 0:
		return 4
	}
	return 0
}
