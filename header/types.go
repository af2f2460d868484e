// Package header decodes the fixed on-disk headers of an ETL file: the
// logfile header, and every kind of record header (kernel SYSTEM, COMPACT and
// PERFINFO headers, classic EVENT_TRACE_HEADER and its INSTANCE form,
// EVENT_HEADER with its EVENT_DESCRIPTOR, and the WPP message header). It
// also converts raw session-clock timestamps to UTC.
package header

import "fmt"

// Type is the record header type (byte 2 of a record whose marker flags are 0xC0).
type Type uint8

const (
	TypeSystem32      Type = 0x01
	TypeSystem64      Type = 0x02
	TypeCompact32     Type = 0x03
	TypeCompact64     Type = 0x04
	TypeFull32        Type = 0x0A // EVENT_TRACE_HEADER, classic
	TypeInstance32    Type = 0x0B // EVENT_INSTANCE_GUID_HEADER
	TypeTimed         Type = 0x0C
	TypeError         Type = 0x0D
	TypeWnode         Type = 0x0E
	TypeMessage       Type = 0x0F // WPP; on disk marked by the 0x90 flags byte instead
	TypePerfInfo32    Type = 0x10
	TypePerfInfo64    Type = 0x11
	TypeEventHeader32 Type = 0x12
	TypeEventHeader64 Type = 0x13
	TypeFull64        Type = 0x14
	TypeInstance64    Type = 0x15
)

// String gives the name used in our output (SYSTEM64, EVENT_HEADER32, …).
func (t Type) String() string {
	switch t {
	case TypeSystem32:
		return "SYSTEM32"
	case TypeSystem64:
		return "SYSTEM64"
	case TypeCompact32:
		return "COMPACT32"
	case TypeCompact64:
		return "COMPACT64"
	case TypeFull32:
		return "FULL_HEADER32"
	case TypeFull64:
		return "FULL_HEADER64"
	case TypeInstance32:
		return "INSTANCE32"
	case TypeInstance64:
		return "INSTANCE64"
	case TypeTimed:
		return "TIMED"
	case TypeError:
		return "ERROR"
	case TypeWnode:
		return "WNODE"
	case TypeMessage:
		return "MESSAGE"
	case TypePerfInfo32:
		return "PERFINFO32"
	case TypePerfInfo64:
		return "PERFINFO64"
	case TypeEventHeader32:
		return "EVENT_HEADER32"
	case TypeEventHeader64:
		return "EVENT_HEADER64"
	}
	return fmt.Sprintf("HEADER_TYPE_0x%02X", uint8(t))
}

// PointerSize is the pointer width of the record's payload: 4 for the 32-bit
// header types, 8 for the 64-bit ones, 0 when the type does not say (MESSAGE,
// whose option flags say instead, and the opaque kinds).
func (t Type) PointerSize() int {
	switch t {
	case TypeSystem32, TypeCompact32, TypeFull32, TypeInstance32, TypePerfInfo32, TypeEventHeader32:
		return 4
	case TypeSystem64, TypeCompact64, TypeFull64, TypeInstance64, TypePerfInfo64, TypeEventHeader64:
		return 8
	}
	return 0
}

// IsKernel reports whether the header is one of the kernel kinds
// (SYSTEM, COMPACT, PERFINFO) whose provider is given by the HookId group.
func (t Type) IsKernel() bool {
	switch t {
	case TypeSystem32, TypeSystem64, TypeCompact32, TypeCompact64, TypePerfInfo32, TypePerfInfo64:
		return true
	}
	return false
}

// IsClassic reports whether the header is EVENT_TRACE_HEADER or its INSTANCE form.
func (t Type) IsClassic() bool {
	switch t {
	case TypeFull32, TypeFull64, TypeInstance32, TypeInstance64:
		return true
	}
	return false
}

// Marker flag bits: the high byte of a record's first dword.
const (
	MarkerTraceHeader = 0x80 // TRACE_HEADER_FLAG: set in every trace header
	MarkerEventTrace  = 0x40 // TRACE_HEADER_EVENT_TRACE
	MarkerMessage     = 0x10 // TRACE_MESSAGE
)

// EventDescriptor mirrors EVENT_DESCRIPTOR (16 bytes).
type EventDescriptor struct {
	Id      uint16
	Version uint8
	Channel uint8
	Level   uint8
	Opcode  uint8
	Task    uint16
	Keyword uint64
}

// EVENT_HEADER Flags (evntcons.h). Only EXTENDED_INFO is set on disk; the rest
// are set by a consumer when it translates a record, as we do.
const (
	FlagExtendedInfo   = 0x0001
	FlagPrivateSession = 0x0002
	FlagStringOnly     = 0x0004
	FlagTraceMessage   = 0x0008
	FlagNoCPUTime      = 0x0010
	Flag32BitHeader    = 0x0020
	Flag64BitHeader    = 0x0040
	FlagDecodeGUID     = 0x0080
	FlagClassicHeader  = 0x0100
	FlagProcessorIndex = 0x0200
)

// EVENT_HEADER EventProperty bits.
const (
	PropertyXML            = 0x0001
	PropertyForwardedXML   = 0x0002
	PropertyLegacyEventLog = 0x0004
	PropertyReloggable     = 0x0008
)
