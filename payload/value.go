package payload

import (
	"encoding/binary"
	"math"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/google/uuid"
)

// Kind is the Go shape of a decoded value.
type Kind uint8

const (
	KindInvalid Kind = iota
	KindInt          // Int8..Int64: Int
	KindUint         // UInt8..UInt64, HexInt32/64, Pointer: Uint
	KindFloat        // Float, Double: Float
	KindBool         // Boolean, and UInt8 with OutBoolean: Bool
	KindString       // every string and character InType: Str
	KindBytes        // Binary, CountedBinary, HexDump, custom-serialized fields: Bytes
	KindGUID         // GUID: GUID
	KindTime         // FileTime, SystemTime: Time
	KindSID          // SID, WBEMSID: Bytes (empty when there is none), rendered S-1-…
	KindStruct       // Struct: Members
	KindArray        // fixed and variable arrays: Elems
)

var kindNames = [...]string{"Invalid", "Int", "Uint", "Float", "Bool", "String", "Bytes", "GUID", "Time", "SID", "Struct", "Array"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(?)"
}

// Value flags.
const (
	flagUTF16   = 1 << iota // string bytes are UTF-16LE
	flagFloat32             // a Float, rendered with 32-bit precision
	flagSysTime             // a SYSTEMTIME in raw rather than a FILETIME in num
	flagBadTime             // a SYSTEMTIME whose fields are out of range
	flagRule                // a SYSTEMTIME with year 0: a yearly transition rule
)

// Value is one decoded field value, or one element of an array.
//
// Strings and byte fields are kept as views into the payload and converted
// only when asked (Str, AppendText, AppendJSON): most consumers write values
// straight into an output buffer or compare a few of them, and building a Go
// string for every field of every event would be most of the cost of
// decoding. The flip side is that a Value is valid only as long as the
// payload it was decoded from and the slice it was decoded into; Clone makes
// one that owns its memory.
type Value struct {
	field *Field
	kind  Kind
	flags uint8
	raw   []byte // string or byte contents, GUID, SID, SYSTEMTIME, or the number's bytes
	num   uint64 // integers (sign-extended), float bits, bool, FILETIME
	kids  []Value
}

// Field is the schema field the value was decoded for; array elements share
// their array's field.
func (v Value) Field() *Field { return v.field }

// Name is the field name.
func (v Value) Name() string {
	if v.field == nil {
		return ""
	}
	return v.field.Name
}

// Kind says which accessor gives the typed value.
func (v Value) Kind() Kind { return v.kind }

// InType is the field's payload type.
func (v Value) InType() InType {
	if v.field == nil {
		return InNull
	}
	return v.field.InType
}

// OutType is the field's formatting hint.
func (v Value) OutType() OutType {
	if v.field == nil {
		return OutDefault
	}
	return v.field.OutType
}

// Int is the value of a KindInt, or the bits of a KindUint or KindBool as
// an int64; 0 for other kinds.
func (v Value) Int() int64 {
	switch v.kind {
	case KindInt, KindUint, KindBool:
		return int64(v.num)
	}
	return 0
}

// Uint is the value of a KindUint (a Port already in host order), or the
// bits of a KindInt or KindBool; 0 for other kinds.
func (v Value) Uint() uint64 {
	switch v.kind {
	case KindInt, KindUint, KindBool:
		return v.num
	}
	return 0
}

// Float is the value of a KindFloat; 0 for other kinds.
func (v Value) Float() float64 {
	if v.kind != KindFloat {
		return 0
	}
	if v.flags&flagFloat32 != 0 {
		return float64(math.Float32frombits(uint32(v.num)))
	}
	return math.Float64frombits(v.num)
}

// Bool is the value of a KindBool (any non-zero value is true); false for
// other kinds.
func (v Value) Bool() bool { return v.kind == KindBool && v.num != 0 }

// Str is the value of a KindString, or of a character array, converted to
// UTF-8; "" for other kinds. UTF-16 is decoded with unpaired surrogates as
// U+FFFD. 8-bit strings are taken as UTF-8 when they are valid UTF-8
// (always so with OutUTF8, where bad bytes become U+FFFD) and otherwise as
// Latin-1, since the writer's code page is not recorded.
func (v Value) Str() string {
	if !v.IsText() {
		return ""
	}
	it := v.runes()
	if !it.utf16 && !it.latin1 && utf8.Valid(it.b) {
		return string(it.b)
	}
	return string(v.appendUTF8(make([]byte, 0, len(it.b))))
}

