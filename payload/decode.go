package payload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"

	"github.com/etlkit/etlkit/buffer"
)

// MaxValues bounds the values, array elements and struct members included,
// that one Decode produces (DecodeKeep may add one, the trailing bytes).
const MaxValues = 1 << 16

// Errors wrapped by what Decode returns, besides buffer.ErrMalformed and
// buffer.ErrTruncated.
var (
	// ErrTrailingData: the payload is longer than its fields. The values
	// returned alongside it are complete and correct.
	ErrTrailingData = errors.New("payload has bytes after the last field")
	// ErrTooManyValues: decoding would produce more values than the payload
	// size can justify (see Schema.Decode).
	ErrTooManyValues = errors.New("too many values")
)

// DecodeError reports a payload that does not match its schema.
type DecodeError struct {
	Field  string // path of the field, e.g. "a.b[3].c"
	Offset int    // payload offset where the field's value (or the damage) starts
	Reason string
	Err    error // buffer.ErrTruncated, buffer.ErrMalformed, ErrTrailingData or ErrTooManyValues
	// frames gathers the path while the error goes up through the
	// decoder, innermost first; Field is made from it at the top.
	frames []frame
}

func (e *DecodeError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("payload offset %d: %s: %v", e.Offset, e.Reason, e.Err)
	}
	return fmt.Sprintf("field %s at payload offset %d: %s: %v", e.Field, e.Offset, e.Reason, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// IsTrailing reports whether err only says that the payload had bytes after
// its last field, so the values decoded with it are complete.
func IsTrailing(err error) bool { return errors.Is(err, ErrTrailingData) }

// Decode decodes payload, the user data of an event with this schema, into
// one Value per top-level field in schema order. pointerSize (4 or 8, the
// record's) sizes Pointer and SizeT fields and the TOKEN_USER before a
// WBEM SID.
//
// dst is reused: the values, array elements and struct members are all
// stored in its backing array, which grows only when it is too small (then
// Decode runs again on a new array big enough for this payload). Pass the
// previous result back, resliced to zero length, to decode without
// allocating. The returned values refer to payload and to that array, and
// are overwritten by the next Decode into it; up to Spare values may be
// appended to them in place.
//
// A payload shorter than its fields, or with counts or sizes that do not fit,
// gives a *DecodeError and no values — except that a payload ending exactly
// before an Optional top-level field gives the fields before it. A payload
// longer than its fields gives the complete values together with a
// *DecodeError wrapping ErrTrailingData (DecodeKeep keeps those bytes
// instead, without an error). The number of values is bounded by
// MaxValues and by what the payload's size can hold, which keeps hostile
// counts of empty structs cheap.
func (s *Schema) Decode(payload []byte, pointerSize int, dst []Value) ([]Value, error) {
	vals, rest, err := s.decode(payload, pointerSize, dst)
	if err == nil && rest < len(payload) {
		return vals, &DecodeError{Offset: rest, Err: ErrTrailingData,
			Reason: strconv.Itoa(len(payload)-rest) + " bytes left after the last field"}
	}
	return vals, err
}

// TrailingData is the field of the value DecodeKeep makes of the bytes
// after a payload's last field. Its name is one no schema source gives a
// field of its own (they name fields as identifiers of the provider's
// language, and this one is the decoder's), so that it does not clash.
var TrailingData = &Field{Name: "TrailingData", InType: InBinary, OutType: OutHexBinary}

// DecodeKeep decodes as Decode does, except for a payload longer than its
// fields: the bytes after the last field become one more value, of field
// TrailingData (KindBytes), after the fields' values, and there is no
// error. A payload of a newer version of an event than its schema, or one
// whose template declares fewer fields than its events carry, thus keeps
// every byte in sight, at no cost beyond the value. The value takes none
// of the Spare slots.
func (s *Schema) DecodeKeep(payload []byte, pointerSize int, dst []Value) ([]Value, error) {
	vals, rest, err := s.decode(payload, pointerSize, dst)
	if err == nil && rest < len(payload) {
		vals = vals[:len(vals)+1]
		vals[len(vals)-1] = Value{field: TrailingData, kind: KindBytes, raw: payload[rest:len(payload):len(payload)]}
	}
	return vals, err
}

// HasTrailingData reports whether vals (as DecodeKeep returns them, with
// values a caller appended after them or not) hold the bytes after the
// last field, and where.
func HasTrailingData(vals []Value) (Value, bool) {
	for i := range vals {
		if vals[i].field == TrailingData {
			return vals[i], true
		}
	}
	return Value{}, false
}

// decode decodes the fields and returns the offset where they end. The
// slab keeps a slot after the top-level values and their Spare ones, so
// that DecodeKeep can add the trailing bytes in place.
func (s *Schema) decode(payload []byte, pointerSize int, dst []Value) ([]Value, int, error) {
	spare := max(s.Spare, 0)
	limit := (len(payload)+1)*(s.levels+1) + s.total + spare
	if limit > MaxValues {
		limit = MaxValues
	}
	// The slot for the trailing bytes, beyond the bound on the values
	// the fields make.
	spare++
	limit++
	d := decoder{p: payload, ptr: pointerSize, limit: limit}
	if s.refs > inlineRefs {
		d.more = make([]uint64, s.refs-inlineRefs)
	}
	for attempt := 0; ; attempt++ {
		d.slab = dst[:cap(dst)]
		d.pos, d.used, d.have = 0, 0, 0
		top := d.alloc(len(s.Fields) + spare)
		n := len(s.Fields)
		for i := d.numbers(s, top); i < len(s.Fields); i++ {
			f := &s.Fields[i]
			out := d.at(top, i)
			if f.Arity == Scalar && f.slot == 0 && d.number(f, out) {
				continue
			}
			if f.Optional && d.pos == len(payload) {
				n = i
				break
			}
			if err := d.value(f, out); err != nil {
				return dst[:0], 0, finish(err)
			}
		}
		if d.used <= len(d.slab) {
			return d.slab[:n], d.pos, nil
		}
		if attempt > 0 {
			// Unreachable: the second run has room for every value the
			// first one counted, and both read the same bytes.
			return dst[:0], 0, &DecodeError{Err: buffer.ErrMalformed, Reason: "value count changed between runs"}
		}
		dst = make([]Value, d.used)
	}
}

// inlineRefs is how many referenced fields a decoder holds without an
// allocation.
const inlineRefs = 8

type frame struct {
	f   *Field
	idx int // element index, -1 outside arrays
}

type decoder struct {
	p     []byte
	pos   int
	ptr   int
	slab  []Value
	used  int
	limit int
	// sink receives values once the slab is full: decoding goes on to count
	// how many values are needed.
	sink Value
	// ints holds the values of the fields that others take a count or a
	// length from, by slot; have marks the slots set. Few schemas refer
	// to more than a handful of fields: ints is then inline, which keeps
	// the decoder small (it is made, and so cleared, on every Decode).
	ints [inlineRefs]uint64
	more []uint64 // slots past inlineRefs
	have uint64
}

// alloc reserves n consecutive values and returns the index of the first.
func (d *decoder) alloc(n int) int {
	i := d.used
	d.used += n
	return i
}

// at is the i-th value of a block from alloc, or the sink when the block
// lies past the end of the slab.
func (d *decoder) at(block, i int) *Value {
	if block+i < len(d.slab) {
		return &d.slab[block+i]
	}
	return &d.sink
}

// kids returns the block as a slice when it fits the slab.
func (d *decoder) kids(block, n int) []Value {
	if block+n <= len(d.slab) {
		return d.slab[block : block+n : block+n]
	}
	return nil
}

// fail makes the error of a payload that does not fit its schema. The
// field's path is added while the error goes up (within), so that decoding
// keeps no path of its own.
func (d *decoder) fail(start int, sentinel error, format string, args ...any) error {
	return &DecodeError{Offset: start, Err: sentinel, Reason: fmt.Sprintf(format, args...)}
}

// within adds a step of the path to an error coming up from field f
// (element idx of an array, or -1).
func within(err error, f *Field, idx int) error {
	if e, ok := err.(*DecodeError); ok {
		e.frames = append(e.frames, frame{f, idx})
	}
	return err
}

// finish writes an error's path into Field: "a.b[3].c".
func finish(err error) error {
	e, ok := err.(*DecodeError)
	if !ok {
		return err
	}
	var b []byte
	for i := len(e.frames) - 1; i >= 0; i-- {
		fr := e.frames[i]
		if i < len(e.frames)-1 && fr.idx < 0 {
			b = append(b, '.')
		}
		if fr.idx >= 0 {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(fr.idx), 10)
			b = append(b, ']')
		} else {
			b = append(b, fr.f.Name...)
		}
	}
	e.Field, e.frames = string(b), nil
	return e
}

