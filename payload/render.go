package payload

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"net/netip"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/digits"
)

// timeLayout renders times in UTC with the full 100 ns precision of a
// FILETIME, so that equal instants always give equal text.
const timeLayout = "2006-01-02T15:04:05.0000000Z07:00"

const hexDigits = "0123456789ABCDEF"

// AppendText appends the value as text for "name=value" output: numbers in
// decimal unless the OutType asks for hex (HexInt32/64, Pointer, Hex,
// NTStatus, HResult, CodePointer), an IPv4/IPv6 address, a socket address or
// a date-time; strings as they are with control characters escaped
// (\n, \t, \xNN); bytes as 0x-prefixed hex; GUIDs in lower-case
// 8-4-4-4-12 form; times in RFC 3339 UTC with 7 fraction digits (nothing for one not set); SIDs as
// S-1-…; character arrays as strings; structs and other arrays as JSON,
// which keeps nesting unambiguous.
func (v Value) AppendText(dst []byte) []byte {
	if f := v.field; f != nil && f.OutType == OutDefault && f.Map == nil && (v.kind == KindUint || v.kind == KindInt) {
		// Most values: a number without a map, as appendNumber writes it.
		switch f.InType {
		case InHexInt32, InHexInt64, InPointer, InSizeT:
			return appendHex(dst, v.num&widthMask(len(v.raw)), 0)
		}
		if v.kind == KindInt {
			return digits.AppendInt(dst, int64(v.num))
		}
		return digits.AppendDecimal(dst, v.num)
	}
	if v.isCharArray() {
		return v.appendStringText(dst)
	}
	if v.isHexByteArray() {
		return appendHexBytes(dst, v.raw)
	}
	if out, ok := v.AppendMapName(dst); ok {
		return out
	}
	if v.isChar() {
		return v.appendCharText(dst)
	}
	switch v.kind {
	case KindInt, KindUint:
		return v.appendNumber(dst, false)
	case KindFloat:
		return v.appendFloat(dst, false)
	case KindBool:
		return strconv.AppendBool(dst, v.num != 0)
	case KindString:
		return v.appendStringText(dst)
	case KindBytes:
		return v.appendBytes(dst)
	case KindGUID:
		return guid.Append(dst, guid.FromWindows(v.raw))
	case KindTime:
		return v.appendTime(dst)
	case KindSID:
		return appendSID(dst, v.raw)
	case KindStruct, KindArray:
		return v.AppendJSON(dst)
	}
	return dst
}

// AppendJSON appends the value as JSON: numbers as numbers, except values
// that AppendText renders in another form (hex, addresses, times), which
// become JSON strings of that text, as do non-finite floats; strings as
// JSON strings, except Json-typed strings that hold valid JSON, which are
// embedded as they are; structs as objects with members in schema order;
// arrays as arrays.
func (v Value) AppendJSON(dst []byte) []byte { return v.appendJSON(dst) }

