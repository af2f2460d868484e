package stacks

import (
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
)

// Payloads are read through the schema tables (schema/kernel,
// schema/dotnet) rather than at offsets of their own: a layout is the
// indices, in a schema's decoded values, of the fields one kind of record
// is read for, found once per schema.

// kind is what a record is read for.
type kind uint8

const (
	kindSample kind = iota
	kindInterval
	kindStack
	kindKeyRef
	kindKeyDef
	kindImage
	kindImageID
	kindDbgID
	kindMethod
	kindModule
	kindClrStack
	kindCSwitch
	kindThread
	numKinds
)

// kindFields are the fields each kind reads, by name as the schemas give
// them.
var kindFields = [numKinds][]string{
	kindSample:   {"InstructionPointer", "ThreadID"},
	kindInterval: {"SampleSource", "NewInterval", "OldInterval"},
	kindStack:    {"EventTimeStamp", "StackProcess", "StackThread", "Stack"},
	kindKeyRef:   {"EventTimeStamp", "StackProcess", "StackThread", "StackKey"},
	kindKeyDef:   {"Key", "StackFrame"},
	kindImage:    {"ImageBase", "ImageSize", "ProcessID", "ImageChecksum", "TimeDateStamp", "FileName"},
	kindImageID:  {"ImageBase", "ImageSize", "ProcessID", "TimeDateStamp", "OriginalFileName"},
	kindDbgID:    {"ImageBase", "ProcessID", "GuidSig", "Age", "PDBFileName"},
	kindMethod: {"MethodID", "ModuleID", "MethodStartAddress", "MethodSize", "MethodFlags",
		"MethodNamespace", "MethodName", "MethodSignature"},
	kindModule:   {"ModuleID", "ModuleILPath"},
	kindClrStack: {"Stack"},
	kindCSwitch:  {"NewThreadID"},
	kindThread:   {"ThreadID"},
}

// maxFields bounds the fields of a kind.
const maxFields = 8

type layoutKey struct {
	s *payload.Schema
	k kind
}

type layout [maxFields]int8

// decoder decodes payloads into one reused value slab.
type decoder struct {
	vals    []payload.Value
	layouts map[layoutKey]*layout
	cur     *layout
}

// decode decodes r with the payload of e for kind k. It reports false when
// the event has no payload layout or the payload does not decode (bytes
// after the last field excepted: the fields are complete then).
func (d *decoder) decode(r *record.Record, e *schema.Event, k kind) bool {
	if e == nil || e.Payload == nil {
		return false
	}
	vals, err := e.Payload.Decode(r.UserData, r.PointerSize(), d.vals[:0])
	if cap(vals) > cap(d.vals) {
		d.vals = vals[:0]
	}
	if err != nil && !payload.IsTrailing(err) {
		return false
	}
	d.vals = vals
	key := layoutKey{e.Payload, k}
	l := d.layouts[key]
	if l == nil {
		l = new(layout)
		for i := range l {
			l[i] = -1
		}
		for i, name := range kindFields[k] {
			for j := range e.Payload.Fields {
				if e.Payload.Fields[j].Name == name {
					l[i] = int8(j)
					break
				}
			}
		}
		if d.layouts == nil {
			d.layouts = make(map[layoutKey]*layout)
		}
		d.layouts[key] = l
	}
	d.cur = l
	return true
}

// field is the i-th field of the kind decoded last, and false when the
// schema has no such field or the payload ended before it.
func (d *decoder) field(i int) (payload.Value, bool) {
	j := d.cur[i]
	if j < 0 || int(j) >= len(d.vals) {
		return payload.Value{}, false
	}
	return d.vals[j], true
}

// uint is field i as an unsigned integer, 0 when absent.
func (d *decoder) uint(i int) uint64 {
	v, _ := d.field(i)
	return v.Uint()
}

// has reports whether field i is present.
func (d *decoder) has(i int) bool {
	_, ok := d.field(i)
	return ok
}

// frames appends the elements of array field i to dst.
func (d *decoder) frames(dst []uint64, i int) []uint64 {
	v, ok := d.field(i)
	if !ok {
		return dst
	}
	for _, e := range v.Elems() {
		dst = append(dst, e.Uint())
	}
	return dst
}
