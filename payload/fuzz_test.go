package payload_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/etlkit/etlkit/payload"
)

// fuzzSchemas cover every in-type, every arity, references, maps and
// optional fields; FuzzDecode reads hostile payloads with each of them.
var fuzzSchemas = func() []*payload.Schema {
	m := payload.NewMap("M", true, []payload.MapEntry{{Value: 0, Name: "None"}, {Value: 1, Name: "A"}, {Value: 4, Name: "B"}})
	var every []payload.Field
	for t := payload.InType(1); t < 26; t++ {
		if t == payload.InStruct || t == payload.InBinary {
			continue
		}
		every = append(every, payload.Field{Name: t.String(), InType: t})
	}
	for t := payload.InWBEMCountedString; t <= payload.InWBEMSID; t++ {
		if t == payload.InNonNullTerminatedString || t == payload.InNonNullTerminatedAnsiString {
			continue
		}
		every = append(every, payload.Field{Name: t.String(), InType: t})
	}
	return []*payload.Schema{
		payload.MustSchema("every", every),
		payload.MustSchema("refs", []payload.Field{
			{Name: "N", InType: payload.InUInt8},
			{Name: "L", InType: payload.InUInt16, Map: m},
			{Name: "S", InType: payload.InStruct, Arity: payload.CountFromField, CountField: "N", Members: []payload.Field{
				{Name: "T", InType: payload.InUnicodeString, LengthField: "L"},
				{Name: "B", InType: payload.InBinary, LengthField: "N"},
				{Name: "V", InType: payload.InUInt32, Arity: payload.CountPrefixed, Map: m},
			}},
			{Name: "Opt", InType: payload.InUInt64, Optional: true},
			{Name: "Rest", InType: payload.InStruct, Arity: payload.CountToEnd, Optional: true, Members: []payload.Field{
				{Name: "A", InType: payload.InAnsiString},
				{Name: "P", InType: payload.InPointer, Arity: payload.FixedCount, Count: 2},
			}},
		}),
		payload.MustSchema("tail", []payload.Field{
			{Name: "Sid", InType: payload.InWBEMSID},
			{Name: "Fixed", InType: payload.InUnicodeString, Length: 3},
			{Name: "IP", InType: payload.InBinary, OutType: payload.OutIPv6},
			{Name: "Rest", InType: payload.InNonNullTerminatedString},
		}),
	}
}()

func FuzzDecode(f *testing.F) {
	f.Add(cat([]byte{2}, le16(1), u16z("a"), []byte{1, 2}, le16(1), le32(5), u16z("b"), []byte{3, 4}, le16(0)), uint8(1), true)
	f.Add(cat(le32(1), make([]byte, 12), []byte{1, 1, 0, 0, 0, 0, 0, 5}, le32(18)), uint8(2), false)
	f.Add([]byte{}, uint8(0), true)
	var vals []payload.Value
	var out []byte
	f.Fuzz(func(t *testing.T, p []byte, which uint8, ptr64 bool) {
		s := fuzzSchemas[int(which)%len(fuzzSchemas)]
		ptr := 4
		if ptr64 {
			ptr = 8
		}
		before := bytes.Clone(p)
		var err error
		vals, err = s.Decode(p, ptr, vals[:0])
		if err != nil && !payload.IsTrailing(err) {
			if len(vals) != 0 {
				t.Fatalf("error %v with %d values", err, len(vals))
			}
			return
		}
		out = payload.AppendJSONObject(out[:0], vals)
		out = payload.AppendTextFields(out, vals, " ")
		if !bytes.Equal(before, p) {
			t.Fatal("decoding changed the payload")
		}
		for i := range vals {
			if r := vals[i].Raw(); len(r) > len(p) {
				t.Fatalf("value %d holds %d bytes of a %d-byte payload", i, len(r), len(p))
			}
		}
		// DecodeKeep gives the same values, and the trailing bytes Decode
		// reports as one more.
		n := len(vals)
		var de *payload.DecodeError
		trailing := errors.As(err, &de)
		kept, kerr := s.DecodeKeep(p, ptr, nil)
		rest, has := payload.HasTrailingData(kept)
		switch {
		case kerr != nil:
			t.Fatalf("DecodeKeep: %v where Decode gave %v", kerr, err)
		case has != trailing:
			t.Fatalf("DecodeKeep kept trailing bytes: %v; Decode: %v", has, err)
		case trailing && (len(kept) != n+1 || !bytes.Equal(rest.Bytes(), p[de.Offset:])):
			t.Fatalf("DecodeKeep: %d values, rest %x; Decode: %d values, rest at %d", len(kept), rest.Bytes(), n, de.Offset)
		case !trailing && len(kept) != n:
			t.Fatalf("DecodeKeep: %d values; Decode: %d", len(kept), n)
		}
	})
}