// IsText reports whether the value is text: a KindString, or a character
// array, which TraceLogging writes as an array of UInt8/Int8 (8-bit
// characters) or UInt16/Int16 (UTF-16 code units) with OutType String.
// Character arrays keep their elements, and render as strings.
func (v Value) IsText() bool { return v.kind == KindString || v.isCharArray() }

// MapName is what the field's map says of the value (see Map.AppendName),
// and false when the field has no map, the value is not an integer, or the
// map does not name it.
func (v Value) MapName() (string, bool) {
	if !v.hasMap() {
		return "", false
	}
	var tmp [64]byte
	b, ok := v.field.Map.AppendName(tmp[:0], v.num)
	if !ok {
		return "", false
	}
	return string(b), true
}

// AppendMapName appends what the field's map says of the value, as MapName,
// without allocating.
func (v Value) AppendMapName(dst []byte) ([]byte, bool) {
	if !v.hasMap() {
		return dst, false
	}
	return v.field.Map.AppendName(dst, v.num)
}

func (v Value) hasMap() bool {
	return v.field != nil && v.field.Map != nil && (v.kind == KindUint || v.kind == KindInt)
}

// isChar reports whether the value is one character: an 8- or 16-bit
// integer shown as a string.
func (v Value) isChar() bool {
	if v.kind != KindInt && v.kind != KindUint || v.OutType() != OutString {
		return false
	}
	switch v.InType() {
	case InInt8, InUInt8, InInt16, InUInt16:
		return true
	}
	return false
}

// char is the character of an isChar value: Latin-1 for 8-bit ones, and
// U+FFFD for a lone surrogate.
func (v Value) char() rune {
	r := rune(uint16(v.num))
	if len(v.raw) == 1 {
		r = rune(uint8(v.num))
	}
	if utf16.IsSurrogate(r) {
		return utf8.RuneError
	}
	return r
}

// isHexByteArray reports whether the value is an array of bytes shown in
// hex (UInt8 with OutType HexBinary), such as a blob that fills the rest of
// a payload: it renders as one hex string, as a binary field does.
func (v Value) isHexByteArray() bool {
	return v.kind == KindArray && v.InType() == InUInt8 && v.OutType() == OutHexBinary
}

func (v Value) isCharArray() bool {
	if v.kind != KindArray || v.OutType() != OutString {
		return false
	}
	switch v.InType() {
	case InInt8, InUInt8, InInt16, InUInt16:
		return true
	}
	return false
}

// appendUTF8 appends the string contents converted to UTF-8, unescaped.
func (v Value) appendUTF8(dst []byte) []byte {
	it := v.runes()
	for {
		r, ok := it.next()
		if !ok {
			return dst
		}
		dst = utf8.AppendRune(dst, r)
	}
}

// runeIter walks a KindString value's characters without allocating.
type runeIter struct {
	b      []byte
	utf16  bool
	latin1 bool
}

func (v Value) runes() runeIter {
	it := runeIter{b: v.raw, utf16: v.flags&flagUTF16 != 0}
	if v.isCharArray() {
		// Fixed-size character arrays are padded with NULs.
		it.utf16 = v.InType() == InInt16 || v.InType() == InUInt16
		w := 1
		if it.utf16 {
			w = 2
		}
		for len(it.b) >= w && it.b[len(it.b)-1] == 0 && it.b[len(it.b)-w] == 0 {
			it.b = it.b[:len(it.b)-w]
		}
	}
	if !it.utf16 && v.OutType() != OutUTF8 && !utf8.Valid(it.b) {
		it.latin1 = true
	}
	return it
}

