package wpp

import (
	"encoding/binary"
	"math"
	"net/netip"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/printf"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// Prefix holds what the prefix variables %3–%9 stand for, taken from the
// record; %1 and %2 are the message's Module and Name.
type Prefix struct {
	ThreadID   uint32    // %3
	Time       time.Time // %4, shown in UTC; the zero Time shows as "-"
	KernelTime uint32    // %5 (MESSAGE records carry none: 0)
	UserTime   uint32    // %6
	Sequence   uint32    // %7
	ProcessID  uint32    // %8
	CPU        uint32    // %9
	// PointerSize sizes %p of prefix variables; 0 counts as 8.
	PointerSize int
	// TimeText, when set, is %4 as the caller has it already formatted,
	// in place of Time.
	TimeText []byte
}

// PrefixOf is what the prefix variables stand for in record r: its
// thread and process, time, sequence number and processor.
func PrefixOf(r *record.Record) Prefix {
	return Prefix{ThreadID: r.ThreadId, ProcessID: r.ProcessId, Time: r.TimeStamp(),
		Sequence: r.Message.Sequence, CPU: uint32(r.ProcessorNumber), PointerSize: r.PointerSize()}
}

// Format is a compiled prefix format, as TRACE_FORMAT_PREFIX gives one.
type Format struct{ segs []segment }

// CompilePrefix compiles a prefix format: FormatMessage text whose inserts
// %1–%9 are the prefix variables, and whose %!FUNC!, %!LEVEL! … refer to
// the message.
func CompilePrefix(s string) *Format { return &Format{segs: compileFormat(s)} }

// DefaultPrefix is tracefmt's prefix when TRACE_FORMAT_PREFIX is not set:
// [CPU]PID.TID::TIME [MODULE]. The time is shown in UTC, as RFC 3339 with
// 100 ns digits, where tracefmt shows local time as MM/DD/YYYY-HH:MM:SS.mmm.
var DefaultPrefix = CompilePrefix("[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]")

// AppendText appends the message's text: its format string with the
// arguments filled in. The prefix is left out: a %0 that starts the format
// goes, and the spaces after it. args are the values Decode appended (or
// Fields of a description, whose leading Message, Level and Flags values
// are skipped); an argument the record did not hold shows as <missing>.
func (m *Message) AppendText(dst []byte, args []payload.Value, p *Prefix) []byte {
	args = ArgValues(args)
	for i := range m.format {
		s := &m.format[i]
		if s.kind == segPrefix {
			if i == 0 {
				// The spaces between the prefix and the text go with
				// the prefix.
				dst = m.appendFrom(dst, m.format[1:], args, p, true)
				return dst
			}
			continue
		}
		dst = m.appendSeg(dst, s, args, p)
	}
	return dst
}

// AppendLine appends the message as tracefmt prints it: the prefix (prefix
// rendered, DefaultPrefix when nil) where the format has %0, then the text.
// Given the values Values made, whose Message holds the text already, the
// text is not rendered again.
func (m *Message) AppendLine(dst []byte, args []payload.Value, p *Prefix, prefix *Format) []byte {
	if prefix == nil {
		prefix = DefaultPrefix
	}
	if m.leadingPrefix && len(args) > 0 && args[0].Field() == MessageField {
		dst = m.appendPrefix(dst, prefix, p)
		dst = append(dst, m.gap...)
		return append(dst, args[0].Raw()...)
	}
	args = ArgValues(args)
	for i := range m.format {
		s := &m.format[i]
		if s.kind == segPrefix {
			dst = m.appendPrefix(dst, prefix, p)
			continue
		}
		dst = m.appendSeg(dst, s, args, p)
	}
	return dst
}

// appendPrefix renders a prefix format.
func (m *Message) appendPrefix(dst []byte, prefix *Format, p *Prefix) []byte {
	if p == nil {
		p = &Prefix{}
	}
	for j := range prefix.segs {
		if ps := &prefix.segs[j]; ps.kind != segPrefix {
			dst = m.appendPrefixSeg(dst, ps, p)
		}
	}
	return dst
}

// appendFrom renders segs, dropping the spaces that start the text when
// trim is set.
func (m *Message) appendFrom(dst []byte, segs []segment, args []payload.Value, p *Prefix, trim bool) []byte {
	for i := range segs {
		s := &segs[i]
		if s.kind == segPrefix {
			continue
		}
		if trim && s.kind == segText {
			t := s.text
			for len(t) > 0 && (t[0] == ' ' || t[0] == '\t') {
				t = t[1:]
			}
			dst = append(dst, t...)
			if t != "" {
				trim = false
			}
			continue
		}
		trim = false
		dst = m.appendSeg(dst, s, args, p)
	}
	return dst
}

// ArgValues is the part of vals that holds arguments: the values after
// the leading Message, Level and Flags ones a description puts first.
func ArgValues(vals []payload.Value) []payload.Value {
	for len(vals) > 0 {
		f := vals[0].Field()
		if f != MessageField && f != LevelField && f != FlagsField {
			break
		}
		vals = vals[1:]
	}
	return vals
}

func (m *Message) appendSeg(dst []byte, s *segment, args []payload.Value, p *Prefix) []byte {
	switch s.kind {
	case segText:
		return append(dst, s.text...)
	case segMeta:
		return m.appendMeta(dst, s.text)
	case segInsert:
		for i := range m.Args {
			a := &m.Args[i]
			if a.Insert != s.n {
				continue
			}
			if i >= len(args) || args[i].Field() != &a.schema.Fields[0] {
				return append(dst, "<missing>"...)
			}
			ptr := 0
			if p != nil {
				ptr = p.PointerSize
			}
			return appendArg(dst, a, &args[i], s.conv, ptr)
		}
		if s.n <= 9 {
			if p == nil {
				p = &Prefix{}
			}
			return m.appendPrefixSeg(dst, s, p)
		}
		// An insert no argument has: its text, as written.
		return append(dst, s.text...)
	}
	return dst
}

// appendPrefixSeg renders a segment of a prefix format; p is not nil.
func (m *Message) appendPrefixSeg(dst []byte, s *segment, p *Prefix) []byte {
	switch s.kind {
	case segText:
		return append(dst, s.text...)
	case segMeta:
		return m.appendMeta(dst, s.text)
	case segInsert:
		var x uint32
		mark := len(dst)
		switch s.n {
		case 1:
			return printf.Pad(appendString(dst, m.Module, s.conv), mark, s.conv, false)
		case 2:
			return printf.Pad(appendString(dst, m.Name, s.conv), mark, s.conv, false)
		case 3:
			x = p.ThreadID
		case 4:
			switch {
			case p.TimeText != nil:
				dst = append(dst, p.TimeText...)
			case p.Time.IsZero():
				dst = append(dst, '-')
			default:
				dst = payload.AppendTime(dst, p.Time)
			}
			if s.conv.Prec >= 0 {
				dst = printf.CutRunes(dst, mark, s.conv.Prec)
			}
			return printf.Pad(dst, mark, s.conv, false)
		case 5:
			x = p.KernelTime
		case 6:
			x = p.UserTime
		case 7:
			x = p.Sequence
		case 8:
			x = p.ProcessID
		case 9:
			x = p.CPU
		default:
			return append(dst, s.text...)
		}
		return printf.Pad(appendInteger(dst, s.conv, uint64(x), 4, false, p.PointerSize), mark, s.conv, true)
	}
	return dst
}

// appendMeta renders %!NAME!: FUNC, LEVEL, FLAGS and any other pair of
// the #typev line; FILE, LINE, COMPNAME and SUBCOMP from the GUID line and
// the message name. A name the message has no value for stays as written.
func (m *Message) appendMeta(dst []byte, name string) []byte {
	switch name {
	case "FUNC":
		if m.Func != "" {
			return append(dst, m.Func...)
		}
	case "LEVEL":
		if m.Level != "" {
			return append(dst, m.Level...)
		}
	case "FLAGS":
		if m.Flags != "" {
			return append(dst, m.Flags...)
		}
	case "FILE":
		if m.Source != "" {
			return append(dst, m.Source...)
		}
	case "LINE":
		k := len(m.Name)
		for k > 0 && m.Name[k-1] >= '0' && m.Name[k-1] <= '9' {
			k--
		}
		if k < len(m.Name) {
			return append(dst, m.Name[k:]...)
		}
	case "COMPNAME":
		if m.MajorComp != "" {
			return append(dst, m.MajorComp...)
		}
	case "SUBCOMP":
		if m.MinorComp != "" {
			return append(dst, m.MinorComp...)
		}
	}
	if v, ok := m.Attr(name); ok {
		return append(dst, v...)
	}
	dst = append(dst, "%!"...)
	dst = append(dst, name...)
	return append(dst, '!')
}

// appendArg renders one argument's value by its conversion: printf for
// numbers, the type's own rendering for %s.
func appendArg(dst []byte, a *Arg, v *payload.Value, cv conversion, pointerSize int) []byte {
	mark := len(dst)
	numeric := false
	switch {
	case v.Kind() == payload.KindString && (a.Type == ItemChar || a.Type == ItemShort):
		// A character shown by %c.
		dst = appendStringValue(dst, a, v, cv)
	case cv.Verb == 's' || cv.Verb == 'S' || cv.Verb == 'Z':
		dst = appendTyped(dst, a, v, cv, pointerSize)
	case v.Kind() == payload.KindFloat:
		dst = printf.AppendFloat(dst, cv, v.Float())
		numeric = true
	case v.Kind() == payload.KindInt || v.Kind() == payload.KindUint || v.Kind() == payload.KindTime:
		dst = appendInteger(dst, cv, rawBits(v), len(v.Raw()), signedType(a.Type), pointerSize)
		numeric = cv.Verb != 'c' && cv.Verb != 'C'
	default:
		// A conversion that does not fit the value (%d of a string): the
		// value as its type shows it.
		dst = appendTyped(dst, a, v, cv, pointerSize)
	}
	return printf.Pad(dst, mark, cv, numeric)
}

// rawBits is a number's bits as stored, zero-extended.
func rawBits(v *payload.Value) uint64 {
	raw := v.Raw()
	var b [8]byte
	copy(b[:], raw)
	return binary.LittleEndian.Uint64(b[:])
}

// signedType reports whether %s shows the type's values as signed.
func signedType(t ItemType) bool {
	switch t {
	case ItemChar, ItemShort, ItemLong, ItemLongLong, ItemTimeDelta, ItemWaitTime:
		return true
	}
	return false
}

// appendTyped renders a value as its item type shows it, which is what
// %s (the FormatSpec of most WPP types) asks for.
func appendTyped(dst []byte, a *Arg, v *payload.Value, cv conversion, pointerSize int) []byte {
	x := rawBits(v)
	switch a.Type {
	case ItemString, ItemRString, ItemWString, ItemRWString, ItemPString, ItemPWString, ItemChar4, ItemChar:
		return appendStringValue(dst, a, v, cv)
	case ItemSid:
		if v.Kind() == payload.KindString {
			return append(dst, v.Raw()...)
		}
		return v.AppendText(dst)
	case ItemNTSTATUS:
		return appendCode(dst, uint32(x), true, ntStatusName)
	case ItemHRESULT:
		return appendCode(dst, uint32(x), true, hresultName)
	case ItemWINERROR:
		return appendCode(dst, uint32(x), false, win32ErrorName)
	case ItemNDISStatus, ItemNDISOid:
		dst = append(dst, "0x"...)
		return strconv.AppendUint(dst, x&0xFFFFFFFF, 16)
	case ItemGuid, ItemCLSID, ItemLIBID, ItemIID:
		return guid.Append(dst, v.GUID())
	case ItemIPAddr:
		raw := v.Raw()
		return netip.AddrFrom4([4]byte(raw)).AppendTo(dst)
	case ItemIPV6Addr:
		raw := v.Raw()
		return netip.AddrFrom16([16]byte(raw)).AppendTo(dst)
	case ItemPort:
		return strconv.AppendUint(dst, v.Uint(), 10)
	case ItemTimestamp:
		if int64(x) < 0 {
			return appendDuration(dst, int64(x)/10_000)
		}
		return payload.AppendTime(dst, header.FileTimeToTime(int64(x)))
	case ItemWaitTime:
		if int64(x) < 0 {
			return appendDuration(dst, int64(x)/10_000)
		}
		return payload.AppendTime(dst, header.FileTimeToTime(int64(x)))
	case ItemTimeDelta:
		return appendDuration(dst, int64(x))
	case ItemHexDump:
		for i, c := range v.Raw() {
			if i > 0 {
				dst = append(dst, ' ')
			}
			dst = append(dst, hexUpper[c>>4], hexUpper[c&15])
		}
		return dst
	case ItemListByte, ItemListShort, ItemListLong:
		if name, ok := v.AppendMapName(dst); ok {
			return name
		}
		return strconv.AppendUint(dst, x, 10)
	case ItemSetByte, ItemSetShort, ItemSetLong:
		if x == 0 {
			return append(dst, '0')
		}
		if name, ok := v.AppendMapName(dst); ok {
			return name
		}
		dst = append(dst, "0x"...)
		return strconv.AppendUint(dst, x, 16)
	case ItemDouble:
		return strconv.AppendFloat(dst, v.Float(), 'g', -1, 64)
	case ItemPtr:
		return appendInteger(dst, conversion{Prec: -1, Verb: 'p'}, x, len(v.Raw()), false, pointerSize)
	case ItemLongLongX:
		return strconv.AppendUint(dst, x, 16)
	case ItemLongLongXX:
		return appendUpperHex(dst, x)
	case ItemLongLongO:
		return strconv.AppendUint(dst, x, 8)
	}
	// Numbers: decimal, signed or not by the type.
	size := len(v.Raw())
	if signedType(a.Type) {
		return strconv.AppendInt(dst, printf.SignExtend(x, size), 10)
	}
	return strconv.AppendUint(dst, x, 10)
}

const hexUpper = "0123456789ABCDEF"

func appendUpperHex(dst []byte, x uint64) []byte {
	mark := len(dst)
	dst = strconv.AppendUint(dst, x, 16)
	for i := mark; i < len(dst); i++ {
		if c := dst[i]; c >= 'a' && c <= 'f' {
			dst[i] = c - 'a' + 'A'
		}
	}
	return dst
}

// appendCode renders a status code as tracefmt renders %!STATUS!:
// 0x8000000f(STATUS_DEVICE_POWERED_OFF), the name when one is known; a
// Win32 error code in decimal.
func appendCode(dst []byte, code uint32, hex bool, name func(uint32) (string, bool)) []byte {
	if hex {
		dst = append(dst, "0x"...)
		dst = strconv.AppendUint(dst, uint64(code), 16)
	} else {
		dst = strconv.AppendUint(dst, uint64(code), 10)
	}
	if n, ok := name(code); ok {
		dst = append(dst, '(')
		dst = append(dst, n...)
		dst = append(dst, ')')
	}
	return dst
}

// appendDuration renders milliseconds as days~hh:mm:ss.mmm, the form of
// WPP's time deltas, with a minus sign when negative (a relative due time).
func appendDuration(dst []byte, ms int64) []byte {
	if ms < 0 {
		dst = append(dst, '-')
		if ms == math.MinInt64 {
			ms++
		}
		ms = -ms
	}
	days := ms / 86_400_000
	ms -= days * 86_400_000
	dst = strconv.AppendInt(dst, days, 10)
	dst = append(dst, '~')
	two := func(dst []byte, n int64) []byte { return append(dst, byte('0'+n/10), byte('0'+n%10)) }
	dst = two(dst, ms/3_600_000)
	dst = append(dst, ':')
	dst = two(dst, ms/60_000%60)
	dst = append(dst, ':')
	dst = two(dst, ms/1000%60)
	dst = append(dst, '.')
	r := ms % 1000
	return append(dst, byte('0'+r/100), byte('0'+r/10%10), byte('0'+r%10))
}

// appendStringValue appends a string or character value as UTF-8, cut
// to the conversion's precision (in characters). 8-bit text that is not
// UTF-8 is taken as Latin-1: the writer's code page is not recorded.
func appendStringValue(dst []byte, a *Arg, v *payload.Value, cv conversion) []byte {
	raw := v.Raw()
	mark := len(dst)
	switch a.Type {
	case ItemWString, ItemRWString, ItemPWString, ItemShort:
		dst = payload.AppendUTF16(dst, raw)
	default:
		for len(raw) > 0 && raw[len(raw)-1] == 0 {
			raw = raw[:len(raw)-1]
		}
		if utf8.Valid(raw) {
			dst = append(dst, raw...)
		} else {
			for _, c := range raw {
				dst = utf8.AppendRune(dst, rune(c))
			}
		}
	}
	if cv.Prec >= 0 {
		dst = printf.CutRunes(dst, mark, cv.Prec)
	}
	return dst
}

func appendString(dst []byte, s string, cv conversion) []byte {
	mark := len(dst)
	dst = append(dst, s...)
	if cv.Prec >= 0 {
		dst = printf.CutRunes(dst, mark, cv.Prec)
	}
	return dst
}

// appendInteger renders an integer of size bytes by a printf conversion:
// d and i signed, u unsigned, x X o in hex and octal, c a character, p
// upper-case hex of the pointer's width without 0x (as Microsoft's printf
// has it); %s and the float conversions take the number as the type
// shows it (signed says whether that is signed).
func appendInteger(dst []byte, cv conversion, x uint64, size int, signed bool, pointerSize int) []byte {
	if size > 0 && size < 8 {
		x &= 1<<(8*uint(size)) - 1
	}
	switch cv.Verb {
	case 'c', 'C':
		r := rune(x & 0xFF)
		if size >= 2 && (cv.Wide || cv.Verb == 'C') {
			r = rune(x & 0xFFFF)
			if r >= 0xD800 && r < 0xE000 {
				r = utf8.RuneError
			}
		}
		if r == 0 {
			return dst
		}
		return utf8.AppendRune(dst, r)
	case 'p':
		if size == 0 {
			size = max(pointerSize, 4)
		}
		return printf.AppendInt(dst, cv, x, size, false)
	case 'e', 'E', 'f', 'F', 'g', 'G', 'a', 'A':
		if signed {
			return printf.AppendFloat(dst, cv, float64(printf.SignExtend(x, size)))
		}
		return printf.AppendFloat(dst, cv, float64(x))
	}
	signed = cv.Verb == 'd' || cv.Verb == 'i' || (cv.Verb == 's' && signed)
	return printf.AppendInt(dst, cv, x, size, signed)
}
