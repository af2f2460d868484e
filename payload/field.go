package payload

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unsafe"

	"github.com/etlkit/etlkit/buffer"
)

// Arity says how many values a field has and where their count comes from.
type Arity uint8

const (
	Scalar Arity = iota // one value
	// FixedCount: Field.Count values.
	FixedCount
	// CountPrefixed: a u16 count precedes the values in the payload
	// (TraceLogging's variable arrays).
	CountPrefixed
	// CountFromField: the count is the value of the earlier integer field
	// named by Field.CountField.
	CountFromField
	// CountToEnd: values until the payload ends (a MOF array without a
	// size, e.g. the frames of a stack).
	CountToEnd
	// Custom: a u16 byte count, then opaque bytes described by
	// Field.CustomSchema (TraceLogging custom serializers).
	Custom
	arityLimit
)

var arityNames = [...]string{"Scalar", "FixedCount", "CountPrefixed", "CountFromField", "CountToEnd", "Custom"}

func (a Arity) String() string {
	if int(a) < len(arityNames) {
		return arityNames[a]
	}
	return fmt.Sprintf("Arity(%d)", uint8(a))
}

// Field describes one field of a payload. Struct fields have their members
// in Members, nested to any depth.
type Field struct {
	Name    string
	InType  InType
	OutType OutType
	Arity   Arity
	// Count is the element count of a FixedCount field.
	Count uint16
	// CountField names the earlier integer field that holds the element
	// count of a CountFromField field.
	CountField string
	// Length is the fixed length of a string (in characters: UTF-16 code
	// units or bytes) or of a binary field (in bytes), used when
	// FixedLength is set or Length is not 0; LengthField, when set, names
	// the earlier integer field that holds it instead. Without either a
	// string is NUL-terminated, and a binary field is 16 bytes when its
	// out-type is IPv6. Fixed-size types ignore both.
	Length      uint16
	LengthField string
	FixedLength bool
	// Optional marks a field that later versions of an event added at its
	// end: when the payload ends exactly before it, it and the fields after
	// it are absent and the payload still decodes.
	Optional bool
	// Map names the values of an integer field.
	Map *Map
	// Tags are the 28 field tag bits, 0 when absent.
	Tags uint32
	// CustomSchema is the opaque type description of a Custom field.
	CustomSchema []byte
	// Members are the fields of a struct, in order.
	Members []Field

	// Set by NewSchema: one more than the slot where the decoder keeps
	// this field's value for the fields that refer to it, and than the
	// slots of the count and length this field reads; 0 for none.
	slot, countSlot, lengthSlot int16
	// jsonKey is `,"Name":`, the field's key in a JSON object with the
	// comma before it, made by NewSchema when Name needs no escaping:
	// every value of the field writes it, and checking each name
	// character by character was a tenth of the cost of JSON output.
	jsonKey string
}

// Description is the part of the field its source describes, members
// included, without what NewSchema works out from it: a field to change
// and give NewSchema again.
func (f *Field) Description() Field {
	d := Field{Name: f.Name, InType: f.InType, OutType: f.OutType, Arity: f.Arity, Count: f.Count,
		CountField: f.CountField, Length: f.Length, LengthField: f.LengthField, FixedLength: f.FixedLength,
		Optional: f.Optional, Map: f.Map, Tags: f.Tags, CustomSchema: f.CustomSchema}
	if f.Members != nil {
		d.Members = make([]Field, len(f.Members))
		for i := range f.Members {
			d.Members[i] = f.Members[i].Description()
		}
	}
	return d
}

// prepareKey makes the field's JSON object key when its name needs no
// escaping.
func (f *Field) prepareKey() {
	f.jsonKey = ""
	if isPlainJSON(f.Name) && f.Name != "" {
		f.jsonKey = `,"` + f.Name + `":`
		// Name then shares the key's bytes, which makes the check in
		// objectKey a comparison of pointers.
		f.Name = f.jsonKey[2 : len(f.jsonKey)-2]
	}
}

