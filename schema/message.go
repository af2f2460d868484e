package schema

import (
	"strconv"
	"unicode/utf8"

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

// printfSpec is a parsed !fmt! insert format.
type printfSpec struct {
	left, plus, space, zero, alt bool
	width, prec                  int // prec -1 when absent
	conv                         byte
}

// parsePrintf reads a format such as "08lx" or "-10s"; ok is false for
// anything it does not understand, which then renders as !s!.
func parsePrintf(s string) (p printfSpec, ok bool) {
	p.prec = -1
	i := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '-':
			p.left = true
		case '+':
			p.plus = true
		case ' ':
			p.space = true
		case '0':
			p.zero = true
		case '#':
			p.alt = true
		default:
			goto width
		}
	}
width:
	for ; i < len(s) && isDigit(s[i]); i++ {
		if p.width = p.width*10 + int(s[i]-'0'); p.width > maxWidth {
			return p, false
		}
	}
	if i < len(s) && s[i] == '.' {
		p.prec = 0
		for i++; i < len(s) && isDigit(s[i]); i++ {
			if p.prec = p.prec*10 + int(s[i]-'0'); p.prec > maxWidth {
				return p, false
			}
		}
	}
	for _, size := range [...]string{"I64", "I32", "ll", "h", "l", "I", "w"} {
		if len(s)-i > len(size) && s[i:i+len(size)] == size {
			i += len(size)
			break
		}
	}
	if i != len(s)-1 {
		return p, false
	}
	switch p.conv = s[i]; p.conv {
	case 'd', 'i', 'u', 'x', 'X', 'o', 'c', 's', 'S', 'p':
		return p, true
	}
	return p, false
}

// appendInsert appends one insert's value in the given format.
func appendInsert(dst []byte, v *payload.Value, spec string) []byte {
	p, ok := parsePrintf(spec)
	if spec == "" || !ok {
		return v.AppendText(dst)
	}
	isNum := v.Kind() == payload.KindInt || v.Kind() == payload.KindUint || v.Kind() == payload.KindBool
	mark := len(dst)
	numeric := false
	switch {
	case p.conv == 's' || p.conv == 'S' || !isNum:
		dst = v.AppendText(dst)
		if p.prec >= 0 {
			dst = truncateRunes(dst, mark, p.prec)
		}
	case p.conv == 'c':
		dst = utf8.AppendRune(dst, rune(v.Uint()&0xFFFF))
	default:
		numeric = true
		dst = appendNumber(dst, v, &p)
	}
	n := utf8.RuneCount(dst[mark:])
	if n >= p.width {
		return dst
	}
	pad := p.width - n
	if p.left {
		for ; pad > 0; pad-- {
			dst = append(dst, ' ')
		}
		return dst
	}
	fill := byte(' ')
	at := mark
	if numeric && p.zero && p.prec < 0 {
		fill = '0'
		// Zeros go after a sign or a 0x prefix.
		if at < len(dst) && (dst[at] == '-' || dst[at] == '+' || dst[at] == ' ') {
			at++
		}
		if p.alt && at+1 < len(dst) && dst[at] == '0' && (dst[at+1] == 'x' || dst[at+1] == 'X') {
			at += 2
		}
	}
	end := len(dst)
	for i := 0; i < pad; i++ {
		dst = append(dst, 0)
	}
	copy(dst[at+pad:], dst[at:end])
	for i := at; i < at+pad; i++ {
		dst[i] = fill
	}
	return dst
}

// appendNumber renders an integer for the d i u x X o p conversions.
func appendNumber(dst []byte, v *payload.Value, p *printfSpec) []byte {
	u := v.Uint()
	size := len(v.Raw()) // 0 for a value made rather than decoded: 64 bits
	if size == 0 || size > 8 {
		size = 8
	}
	if size < 8 {
		u &= 1<<(8*size) - 1
	}
	neg := false
	base := 10
	switch p.conv {
	case 'd', 'i':
		if x := v.Int(); v.Kind() == payload.KindInt && x < 0 {
			neg, u = true, uint64(-x)
		}
	case 'x', 'X', 'p':
		base = 16
	case 'o':
		base = 8
	}
	switch {
	case neg:
		dst = append(dst, '-')
	case p.plus && (p.conv == 'd' || p.conv == 'i'):
		dst = append(dst, '+')
	case p.space && (p.conv == 'd' || p.conv == 'i'):
		dst = append(dst, ' ')
	}
	if p.alt && u != 0 {
		switch p.conv {
		case 'x':
			dst = append(dst, '0', 'x')
		case 'X':
			dst = append(dst, '0', 'X')
		case 'o':
			dst = append(dst, '0')
		}
	}
	var tmp [64]byte
	digits := strconv.AppendUint(tmp[:0], u, base)
	if p.conv == 'X' || p.conv == 'p' {
		for i, c := range digits {
			if 'a' <= c && c <= 'f' {
				digits[i] = c - 'a' + 'A'
			}
		}
	}
	minDigits := p.prec
	if p.conv == 'p' && minDigits < 0 {
		minDigits = 2 * size
	}
	if minDigits == 0 && u == 0 {
		return dst
	}
	for i := len(digits); i < minDigits; i++ {
		dst = append(dst, '0')
	}
	return append(dst, digits...)
}

// truncateRunes keeps at most n characters of dst[mark:].
func truncateRunes(dst []byte, mark, n int) []byte {
	i := mark
	for ; n > 0 && i < len(dst); n-- {
		_, size := utf8.DecodeRune(dst[i:])
		i += size
	}
	return dst[:i]
}
