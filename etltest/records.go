package etltest

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// Record is anything that can be placed in a buffer. AppendRecord appends
// the record's bytes without alignment padding; the Builder aligns records
// to 8 bytes within the buffer. On error dst is returned unchanged.
type Record interface {
	AppendRecord(dst []byte) ([]byte, error)
}

// timed is implemented by records that carry a timestamp; a buffer filled
// by a CPU stream takes the last one as its flush time.
type timed interface {
	timeStamp() (int64, bool)
}

const (
	markerFlags  = header.MarkerTraceHeader | header.MarkerEventTrace // 0xC0
	messageFlags = header.MarkerTraceHeader | header.MarkerMessage    // 0x90

	versionPEBS     = 0x8000
	versionPMCShift = 8
	maxPMC          = 7 // three bits in Version
)

// kernelExt returns the Version bits for the PEBS/PMC header extension.
func kernelExt(hasPEBS bool, pmc []uint64) (uint16, error) {
	if len(pmc) > maxPMC {
		return 0, fmt.Errorf("etltest: %d PMC counters, the header has room for %d", len(pmc), maxPMC)
	}
	v := uint16(len(pmc)) << versionPMCShift
	if hasPEBS {
		v |= versionPEBS
	}
	return v, nil
}

func appendKernelExt(dst []byte, hasPEBS bool, pebs uint64, pmc []uint64) []byte {
	// PEBS index before the counters, as the reference readers expect.
	if hasPEBS {
		dst = le.AppendUint64(dst, pebs)
	}
	for _, c := range pmc {
		dst = le.AppendUint64(dst, c)
	}
	return dst
}

func typ(bits32 bool, t32, t64 header.Type) uint8 {
	if bits32 {
		return uint8(t32)
	}
	return uint8(t64)
}

// System is a SYSTEM_TRACE_HEADER record (SYSTEM32/SYSTEM64, 0x20 bytes).
// PEBS and PMC values, rare outside PERFINFO records, go between the header
// and the payload and set their bits in Version.
type System struct {
	Bits32               bool
	Version              uint16 // payload version; extension bits are added
	HookId               uint16 // (group << 8) | type
	ThreadId, ProcessId  uint32
	TimeStamp            int64
	KernelTime, UserTime uint32
	HasPEBS              bool
	PEBSIndex            uint64
	PMC                  []uint64
	Payload              []byte
}

func (r *System) AppendRecord(dst []byte) ([]byte, error) {
	ext, err := kernelExt(r.HasPEBS, r.PMC)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = le.AppendUint16(dst, r.Version|ext)
	dst = append(dst, typ(r.Bits32, header.TypeSystem32, header.TypeSystem64), markerFlags)
	dst = le.AppendUint16(dst, 0)
	dst = le.AppendUint16(dst, r.HookId)
	dst = le.AppendUint32(dst, r.ThreadId)
	dst = le.AppendUint32(dst, r.ProcessId)
	dst = le.AppendUint64(dst, uint64(r.TimeStamp))
	dst = le.AppendUint32(dst, r.KernelTime)
	dst = le.AppendUint32(dst, r.UserTime)
	dst = appendKernelExt(dst, r.HasPEBS, r.PEBSIndex, r.PMC)
	dst = append(dst, r.Payload...)
	return patchSize(dst, start, 4)
}

func (r *System) timeStamp() (int64, bool) { return r.TimeStamp, true }

// Compact is the compact SYSTEM_TRACE_HEADER (COMPACT32/COMPACT64): the
// first 0x18 bytes of the full form, without kernel and user time.
type Compact struct {
	Bits32              bool
	Version             uint16
	HookId              uint16
	ThreadId, ProcessId uint32
	TimeStamp           int64
	HasPEBS             bool
	PEBSIndex           uint64
	PMC                 []uint64
	Payload             []byte
}

func (r *Compact) AppendRecord(dst []byte) ([]byte, error) {
	ext, err := kernelExt(r.HasPEBS, r.PMC)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = le.AppendUint16(dst, r.Version|ext)
	dst = append(dst, typ(r.Bits32, header.TypeCompact32, header.TypeCompact64), markerFlags)
	dst = le.AppendUint16(dst, 0)
	dst = le.AppendUint16(dst, r.HookId)
	dst = le.AppendUint32(dst, r.ThreadId)
	dst = le.AppendUint32(dst, r.ProcessId)
	dst = le.AppendUint64(dst, uint64(r.TimeStamp))
	dst = appendKernelExt(dst, r.HasPEBS, r.PEBSIndex, r.PMC)
	dst = append(dst, r.Payload...)
	return patchSize(dst, start, 4)
}

func (r *Compact) timeStamp() (int64, bool) { return r.TimeStamp, true }