func (d *decoder) need(n int, what string) error {
	if len(d.p)-d.pos < n {
		return d.fail(d.pos, buffer.ErrTruncated, "%s needs %d bytes, %d left", what, n, len(d.p)-d.pos)
	}
	return nil
}

func (d *decoder) u16(what string) (int, error) {
	if err := d.need(2, what); err != nil {
		return 0, err
	}
	n := int(binary.LittleEndian.Uint16(d.p[d.pos:]))
	d.pos += 2
	return n, nil
}

// ref reads the value of a referenced field (slot as Field keeps it).
func (d *decoder) ref(slot int16, what, name string) (uint64, error) {
	if slot <= 0 || d.have&(1<<uint(slot-1)) == 0 {
		return 0, d.fail(d.pos, buffer.ErrMalformed, "the %s field %q has no value", what, name)
	}
	if int(slot) > inlineRefs {
		return d.more[int(slot)-1-inlineRefs], nil
	}
	return d.ints[slot-1], nil
}

// value decodes field f (scalar, array or custom) into out.
func (d *decoder) value(f *Field, out *Value) error {
	if err := d.valueOf(f, out); err != nil {
		return within(err, f, -1)
	}
	return nil
}

func (d *decoder) valueOf(f *Field, out *Value) error {
	start := d.pos
	var n int
	switch f.Arity {
	case Custom:
		return d.counted(f, out, KindBytes, 0)
	case Scalar:
		if err := d.element(f, out); err != nil {
			return err
		}
		if f.slot > 0 && (out.kind == KindInt || out.kind == KindUint) {
			if int(f.slot) > inlineRefs {
				d.more[int(f.slot)-1-inlineRefs] = out.num
			} else {
				d.ints[f.slot-1] = out.num
			}
			d.have |= 1 << uint(f.slot-1)
		}
		return nil
	case FixedCount:
		n = int(f.Count)
	case CountPrefixed:
		var err error
		if n, err = d.u16("array count"); err != nil {
			return err
		}
	case CountFromField:
		c, err := d.ref(f.countSlot, "count", f.CountField)
		if err != nil {
			return err
		}
		if c > uint64(d.limit) {
			return d.fail(start, ErrTooManyValues, "count %d exceeds the %d values the payload allows", c, d.limit)
		}
		n = int(c)
	case CountToEnd:
		var err error
		if n, err = d.toEnd(f); err != nil {
			return err
		}
	default:
		return d.fail(start, buffer.ErrMalformed, "arity %v cannot be decoded", f.Arity)
	}
	if d.used+n > d.limit {
		return d.fail(start, ErrTooManyValues, "array of %d elements exceeds the %d values the payload allows", n, d.limit)
	}
	block := d.alloc(n)
	first := d.pos
	i := 0
	// Arrays of numbers (stacks, offsets, counters) that lie whole in the
	// payload and the slab: one layout for every element.
	if l, ok := numberLayoutOf(f, d.ptr); ok && n*int(l.size) <= len(d.p)-d.pos && block+n <= len(d.slab) {
		size := int(l.size)
		rest := d.p[d.pos:]
		for ; i < n; i++ {
			o := &d.slab[block+i]
			o.field, o.kind, o.flags = f, l.kind, l.flags
			o.raw, o.num, o.kids = rest[:size:size], loadNumber(rest, size, l.kind), nil
			rest = rest[size:]
		}
		d.pos += n * size
	}
	for ; i < n; i++ {
		out := d.at(block, i)
		if d.number(f, out) {
			continue
		}
		if err := d.element(f, out); err != nil {
			return within(err, f, i)
		}
	}
	*out = Value{field: f, kind: KindArray, kids: d.kids(block, n), raw: d.p[first:d.pos:d.pos]}
	if out.kids == nil {
		out.kids = []Value{}
	}
	return nil
}

