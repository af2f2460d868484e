package record

import (
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/guid"
)

// ExtType is EVENT_HEADER_EXTENDED_DATA_ITEM.ExtType.
type ExtType uint16

const (
	ExtRelatedActivityID ExtType = 0x01
	ExtSID               ExtType = 0x02
	ExtTerminalSessionID ExtType = 0x03
	ExtInstanceInfo      ExtType = 0x04
	ExtStackTrace32      ExtType = 0x05
	ExtStackTrace64      ExtType = 0x06
	ExtPEBSIndex         ExtType = 0x07
	ExtPMCCounters       ExtType = 0x08
	ExtPSMKey            ExtType = 0x09
	ExtEventKey          ExtType = 0x0A
	ExtEventSchemaTL     ExtType = 0x0B
	ExtProviderTraits    ExtType = 0x0C
	ExtProcessStartKey   ExtType = 0x0D
	ExtControlGUID       ExtType = 0x0E
	ExtQPCDelta          ExtType = 0x0F
	ExtContainerID       ExtType = 0x10
	ExtStackKey32        ExtType = 0x11
	ExtStackKey64        ExtType = 0x12
)

var extNames = map[ExtType]string{
	ExtRelatedActivityID: "RELATED_ACTIVITYID", ExtSID: "SID", ExtTerminalSessionID: "TS_ID",
	ExtInstanceInfo: "INSTANCE_INFO", ExtStackTrace32: "STACK_TRACE32", ExtStackTrace64: "STACK_TRACE64",
	ExtPEBSIndex: "PEBS_INDEX", ExtPMCCounters: "PMC_COUNTERS", ExtPSMKey: "PSM_KEY", ExtEventKey: "EVENT_KEY",
	ExtEventSchemaTL: "EVENT_SCHEMA_TL", ExtProviderTraits: "PROV_TRAITS", ExtProcessStartKey: "PROCESS_START_KEY",
	ExtControlGUID: "CONTROL_GUID", ExtQPCDelta: "QPC_DELTA", ExtContainerID: "CONTAINER_ID",
	ExtStackKey32: "STACK_KEY32", ExtStackKey64: "STACK_KEY64",
}

func (t ExtType) String() string {
	if n, ok := extNames[t]; ok {
		return n
	}
	return fmt.Sprintf("EXT_0x%04X", uint16(t))
}

// ExtendedItem is one extended data item; Data is a view into the record.
type ExtendedItem struct {
	Type ExtType
	Data []byte
}

func (it ExtendedItem) errSize(want string) error {
	return fmt.Errorf("%w: extended item %v has %d bytes, want %s", buffer.ErrMalformed, it.Type, len(it.Data), want)
}

func (it ExtendedItem) guid() (uuid.UUID, error) {
	if len(it.Data) < 16 {
		return uuid.Nil, it.errSize("16")
	}
	return guid.FromWindows(it.Data), nil
}

func (it ExtendedItem) u64() (uint64, error) {
	if len(it.Data) < 8 {
		return 0, it.errSize("8")
	}
	return binary.LittleEndian.Uint64(it.Data), nil
}

// RelatedActivityID decodes a RELATED_ACTIVITYID item.
func (it ExtendedItem) RelatedActivityID() (uuid.UUID, error) { return it.guid() }

// ControlGUID decodes a CONTROL_GUID item.
func (it ExtendedItem) ControlGUID() (uuid.UUID, error) { return it.guid() }

// ContainerID decodes a CONTAINER_ID item.
func (it ExtendedItem) ContainerID() (uuid.UUID, error) { return it.guid() }

// TerminalSessionID decodes a TS_ID item.
func (it ExtendedItem) TerminalSessionID() (uint32, error) {
	if len(it.Data) < 4 {
		return 0, it.errSize("4")
	}
	return binary.LittleEndian.Uint32(it.Data), nil
}

// EventKey decodes an EVENT_KEY item.
func (it ExtendedItem) EventKey() (uint64, error) { return it.u64() }

// ProcessStartKey decodes a PROCESS_START_KEY item.
func (it ExtendedItem) ProcessStartKey() (uint64, error) { return it.u64() }

// PEBSIndex decodes a PEBS_INDEX item.
func (it ExtendedItem) PEBSIndex() (uint64, error) { return it.u64() }

// PSMKey decodes a PSM_KEY item.
func (it ExtendedItem) PSMKey() (uint64, error) { return it.u64() }

// QPCDelta decodes a QPC_DELTA item.
func (it ExtendedItem) QPCDelta() (uint64, error) { return it.u64() }

// PMCCount returns the number of counters in a PMC_COUNTERS item; read
// them with PMCCounter.
func (it ExtendedItem) PMCCount() int { return len(it.Data) / 8 }

// PMCCounter returns the i-th counter of a PMC_COUNTERS item.
func (it ExtendedItem) PMCCounter(i int) uint64 { return binary.LittleEndian.Uint64(it.Data[i*8:]) }

// InstanceInfo is the INSTANCE_INFO item.
type InstanceInfo struct {
	InstanceId       uint32
	ParentInstanceId uint32
	ParentGuid       uuid.UUID
}

