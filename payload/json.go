package payload

import (
	"unicode/utf8"
	"unsafe"
)

// jsonHex writes the digits of \u escapes, in lower case as encoding/json
// does.
const jsonHex = "0123456789abcdef"

// jsonPlain marks the bytes that stand for themselves inside a JSON
// string: printable ASCII but the quote and the backslash.
var jsonPlain = func() (t [256]uint8) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		if c != '"' && c != '\\' {
			t[c] = 1
		}
	}
	return t
}()

// appendJSONRune appends r escaped as JSON string content; every
// escape the JSON outputs write is made here.
func appendJSONRune(dst []byte, r rune) []byte {
	switch {
	case r >= 0x20 && r < utf8.RuneSelf && r != '"' && r != '\\':
		return append(dst, byte(r))
	case r == '"', r == '\\':
		return append(dst, '\\', byte(r))
	case r == '\n':
		return append(dst, '\\', 'n')
	case r == '\r':
		return append(dst, '\\', 'r')
	case r == '\t':
		return append(dst, '\\', 't')
	case r < 0x20:
		return append(dst, '\\', 'u', '0', '0', jsonHex[r>>4], jsonHex[r&0xF])
	case r == '\u2028', r == '\u2029':
		return append(dst, '\\', 'u', '2', '0', '2', jsonHex[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

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
			if jsonPlain[c] != 0 {
				i++
				continue
			}
			dst = appendJSONRune(append(dst, s[start:i]...), rune(c))
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
			dst = appendJSONRune(append(dst, s[start:i]...), r)
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}