// toEnd counts the elements of f that fill the rest of the payload: by
// division when they have a fixed size, else by decoding them once (the
// values land in the part of the slab that the real decoding then fills).
func (d *decoder) toEnd(f *Field) (int, error) {
	rest := len(d.p) - d.pos
	if size := fixedSize(f.InType, d.ptr); size > 0 {
		return rest / size, nil
	}
	pos, used := d.pos, d.used
	n := 0
	var scratch Value
	for d.pos < len(d.p) {
		if d.used+1 > d.limit {
			return 0, d.fail(d.pos, ErrTooManyValues, "array exceeds the %d values the payload allows", d.limit)
		}
		before := d.pos
		if err := d.element(f, &scratch); err != nil {
			return 0, within(err, f, n)
		}
		if d.pos == before {
			return 0, d.fail(before, buffer.ErrMalformed, "an element of an array to the end of the payload takes no bytes")
		}
		n++
		d.used++
	}
	d.pos, d.used = pos, used
	return n, nil
}

// fixedSize is the size of a value of an in-type that always takes the
// same number of bytes, 0 for the others.
func fixedSize(t InType, pointerSize int) int {
	switch t {
	case InInt8, InUInt8, InAnsiChar:
		return 1
	case InInt16, InUInt16, InUnicodeChar:
		return 2
	case InInt32, InUInt32, InHexInt32, InFloat, InBoolean:
		return 4
	case InInt64, InUInt64, InHexInt64, InDouble, InFileTime:
		return 8
	case InGUID, InSystemTime:
		return 16
	case InPointer, InSizeT:
		if pointerSize == 4 || pointerSize == 8 {
			return pointerSize
		}
	}
	return 0
}