// appendJSON is AppendJSON on a pointer, which AppendJSONObject calls for
// every value without copying it.
func (v *Value) appendJSON(dst []byte) []byte {
	switch v.kind {
	case KindInt, KindUint:
		if f := v.field; f != nil && f.OutType == OutDefault {
			// Most values of a trace: decimal, or hex for the hex
			// in-types, as appendNumber writes them.
			switch f.InType {
			case InHexInt32, InHexInt64, InPointer, InSizeT:
				return appendQuotedHex(dst, v.num&widthMask(len(v.raw)))
			}
			if v.kind == KindInt {
				return digits.AppendInt(dst, int64(v.num))
			}
			return digits.AppendDecimal(dst, v.num)
		} else if f != nil && f.OutType.isHex() {
			// As appendFormatted writes a hex out-type.
			return appendQuotedHex(dst, v.num&widthMask(len(v.raw)))
		}
		if v.isChar() {
			dst = append(dst, '"')
			dst = appendJSONRune(dst, v.char())
			return append(dst, '"')
		}
		return v.appendNumber(dst, true)
	case KindFloat:
		return v.appendFloat(dst, true)
	case KindBool:
		return strconv.AppendBool(dst, v.num != 0)
	case KindString:
		if v.OutType() == OutJSON {
			mark := len(dst)
			dst = v.appendUTF8(dst)
			if json.Valid(dst[mark:]) {
				return dst
			}
			dst = dst[:mark]
		}
		return appendJSONString(dst, v.runes())
	case KindStruct:
		return AppendJSONObject(dst, v.kids)
	case KindArray:
		if v.isCharArray() {
			return appendJSONString(dst, v.runes())
		}
		if v.isHexByteArray() {
			dst = append(dst, '"')
			dst = appendHexBytes(dst, v.raw)
			return append(dst, '"')
		}
		dst = append(dst, '[')
		if f := v.field; f != nil && f.OutType == OutDefault {
			// Arrays of numbers (stacks, offsets, counters): each
			// element as appendJSON writes it, without its call.
			hex := false
			switch f.InType {
			case InHexInt32, InHexInt64, InPointer, InSizeT:
				hex = true
			}
			if hex {
				if out, ok := appendHexArray(dst, v.kids, f); ok {
					return append(out, ']')
				}
			}
			for i := range v.kids {
				k := &v.kids[i]
				if i > 0 {
					dst = append(dst, ',')
				}
				switch {
				case k.kind != KindUint && k.kind != KindInt || k.field != f:
					dst = k.appendJSON(dst)
				case hex:
					dst = appendQuotedHex(dst, k.num&widthMask(len(k.raw)))
				case k.kind == KindInt:
					dst = digits.AppendInt(dst, int64(k.num))
				default:
					dst = digits.AppendDecimal(dst, k.num)
				}
			}
			return append(dst, ']')
		}
		for i := range v.kids {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = v.kids[i].appendJSON(dst)
		}
		return append(dst, ']')
	case KindInvalid:
		return append(dst, "null"...)
	case KindTime:
		if v.TimeUnset() {
			return append(dst, "null"...)
		}
	}
	// Everything else renders as text without characters JSON must escape.
	dst = append(dst, '"')
	dst = v.AppendText(dst)
	return append(dst, '"')
}

// AppendJSONObject appends vals as one JSON object, keys in order. A name
// that occurs twice is written twice: the order carries the meaning. A
// value that a map names keeps its number, and the name follows it under
// the field's name with "Name" added ("Flags":3,"FlagsName":"A, B").
func AppendJSONObject(dst []byte, vals []Value) []byte {
	dst = append(dst, '{')
	for i := range vals {
		v := &vals[i]
		f := v.field
		key, keyed := "", false
		if f != nil {
			key, keyed = f.objectKey()
		}
		if keyed {
			if i == 0 {
				key = key[1:]
			}
			dst = append(dst, key...)
		} else {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONName(dst, v.Name())
			dst = append(dst, ':')
		}
		dst = v.appendJSON(dst)
		if f != nil && f.Map != nil && (v.kind == KindUint || v.kind == KindInt) {
			mark := len(dst)
			if keyed {
				dst = append(dst, ',', '"')
				dst = append(dst, f.Name...)
			} else {
				dst = append(dst, ',')
				dst = appendJSONName(dst, v.Name())
				dst = dst[:len(dst)-1]
			}
			dst = append(dst, `Name":"`...)
			named := len(dst)
			var ok bool
			if dst, ok = f.Map.AppendName(dst, v.num); !ok {
				dst = dst[:mark]
				continue
			}
			dst = appendJSONEscapedTail(dst, named)
			dst = append(dst, '"')
		}
	}
	return append(dst, '}')
}

// appendJSONEscapedTail escapes, in place, the text appended since mark.
func appendJSONEscapedTail(dst []byte, mark int) []byte {
	clean := true
	for _, c := range dst[mark:] {
		if c < 0x20 || c == '"' || c == '\\' {
			clean = false
			break
		}
	}
	if clean {
		return dst
	}
	text := string(dst[mark:])
	dst = dst[:mark]
	for _, r := range text {
		dst = appendJSONRune(dst, r)
	}
	return dst
}

