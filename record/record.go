// Package record holds the decoded event, our EVENT_RECORD: the header fields
// every kind of record header shares once translated the way ProcessTrace
// translates them, the extended data items, and the user data.
package record

import (
	"encoding/binary"
	"time"
	"unsafe"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
)

// MaxExtendedItems bounds the extended data items read from one record; a
// record announcing more is malformed.
const MaxExtendedItems = 16

// Record is one decoded event. Its byte slices (UserData, Raw, the extended
// items' Data) are views into the buffer being read and stay valid only until
// the iteration moves on; Clone keeps a record for longer.
type Record struct {
	HeaderType    header.Type
	Flags         uint16 // EVENT_HEADER_FLAG_* as ProcessTrace sets them
	EventProperty uint16 // EVENT_HEADER only

	// ProviderId is the EVENT_HEADER provider, the classic class GUID, or
	// for kernel records the GUID of the HookId's group.
	ProviderId uuid.UUID
	// EventDescriptor is as ProcessTrace gives it; its Version is a byte,
	// which for kernel and classic records is the low byte of the header's.
	EventDescriptor header.EventDescriptor
	// ClassVersion is the whole version of the record's header: the USHORT
	// Class.Version of FULL and INSTANCE headers, which selects the MOF
	// class; the Version of SYSTEM, COMPACT and PERFINFO headers with the
	// PEBS and PMC extension bits masked off; for EVENT_HEADER records the
	// descriptor's Version; 0 for the other kinds.
	ClassVersion uint16
	// HookId is (group << 8) | type for kernel records, 0 otherwise.
	HookId uint16

	// ThreadId and ProcessId are meaningful only when HasThreadProcess is
	// true: PERFINFO records carry neither, and WPP messages only with their
	// SYSTEMINFO option.
	ThreadId         uint32
	ProcessId        uint32
	HasThreadProcess bool

	RawTimeStamp int64 // session clock
	// Clock converts RawTimeStamp for TimeStamp and FileTime: the clock of
	// the file the record came from, shared and read-only, or nil for a
	// record decoded without one.
	Clock *header.Clock
	// KernelTime and UserTime are the header's CPU-time fields; HasCPUTime
	// says the record has them (SYSTEM, FULL, INSTANCE and EVENT_HEADER
	// records). In a private logger's file the FULL, INSTANCE and
	// EVENT_HEADER records hold one 64-bit ProcessorTime in those eight
	// bytes instead: HasProcessorTime is then set in place of HasCPUTime,
	// and ProcessorTime reads it.
	KernelTime       uint32
	UserTime         uint32
	HasCPUTime       bool
	HasProcessorTime bool

	ActivityId uuid.UUID // EVENT_HEADER only

	ProcessorNumber uint16

	// INSTANCE headers.
	InstanceId       uint32
	ParentInstanceId uint32
	ParentGuid       uuid.UUID

	// Message holds the WPP header fields of a MESSAGE record.
	Message header.Message

	// PERFINFO (and, rarely, SYSTEM) header extension items.
	PEBSIndex uint64
	HasPEBS   bool
	pmcRaw    []byte // PMC counters, 8 bytes each
	// ext holds the extended items; it is allocated with the first record
	// that has any and reused, so that clearing a Record stays cheap.
	ext        *extStore
	UserData   []byte // the payload after the header and extended items
	Raw        []byte // the whole record as on disk (decompressed)
	FileOffset int64  // where the record starts (for compressed buffers: the buffer's offset)
	// BufferIndex is the index of the buffer in file order; BufferOffset is
	// the record's position inside the (decompressed) buffer.
	BufferIndex  int
	BufferOffset int
}

// TimeStamp is RawTimeStamp in UTC, exact to the 100 ns, or the zero Time
// when the record has no Clock. It is worked out on each call, so that a
// pass that never asks for it does not pay for it on every record.
func (r *Record) TimeStamp() time.Time {
	if r.Clock == nil {
		return time.Time{}
	}
	return r.Clock.UTC(r.RawTimeStamp)
}

// FileTime is RawTimeStamp as a FILETIME (100 ns units since 1601, UTC), the
// form ProcessTrace gives it in, and false when the record has no Clock.
func (r *Record) FileTime() (int64, bool) {
	if r.Clock == nil {
		return 0, false
	}
	return r.Clock.FileTime(r.RawTimeStamp), true
}

// PointerSize is the pointer width of the payload: from the header type, or
// for MESSAGE records from the POINTER32/POINTER64 option flags (0 when unknown).
func (r *Record) PointerSize() int {
	if r.HeaderType == header.TypeMessage {
		return r.Message.PointerSize()
	}
	return r.HeaderType.PointerSize()
}

// ProcessorTime is the 64-bit view of the KernelTime/UserTime union, the
// elapsed CPU time in CPU ticks that private sessions record; it means
// something when HasProcessorTime is set.
func (r *Record) ProcessorTime() uint64 {
	return uint64(r.UserTime)<<32 | uint64(r.KernelTime)
}

// PMCCount returns the number of PMC counter values in the header
// extension; read them with PMCCounter.
func (r *Record) PMCCount() int { return len(r.pmcRaw) / 8 }

// PMCCounter returns the i-th PMC counter from the PERFINFO header extension.
func (r *Record) PMCCounter(i int) uint64 { return binary.LittleEndian.Uint64(r.pmcRaw[i*8:]) }

type extStore struct {
	items [MaxExtendedItems]ExtendedItem
	n     int
}

// ExtendedData returns the record's extended data items, in file order. The
// slice belongs to the record.
func (r *Record) ExtendedData() []ExtendedItem {
	if r.ext == nil || r.ext.n == 0 {
		return nil
	}
	return r.ext.items[:r.ext.n]
}

// Extended returns the first extended item of the given type.
func (r *Record) Extended(t ExtType) (ExtendedItem, bool) {
	if r.ext == nil {
		return ExtendedItem{}, false
	}
	for i := 0; i < r.ext.n; i++ {
		if r.ext.items[i].Type == t {
			return r.ext.items[i], true
		}
	}
	return ExtendedItem{}, false
}

// Clone returns a copy that owns its bytes, valid after the iteration moves on.
func (r *Record) Clone() *Record {
	c := *r
	c.Raw = append([]byte(nil), r.Raw...)
	rebase := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		if off, ok := offsetIn(r.Raw, b); ok {
			return c.Raw[off : off+len(b) : off+len(b)]
		}
		return append([]byte(nil), b...)
	}
	c.UserData = rebase(r.UserData)
	c.pmcRaw = rebase(r.pmcRaw)
	c.ext = nil
	if r.ext != nil && r.ext.n > 0 {
		c.ext = &extStore{n: r.ext.n}
		for i := 0; i < r.ext.n; i++ {
			c.ext.items[i] = ExtendedItem{Type: r.ext.items[i].Type, Data: rebase(r.ext.items[i].Data)}
		}
	}
	return &c
}

// offsetIn reports where sub starts inside whole, when it is a sub-slice of it.
func offsetIn(whole, sub []byte) (int, bool) {
	if len(sub) == 0 || len(whole) == 0 {
		return 0, len(sub) == 0 && len(whole) > 0
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(whole)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(sub)))
	if p < start || p+uintptr(len(sub)) > start+uintptr(len(whole)) {
		return 0, false
	}
	return int(p - start), true
}