// element decodes one value of f's InType.
func (d *decoder) element(f *Field, out *Value) error {
	start := d.pos
	switch f.InType {
	case InStruct:
		n := len(f.Members)
		if d.used+n > d.limit {
			return d.fail(start, ErrTooManyValues, "struct members exceed the %d values the payload allows", d.limit)
		}
		block := d.alloc(n)
		for i := range f.Members {
			m, out := &f.Members[i], d.at(block, i)
			if m.Arity == Scalar && m.slot == 0 && d.number(m, out) {
				continue
			}
			if err := d.value(m, out); err != nil {
				return err
			}
		}
		*out = Value{field: f, kind: KindStruct, kids: d.kids(block, n), raw: d.p[start:d.pos:d.pos]}
		if out.kids == nil {
			out.kids = []Value{}
		}
		return nil
	case InUnicodeString:
		if n, ok, err := d.length(f); err != nil {
			return err
		} else if ok {
			return d.sizedString(f, out, 2*n, flagUTF16)
		}
		if i := nulUTF16(d.p, d.pos); i >= 0 {
			*out = Value{field: f, kind: KindString, flags: flagUTF16, raw: d.p[d.pos:i:i]}
			d.pos = i + 2
			return nil
		}
		return d.fail(start, buffer.ErrTruncated, "UTF-16 string has no NUL terminator")
	case InAnsiString:
		if n, ok, err := d.length(f); err != nil {
			return err
		} else if ok {
			return d.sizedString(f, out, n, 0)
		}
		for i := d.pos; i < len(d.p); i++ {
			if d.p[i] == 0 {
				*out = Value{field: f, kind: KindString, raw: d.p[d.pos:i:i]}
				d.pos = i + 1
				return nil
			}
		}
		return d.fail(start, buffer.ErrTruncated, "string has no NUL terminator")
	case InInt8:
		return d.fixed(f, out, 1, KindInt)
	case InUInt8:
		k := KindUint
		if f.OutType == OutBoolean {
			k = KindBool
		}
		return d.fixed(f, out, 1, k)
	case InInt16:
		return d.fixed(f, out, 2, KindInt)
	case InUInt16:
		if err := d.fixed(f, out, 2, KindUint); err != nil {
			return err
		}
		if f.OutType == OutPort {
			// Ports are stored in network byte order.
			out.num = uint64(bits.ReverseBytes16(uint16(out.num)))
		}
		return nil
	case InInt32:
		return d.fixed(f, out, 4, KindInt)
	case InUInt32, InHexInt32:
		return d.fixed(f, out, 4, KindUint)
	case InInt64:
		return d.fixed(f, out, 8, KindInt)
	case InUInt64, InHexInt64:
		return d.fixed(f, out, 8, KindUint)
	case InFloat:
		if err := d.fixed(f, out, 4, KindFloat); err != nil {
			return err
		}
		out.flags = flagFloat32
		return nil
	case InDouble:
		return d.fixed(f, out, 8, KindFloat)
	case InBoolean:
		return d.fixed(f, out, 4, KindBool)
	case InPointer, InSizeT:
		if d.ptr != 4 && d.ptr != 8 {
			return d.fail(start, buffer.ErrMalformed, "pointer size %d is neither 4 nor 8", d.ptr)
		}
		return d.fixed(f, out, d.ptr, KindUint)
	case InFileTime:
		return d.fixed(f, out, 8, KindTime)
	case InGUID:
		if err := d.need(16, "GUID"); err != nil {
			return err
		}
		*out = Value{field: f, kind: KindGUID, raw: d.p[d.pos : d.pos+16 : d.pos+16]}
		d.pos += 16
		return nil
	case InSystemTime:
		if err := d.need(16, "SYSTEMTIME"); err != nil {
			return err
		}
		*out = Value{field: f, kind: KindTime, flags: systemTimeFlags(d.p[d.pos : d.pos+16]), raw: d.p[d.pos : d.pos+16 : d.pos+16]}
		d.pos += 16
		return nil
	case InSID:
		return d.sid(f, out)
	case InWBEMSID:
		if err := d.need(4, "SID"); err != nil {
			return err
		}
		if binary.LittleEndian.Uint32(d.p[d.pos:]) == 0 {
			// No SID: the field is the 4 zero bytes.
			*out = Value{field: f, kind: KindSID, raw: d.p[d.pos:d.pos:d.pos]}
			d.pos += 4
			return nil
		}
		if d.ptr != 4 && d.ptr != 8 {
			return d.fail(start, buffer.ErrMalformed, "pointer size %d is neither 4 nor 8", d.ptr)
		}
		// A TOKEN_USER, two pointers, comes before the SID.
		if err := d.need(2*d.ptr, "TOKEN_USER"); err != nil {
			return err
		}
		d.pos += 2 * d.ptr
		if err := d.sid(f, out); err != nil {
			d.pos = start
			return err
		}
		return nil
	case InCountedString, InWBEMCountedString:
		return d.counted(f, out, KindString, flagUTF16)
	case InCountedAnsiString, InWBEMCountedAnsiString:
		return d.counted(f, out, KindString, 0)
	case InCountedBinary:
		return d.counted(f, out, KindBytes, 0)
	case InReversedCountedString:
		return d.reversedCounted(f, out, flagUTF16)
	case InReversedCountedAnsiString:
		return d.reversedCounted(f, out, 0)
	case InNonNullTerminatedString:
		n := len(d.p) - d.pos
		if n%2 != 0 {
			return d.fail(start, buffer.ErrMalformed, "UTF-16 string to the end of the payload has an odd %d bytes", n)
		}
		*out = Value{field: f, kind: KindString, flags: flagUTF16, raw: d.p[d.pos:len(d.p):len(d.p)]}
		d.pos = len(d.p)
		return nil
	case InNonNullTerminatedAnsiString:
		*out = Value{field: f, kind: KindString, raw: d.p[d.pos:len(d.p):len(d.p)]}
		d.pos = len(d.p)
		return nil
	case InUnicodeChar:
		if err := d.need(2, "UTF-16 character"); err != nil {
			return err
		}
		*out = Value{field: f, kind: KindString, flags: flagUTF16, raw: d.p[d.pos : d.pos+2 : d.pos+2]}
		d.pos += 2
		return nil
	case InAnsiChar:
		if err := d.need(1, "character"); err != nil {
			return err
		}
		*out = Value{field: f, kind: KindString, raw: d.p[d.pos : d.pos+1 : d.pos+1]}
		d.pos++
		return nil
	case InHexDump:
		if err := d.need(4, "byte count"); err != nil {
			return err
		}
		n := binary.LittleEndian.Uint32(d.p[d.pos:])
		if uint64(n) > uint64(len(d.p)-d.pos-4) {
			return d.fail(start, buffer.ErrTruncated, "count says %d bytes, %d left", n, len(d.p)-d.pos-4)
		}
		d.pos += 4
		*out = Value{field: f, kind: KindBytes, raw: d.p[d.pos : d.pos+int(n) : d.pos+int(n)]}
		d.pos += int(n)
		return nil
	case InBinary:
		n, ok, err := d.length(f)
		if err != nil {
			return err
		}
		if !ok {
			if f.OutType != OutIPv6 {
				return d.fail(start, buffer.ErrMalformed, "binary field has no length")
			}
			n = 16
		}
		if err := d.need(n, "binary field"); err != nil {
			return err
		}
		*out = Value{field: f, kind: KindBytes, raw: d.p[d.pos : d.pos+n : d.pos+n]}
		d.pos += n
		return nil
	}
	return d.fail(start, buffer.ErrMalformed, "in-type %v cannot be decoded", f.InType)
}

