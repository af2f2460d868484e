package buffer

import "encoding/binary"

// Put writes h as a WMI_BUFFER_HEADER into the first HeaderSize bytes of b,
// every field as it is: the inverse of ParseHeader. It panics when b is
// shorter than HeaderSize, as binary.PutUint32 does.
func (h *Header) Put(b []byte) {
	_ = b[HeaderSize-1]
	le := binary.LittleEndian
	le.PutUint32(b[0x00:], h.BufferSize)
	le.PutUint32(b[0x04:], h.SavedOffset)
	le.PutUint32(b[0x08:], h.CurrentOffset)
	le.PutUint32(b[0x0C:], uint32(h.ReferenceCount))
	le.PutUint64(b[0x10:], uint64(h.TimeStamp))
	le.PutUint64(b[0x18:], uint64(h.SequenceNumber))
	le.PutUint64(b[0x20:], h.ClockInfo)
	le.PutUint16(b[0x28:], h.ClientContext)
	le.PutUint16(b[0x2A:], h.LoggerId)
	le.PutUint32(b[0x2C:], uint32(h.State))
	le.PutUint32(b[0x30:], h.Offset)
	le.PutUint16(b[0x34:], uint16(h.BufferFlag))
	le.PutUint16(b[0x36:], uint16(h.BufferType))
	copy(b[0x38:HeaderSize], h.ReferenceTime[:])
}

// SetProcessor stores the processor that wrote the buffer the way
// ProcessorNumber reads it back: with index, as a 16-bit ProcessorIndex
// under FlagProcIndex; without, as the 8-bit ProcessorNumber, keeping the
// Alignment byte above it. A processor above 0xFF needs index.
func (h *Header) SetProcessor(cpu uint16, index bool) {
	if index {
		h.BufferFlag |= FlagProcIndex
		h.ClientContext = cpu
		return
	}
	h.BufferFlag &^= FlagProcIndex
	h.ClientContext = h.ClientContext&0xFF00 | cpu&0xFF
}
