package wpp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/payload"
)

// The fields of the values a decoded message starts with, before its
// arguments: the rendered text and the LEVEL= and FLAGS= names.
var (
	MessageField = payload.NewField(payload.Field{Name: "Message", InType: payload.InAnsiString, OutType: payload.OutUTF8})
	LevelField   = payload.NewField(payload.Field{Name: "Level", InType: payload.InAnsiString})
	FlagsField   = payload.NewField(payload.Field{Name: "Flags", InType: payload.InAnsiString})
)

// ErrUnknownType is wrapped by the error of a message whose arguments
// include a type of unknown size: decoding stops there.
var ErrUnknownType = errors.New("argument type of unknown size")

// ArgError says where the arguments of a record stopped matching the
// TMF: the argument, its offset in the argument bytes, and why. It wraps
// buffer.ErrTruncated (the record ends inside or before the argument),
// buffer.ErrMalformed, ErrUnknownType, or payload.ErrTrailingData (every
// argument decoded and bytes are left over).
type ArgError struct {
	Message string // the message name
	Arg     string // the argument's expression; "" for bytes after the last
	Index   int    // the argument's position, len(Args) for bytes after the last
	Offset  int
	Reason  string
	Err     error
}

func (e *ArgError) Error() string {
	if e.Arg == "" {
		return fmt.Sprintf("WPP message %s: argument offset %d: %s: %v", e.Message, e.Offset, e.Reason, e.Err)
	}
	return fmt.Sprintf("WPP message %s: argument %d (%s) at offset %d: %s: %v", e.Message, e.Index, e.Arg, e.Offset, e.Reason, e.Err)
}

func (e *ArgError) Unwrap() error { return e.Err }

// emptySchema decodes nothing; DecodeKeep makes of its payload one
// TrailingData value, the bytes past the last argument that decoded.
var emptySchema = payload.MustSchema("", nil)

// nullSID is what WPP logs for a NULL or invalid SID.
var nullSID = []byte("NULL\x00")

// Decode appends to dst one value per argument, in order, cut from args
// (the record's bytes after the MESSAGE header) by each argument's type;
// pointerSize (4 or 8) sizes ItemPtr. The values refer to args and are
// valid as long as it is.
//
// When the bytes end inside an argument, or an argument's type has no
// known size, the values of the arguments before it are appended, then
// the bytes from there on as one payload.TrailingData value, and the
// error (an *ArgError) says which argument and why. Bytes after the last
// argument are kept the same way, with an error wrapping
// payload.ErrTrailingData. Decode allocates nothing when dst has room for
// len(m.Args)+3 more values.
func (m *Message) Decode(dst []payload.Value, args []byte, pointerSize int) ([]payload.Value, error) {
	// Room for every argument and a TrailingData value: each is decoded
	// into dst's spare capacity, which would otherwise run out at the
	// last one and cost an allocation per record.
	dst = slices.Grow(dst, len(m.Args)+1)
	pos := 0
	for i := range m.Args {
		a := &m.Args[i]
		n, reason, err := cut(a.Type, args[pos:], pointerSize)
		if err == nil {
			var out []payload.Value
			if a.Type == ItemSid && n == len(nullSID) && string(args[pos:pos+n]) == string(nullSID) {
				dst = append(dst, payload.NewString(&a.schema.Fields[0], args[pos:pos+4:pos+4]))
				pos += n
				continue
			}
			out, err = a.schema.Decode(args[pos:pos+n:pos+n], pointerSize, dst[len(dst):len(dst)])
			if err == nil {
				dst = append(dst, out[0])
				pos += n
				continue
			}
			reason = "does not decode"
		}
		dst = m.keepRest(dst, args[pos:], pointerSize)
		return dst, &ArgError{Message: m.Name, Arg: a.Name, Index: i, Offset: pos, Reason: reason, Err: err}
	}
	if pos < len(args) {
		dst = m.keepRest(dst, args[pos:], pointerSize)
		return dst, &ArgError{Message: m.Name, Index: len(m.Args), Offset: pos,
			Reason: fmt.Sprintf("%d bytes after the last argument", len(args)-pos), Err: payload.ErrTrailingData}
	}
	return dst, nil
}