// nulUTF16 is the offset of the first NUL code unit of p at from or an
// even distance after it, -1 when there is none. Four units are tested at
// a time: names and paths make up most of the bytes of many payloads.
func nulUTF16(p []byte, from int) int {
	const lanes = 0x0001000100010001
	i := from
	for ; i+8 <= len(p); i += 8 {
		w := binary.LittleEndian.Uint64(p[i:])
		// Set where a lane is zero (exactly so for the first such lane,
		// which is all that is looked for).
		if (w-lanes)&^w&(0x8000*lanes) != 0 {
			break
		}
	}
	for ; i+1 < len(p); i += 2 {
		if p[i] == 0 && p[i+1] == 0 {
			return i
		}
	}
	return -1
}

// length is the length a field gives a string or binary value: from the
// field it names, or fixed; ok is false when it gives none.
func (d *decoder) length(f *Field) (n int, ok bool, err error) {
	if f.lengthSlot > 0 {
		v, err := d.ref(f.lengthSlot, "length", f.LengthField)
		if err != nil {
			return 0, false, err
		}
		if v > uint64(len(d.p)) {
			return 0, false, d.fail(d.pos, buffer.ErrTruncated, "length %d is longer than the payload", v)
		}
		return int(v), true, nil
	}
	if f.FixedLength || f.Length != 0 {
		return int(f.Length), true, nil
	}
	return 0, false, nil
}

