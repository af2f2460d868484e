package dotnet

import (
	"encoding/binary"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/nametable"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// The runtime's events that TypeNames reads and completes.
const (
	// BulkTypeID is Type/BulkType: the names of the types the runtime
	// logs, by type id (a MethodTable address of the process).
	BulkTypeID = 15
	// FinalizeObjectID is GC/FinalizeObject: an object about to be
	// finalized, of a type named by id only.
	FinalizeObjectID = 29
)

// TypeNames keeps the names the runtime's BulkType events give type ids,
// per process, so that an event naming a type by id only
// (GC/FinalizeObject) shows its TypeName as TraceEvent does.
//
// The runtime logs a type's BulkType when it first needs the type named,
// and that can be just after an event that uses the id: TraceEvent, which
// reads a trace whole before showing it, names those too. A TypeNames
// filled by a first pass over the trace (describe.Learner) and then
// cloned for each Describer does the same; the Describer's own, learned in
// time order, has the latest name for an id whose type was unloaded and
// its address reused. An id no BulkType names gets an empty TypeName, as
// TraceEvent shows it. Memory is bounded: past a million types or 64 MiB
// of names the table starts afresh.
//
// The zero TypeNames is ready to use. It is not safe for concurrent use.
type TypeNames struct {
	ids nametable.Table[typeKey]
}

type typeKey struct {
	pid uint32
	id  uint64
}

// typeNameField is the field of the TypeName added to FinalizeObject.
var typeNameField = payload.NewField(payload.Field{Name: "TypeName", InType: payload.InUnicodeString})

// IsBulkType tells from a record's header bytes (an EVENT_HEADER, as
// header.ParsePrefix finds one) whether TypeNames learns from it, so
// that a first pass decodes only those records.
func IsBulkType(t header.Type, b []byte) bool {
	if t != header.TypeEventHeader32 && t != header.TypeEventHeader64 || len(b) < header.EventHeaderSize {
		return false
	}
	return binary.LittleEndian.Uint16(b[0x28:]) == BulkTypeID && [16]byte(b[0x18:0x28]) == runtimeHeaderGUID
}

// runtimeHeaderGUID is the runtime's GUID as a record header stores it.
var runtimeHeaderGUID = guid.Windows(RuntimeProvider)

// Learn takes the type names of a BulkType record; other records cost a
// comparison or two. A name already known for the id costs nothing.
func (t *TypeNames) Learn(r *record.Record) {
	if r.EventDescriptor.Id != BulkTypeID || r.ProviderId != RuntimeProvider || r.HeaderType.IsClassic() {
		return
	}
	// Count u32, ClrInstanceID u16, then Count values: TypeID u64,
	// ModuleID u64, TypeNameID u32, Flags u32, CorElementType u8, Name
	// (NUL-terminated UTF-16), TypeParameterCount u32 and that many u64.
	p := r.UserData
	if len(p) < 6 {
		return
	}
	count := binary.LittleEndian.Uint32(p)
	p = p[6:]
	for ; count > 0; count-- {
		if len(p) < 25 {
			return
		}
		id := binary.LittleEndian.Uint64(p)
		p = p[25:]
		name, rest, ok := payload.CutUTF16(p)
		if !ok || len(rest) < 4 {
			return
		}
		params := uint64(binary.LittleEndian.Uint32(rest))
		if params > uint64(len(rest)-4)/8 {
			return
		}
		p = rest[4+8*params:]
		t.ids.AddUTF16(typeKey{r.ProcessId, id}, name)
	}
}

// Clone returns a TypeNames that starts from what t knows and learns on
// its own.
func (t *TypeNames) Clone() *TypeNames { return &TypeNames{ids: t.ids.Clone()} }

// Name is the name of a process's type id, and whether it is known.
func (t *TypeNames) Name(pid uint32, id uint64) (string, bool) {
	n, ok := t.ids.Lookup(typeKey{pid, id})
	return string(n), ok
}

// Rewrite appends TypeName to the decoded values of a FinalizeObject
// record: the name of its TypeID in its process, empty when no BulkType
// names it. Other records' values are returned as they are. The value
// refers to memory of t, valid until t learns more.
func (t *TypeNames) Rewrite(r *record.Record, vals []payload.Value) []payload.Value {
	if r.EventDescriptor.Id != FinalizeObjectID || r.ProviderId != RuntimeProvider || r.HeaderType.IsClassic() {
		return vals
	}
	id, ok := payload.Lookup(vals, "TypeID")
	if !ok {
		return vals
	}
	name, _ := t.ids.Lookup(typeKey{r.ProcessId, id.Uint()})
	return append(vals, payload.NewString(typeNameField, name))
}