// NewField returns a copy of f for the values a schema's computed fields
// make (NewUint and the others), prepared for output as NewSchema prepares
// the fields of a schema: its values then render as cheaply as theirs.
func NewField(f Field) *Field {
	f.prepareKey()
	return &f
}

// objectKey is the field's key in a JSON object, `,"Name":`, and false
// when NewSchema made none or Name has changed since.
func (f *Field) objectKey() (string, bool) {
	k := f.jsonKey
	if len(k) != len(f.Name)+4 {
		return "", false
	}
	// Name shares the key's bytes unless it was changed since; a new
	// string of the same text still matches, by comparison.
	if unsafe.StringData(f.Name) != unsafe.StringData(k[2:]) && k[2:len(k)-2] != f.Name {
		return "", false
	}
	return k, true
}

// IsArray reports whether the field holds an array of values.
func (f *Field) IsArray() bool {
	switch f.Arity {
	case FixedCount, CountPrefixed, CountFromField, CountToEnd:
		return true
	}
	return false
}

// Map names the values of an integer field: a value map names whole values,
// a bit map names single bits.
type Map struct {
	Name string
	Bits bool
	// Separator joins the names of a bit map's set bits; "" stands for
	// ", ", as TraceEvent's compiled parsers (kernel, CLR) print flags.
	// TraceEvent prints the bit maps of manifests it reads at run time
	// (EventSources') with "|" instead.
	Separator string
	// SingleBits: a bit map names a value by its single bits only, never
	// by an entry of several bits that equals it ("Default", "All"), as
	// TraceEvent does for the maps of manifests it reads at run time.
	SingleBits bool
	// Entries are sorted by Value (NewMap sorts them).
	Entries []MapEntry
}

// MapEntry is one named value or bit.
type MapEntry struct {
	Value uint64
	Name  string
}

// NewMap returns a map of the entries, sorted by value. Names are kept as
// given except that surrounding spaces are trimmed: TDH stores manifest map
// strings with a trailing space.
func NewMap(name string, bits bool, entries []MapEntry) *Map {
	m := &Map{Name: name, Bits: bits, Entries: make([]MapEntry, len(entries))}
	for i, e := range entries {
		m.Entries[i] = MapEntry{Value: e.Value, Name: trimSpace(e.Name)}
	}
	slices.SortStableFunc(m.Entries, func(a, b MapEntry) int {
		switch {
		case a.Value < b.Value:
			return -1
		case a.Value > b.Value:
			return 1
		}
		return 0
	})
	return m
}

func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	return s[i:j]
}

// Lookup returns the name of exactly v.
func (m *Map) Lookup(v uint64) (string, bool) {
	i, ok := slices.BinarySearchFunc(m.Entries, v, func(e MapEntry, v uint64) int {
		switch {
		case e.Value < v:
			return -1
		case e.Value > v:
			return 1
		}
		return 0
	})
	if !ok {
		return "", false
	}
	return m.Entries[i].Name, true
}

// AppendName appends what the map says of v: for a value map the name of
// v; for a bit map the entry equal to v (unless SingleBits and v has
// several bits set), else the names of its set bits joined by Separator
// with any bits left unnamed as one 0x-hex number, or the name of 0 when
// v is 0 and the map has one. It reports false, appending nothing, when
// the map says nothing of v.
func (m *Map) AppendName(dst []byte, v uint64) ([]byte, bool) {
	if !m.Bits || !m.SingleBits || v&(v-1) == 0 {
		if name, ok := m.Lookup(v); ok {
			return append(dst, name...), true
		}
	}
	if !m.Bits || v == 0 {
		return dst, false
	}
	sep := m.Separator
	if sep == "" {
		sep = ", "
	}
	mark := len(dst)
	rest := v
	named := false
	for _, e := range m.Entries {
		if e.Value == 0 || e.Value&(e.Value-1) != 0 || v&e.Value == 0 {
			continue
		}
		if named {
			dst = append(dst, sep...)
		}
		dst = append(dst, e.Name...)
		rest &^= e.Value
		named = true
	}
	if !named {
		return dst[:mark], false
	}
	if rest != 0 {
		dst = append(dst, sep...)
		dst = appendHex(dst, rest, 0)
	}
	return dst, true
}