// sizedString decodes a string of n bytes; the text ends at the first NUL
// inside them, as in fixed-size character arrays padded with NULs.
func (d *decoder) sizedString(f *Field, out *Value, n int, flags uint8) error {
	if err := d.need(n, "string"); err != nil {
		return err
	}
	b := d.p[d.pos : d.pos+n : d.pos+n]
	end := len(b)
	if flags&flagUTF16 != 0 {
		end &^= 1
		for i := 0; i+1 < len(b); i += 2 {
			if b[i] == 0 && b[i+1] == 0 {
				end = i
				break
			}
		}
	} else {
		for i, c := range b {
			if c == 0 {
				end = i
				break
			}
		}
	}
	*out = Value{field: f, kind: KindString, flags: flags, raw: b[:end:end]}
	d.pos += n
	return nil
}

func (d *decoder) sid(f *Field, out *Value) error {
	start := d.pos
	if err := d.need(8, "SID"); err != nil {
		return err
	}
	n := int(d.p[d.pos+1])
	// SID_MAX_SUB_AUTHORITIES: more cannot be a SID.
	if n > 15 {
		return d.fail(start, buffer.ErrMalformed, "SID with %d sub-authorities", n)
	}
	if err := d.need(8+4*n, "SID"); err != nil {
		return err
	}
	*out = Value{field: f, kind: KindSID, raw: d.p[d.pos : d.pos+8+4*n : d.pos+8+4*n]}
	d.pos += 8 + 4*n
	return nil
}