// AppendTextFields appends vals as name=value pairs separated by sep.
func AppendTextFields(dst []byte, vals []Value, sep string) []byte {
	for i := range vals {
		if i > 0 {
			dst = append(dst, sep...)
		}
		dst = append(dst, vals[i].Name()...)
		dst = append(dst, '=')
		dst = vals[i].AppendText(dst)
	}
	return dst
}

func (v *Value) appendNumber(dst []byte, inJSON bool) []byte {
	var in InType
	var out OutType
	if v.field != nil {
		in, out = v.field.InType, v.field.OutType
	}
	if out == OutDefault {
		// Most numbers: decimal, or hex for the hex in-types.
		switch in {
		case InHexInt32, InHexInt64, InPointer, InSizeT:
			if inJSON {
				dst = append(dst, '"')
				dst = appendHex(dst, v.num&widthMask(len(v.raw)), 0)
				return append(dst, '"')
			}
			return appendHex(dst, v.num&widthMask(len(v.raw)), 0)
		}
		if v.kind == KindInt {
			return digits.AppendInt(dst, int64(v.num))
		}
		return digits.AppendDecimal(dst, v.num)
	}
	return v.appendFormatted(dst, in, out, inJSON)
}

// widthMask keeps the bits of an integer n bytes wide; all of them for a
// value without bytes (a computed one).
func widthMask(n int) uint64 {
	if n <= 0 || n >= 8 {
		return math.MaxUint64
	}
	return 1<<(8*n) - 1
}

// appendFormatted is appendNumber for a field whose out-type chooses the
// form.
func (v *Value) appendFormatted(dst []byte, in InType, out OutType, inJSON bool) []byte {
	quote := func(dst []byte) []byte {
		if inJSON {
			dst = append(dst, '"')
		}
		return dst
	}
	width := len(v.raw) * 8
	var mask uint64 = math.MaxUint64
	if width > 0 && width < 64 {
		mask = 1<<width - 1
	}
	hexWidth := -1 // no hex
	if out != OutDefault {
		switch {
		case width == 64 && out.isDateTime():
			if v.num == 0 {
				// Not set (see TimeUnset).
				if inJSON {
					return append(dst, "null"...)
				}
				return dst
			}
			dst = quote(dst)
			dst = AppendTime(dst, header.UnsignedFileTimeToTime(v.num))
			return quote(dst)
		case in == InUInt32 && out == OutIPv4:
			dst = quote(dst)
			dst = netip.AddrFrom4([4]byte(v.raw)).AppendTo(dst)
			return quote(dst)
		}
		switch out {
		case OutByte, OutShort, OutInt, OutLong:
			// A decimal out-type overrides a hex in-type; the bits are
			// read as signed at the value's width.
			x := v.num & mask
			if width > 0 && width < 64 && x&(1<<(width-1)) != 0 {
				x |= ^mask
			}
			return strconv.AppendInt(dst, int64(x), 10)
		case OutUnsignedByte, OutUnsignedShort, OutUnsignedInt, OutUnsignedLong:
			return strconv.AppendUint(dst, v.num&mask, 10)
		case OutNTStatus, OutHResult:
			hexWidth = 8
		}
		if out.isHex() {
			hexWidth = 0
		}
	}
	switch in {
	case InHexInt32, InHexInt64, InPointer, InSizeT:
		if hexWidth < 0 {
			hexWidth = 0
		}
	}
	if hexWidth >= 0 {
		dst = quote(dst)
		dst = appendHex(dst, v.num&mask, hexWidth)
		return quote(dst)
	}
	if v.kind == KindInt {
		return strconv.AppendInt(dst, int64(v.num), 10)
	}
	return strconv.AppendUint(dst, v.num, 10)
}

