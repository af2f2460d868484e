package payload

import (
	"unicode/utf8"
	"unsafe"
)

// jsonHex writes the digits of \u escapes, in lower case as encoding/json
// does.
const jsonHex = "0123456789abcdef"

// jsonSafe marks the ASCII bytes that go into a JSON string as they are.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendJSONString appends s as a quoted JSON string, as every JSON output
// writes strings: invalid UTF-8 becomes \ufffd, so that the output stays
// valid JSON whatever a provider wrote, and U+2028 and U+2029 are escaped.
func AppendJSONString(dst []byte, s string) []byte {
	return AppendJSONBytes(dst, unsafe.Slice(unsafe.StringData(s), len(s)))
}

// AppendJSONBytes is AppendJSONString for text held in a byte slice.
func AppendJSONBytes(dst []byte, s []byte) []byte {
	dst = append(dst, '"')
	return append(AppendJSONBody(dst, s), '"')
}

// AppendJSONBody appends s escaped as the inside of a JSON string, without
// the quotes.
func AppendJSONBody(dst []byte, s []byte) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', jsonHex[c>>4], jsonHex[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		// U+2028 and U+2029 end lines in JavaScript; escaping them keeps
		// the output safe for consumers that eval or embed it.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', jsonHex[r&15])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}