func (it *runeIter) next() (rune, bool) {
	switch {
	case len(it.b) == 0:
		return 0, false
	case it.utf16:
		if len(it.b) < 2 {
			it.b = nil
			return utf8.RuneError, true
		}
		r := rune(binary.LittleEndian.Uint16(it.b))
		it.b = it.b[2:]
		if utf16.IsSurrogate(r) {
			if len(it.b) >= 2 {
				r2 := rune(binary.LittleEndian.Uint16(it.b))
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					it.b = it.b[2:]
					return d, true
				}
			}
			return utf8.RuneError, true
		}
		return r, true
	case it.latin1:
		r := rune(it.b[0])
		it.b = it.b[1:]
		return r, true
	default:
		r, n := utf8.DecodeRune(it.b)
		it.b = it.b[n:]
		return r, true
	}
}

// Bytes is the content of a KindBytes value (without its count) or the
// bytes of a KindSID; nil for other kinds.
func (v Value) Bytes() []byte {
	switch v.kind {
	case KindBytes, KindSID:
		return v.raw
	}
	return nil
}

// Raw is the payload bytes the value was decoded from, without any count
// prefix or terminator; for arrays, the bytes of their elements.
func (v Value) Raw() []byte { return v.raw }

// GUID is the value of a KindGUID; uuid.Nil for other kinds.
func (v Value) GUID() uuid.UUID {
	if v.kind != KindGUID {
		return uuid.Nil
	}
	return guid.FromWindows(v.raw)
}

// Time is the value of a KindTime in UTC, or of an integer field whose
// OutType marks it a FILETIME. It is the zero time.Time for other kinds,
// for a SYSTEMTIME whose fields are out of range and for one that holds a
// yearly rule rather than a date (see AppendSystemTime).
func (v Value) Time() time.Time {
	switch {
	case v.kind == KindTime && v.flags&flagSysTime != 0:
		if v.flags&(flagBadTime|flagRule) != 0 {
			return time.Time{}
		}
		st := systemTime(v.raw)
		return time.Date(int(st[0]), time.Month(st[1]), int(st[3]), int(st[4]), int(st[5]), int(st[6]), int(st[7])*1e6, time.UTC)
	case v.kind == KindTime, v.isFileTimeInt():
		return header.UnsignedFileTimeToTime(v.num)
	}
	return time.Time{}
}

func (v Value) isFileTimeInt() bool {
	return (v.kind == KindInt || v.kind == KindUint) && len(v.raw) == 8 && v.OutType().isDateTime()
}