// appendHex appends 0x and upper-case hex digits, at least minDigits of
// them (at most 16 count).
func appendHex(dst []byte, x uint64, minDigits int) []byte {
	n := max((bits.Len64(x)+3)/4, min(minDigits, 16), 1)
	// Eight digits at a time, most significant first, written in place;
	// shifting a word of them right drops its leading zeros. Pointers and
	// stack frames are most of the hex of a kernel trace.
	l := len(dst)
	dst = slices.Grow(dst, 18)
	out := dst[l : l+18]
	out[0], out[1] = '0', 'x'
	le := binary.LittleEndian
	lo := hexUpper8(bits.ReverseBytes32(uint32(x)))
	if n <= 8 {
		le.PutUint64(out[2:], lo>>(64-8*uint(n)))
	} else {
		le.PutUint64(out[2:], hexUpper8(bits.ReverseBytes32(uint32(x>>32)))>>(128-8*uint(n)))
		le.PutUint64(out[n-6:], lo)
	}
	return dst[:l+2+n]
}

// appendHexArray writes the elements of a hex array ("0x1A","0x2B"…)
// into room grown once, for arrays whose every element is a number of
// field f: stacks are most of the hex a trace holds. It reports false,
// writing nothing, for any other array.
func appendHexArray(dst []byte, kids []Value, f *Field) ([]byte, bool) {
	for i := range kids {
		if k := &kids[i]; k.kind != KindUint && k.kind != KindInt || k.field != f {
			return dst, false
		}
	}
	// Each element takes at most 21 bytes: a comma, two quotes, "0x" and
	// 16 digits; the 8-byte stores below reach 6 bytes past the digits.
	l := len(dst)
	dst = slices.Grow(dst, 21*len(kids)+8)
	out := dst[l:cap(dst)]
	le := binary.LittleEndian
	p := 0
	for i := range kids {
		k := &kids[i]
		x := k.num & widthMask(len(k.raw))
		if i > 0 {
			out[p] = ','
			p++
		}
		out[p], out[p+1], out[p+2] = '"', '0', 'x'
		p += 3
		// The digits as appendHex writes them, written out here: shared
		// through a function, which the compiler does not inline, they
		// would cost a call per element of every array.
		n := max((bits.Len64(x)+3)/4, 1)
		lo := hexUpper8(bits.ReverseBytes32(uint32(x)))
		if n <= 8 {
			le.PutUint64(out[p:], lo>>(64-8*uint(n)))
		} else {
			le.PutUint64(out[p:], hexUpper8(bits.ReverseBytes32(uint32(x>>32)))>>(128-8*uint(n)))
			le.PutUint64(out[p+n-8:], lo)
		}
		p += n
		out[p] = '"'
		p++
	}
	return dst[:l+p], true
}

// appendQuotedHex is appendHex without a minimum width, between quotes.
func appendQuotedHex(dst []byte, x uint64) []byte {
	dst = append(dst, '"')
	dst = appendHex(dst, x, 0)
	return append(dst, '"')
}

func hexUpper8(w uint32) uint64 { return digits.Hex8(w, true) }

func (v Value) appendFloat(dst []byte, inJSON bool) []byte {
	f := v.Float()
	size := 64
	if v.flags&flagFloat32 != 0 {
		size = 32
	}
	if inJSON && (math.IsNaN(f) || math.IsInf(f, 0)) {
		dst = append(dst, '"')
		dst = strconv.AppendFloat(dst, f, 'g', -1, size)
		return append(dst, '"')
	}
	return strconv.AppendFloat(dst, f, 'g', -1, size)
}

func (v Value) appendCharText(dst []byte) []byte {
	return appendTextRune(dst, v.char())
}