// Limits on what NewSchema accepts. Real events stay far below them; they
// exist so that hostile metadata costs bounded time and memory.
const (
	// MaxDepth bounds struct nesting.
	MaxDepth = 32
	// MaxFields bounds the number of fields, members of every struct included.
	MaxFields = 1024
	// MaxReferences bounds the fields that other fields take a count or a
	// length from.
	MaxReferences = 64
)

// ErrSchema is wrapped by the errors of NewSchema: fields that cannot
// describe any payload.
var ErrSchema = errors.New("invalid schema")

// Schema is the layout of one event's payload.
type Schema struct {
	Name   string  // event name, where the source gives one
	Tags   uint32  // the 28 event tag bits (TraceLogging)
	Fields []Field // top-level fields in payload order
	// Spare is the number of values a caller may append to what Decode
	// returns (values computed from the record) without a new array:
	// Decode leaves that many slots free after the top-level values, and
	// before the members and elements of structs and arrays, which
	// appending would otherwise overwrite.
	Spare int
	// levels is the largest number of containers (structs and arrays)
	// around any value; it scales the bound on values per payload byte.
	levels int
	// total counts every field, members included; refs the reference slots.
	total, refs int
	// numbers is the layout of the leading top-level fields that are
	// numbers of a fixed size, for records with 4- and 8-byte pointers:
	// a payload long enough for all of them has them at fixed offsets.
	numbers [2]numberRun
}

// numberRun is a run of fields that are numbers of a fixed size, read
// without looking at the fields again.
type numberRun struct {
	at   []numberAt
	size int
}

// numberAt is where one number of a run lies and how it reads.
type numberAt struct {
	off    int
	layout numberLayout
}

// NumFields is the number of fields in the schema, struct members included.
func (s *Schema) NumFields() int { return s.total }

func schemaError(format string, args ...any) error {
	return fmt.Errorf("%w: %w: %s", buffer.ErrMalformed, ErrSchema, fmt.Sprintf(format, args...))
}

// NewSchema checks the fields and resolves their count and length
// references, and returns the schema. The schema keeps fields (and their
// Members) and sets private fields in them: do not share a Field slice
// between two schemas.
//
// A reference names an earlier integer field of any nesting level that has
// one value when it is read: one not inside an array, or one inside the
// same element of an array of structs (a count that precedes its array
// within each element); the nearest earlier one wins when several have the
// name.
func NewSchema(name string, fields []Field) (*Schema, error) {
	s := &Schema{Name: name, Fields: fields}
	b := schemaBuilder{s: s}
	if err := b.walk(fields, 0); err != nil {
		return nil, err
	}
	s.levels = levels(fields)
	for i, ptr := range [...]int{4, 8} {
		s.numbers[i] = numberRunOf(fields, ptr)
	}
	return s, nil
}

// MustSchema is NewSchema for fields known to be valid; it panics otherwise.
func MustSchema(name string, fields []Field) *Schema {
	s, err := NewSchema(name, fields)
	if err != nil {
		panic(err)
	}
	return s
}

type schemaBuilder struct {
	s *Schema
	// seen are the fields met so far that can be referred to, in order.
	seen []*Field
}