// InstanceInfo decodes an INSTANCE_INFO item.
func (it ExtendedItem) InstanceInfo() (InstanceInfo, error) {
	if len(it.Data) < 24 {
		return InstanceInfo{}, it.errSize("24")
	}
	return InstanceInfo{
		InstanceId:       binary.LittleEndian.Uint32(it.Data),
		ParentInstanceId: binary.LittleEndian.Uint32(it.Data[4:]),
		ParentGuid:       guid.FromWindows(it.Data[8:]),
	}, nil
}

// StackTrace is a STACK_TRACE32/64 item: a MatchId and the return addresses,
// read with Address.
type StackTrace struct {
	MatchId     uint64
	PointerSize int
	raw         []byte
}

// Len is the number of frames.
func (s StackTrace) Len() int { return len(s.raw) / s.PointerSize }

// Address returns frame i.
func (s StackTrace) Address(i int) uint64 {
	if s.PointerSize == 4 {
		return uint64(binary.LittleEndian.Uint32(s.raw[i*4:]))
	}
	return binary.LittleEndian.Uint64(s.raw[i*8:])
}

// StackTrace decodes a STACK_TRACE32 or STACK_TRACE64 item.
func (it ExtendedItem) StackTrace() (StackTrace, error) {
	ps := 8
	switch it.Type {
	case ExtStackTrace32:
		ps = 4
	case ExtStackTrace64:
	default:
		return StackTrace{}, fmt.Errorf("%w: extended item %v is not a stack trace", buffer.ErrMalformed, it.Type)
	}
	if len(it.Data) < 8 || (len(it.Data)-8)%ps != 0 {
		return StackTrace{}, it.errSize(fmt.Sprintf("8 + n×%d", ps))
	}
	return StackTrace{MatchId: binary.LittleEndian.Uint64(it.Data), PointerSize: ps, raw: it.Data[8:]}, nil
}

// StackKey is a STACK_KEY32/64 item: the stack is not in the record but in
// the session's stack cache, under Key; the cache logs the frames later,
// in a StackWalk KeyDelete or KeyRundown record.
type StackKey struct {
	MatchId uint64
	Key     uint64
}

// StackKey decodes a STACK_KEY32 item ({u64 MatchId; u32 StackKey; u32
// padding}) or a STACK_KEY64 one ({u64 MatchId; u64 StackKey}).
func (it ExtendedItem) StackKey() (StackKey, error) {
	switch it.Type {
	case ExtStackKey32:
		if len(it.Data) < 12 {
			return StackKey{}, it.errSize("12")
		}
		return StackKey{MatchId: binary.LittleEndian.Uint64(it.Data), Key: uint64(binary.LittleEndian.Uint32(it.Data[8:]))}, nil
	case ExtStackKey64:
		if len(it.Data) < 16 {
			return StackKey{}, it.errSize("16")
		}
		return StackKey{MatchId: binary.LittleEndian.Uint64(it.Data), Key: binary.LittleEndian.Uint64(it.Data[8:])}, nil
	}
	return StackKey{}, fmt.Errorf("%w: extended item %v is not a stack key", buffer.ErrMalformed, it.Type)
}

// SID decodes a SID item.
func (it ExtendedItem) SID() (SID, error) {
	s, _, err := ParseSID(it.Data)
	return s, err
}

// SID is a Windows security identifier, a view into record bytes.
type SID struct {
	Revision            uint8
	IdentifierAuthority uint64 // 48-bit big-endian value
	raw                 []byte // sub-authorities
}

// SubAuthorityCount is the number of sub-authorities.
func (s SID) SubAuthorityCount() int { return len(s.raw) / 4 }

// SubAuthority returns sub-authority i.
func (s SID) SubAuthority(i int) uint32 { return binary.LittleEndian.Uint32(s.raw[i*4:]) }

// String renders the S-1-5-… form.
func (s SID) String() string {
	out := fmt.Sprintf("S-%d-", s.Revision)
	if s.IdentifierAuthority >= 1<<32 {
		out += fmt.Sprintf("0x%012X", s.IdentifierAuthority)
	} else {
		out += fmt.Sprintf("%d", s.IdentifierAuthority)
	}
	for i := 0; i < s.SubAuthorityCount(); i++ {
		out += fmt.Sprintf("-%d", s.SubAuthority(i))
	}
	return out
}

// ParseSID decodes a SID at the start of b and returns it with its size.
func ParseSID(b []byte) (SID, int, error) {
	if len(b) < 8 {
		return SID{}, 0, fmt.Errorf("%w: SID needs 8 bytes, have %d", buffer.ErrMalformed, len(b))
	}
	n := int(b[1])
	size := 8 + 4*n
	if len(b) < size {
		return SID{}, 0, fmt.Errorf("%w: SID with %d sub-authorities needs %d bytes, have %d", buffer.ErrMalformed, n, size, len(b))
	}
	var auth uint64
	for _, c := range b[2:8] {
		auth = auth<<8 | uint64(c)
	}
	return SID{Revision: b[0], IdentifierAuthority: auth, raw: b[8:size]}, size, nil
}
