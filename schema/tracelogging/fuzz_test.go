package tracelogging_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/payload"
	tl "github.com/etlkit/etlkit/schema/tracelogging"
)

func fuzzSeeds() [][2][]byte {
	seeds := [][2][]byte{
		{selfDescribingMeta, cat(u16z("Hello"), u16z("World!"))},
	}
	m, p := benchEvent()
	seeds = append(seeds, [2][]byte{m, p})
	for _, c := range scalarCases {
		seeds = append(seeds, [2][]byte{meta("E", nil, fo("v", c.in, c.out)), c.payload})
		arr := fo("a", c.in|0x40, c.out)
		seeds = append(seeds, [2][]byte{meta("E", nil, arr), cat(le16(2), c.payload, c.payload)})
	}
	items := fs{name: "items", in: 24 | 0x40, out: 2}
	seeds = append(seeds, [2][]byte{
		meta("E", []byte{0x81, 0x01}, f("first", 8), st("a", 2), f("s", 1), items, f("k", 6), f("c", 22)),
		cat(le32(1), u16z("ab"), le16(2), le16(1), counted(u16n("x")), le16(2), counted(u16n("yz"))),
	})
	return seeds
}

func FuzzSchema(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s[0])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := tl.ParseSchema(b)
		if err != nil {
			if !errors.Is(err, buffer.ErrMalformed) && !errors.Is(err, buffer.ErrTruncated) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			if s != nil {
				t.Fatal("schema returned with an error")
			}
			return
		}
		if s.NumFields() > payload.MaxFields {
			t.Fatalf("%d fields", s.NumFields())
		}
		// The schema must not alias the input.
		name := s.Name
		for i := range b {
			b[i] ^= 0xFF
		}
		if s.Name != name {
			t.Fatal("schema name changed with its input")
		}
		// Decoding an empty and a short payload must fail or succeed cleanly.
		checkDecode(t, s, nil)
		checkDecode(t, s, b)
	})
}

func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, m, p []byte) {
		s, err := tl.ParseSchema(m)
		if err != nil {
			return
		}
		checkDecode(t, s, p)
	})
}

func checkDecode(t *testing.T, s *payload.Schema, p []byte) {
	vals, err := s.Decode(p, 8, nil)
	if err != nil && !payload.IsTrailing(err) {
		var de *payload.DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("error is %T, not a *DecodeError: %v", err, err)
		}
		if de.Offset < 0 || de.Offset > len(p) {
			t.Fatalf("error offset %d outside a %d-byte payload", de.Offset, len(p))
		}
		if len(vals) != 0 {
			t.Fatal("values returned with an error")
		}
		return
	}
	if len(vals) != len(s.Fields) {
		t.Fatalf("%d values for %d fields", len(vals), len(s.Fields))
	}
	js := payload.AppendJSONObject(nil, vals)
	if !json.Valid(js) {
		t.Fatalf("invalid JSON: %s", js)
	}
	text := payload.AppendTextFields(nil, vals, "; ")
	for _, v := range vals {
		_ = v.Interface()
		_ = v.Clone()
	}
	// Decoding again into the used slice gives the same values.
	again, err2 := s.Decode(p, 8, vals[:0])
	if (err == nil) != (err2 == nil) {
		t.Fatalf("second decode: %v, first: %v", err2, err)
	}
	if js2 := payload.AppendJSONObject(nil, again); !bytes.Equal(js, js2) {
		t.Fatalf("reused slice decodes differently:\n%s\n%s", js, js2)
	}
	if text2 := payload.AppendTextFields(nil, again, "; "); !bytes.Equal(text, text2) {
		t.Fatalf("text differs on reuse")
	}
	// A 4-byte pointer size reads the same payload consistently too.
	if v4, err := s.Decode(p, 4, nil); err == nil || payload.IsTrailing(err) {
		if !json.Valid(payload.AppendJSONObject(nil, v4)) {
			t.Fatal("invalid JSON with 4-byte pointers")
		}
	}
}
