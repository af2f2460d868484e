package tracelogging_test

import (
	"encoding/binary"
	"time"
	"unicode/utf16"
)

// fs describes one field for meta: InMeta is in (type | arity); out < 0
// means no OutMeta byte; tags, when set, are raw tag bytes after OutMeta.
type fs struct {
	name   string
	in     byte
	out    int
	tags   []byte
	count  uint16 // FixedArray
	custom []byte // Custom
}

func f(name string, in byte) fs           { return fs{name: name, in: in, out: -1} }
func fo(name string, in byte, out int) fs { return fs{name: name, in: in, out: out} }
func st(name string, members int) fs      { return fs{name: name, in: 24, out: members} }

func (x fs) bytes() []byte {
	b := append([]byte(x.name), 0)
	in := x.in
	if x.out >= 0 || x.tags != nil {
		in |= 0x80
	}
	b = append(b, in)
	if x.out >= 0 || x.tags != nil {
		out := byte(max(x.out, 0))
		if x.tags != nil {
			out |= 0x80
		}
		b = append(b, out)
		b = append(b, x.tags...)
	}
	switch x.in & 0x60 {
	case 0x20:
		b = binary.LittleEndian.AppendUint16(b, x.count)
	case 0x60:
		b = binary.LittleEndian.AppendUint16(b, uint16(len(x.custom)))
		b = append(b, x.custom...)
	}
	return b
}

// meta builds an EVENT_SCHEMA_TL blob.
func meta(name string, tags []byte, fields ...fs) []byte {
	if tags == nil {
		tags = []byte{0}
	}
	b := []byte{0, 0}
	b = append(b, tags...)
	b = append(b, name...)
	b = append(b, 0)
	for _, x := range fields {
		b = append(b, x.bytes()...)
	}
	binary.LittleEndian.PutUint16(b, uint16(len(b)))
	return b
}

func u16z(s string) []byte {
	var b []byte
	for _, c := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return append(b, 0, 0)
}

func u16n(s string) []byte { z := u16z(s); return z[:len(z)-2] }

func counted(b []byte) []byte {
	return append(binary.LittleEndian.AppendUint16(nil, uint16(len(b))), b...)
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func le16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func fileTime(t time.Time) uint64 {
	return (uint64(t.Unix())+11644473600)*1e7 + uint64(t.Nanosecond()/100)
}

// guidBytes is 01234567-89ab-cdef-0123-456789abcdef as stored by Windows.
var guidBytes = []byte{0x67, 0x45, 0x23, 0x01, 0xab, 0x89, 0xef, 0xcd, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}

const guidText = "01234567-89ab-cdef-0123-456789abcdef"