// appendTextRune appends r with control characters escaped as
// appendStringText does.
func appendTextRune(dst []byte, r rune) []byte {
	switch {
	case r == '\n':
		return append(dst, '\\', 'n')
	case r == '\r':
		return append(dst, '\\', 'r')
	case r == '\t':
		return append(dst, '\\', 't')
	case r < 0x20 || r == 0x7F:
		return append(dst, '\\', 'x', hexDigits[r>>4], hexDigits[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

// The string appenders take runs of plain characters at a time, also
// after a character that needs escaping: file paths have a backslash every
// few characters.

func (v Value) appendStringText(dst []byte) []byte {
	it := v.runes()
	for {
		dst = it.appendPlain(dst, &textPlain)
		r, ok := it.next()
		if !ok {
			return dst
		}
		dst = appendTextRune(dst, r)
	}
}

func appendJSONString(dst []byte, it runeIter) []byte {
	dst = append(dst, '"')
	for {
		dst = it.appendPlain(dst, &jsonPlain)
		r, ok := it.next()
		if !ok {
			return append(dst, '"')
		}
		dst = appendJSONRune(dst, r)
	}
}

// appendPlain appends the leading characters that plain marks as standing
// for themselves (ASCII only) and moves the iterator past them: most text
// is plain ASCII, which then costs a test a character.
func (it *runeIter) appendPlain(dst []byte, plain *[256]uint8) []byte {
	b := it.b
	i := 0
	if it.utf16 {
		n := len(dst)
		dst = slices.Grow(dst, len(b)/2)
		out := dst[n : n+len(b)/2]
		j := 0
		// Eight characters at a time while they are printable ASCII
		// that both JSON and text show as it is, then four at a time
		// while plain marks them.
		le := binary.LittleEndian
		for ; i+16 <= len(b) && j+8 <= len(out); i, j = i+16, j+8 {
			w0, w1 := le.Uint64(b[i:]), le.Uint64(b[i+8:])
			if !plainASCII8(w0, w1) {
				break
			}
			le.PutUint32(out[j:], packASCII4(w0))
			le.PutUint32(out[j+4:], packASCII4(w1))
		}
		for ; i+8 <= len(b); i, j = i+8, j+4 {
			w := binary.LittleEndian.Uint64(b[i:])
			if w&0xFF00FF00FF00FF00 != 0 || plain[byte(w)]&plain[byte(w>>16)]&plain[byte(w>>32)]&plain[byte(w>>48)] == 0 {
				break
			}
			binary.LittleEndian.PutUint32(out[j:], uint32(w&0xFF|w>>8&0xFF00|w>>16&0xFF0000|w>>24&0xFF000000))
		}
		for ; i+1 < len(b) && b[i+1] == 0 && plain[b[i]] != 0; i, j = i+2, j+1 {
			out[j] = b[i]
		}
		dst = dst[:n+j]
	} else {
		for i < len(b) && plain[b[i]] != 0 {
			i++
		}
		dst = append(dst, b[:i]...)
	}
	it.b = b[i:]
	return dst
}

// plainASCII8 reports whether the eight UTF-16 code units of w0 and w1
// are all printable ASCII but the quote and the backslash: characters
// that JSON and text both show as they are. Each test works on the four
// 16-bit lanes of a word at once.
func plainASCII8(w0, w1 uint64) bool {
	const lanes = 0x0001000100010001
	const top = 0x80 * lanes // bit 7 of every lane
	if (w0|w1)&(0xFF80*lanes) != 0 {
		return false // not ASCII
	}
	// Every lane is below 0x80 now, so adding to it sets bit 7 at most:
	// +0x60 sets it from 0x20 up, +1 for 0x7F alone, and +0x7F for any
	// lane but 0 (a lane XORed with a character it is not).
	printable := (w0 + 0x60*lanes) & (w1 + 0x60*lanes)
	del := (w0 + lanes) | (w1 + lanes)
	notQuote := (w0 ^ '"'*lanes + 0x7F*lanes) & (w1 ^ '"'*lanes + 0x7F*lanes)
	notBackslash := (w0 ^ '\\'*lanes + 0x7F*lanes) & (w1 ^ '\\'*lanes + 0x7F*lanes)
	return printable&notQuote&notBackslash&top == top && del&top == 0
}

// packASCII4 packs the low bytes of the four 16-bit lanes of w.
func packASCII4(w uint64) uint32 {
	return uint32(w&0xFF | w>>8&0xFF00 | w>>16&0xFF0000 | w>>24&0xFF000000)
}

// textPlain marks the bytes text output shows as they are: printable
// ASCII.
var textPlain = func() (t [256]uint8) {
	for c := 0x20; c < 0x7F; c++ {
		t[c] = 1
	}
	return t
}()

// isPlainJSON reports whether s goes into a JSON string as it is.
func isPlainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if jsonPlain[s[i]] == 0 {
			return false
		}
	}
	return true
}

// appendJSONName quotes a field name; names are UTF-8 per the metadata
// encoding.
func appendJSONName(dst []byte, s string) []byte { return AppendJSONString(dst, s) }

func (v Value) appendBytes(dst []byte) []byte {
	b := v.raw
	switch v.OutType() {
	case OutIPv6:
		if len(b) == 16 {
			return netip.AddrFrom16([16]byte(b)).AppendTo(dst)
		}
	case OutIPv4:
		if len(b) == 4 {
			return netip.AddrFrom4([4]byte(b)).AppendTo(dst)
		}
	case OutSocketAddress:
		if out, ok := appendSockaddr(dst, b); ok {
			return out
		}
	}
	return appendHexBytes(dst, b)
}

// appendHexBytes appends b as 0x and two upper-case hex digits a byte,
// nothing when b is empty.
func appendHexBytes(dst, b []byte) []byte {
	if len(b) == 0 {
		return dst
	}
	n := len(dst)
	dst = slices.Grow(dst, 2+2*len(b))[:n+2+2*len(b)]
	out := dst[n:]
	out[0], out[1] = '0', 'x'
	out = out[2:]
	// Four bytes at a time: the stacks and buffers some events carry
	// make hex dumps a good part of their output.
	le := binary.LittleEndian
	for len(b) >= 8 && len(out) >= 16 {
		le.PutUint64(out, hexUpper8(le.Uint32(b)))
		le.PutUint64(out[8:], hexUpper8(le.Uint32(b[4:])))
		b, out = b[8:], out[16:]
	}
	for len(b) >= 4 && len(out) >= 8 {
		le.PutUint64(out, hexUpper8(le.Uint32(b)))
		b, out = b[4:], out[8:]
	}
	for i, c := range b {
		out[2*i], out[2*i+1] = hexDigits[c>>4], hexDigits[c&0xF]
	}
	return dst
}

// Address families of a SOCKADDR.
const (
	afInet  = 2
	afInet6 = 23
)

// appendSockaddr renders a SOCKADDR_IN ("1.2.3.4:80") or SOCKADDR_IN6
// ("[::1]:80", with "%scope" when the scope id is set).
func appendSockaddr(dst, b []byte) ([]byte, bool) {
	if len(b) < 2 {
		return dst, false
	}
	switch binary.LittleEndian.Uint16(b) {
	case afInet:
		if len(b) < 8 {
			return dst, false
		}
		dst = netip.AddrFrom4([4]byte(b[4:8])).AppendTo(dst)
		dst = append(dst, ':')
		return strconv.AppendUint(dst, uint64(binary.BigEndian.Uint16(b[2:])), 10), true
	case afInet6:
		if len(b) < 28 {
			return dst, false
		}
		dst = append(dst, '[')
		dst = netip.AddrFrom16([16]byte(b[8:24])).AppendTo(dst)
		if scope := binary.LittleEndian.Uint32(b[24:]); scope != 0 {
			dst = append(dst, '%')
			dst = strconv.AppendUint(dst, uint64(scope), 10)
		}
		dst = append(dst, ']', ':')
		return strconv.AppendUint(dst, uint64(binary.BigEndian.Uint16(b[2:])), 10), true
	}
	return dst, false
}

func (v Value) appendTime(dst []byte) []byte {
	if v.TimeUnset() {
		return dst
	}
	if v.flags&flagSysTime == 0 {
		return AppendTime(dst, header.UnsignedFileTimeToTime(v.num))
	}
	return AppendSystemTime(dst, systemTime(v.raw))
}

// AppendTime appends t as every output writes times: RFC 3339 in UTC with
// exactly seven fractional digits, the 100 ns resolution of every ETW
// clock, so that equal instants give equal text and a column of them
// sorts as text. Years outside 0 to 9999 are written in full, as
// time.Format writes them.
func AppendTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, timeLayout)
	}
	// Digit pairs rather than time.Format, which takes its layout apart
	// for every value.
	hour, minute, sec := t.Clock()
	frac := t.Nanosecond() / 100
	pair := func(dst []byte, x int) []byte { return append(dst, digits.Pairs[2*x], digits.Pairs[2*x+1]) }
	dst = pair(pair(dst, year/100), year%100)
	dst = append(dst, '-')
	dst = pair(dst, int(month))
	dst = append(dst, '-')
	dst = pair(dst, day)
	dst = append(dst, 'T')
	dst = pair(dst, hour)
	dst = append(dst, ':')
	dst = pair(dst, minute)
	dst = append(dst, ':')
	dst = pair(dst, sec)
	dst = append(dst, '.', byte('0'+frac/1000000))
	frac %= 1000000
	dst = pair(pair(pair(dst, frac/10000), frac/100%100), frac%100)
	return append(dst, 'Z')
}

