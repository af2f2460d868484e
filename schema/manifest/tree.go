package manifest

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/etlkit/etlkit/buffer"
)

// Error reports a manifest that cannot be read: data that is not XML, XML
// that is not well formed, or elements that cannot describe events (an
// unknown type, a reference to nothing). It names the source and the
// position of the element at fault, and wraps buffer.ErrMalformed.
type Error struct {
	Source string
	// Line and Column (1-based, in bytes) and Offset locate the element
	// at fault, or the point where the XML broke off; Line is 0 for data
	// that is no XML at all.
	Line, Column int
	Offset       int64
	Msg          string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Source + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Source, e.Line, e.Column, e.Msg)
}

func (e *Error) Unwrap() error { return buffer.ErrMalformed }

// maxDepth bounds element nesting. Real manifests nest about ten deep
// (UserData fragments, which are skipped, aside).
const maxDepth = 64

// node is one element of the document: the parts of a manifest that say
// anything about events are all in element names and attributes.
type node struct {
	name      string // local name
	attrs     []xml.Attr
	kids      []*node
	line, col int
	offset    int64
}

// attr is the value of the attribute with the given local name.
func (n *node) attr(name string) string {
	for _, a := range n.attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *node) has(name string) bool {
	for _, a := range n.attrs {
		if a.Name.Local == name {
			return true
		}
	}
	return false
}

// parseTree reads the document into a tree of elements. Text is dropped,
// and so is everything inside UserData (a rendering fragment that may hold
// any element names).
func parseTree(data []byte, source string) (*node, error) {
	raw := data
	data, wide := toUTF8(data)
	d := xml.NewDecoder(bytes.NewReader(data))
	// Manifests are written in UTF-8 or UTF-16 (mc takes both); UTF-16 was
	// converted above, so its declaration needs no reader either. Other
	// encodings are refused with the decoder's message naming them.
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		switch {
		case strings.EqualFold(label, "utf8"), strings.EqualFold(label, "us-ascii"),
			wide && (strings.EqualFold(label, "utf-16") || strings.EqualFold(label, "utf-16le") || strings.EqualFold(label, "unicode")):
			return r, nil
		}
		return nil, fmt.Errorf("unsupported encoding %q (want UTF-8 or UTF-16)", label)
	}
	var root *node
	var stack []*node
	// Data that does not start as XML does, and has no element, is no
	// XML at all: it is named by what it starts with instead of a place.
	notXML := func(err *Error) *Error {
		if root != nil || bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("<")) {
			return err
		}
		return &Error{Source: source, Msg: "not XML: it begins " + preview(raw)}
	}
	for {
		line, col := d.InputPos()
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, notXML(decodeError(d, source, err))
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &node{name: t.Name.Local, attrs: t.Attr, line: line, col: col, offset: off}
			if len(stack) >= maxDepth {
				return nil, errorAt(source, n, "elements nested deeper than %d", maxDepth)
			}
			if n.name == "UserData" {
				if err := d.Skip(); err != nil {
					return nil, decodeError(d, source, err)
				}
				continue
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, errorAt(source, n, "a second root element <%s>", n.name)
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if root == nil {
		return nil, notXML(decodeError(d, source, errors.New("no root element")))
	}
	return root, nil
}

// previewLength is how many characters of a file preview shows.
const previewLength = 80

// preview quotes the start of data for a message about what a file holds:
// at most 80 characters, each that is not a printable character shown as
// a dot, so that no binary reaches a terminal.
func preview(data []byte) string {
	var b strings.Builder
	for n := 0; len(data) > 0 && n < previewLength; n++ {
		r, size := utf8.DecodeRune(data)
		data = data[size:]
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			r = '.'
		}
		b.WriteRune(r)
	}
	return strconv.Quote(b.String())
}

// toUTF8 converts a document that starts with a UTF-16 byte order mark,
// or with "<" as UTF-16, to UTF-8, and drops a UTF-8 byte order mark.
// Positions in errors then count in the converted text; lines and columns
// are the same but for columns after characters outside ASCII.
func toUTF8(data []byte) ([]byte, bool) {
	var order binary.ByteOrder
	switch {
	case len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF:
		return data[3:], false
	case len(data) >= 2 && data[0] == 0xFF && data[1] == 0xFE:
		order, data = binary.LittleEndian, data[2:]
	case len(data) >= 2 && data[0] == 0xFE && data[1] == 0xFF:
		order, data = binary.BigEndian, data[2:]
	case len(data) >= 2 && data[0] == '<' && data[1] == 0:
		order = binary.LittleEndian
	case len(data) >= 2 && data[0] == 0 && data[1] == '<':
		order = binary.BigEndian
	default:
		return data, false
	}
	out := make([]byte, 0, len(data)/2+len(data)/8)
	for i := 0; i+1 < len(data); i += 2 {
		r := rune(order.Uint16(data[i:]))
		if utf16.IsSurrogate(r) && i+3 < len(data) {
			if d := utf16.DecodeRune(r, rune(order.Uint16(data[i+2:]))); d != utf8.RuneError {
				r = d
				i += 2
			}
		}
		out = utf8.AppendRune(out, r)
	}
	return out, true
}

// decodeError places an error of the XML decoder where the decoder
// stopped.
func decodeError(d *xml.Decoder, source string, err error) *Error {
	line, col := d.InputPos()
	msg := err.Error()
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		msg = se.Msg
	}
	// The decoder's messages quote names and characters of the data.
	msg = printable(msg)
	// The decoder can stand at column 0 (just after a line break);
	// positions here are 1-based.
	return &Error{Source: source, Line: max(line, 1), Column: max(col, 1), Offset: d.InputOffset(), Msg: msg}
}

// printable replaces what is not a printable character in s with a dot.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return '.'
		}
		return r
	}, s)
}

func errorAt(source string, n *node, format string, args ...any) *Error {
	return &Error{Source: source, Line: n.line, Column: n.col, Offset: n.offset, Msg: fmt.Sprintf(format, args...)}
}