// systemTime splits a SYSTEMTIME: year, month, day of week, day, hour,
// minute, second, millisecond.
func systemTime(b []byte) [8]uint16 {
	var st [8]uint16
	for i := range st {
		st[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return st
}

// systemTimeFlags classifies a SYSTEMTIME: a date, a yearly rule, or
// neither (out of range).
func systemTimeFlags(b []byte) uint8 {
	st := systemTime(b)
	switch {
	case isRule(st):
		return flagSysTime | flagRule
	case validSystemTime(st):
		return flagSysTime
	}
	return flagSysTime | flagBadTime
}

// isRule reports whether st is a time-zone transition rule, as
// TIME_ZONE_INFORMATION keeps them: year 0, the month, the day of the week,
// the week of the month in Day (1-4, 5 for the last) and the time of day.
func isRule(st [8]uint16) bool {
	return st[0] == 0 && st[1] >= 1 && st[1] <= 12 && st[2] <= 6 && st[3] >= 1 && st[3] <= 5 &&
		st[4] <= 23 && st[5] <= 59 && st[6] <= 59 && st[7] <= 999
}

func validSystemTime(st [8]uint16) bool {
	if st[1] < 1 || st[1] > 12 || st[3] < 1 || st[4] > 23 || st[5] > 59 || st[6] > 59 || st[7] > 999 {
		return false
	}
	// time.Date would roll 31 April over into May: reject days past the month.
	t := time.Date(int(st[0]), time.Month(st[1]), int(st[3]), 0, 0, 0, 0, time.UTC)
	return t.Day() == int(st[3])
}

// Members are the member values of a KindStruct, in schema order.
func (v Value) Members() []Value {
	if v.kind != KindStruct {
		return nil
	}
	return v.kids
}

// Elems are the elements of a KindArray.
func (v Value) Elems() []Value {
	if v.kind != KindArray {
		return nil
	}
	return v.kids
}

// Member returns the first member of a struct with the given name.
func (v Value) Member(name string) (Value, bool) {
	return Lookup(v.Members(), name)
}

// Lookup returns the first value in vals with the given name.
func Lookup(vals []Value, name string) (Value, bool) {
	for _, m := range vals {
		if m.Name() == name {
			return m, true
		}
	}
	return Value{}, false
}

// Interface returns the typed Go value: int64, uint64, float64, bool,
// string, []byte, uuid.UUID, time.Time, the SID's S-1-… string, or []Value
// for structs and arrays.
func (v Value) Interface() any {
	switch v.kind {
	case KindInt:
		return v.Int()
	case KindUint:
		return v.Uint()
	case KindFloat:
		return v.Float()
	case KindBool:
		return v.Bool()
	case KindString:
		return v.Str()
	case KindBytes:
		return v.Bytes()
	case KindGUID:
		return v.GUID()
	case KindTime:
		return v.Time()
	case KindSID:
		return string(appendSID(nil, v.raw))
	case KindStruct, KindArray:
		return v.kids
	}
	return nil
}

// Clone returns a copy that owns its bytes and children, so it stays valid
// after the payload and the decode slice are reused.
func (v Value) Clone() Value {
	c := v
	if v.raw != nil {
		c.raw = append([]byte(nil), v.raw...)
	}
	if v.kids != nil {
		c.kids = make([]Value, len(v.kids))
		for i := range v.kids {
			c.kids[i] = v.kids[i].Clone()
		}
	}
	return c
}

// String renders the value as AppendText does.
func (v Value) String() string { return string(v.AppendText(nil)) }

// Values worked out from a record rather than read from its payload (a
// build time from a time stamp, a duration from two clock readings) are
// made with these constructors, so that they render like decoded ones. The
// field gives the name and the out-type.

// NewUint returns a KindUint value of field f.
func NewUint(f *Field, v uint64) Value { return Value{field: f, kind: KindUint, num: v} }

// NewInt returns a KindInt value of field f.
func NewInt(f *Field, v int64) Value { return Value{field: f, kind: KindInt, num: uint64(v)} }

// NewFloat returns a KindFloat value of field f.
func NewFloat(f *Field, v float64) Value {
	return Value{field: f, kind: KindFloat, num: math.Float64bits(v)}
}

// NewBool returns a KindBool value of field f.
func NewBool(f *Field, v bool) Value {
	var n uint64
	if v {
		n = 1
	}
	return Value{field: f, kind: KindBool, num: n}
}

// NewFileTime returns a KindTime value of field f holding a FILETIME.
func NewFileTime(f *Field, ft uint64) Value { return Value{field: f, kind: KindTime, num: ft} }

// NewString returns a KindString value of field f. The value refers to the
// bytes of s, which must not change while it is used.
func NewString(f *Field, s []byte) Value { return Value{field: f, kind: KindString, raw: s} }

// NewUTF16String returns a KindString value of field f holding the
// UTF-16LE text b (a part of a decoded string's Raw bytes, say). The value
// refers to b, which must not change while it is used.
func NewUTF16String(f *Field, b []byte) Value {
	return Value{field: f, kind: KindString, flags: flagUTF16, raw: b}
}

// CutUTF16 splits a NUL-terminated UTF-16LE string from the front of b:
// its code units' bytes, and what follows the terminator; ok is false
// when b has no terminator.
func CutUTF16(b []byte) (str, rest []byte, ok bool) {
	for i := 0; i+1 < len(b); i += 2 {
		if b[i] == 0 && b[i+1] == 0 {
			return b[:i], b[i+2:], true
		}
	}
	return nil, nil, false
}

// AppendUTF16 appends the UTF-16LE text b as UTF-8, unpaired surrogates
// as U+FFFD.
func AppendUTF16(dst, b []byte) []byte {
	for i := 0; i+1 < len(b); i += 2 {
		if b[i+1] == 0 && b[i] < utf8.RuneSelf {
			dst = append(dst, b[i])
			continue
		}
		r := rune(binary.LittleEndian.Uint16(b[i:]))
		if utf16.IsSurrogate(r) && i+3 < len(b) {
			if d := utf16.DecodeRune(r, rune(binary.LittleEndian.Uint16(b[i+2:]))); d != utf8.RuneError {
				dst = utf8.AppendRune(dst, d)
				i += 2
				continue
			}
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}