// PerfInfo is a PERFINFO_TRACE_HEADER record (PERFINFO32/PERFINFO64, 0x10
// bytes): no thread or process id. An optional PEBS index and up to seven
// PMC counters follow the header, in that order.
type PerfInfo struct {
	Bits32    bool
	Version   uint16
	HookId    uint16
	TimeStamp int64
	HasPEBS   bool
	PEBSIndex uint64
	PMC       []uint64
	Payload   []byte
}

func (r *PerfInfo) AppendRecord(dst []byte) ([]byte, error) {
	ext, err := kernelExt(r.HasPEBS, r.PMC)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = le.AppendUint16(dst, r.Version|ext)
	dst = append(dst, typ(r.Bits32, header.TypePerfInfo32, header.TypePerfInfo64), markerFlags)
	dst = le.AppendUint16(dst, 0)
	dst = le.AppendUint16(dst, r.HookId)
	dst = le.AppendUint64(dst, uint64(r.TimeStamp))
	dst = appendKernelExt(dst, r.HasPEBS, r.PEBSIndex, r.PMC)
	dst = append(dst, r.Payload...)
	return patchSize(dst, start, 4)
}

func (r *PerfInfo) timeStamp() (int64, bool) { return r.TimeStamp, true }

// Full is a classic EVENT_TRACE_HEADER record (FULL_HEADER32/64, 0x30 bytes).
type Full struct {
	Bits32               bool
	Type                 uint8 // Class.Type: the opcode
	Level                uint8
	Version              uint16
	ThreadId, ProcessId  uint32
	TimeStamp            int64
	Guid                 uuid.UUID // event class GUID
	KernelTime, UserTime uint32
	Payload              []byte
}

func (r *Full) appendHeader(dst []byte, t32, t64 header.Type) []byte {
	dst = le.AppendUint16(dst, 0)
	dst = append(dst, typ(r.Bits32, t32, t64), markerFlags)
	dst = append(dst, r.Type, r.Level)
	dst = le.AppendUint16(dst, r.Version)
	dst = le.AppendUint32(dst, r.ThreadId)
	dst = le.AppendUint32(dst, r.ProcessId)
	dst = le.AppendUint64(dst, uint64(r.TimeStamp))
	dst = guid.AppendWindows(dst, r.Guid)
	dst = le.AppendUint32(dst, r.KernelTime)
	return le.AppendUint32(dst, r.UserTime)
}

func (r *Full) AppendRecord(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = r.appendHeader(dst, header.TypeFull32, header.TypeFull64)
	dst = append(dst, r.Payload...)
	return patchSize(dst, start, 0)
}

func (r *Full) timeStamp() (int64, bool) { return r.TimeStamp, true }

// Instance is EVENT_INSTANCE_GUID_HEADER (INSTANCE32/64, 0x48 bytes): the
// classic header followed by instance ids and the parent's GUID.
type Instance struct {
	Full             // header fields; its Payload follows the instance fields
	InstanceId       uint32
	ParentInstanceId uint32
	ParentGuid       uuid.UUID
}

func (r *Instance) AppendRecord(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = r.appendHeader(dst, header.TypeInstance32, header.TypeInstance64)
	dst = le.AppendUint32(dst, r.InstanceId)
	dst = le.AppendUint32(dst, r.ParentInstanceId)
	dst = guid.AppendWindows(dst, r.ParentGuid)
	dst = append(dst, r.Payload...)
	return patchSize(dst, start, 0)
}

// ExtItem is one EVENT_HEADER extended data item. The helpers in
// extended.go build the common kinds.
type ExtItem struct {
	Type record.ExtType
	Data []byte
}

// Event is an EVENT_HEADER record (EVENT_HEADER32/64, 0x50 bytes), the
// manifest and TraceLogging kind. EXTENDED_INFO is set in Flags whenever
// Ext is not empty.
type Event struct {
	Bits32               bool
	Flags                uint16
	EventProperty        uint16
	ThreadId, ProcessId  uint32
	TimeStamp            int64
	ProviderId           uuid.UUID
	Descriptor           header.EventDescriptor
	KernelTime, UserTime uint32
	ActivityId           uuid.UUID
	Ext                  []ExtItem
	UserData             []byte
}