var (
	weekNames = [...]string{"", "first", "second", "third", "fourth", "last"}
	dayNames  = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// AppendSystemTime appends a SYSTEMTIME (wYear, wMonth, wDayOfWeek, wDay,
// wHour, wMinute, wSecond, wMilliseconds) as a value of one renders: a
// date in RFC 3339 UTC; a yearly transition rule (year 0, as the standard
// and daylight dates of a TIME_ZONE_INFORMATION hold them) as
// "yearly, last Sunday of March, 02:00:00"; and fields out of range as
// they are, so that they are not normalized into some other instant.
func AppendSystemTime(dst []byte, st [8]uint16) []byte {
	pad := func(dst []byte, x uint16, n int) []byte {
		var tmp [5]byte
		s := strconv.AppendUint(tmp[:0], uint64(x), 10)
		for i := len(s); i < n; i++ {
			dst = append(dst, '0')
		}
		return append(dst, s...)
	}
	clock := func(dst []byte) []byte {
		dst = pad(dst, st[4], 2)
		dst = append(dst, ':')
		dst = pad(dst, st[5], 2)
		dst = append(dst, ':')
		return pad(dst, st[6], 2)
	}
	switch {
	case isRule(st):
		dst = append(dst, "yearly, "...)
		dst = append(dst, weekNames[st[3]]...)
		dst = append(dst, ' ')
		dst = append(dst, dayNames[st[2]]...)
		dst = append(dst, " of "...)
		dst = append(dst, time.Month(st[1]).String()...)
		dst = append(dst, ", "...)
		dst = clock(dst)
		if st[7] != 0 {
			dst = append(dst, '.')
			dst = pad(dst, st[7], 3)
		}
		return dst
	case validSystemTime(st):
		t := time.Date(int(st[0]), time.Month(st[1]), int(st[3]), int(st[4]), int(st[5]), int(st[6]), int(st[7])*1e6, time.UTC)
		return AppendTime(dst, t)
	}
	dst = pad(dst, st[0], 4)
	dst = append(dst, '-')
	dst = pad(dst, st[1], 2)
	dst = append(dst, '-')
	dst = pad(dst, st[3], 2)
	dst = append(dst, 'T')
	dst = clock(dst)
	dst = append(dst, '.')
	dst = pad(dst, st[7], 3)
	return append(dst, "0000Z"...)
}

// appendSID renders a SID as S-R-A-S1-S2…, the authority in hex when it
// does not fit 32 bits, as Windows does.
func appendSID(dst, b []byte) []byte {
	if len(b) < 8 {
		return dst
	}
	dst = append(dst, 'S', '-')
	dst = strconv.AppendUint(dst, uint64(b[0]), 10)
	dst = append(dst, '-')
	var auth uint64
	for _, c := range b[2:8] {
		auth = auth<<8 | uint64(c)
	}
	if auth >= 1<<32 {
		dst = appendHex(dst, auth, 12)
	} else {
		dst = strconv.AppendUint(dst, auth, 10)
	}
	for i := 8; i+4 <= len(b); i += 4 {
		dst = append(dst, '-')
		dst = strconv.AppendUint(dst, uint64(binary.LittleEndian.Uint32(b[i:])), 10)
	}
	return dst
}