func (b *schemaBuilder) walk(fs []Field, depth int) error {
	if depth >= MaxDepth {
		return schemaError("structs nested deeper than %d", MaxDepth)
	}
	for i := range fs {
		f := &fs[i]
		b.s.total++
		if b.s.total > MaxFields {
			return schemaError("more than %d fields", MaxFields)
		}
		f.slot, f.countSlot, f.lengthSlot = 0, 0, 0
		f.prepareKey()
		if !f.InType.Valid() {
			return schemaError("field %q has unknown in-type %d", f.Name, uint16(f.InType))
		}
		if f.Arity >= arityLimit {
			return schemaError("field %q has arity %d", f.Name, uint8(f.Arity))
		}
		var err error
		if f.Arity == CountFromField {
			if f.countSlot, err = b.ref(f.CountField, f.Name, "count"); err != nil {
				return err
			}
		} else if f.CountField != "" {
			return schemaError("field %q names a count field but its arity is %v", f.Name, f.Arity)
		}
		if f.LengthField != "" {
			if f.lengthSlot, err = b.ref(f.LengthField, f.Name, "length"); err != nil {
				return err
			}
		}
		if f.InType == InStruct {
			if f.Arity == Custom {
				return schemaError("struct field %q has a custom serializer", f.Name)
			}
			mark := len(b.seen)
			if err := b.walk(f.Members, depth+1); err != nil {
				return err
			}
			if f.IsArray() {
				// The members of one element are not there for what
				// follows the array.
				b.seen = b.seen[:mark]
			}
			continue
		}
		if len(f.Members) != 0 {
			return schemaError("field %q of type %v has members", f.Name, f.InType)
		}
		if f.Arity == Scalar && f.InType.CanCount() {
			b.seen = append(b.seen, f)
		}
	}
	return nil
}

// ref resolves a reference to the nearest earlier integer field called name
// and gives it a slot.
func (b *schemaBuilder) ref(name, from, what string) (int16, error) {
	for i := len(b.seen) - 1; i >= 0; i-- {
		t := b.seen[i]
		if t.Name != name {
			continue
		}
		if t.slot == 0 {
			if b.s.refs >= MaxReferences {
				return 0, schemaError("more than %d fields referred to", MaxReferences)
			}
			b.s.refs++
			t.slot = int16(b.s.refs)
		}
		return t.slot, nil
	}
	return 0, schemaError("the %s of field %q refers to %q, which is not an earlier integer field", what, from, name)
}

// levels is the largest number of containers around a value of fs.
func levels(fs []Field) int {
	m := 0
	for i := range fs {
		n := 0
		if fs[i].IsArray() {
			n++
		}
		if fs[i].InType == InStruct {
			n += 1 + levels(fs[i].Members)
		}
		m = max(m, n)
	}
	return m
}

// String describes the field compactly, for error messages and tests.
func (f *Field) String() string {
	s := f.Name + ":" + f.InType.String()
	if f.OutType != OutDefault {
		s += "/" + f.OutType.String()
	}
	switch f.Arity {
	case FixedCount:
		s += "[" + strconv.Itoa(int(f.Count)) + "]"
	case CountFromField:
		s += "[" + f.CountField + "]"
	case CountPrefixed:
		s += "[u16]"
	case CountToEnd:
		s += "[...]"
	}
	return s
}

// FixedOffset is where top-level field i of s starts in every payload, with
// pointers of pointerSize bytes (4 or 8), and its size: false when field i,
// or a field before it, has no size of its own (a string, an array, a
// struct, a field that later versions add), since its place then depends
// on the payload.
func (s *Schema) FixedOffset(i, pointerSize int) (off, size int, ok bool) {
	if i < 0 || i >= len(s.Fields) {
		return 0, 0, false
	}
	for j := 0; j <= i; j++ {
		f := &s.Fields[j]
		n := fixedSize(f.InType, pointerSize)
		if n == 0 || f.Arity != Scalar || len(f.Members) > 0 || f.Optional && j < i {
			return 0, 0, false
		}
		if j == i {
			return off, n, true
		}
		off += n
	}
	return 0, 0, false
}
