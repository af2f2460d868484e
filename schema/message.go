package schema

import (
	"unicode/utf8"

	"github.com/etlkit/etlkit/internal/printf"
	"github.com/etlkit/etlkit/payload"
)

// AppendMessage appends an event message with its inserts filled from the
// decoded payload, as Event Viewer and tracerpt show it. msg follows the
// FormatMessage rules manifests use:
//
//   - %1 … %99 is the value of that top-level field (one-based, in payload
//     order), as Value.AppendText renders it (a mapped value by its name);
//     an insert beyond the fields given is left empty;
//   - %k!fmt! renders it with a printf-style format: flags "-+0 #", a
//     width, a precision, the size prefixes h, l, ll, I, I32, I64, w, and
//     the conversions d i u x X o c s S p;
//   - %n is a line break ("\n"), %r a carriage return, %t a tab, %% a
//     percent sign, "%." ".", "%!" "!", "% " a space, and %0 ends the
//     message; a % before anything else is kept as it is.
//
// The message itself is appended as it is otherwise. AppendMessage does
// not allocate when dst has room. What it appends is bounded by
// MaxMessage bytes: a message that would be longer ends with "…" there, so
// that a hostile message repeating a large insert cannot grow without
// bound.
func AppendMessage(dst []byte, msg string, vals []payload.Value) []byte {
	start := len(dst)
	limit := start + MaxMessage
	for i := 0; i < len(msg) && len(dst) <= limit; i++ {
		c := msg[i]
		if c != '%' || i+1 == len(msg) {
			dst = append(dst, c)
			continue
		}
		i++
		switch c = msg[i]; c {
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case '%', '.', '!', ' ':
			dst = append(dst, c)
		case '0':
			return dst
		default:
			if c < '1' || c > '9' {
				dst = append(dst, '%', c)
				continue
			}
			k := int(c - '0')
			if i+1 < len(msg) && isDigit(msg[i+1]) {
				i++
				k = k*10 + int(msg[i]-'0')
			}
			var spec string
			if i+1 < len(msg) && msg[i+1] == '!' {
				if end := indexByteFrom(msg, '!', i+2); end >= 0 {
					spec = msg[i+2 : end]
					i = end
				}
			}
			if k <= len(vals) {
				dst = appendInsert(dst, &vals[k-1], spec)
			}
		}
	}
	if len(dst) > limit {
		cut := limit - len(ellipsis)
		for cut > start && !utf8.RuneStart(dst[cut]) {
			cut--
		}
		dst = append(dst[:cut], ellipsis...)
	}
	return dst
}

// MaxMessage bounds the bytes AppendMessage appends: four times the
// largest event payload, which leaves room for any real message and its
// inserts.
const MaxMessage = 256 << 10

const ellipsis = "…"

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func indexByteFrom(s string, c byte, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// maxWidth bounds a !fmt! width or precision; a format asking for more
// is not understood.
const maxWidth = 64

// parseInsertFormat reads a format such as "08lx" or "-10s"; ok is false
// for anything it does not understand, which then renders as !s!.
func parseInsertFormat(s string) (printf.Conv, bool) {
	cv, ok := printf.Parse(s)
	if !ok || cv.Width > maxWidth || cv.Prec > maxWidth {
		return cv, false
	}
	switch cv.Verb {
	case 'd', 'i', 'u', 'x', 'X', 'o', 'c', 's', 'S', 'p':
		return cv, true
	}
	return cv, false
}

// appendInsert appends one insert's value in the given format.
func appendInsert(dst []byte, v *payload.Value, spec string) []byte {
	cv, ok := parseInsertFormat(spec)
	if spec == "" || !ok {
		return v.AppendText(dst)
	}
	isNum := v.Kind() == payload.KindInt || v.Kind() == payload.KindUint || v.Kind() == payload.KindBool
	mark := len(dst)
	numeric := false
	switch {
	case cv.Verb == 's' || cv.Verb == 'S' || !isNum:
		dst = v.AppendText(dst)
		if cv.Prec >= 0 {
			dst = printf.CutRunes(dst, mark, cv.Prec)
		}
	case cv.Verb == 'c':
		dst = utf8.AppendRune(dst, rune(v.Uint()&0xFFFF))
	default:
		numeric = true
		dst = appendNumber(dst, v, cv)
	}
	return printf.Pad(dst, mark, cv, numeric)
}

// appendNumber renders an integer for the d i u x X o p conversions: d
// and i signed when the field is; p as upper-case hex of the field's
// width.
func appendNumber(dst []byte, v *payload.Value, cv printf.Conv) []byte {
	size := len(v.Raw()) // 0 for a value made rather than decoded: 64 bits
	if size == 0 || size > 8 {
		size = 8
	}
	signed := (cv.Verb == 'd' || cv.Verb == 'i') && v.Kind() == payload.KindInt
	x := v.Uint()
	if signed {
		x = uint64(v.Int())
	}
	return printf.AppendInt(dst, cv, x, size, signed)
}