// Values appends what a description of a record of the message holds: a
// Message value (the text AppendText gives, rendered into *text, whose
// storage it reuses), the Level and Flags values of the entry's LEVEL= and
// FLAGS=, then the arguments as Decode appends them, with its error. The
// values refer to *text and to args. p gives the prefix variables the
// text may refer to; it is read only when NeedsPrefix says so.
func (m *Message) Values(dst []payload.Value, text *[]byte, args []byte, pointerSize int, p *Prefix) ([]payload.Value, error) {
	at := len(dst)
	dst = slices.Grow(dst, 1+len(m.lead)+len(m.Args)+1)
	dst = append(dst, payload.NewString(MessageField, nil))
	dst = append(dst, m.lead...)
	dst, err := m.Decode(dst, args, pointerSize)
	*text = m.AppendText((*text)[:0], dst[at:], p)
	dst[at] = payload.NewString(MessageField, *text)
	return dst, err
}

// NeedsPrefix reports whether the message's text refers to the prefix
// variables (%1–%9: module, thread, time …) besides the prefix itself.
func (m *Message) NeedsPrefix() bool { return m.prefixVars }

// keepRest appends rest as one TrailingData value, when there is any.
func (m *Message) keepRest(dst []payload.Value, rest []byte, pointerSize int) []payload.Value {
	if len(rest) == 0 {
		return dst
	}
	out, _ := emptySchema.DecodeKeep(rest[:len(rest):len(rest)], pointerSize, dst[len(dst):len(dst)])
	if len(out) == 1 {
		dst = append(dst, out[0])
	}
	return dst
}

// cut is the size of the value of type t at the start of b. It fails with
// buffer.ErrTruncated when b ends inside the value, buffer.ErrMalformed
// when the bytes cannot be such a value, and ErrUnknownType for a type of
// unknown size.
func cut(t ItemType, b []byte, pointerSize int) (int, string, error) {
	if n, ok := t.Size(pointerSize); ok {
		if len(b) < n {
			return 0, fmt.Sprintf("%v needs %d bytes, %d left", t, n, len(b)), buffer.ErrTruncated
		}
		return n, "", nil
	}
	switch t {
	case ItemString, ItemRString:
		for i, c := range b {
			if c == 0 {
				return i + 1, "", nil
			}
		}
		return 0, "string has no NUL terminator", buffer.ErrTruncated
	case ItemWString, ItemRWString:
		for i := 0; i+1 < len(b); i += 2 {
			if b[i] == 0 && b[i+1] == 0 {
				return i + 2, "", nil
			}
		}
		return 0, "UTF-16 string has no NUL terminator", buffer.ErrTruncated
	case ItemPString, ItemPWString, ItemHexDump:
		if len(b) < 2 {
			return 0, "byte count needs 2 bytes", buffer.ErrTruncated
		}
		n := 2 + int(binary.LittleEndian.Uint16(b))
		if len(b) < n {
			return 0, fmt.Sprintf("count says %d bytes, %d left", n-2, len(b)-2), buffer.ErrTruncated
		}
		if t == ItemPWString && n%2 != 0 {
			return 0, fmt.Sprintf("UTF-16 string of odd byte count %d", n-2), buffer.ErrMalformed
		}
		return n, "", nil
	case ItemSid:
		if len(b) >= len(nullSID) && string(b[:len(nullSID)]) == string(nullSID) {
			return len(nullSID), "", nil
		}
		if len(b) < 8 {
			return 0, "SID needs 8 bytes", buffer.ErrTruncated
		}
		k := int(b[1])
		if b[0] != 1 || k > 15 {
			return 0, fmt.Sprintf("not a SID (revision %d, %d sub-authorities)", b[0], k), buffer.ErrMalformed
		}
		if len(b) < 8+4*k {
			return 0, fmt.Sprintf("SID needs %d bytes, %d left", 8+4*k, len(b)), buffer.ErrTruncated
		}
		return 8 + 4*k, "", nil
	case ItemPtr:
		return 0, fmt.Sprintf("pointer size %d is neither 4 nor 8", pointerSize), buffer.ErrMalformed
	}
	return 0, "", ErrUnknownType
}

