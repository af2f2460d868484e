package wpp

import (
	"strings"

	"github.com/etlkit/etlkit/internal/printf"
)

// A format string is FormatMessage text: %n!fmt! inserts (n 1–99, fmt a
// printf conversion without its %, "s" by default), %0 for the prefix,
// %!NAME! for the message's own metadata (FUNC=, LEVEL=, FLAGS= …), and
// the escapes %% %n %r %t %space %. %!. It is compiled once into segments.

type segKind uint8

const (
	segText   segKind = iota // text, as is
	segPrefix                // %0
	segInsert                // %n!fmt!
	segMeta                  // %!NAME!
)

type segment struct {
	kind segKind
	text string // segText: the text; segMeta: NAME; segInsert: the insert as written
	n    int    // segInsert: the insert number
	conv conversion
}

// conversion is one printf conversion; the item type overrides its size
// prefix.
type conversion = printf.Conv

var defaultConversion = printf.Default

// compileFormat cuts a format string into segments. Nothing in it is an
// error: what is not understood is kept as text.
func compileFormat(f string) []segment {
	var segs []segment
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			segs = append(segs, segment{kind: segText, text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' || i+1 >= len(f) {
			text.WriteByte(c)
			continue
		}
		d := f[i+1]
		switch {
		case d == '0':
			flush()
			segs = append(segs, segment{kind: segPrefix})
			i++
		case d >= '1' && d <= '9':
			start := i
			n := int(d - '0')
			j := i + 2
			if j < len(f) && f[j] >= '0' && f[j] <= '9' {
				n = n*10 + int(f[j]-'0')
				j++
			}
			conv := defaultConversion
			if j < len(f) && f[j] == '!' {
				if k := strings.IndexByte(f[j+1:], '!'); k >= 0 {
					if cv, ok := printf.Parse(f[j+1 : j+1+k]); ok {
						conv = cv
						j += k + 2
					}
				}
			}
			flush()
			segs = append(segs, segment{kind: segInsert, n: n, conv: conv, text: f[start:j]})
			i = j - 1
		case d == '!':
			// %!NAME! is metadata; %! alone is an exclamation mark.
			k := i + 2
			for k < len(f) && isIdentByte(f[k]) {
				k++
			}
			if k > i+2 && k < len(f) && f[k] == '!' {
				flush()
				segs = append(segs, segment{kind: segMeta, text: f[i+2 : k]})
				i = k
				continue
			}
			text.WriteByte('!')
			i++
		case d == '%':
			text.WriteByte('%')
			i++
		case d == 'n':
			text.WriteString("\r\n")
			i++
		case d == 'r':
			text.WriteByte('\r')
			i++
		case d == 't':
			text.WriteByte('\t')
			i++
		case d == ' ' || d == '.':
			text.WriteByte(d)
			i++
		default:
			text.WriteByte(c)
		}
	}
	flush()
	return segs
}