// numberLayout is how a value of an in-type that is a number of a fixed
// size is read: its size (0 for the record's pointer size), kind and value
// flags. Most values of a trace are such numbers, and reading them with a
// table lookup rather than through element's switch keeps decoding to a
// few instructions a value.
type numberLayout struct {
	size, flags uint8
	kind        Kind
}

var numberLayouts = [...]numberLayout{
	InInt8:     {1, 0, KindInt},
	InUInt8:    {1, 0, KindUint},
	InInt16:    {2, 0, KindInt},
	InUInt16:   {2, 0, KindUint},
	InInt32:    {4, 0, KindInt},
	InUInt32:   {4, 0, KindUint},
	InInt64:    {8, 0, KindInt},
	InUInt64:   {8, 0, KindUint},
	InFloat:    {4, flagFloat32, KindFloat},
	InDouble:   {8, 0, KindFloat},
	InBoolean:  {4, 0, KindBool},
	InPointer:  {0, 0, KindUint},
	InFileTime: {8, 0, KindTime},
	InHexInt32: {4, 0, KindUint},
	InHexInt64: {8, 0, KindUint},
}

// numberRunOf is the run of leading fields of fs that number decodes, with
// ptr-byte pointers, as they lie in a payload.
func numberRunOf(fs []Field, ptr int) numberRun {
	var run numberRun
	for i := range fs {
		l, ok := numberLayoutOf(&fs[i], ptr)
		if !ok || fs[i].Arity != Scalar || fs[i].slot != 0 || run.size > MaxValues {
			break
		}
		run.at = append(run.at, numberAt{off: run.size, layout: l})
		run.size += int(l.size)
	}
	return run
}

// numberLayoutOf is how number reads a value of f with ptr-byte pointers,
// false for a field number leaves to element.
func numberLayoutOf(f *Field, ptr int) (numberLayout, bool) {
	t := f.InType
	if t == InSizeT {
		t = InPointer
	}
	if int(t) >= len(numberLayouts) {
		return numberLayout{}, false
	}
	l := numberLayouts[t]
	if l.kind == KindInvalid || f.OutType != OutDefault && (t == InUInt8 || t == InUInt16) {
		return numberLayout{}, false
	}
	if l.size == 0 {
		if ptr != 4 && ptr != 8 {
			return numberLayout{}, false
		}
		l.size = uint8(ptr)
	}
	return l, true
}

// numbers decodes the run of leading numbers of s into the first values
// of the slab, when the payload holds them all and the slab has room, and
// returns how many it decoded.
func (d *decoder) numbers(s *Schema, top int) int {
	var run *numberRun
	switch d.ptr {
	case 4:
		run = &s.numbers[0]
	case 8:
		run = &s.numbers[1]
	default:
		return 0
	}
	at := run.at
	if len(at) == 0 || len(d.p) < run.size || top+len(at) > len(d.slab) || len(at) > len(s.Fields) {
		return 0
	}
	out := d.slab[top : top+len(at)]
	fields := s.Fields[:len(at)]
	for i := range at {
		l := at[i].layout
		off, n := at[i].off, int(l.size)
		if off+n > len(d.p) {
			return 0 // the run does not fit: unreachable
		}
		rest := d.p[off:]
		v := loadNumber(rest, n, l.kind)
		o := &out[i]
		o.field, o.kind, o.flags = &fields[i], l.kind, l.flags
		o.raw, o.num, o.kids = rest[:n:n], v, nil
	}
	d.pos = run.size
	return len(at)
}