// argSchema is the one-field schema that decodes a's bytes, the value's
// in-type and out-type chosen by the item type and its conversion.
func argSchema(a *Arg) (*payload.Schema, error) {
	f := payload.Field{Name: a.Name}
	verb := a.conv.Verb
	signed := verb == 'd' || verb == 'i'
	hex := verb == 'x' || verb == 'X'
	switch a.Type {
	case ItemChar:
		switch {
		case verb == 'c' || verb == 'C':
			f.InType = payload.InAnsiChar
		case signed || verb == 's':
			f.InType = payload.InInt8
		default:
			f.InType = payload.InUInt8
		}
	case ItemUChar:
		f.InType = payload.InUInt8
	case ItemShort:
		switch {
		case verb == 'c' || verb == 'C':
			f.InType = payload.InUnicodeChar
		case signed || verb == 's':
			f.InType = payload.InInt16
		default:
			f.InType = payload.InUInt16
		}
	case ItemLong:
		switch {
		case signed || verb == 's':
			f.InType = payload.InInt32
		case hex:
			f.InType = payload.InHexInt32
		default:
			f.InType = payload.InUInt32
		}
	case ItemLongLong:
		f.InType = payload.InInt64
	case ItemULongLong, ItemLongLongO:
		f.InType = payload.InUInt64
	case ItemLongLongX, ItemLongLongXX:
		f.InType = payload.InHexInt64
	case ItemDouble:
		f.InType = payload.InDouble
	case ItemPtr:
		f.InType = payload.InPointer
	case ItemGuid, ItemCLSID, ItemLIBID, ItemIID:
		f.InType = payload.InGUID
	case ItemString, ItemRString:
		f.InType = payload.InAnsiString
	case ItemWString, ItemRWString:
		f.InType = payload.InUnicodeString
	case ItemPString:
		f.InType = payload.InCountedAnsiString
	case ItemPWString:
		f.InType = payload.InCountedString
	case ItemSid:
		f.InType = payload.InSID
	case ItemHexDump:
		f.InType, f.OutType = payload.InCountedBinary, payload.OutHexBinary
	case ItemIPV6Addr:
		f.InType, f.OutType = payload.InBinary, payload.OutIPv6
	case ItemChar4:
		f.InType, f.Length = payload.InAnsiString, 4
	case ItemIPAddr:
		f.InType, f.OutType = payload.InUInt32, payload.OutIPv4
	case ItemPort:
		f.InType, f.OutType = payload.InUInt16, payload.OutPort
	case ItemNTSTATUS:
		f.InType, f.OutType, f.Map = payload.InUInt32, payload.OutNTStatus, ntStatusMap()
	case ItemHRESULT:
		f.InType, f.OutType, f.Map = payload.InUInt32, payload.OutHResult, hresultMap()
	case ItemWINERROR:
		f.InType, f.OutType, f.Map = payload.InUInt32, payload.OutWin32Error, win32ErrorMap()
	case ItemNDISStatus, ItemNDISOid:
		f.InType = payload.InHexInt32
	case ItemTimestamp:
		f.InType = payload.InFileTime
	case ItemWaitTime, ItemTimeDelta:
		f.InType = payload.InInt64
	case ItemListByte, ItemSetByte:
		f.InType = payload.InUInt8
	case ItemListShort, ItemSetShort:
		f.InType = payload.InUInt16
	case ItemListLong, ItemSetLong, ItemEnum, ItemFlagsEnum:
		f.InType = payload.InUInt32
	default:
		// Never decoded: cut stops first. The field still needs a type.
		f.InType = payload.InBinary
	}
	if len(a.Labels) > 0 {
		entries := make([]payload.MapEntry, len(a.Labels))
		for i, l := range a.Labels {
			entries[i] = payload.MapEntry{Value: l.Value, Name: l.Name}
		}
		f.Map = payload.NewMap(a.TypeName, a.Type.isSet(), entries)
		f.Map.Separator = setSeparator
	}
	return payload.NewSchema(a.Name, []payload.Field{f})
}

// bytesOf is the bytes of s, shared, for values that refer to text the
// TMF holds; they are never written.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
