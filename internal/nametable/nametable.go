// Package nametable keeps names by key in one growing byte arena: the file
// names of file objects, the names of .NET types by id. Names arrive as
// UTF-16 in record payloads and are kept as UTF-8; one name per key, the
// latest winning, and a name given again for its key costs no memory. The
// table is bounded: past its limits it starts afresh, so that a hostile or
// huge trace cannot make it grow without end.
package nametable

import (
	"bytes"

	"github.com/etlkit/etlkit/payload"
)

// Table maps keys to names. The zero Table is ready to use with the
// default limits. It is not safe for concurrent use.
type Table[K comparable] struct {
	// MaxKeys and MaxBytes bound the keys and the bytes of names kept; 0
	// stands for DefaultMaxKeys and DefaultMaxBytes.
	MaxKeys, MaxBytes int
	ids               map[K]span
	text              []byte
}

type span struct{ off, n uint32 }

// The default limits.
const (
	DefaultMaxKeys  = 1 << 20
	DefaultMaxBytes = 64 << 20
)

// AddUTF16 gives key the name held as UTF-16LE in name.
func (t *Table[K]) AddUTF16(key K, name []byte) {
	maxKeys, maxBytes := t.MaxKeys, t.MaxBytes
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if t.ids == nil || len(t.ids) >= maxKeys || len(t.text) >= maxBytes {
		t.ids = make(map[K]span)
		t.text = t.text[:0]
	}
	off := len(t.text)
	t.text = payload.AppendUTF16(t.text, name)
	if old, ok := t.ids[key]; ok && bytes.Equal(t.text[old.off:old.off+old.n], t.text[off:]) {
		// Rundowns and repeated events name the same things again:
		// keep the one copy.
		t.text = t.text[:off]
		return
	}
	t.ids[key] = span{uint32(off), uint32(len(t.text) - off)}
}

// Lookup returns the UTF-8 name of key. The bytes are the table's: valid
// until the next AddUTF16, and not to be changed.
func (t *Table[K]) Lookup(key K) ([]byte, bool) {
	s, ok := t.ids[key]
	if !ok {
		return nil, false
	}
	return t.text[s.off : s.off+s.n : s.off+s.n], true
}

// Len is the number of keys with a name.
func (t *Table[K]) Len() int { return len(t.ids) }

// Clone returns a copy that learns on its own.
func (t *Table[K]) Clone() Table[K] {
	c := Table[K]{MaxKeys: t.MaxKeys, MaxBytes: t.MaxBytes, text: append([]byte(nil), t.text...)}
	if t.ids != nil {
		c.ids = make(map[K]span, len(t.ids))
		for k, v := range t.ids {
			c.ids[k] = v
		}
	}
	return c
}
