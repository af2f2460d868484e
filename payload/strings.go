package payload

import "iter"

// MinStringRun is the fewest characters a run of printable characters
// needs for NextString to report it: shorter ones turn up in any binary
// data by chance.
const MinStringRun = 4

// A StringRun is a run of printable characters found in bytes no schema
// describes (the payload of an event whose manifest, MOF class or TMF is
// not at hand): b[Start:End] of the bytes searched, UTF-16LE code units
// when Wide, else ASCII.
type StringRun struct {
	Start, End int
	Wide       bool
}

// Len is the number of characters in the run.
func (s StringRun) Len() int {
	if s.Wide {
		return (s.End - s.Start) / 2
	}
	return s.End - s.Start
}

// printableASCII reports a byte of an 8-bit run: ' ' to '~'.
func printableASCII(c byte) bool { return c >= 0x20 && c <= 0x7E }

// wideRun counts the UTF-16LE characters of a run from b[i]: code units
// U+0020–U+007E and U+00A0–U+00FF (Latin-1, so that "®" and accented
// letters do not cut a name in two). Other code units are left out: nearly
// every pair of random bytes is some printable character of the rest of
// the BMP. A code unit cut by the end of b ends the run.
func wideRun(b []byte, i int) int {
	n := 0
	for ; i+1 < len(b) && b[i+1] == 0; i += 2 {
		if c := b[i]; c < 0x20 || c > 0x7E && c < 0xA0 {
			break
		}
		n++
	}
	return n
}

// NextString finds the first run of MinStringRun or more printable
// characters at or after b[from], ASCII or UTF-16LE (see wideRun for which
// UTF-16 characters count), at either byte alignment. Runs do not overlap:
// the next search starts at the run's End. The bytes of an 8-bit string
// and its NUL read as a UTF-16 character too: an ASCII run keeps its last
// character unless only that character begins a UTF-16 run ("Name"
// followed by L"Valu"), since an 8-bit string and its NUL followed by a
// UTF-16 one (a process's image name, then its command line) is the
// common case. It reads b in place and allocates nothing.
func NextString(b []byte, from int) (StringRun, bool) {
	for i := max(from, 0); i < len(b); {
		c := b[i]
		if i+1 < len(b) && b[i+1] == 0 {
			// A character here is a UTF-16 one or stands alone.
			n := wideRun(b, i)
			if n >= MinStringRun {
				return StringRun{Start: i, End: i + 2*n, Wide: true}, true
			}
			// No longer run starts inside this one; the byte after it
			// may start an ASCII run.
			i += max(2*n, 1)
			continue
		}
		if !printableASCII(c) {
			i++
			continue
		}
		j := i + 1
		for j < len(b) && printableASCII(b[j]) {
			j++
		}
		// A NUL after the run may end an 8-bit string or be the high byte
		// of its last character as a UTF-16 one: the run keeps the
		// character unless only that gives a UTF-16 run.
		end := j
		if j < len(b) && b[j] == 0 && wideRun(b, j+1) < MinStringRun && wideRun(b, j-1) >= MinStringRun {
			end = j - 1
		}
		if end-i >= MinStringRun {
			return StringRun{Start: i, End: end}, true
		}
		// Too short; no run starts inside it, but one may start at end.
		i = end
	}
	return StringRun{}, false
}

// Strings yields the runs NextString finds in b, in order.
func Strings(b []byte) iter.Seq[StringRun] {
	return func(yield func(StringRun) bool) {
		for s, ok := NextString(b, 0); ok; s, ok = NextString(b, s.End) {
			if !yield(s) {
				return
			}
		}
	}
}

// AppendString appends the characters of run s of b as UTF-8.
func AppendString(dst, b []byte, s StringRun) []byte {
	if !s.Wide {
		return append(dst, b[s.Start:s.End]...)
	}
	for i := s.Start; i+1 < s.End; i += 2 {
		if c := b[i]; c < 0x80 {
			dst = append(dst, c)
		} else {
			dst = append(dst, 0xC0|c>>6, 0x80|c&0x3F)
		}
	}
	return dst
}

// AppendStringsJSON appends the runs of printable characters in b as a
// JSON array of strings, and reports false, with dst as it was, when b
// holds none.
func AppendStringsJSON(dst, b []byte) ([]byte, bool) {
	s, ok := NextString(b, 0)
	if !ok {
		return dst, false
	}
	dst = append(dst, '[')
	for first := true; ok; s, ok = NextString(b, s.End) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendRunJSON(dst, b, s)
	}
	return append(dst, ']'), true
}

// appendRunJSON appends one run as a JSON string: of its characters only
// the quote and the backslash need escaping.
func appendRunJSON(dst, b []byte, s StringRun) []byte {
	dst = append(dst, '"')
	step := 1
	if s.Wide {
		step = 2
	}
	for i := s.Start; i < s.End; i += step {
		switch c := b[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x80:
			dst = append(dst, c)
		default:
			dst = append(dst, 0xC0|c>>6, 0x80|c&0x3F)
		}
	}
	return append(dst, '"')
}