// loadNumber reads the little-endian number of n bytes at the start of
// rest, sign-extended for a KindInt.
func loadNumber(rest []byte, n int, k Kind) uint64 {
	var v uint64
	if len(rest) >= 8 {
		// One load, whatever the size; the shifts keep n bytes.
		v = binary.LittleEndian.Uint64(rest)
	} else {
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(rest[i])
		}
	}
	shift := (64 - 8*uint(n)) & 63
	if k == KindInt {
		return uint64(int64(v<<shift) >> shift)
	}
	return v << shift >> shift
}

// number decodes one value of f when it is a number that fits in what is
// left of the payload, and reports whether it did; element takes the
// others (and reports what is wrong with those that do not fit).
func (d *decoder) number(f *Field, out *Value) bool {
	l, ok := numberLayoutOf(f, d.ptr)
	if !ok {
		return false
	}
	n := int(l.size)
	rest := d.p[d.pos:]
	if len(rest) < n {
		return false
	}
	v := loadNumber(rest, n, l.kind)
	out.field, out.kind, out.flags = f, l.kind, l.flags
	out.raw, out.num, out.kids = rest[:n:n], v, nil
	d.pos += n
	return true
}

// fixed decodes a little-endian number of n bytes; KindInt values are
// sign-extended.
func (d *decoder) fixed(f *Field, out *Value, n int, k Kind) error {
	if len(d.p)-d.pos < n {
		return d.need(n, f.InType.String())
	}
	b := d.p[d.pos : d.pos+n : d.pos+n]
	var v uint64
	switch n {
	case 1:
		v = uint64(b[0])
		if k == KindInt {
			v = uint64(int64(int8(b[0])))
		}
	case 2:
		v = uint64(binary.LittleEndian.Uint16(b))
		if k == KindInt {
			v = uint64(int64(int16(v)))
		}
	case 4:
		v = uint64(binary.LittleEndian.Uint32(b))
		if k == KindInt {
			v = uint64(int64(int32(v)))
		}
	case 8:
		v = binary.LittleEndian.Uint64(b)
	}
	*out = Value{field: f, kind: k, raw: b, num: v}
	d.pos += n
	return nil
}

// counted decodes a u16 byte count and that many bytes.
func (d *decoder) counted(f *Field, out *Value, k Kind, flags uint8) error {
	start := d.pos
	n, err := d.u16("byte count")
	if err != nil {
		return err
	}
	return d.countedBody(f, out, k, flags, start, n)
}

// reversedCounted decodes a big-endian u16 byte count and that many bytes.
func (d *decoder) reversedCounted(f *Field, out *Value, flags uint8) error {
	start := d.pos
	if err := d.need(2, "byte count"); err != nil {
		return err
	}
	n := int(binary.BigEndian.Uint16(d.p[d.pos:]))
	d.pos += 2
	return d.countedBody(f, out, KindString, flags, start, n)
}

func (d *decoder) countedBody(f *Field, out *Value, k Kind, flags uint8, start, n int) error {
	if len(d.p)-d.pos < n {
		d.pos = start
		return d.fail(start, buffer.ErrTruncated, "count says %d bytes, %d left", n, len(d.p)-d.pos-2)
	}
	if flags&flagUTF16 != 0 && n%2 != 0 {
		d.pos = start
		return d.fail(start, buffer.ErrMalformed, "UTF-16 string of odd byte count %d", n)
	}
	*out = Value{field: f, kind: k, flags: flags, raw: d.p[d.pos : d.pos+n : d.pos+n]}
	d.pos += n
	return nil
}