func (r *Event) AppendRecord(dst []byte) ([]byte, error) {
	start := len(dst)
	flags := r.Flags
	if len(r.Ext) > 0 {
		flags |= header.FlagExtendedInfo
	}
	dst = le.AppendUint16(dst, 0)
	dst = append(dst, typ(r.Bits32, header.TypeEventHeader32, header.TypeEventHeader64), markerFlags)
	dst = le.AppendUint16(dst, flags)
	dst = le.AppendUint16(dst, r.EventProperty)
	dst = le.AppendUint32(dst, r.ThreadId)
	dst = le.AppendUint32(dst, r.ProcessId)
	dst = le.AppendUint64(dst, uint64(r.TimeStamp))
	dst = guid.AppendWindows(dst, r.ProviderId)
	dst = appendDescriptor(dst, &r.Descriptor)
	dst = le.AppendUint32(dst, r.KernelTime)
	dst = le.AppendUint32(dst, r.UserTime)
	dst = guid.AppendWindows(dst, r.ActivityId)
	var err error
	if dst, err = appendExtItems(dst, r.Ext); err != nil {
		return dst[:start], err
	}
	dst = append(dst, r.UserData...)
	return patchSize(dst, start, 0)
}

func (r *Event) timeStamp() (int64, bool) { return r.TimeStamp, true }

func appendDescriptor(dst []byte, d *header.EventDescriptor) []byte {
	dst = le.AppendUint16(dst, d.Id)
	dst = append(dst, d.Version, d.Channel, d.Level, d.Opcode)
	dst = le.AppendUint16(dst, d.Task)
	return le.AppendUint64(dst, d.Keyword)
}

// appendExtItems writes the items as they are on disk: an 8-byte header
// whose first u16 is the whole item size rounded up to 8, the linkage bit on
// every item but the last, then the data inline and zero padding.
func appendExtItems(dst []byte, items []ExtItem) ([]byte, error) {
	for i, it := range items {
		if len(it.Data) > 0xFFFF-8 {
			return dst, fmt.Errorf("etltest: extended item %v of %d bytes is too large", it.Type, len(it.Data))
		}
		size := header.Align(8 + len(it.Data))
		var linkage uint16
		if i < len(items)-1 {
			linkage = 1
		}
		dst = le.AppendUint16(dst, uint16(size))
		dst = le.AppendUint16(dst, uint16(it.Type))
		dst = le.AppendUint16(dst, linkage)
		dst = le.AppendUint16(dst, uint16(len(it.Data)))
		dst = append(dst, it.Data...)
		dst = append(dst, make([]byte, size-8-len(it.Data))...)
	}
	return dst, nil
}

// Message is a WPP MESSAGE_TRACE_HEADER record (flags byte 0x90). The
// optional items follow in the order the option flags define: sequence,
// component id or else GUID, timestamp, thread and process id. With only
// PERFORMANCE_TIMESTAMP the 8 timestamp bytes are reserved and left zero,
// because Windows writes the value only under TIMESTAMP.
type Message struct {
	Reserved            uint8 // byte 2, zero in practice
	MessageNumber       uint16
	OptionFlags         uint16
	Sequence            uint32
	ComponentId         uint32
	Guid                uuid.UUID
	TimeStamp           int64
	ThreadId, ProcessId uint32
	Args                []byte
}

func (r *Message) AppendRecord(dst []byte) ([]byte, error) {
	start := len(dst)
	f := r.OptionFlags
	dst = le.AppendUint16(dst, 0)
	dst = append(dst, r.Reserved, messageFlags)
	dst = le.AppendUint16(dst, r.MessageNumber)
	dst = le.AppendUint16(dst, f)
	if f&header.MessageSequence != 0 {
		dst = le.AppendUint32(dst, r.Sequence)
	}
	switch {
	case f&header.MessageComponentID != 0:
		dst = le.AppendUint32(dst, r.ComponentId)
	case f&header.MessageGUID != 0:
		dst = guid.AppendWindows(dst, r.Guid)
	}
	if f&(header.MessageTimestamp|header.MessagePerformanceTimestamp) != 0 {
		var ts int64
		if f&header.MessageTimestamp != 0 {
			ts = r.TimeStamp
		}
		dst = le.AppendUint64(dst, uint64(ts))
	}
	if f&header.MessageSystemInfo != 0 {
		dst = le.AppendUint32(dst, r.ThreadId)
		dst = le.AppendUint32(dst, r.ProcessId)
	}
	dst = append(dst, r.Args...)
	return patchSize(dst, start, 0)
}

func (r *Message) timeStamp() (int64, bool) {
	return r.TimeStamp, r.OptionFlags&header.MessageTimestamp != 0
}

// ErrorRecord is the opaque ERROR record (header type 0x0D): a u16 size,
// the type, the 0xC0 marker, then Body. Readers can only skip it by size.
type ErrorRecord struct {
	Body []byte
}

func (r *ErrorRecord) AppendRecord(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = le.AppendUint16(dst, 0)
	dst = append(dst, uint8(header.TypeError), markerFlags)
	dst = append(dst, r.Body...)
	return patchSize(dst, start, 0)
}

// Raw is written as it is: use it for records of kinds this package does not
// model, or for bytes that must not parse.
type Raw []byte

func (r Raw) AppendRecord(dst []byte) ([]byte, error) { return append(dst, r...), nil }
