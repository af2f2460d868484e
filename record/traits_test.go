package record_test

import (
	"encoding/binary"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// traitsBlob builds a PROV_TRAITS blob; each trait is its type byte
// followed by its data.
func traitsBlob(name string, traits ...[]byte) []byte {
	b := append([]byte{0, 0}, name...)
	b = append(b, 0)
	for _, t := range traits {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(t)+2))
		b = append(b, t...)
	}
	binary.LittleEndian.PutUint16(b, uint16(len(b)))
	return b
}

func winGUID(s string) []byte {
	u := uuid.MustParse(s)
	return []byte{u[3], u[2], u[1], u[0], u[5], u[4], u[7], u[6], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]}
}

const (
	groupText  = "4f50731a-89cf-4782-ae3b-c5a52ae1b1ee"
	decodeText = "b1d2a2a0-1234-4c1d-9e8f-0123456789ab"
)

func TestParseProviderTraits(t *testing.T) {
	t.Run("name only", func(t *testing.T) {
		// The blob of SelfDescribingSingleEvent.etl, as the format notes quote it.
		b := []byte{0x0B, 0x00, 'M', 'y', 'S', 'o', 'u', 'r', 'c', 'e', 0}
		pt, err := record.ParseProviderTraits(b)
		require.NoError(t, err)
		assert.Equal(t, record.ProviderTraits{Name: "MySource"}, pt)
	})
	t.Run("group, decode GUID, raw traits and padding", func(t *testing.T) {
		b := traitsBlob("Microsoft.Windows.Test",
			append([]byte{1}, winGUID(groupText)...),
			append([]byte{2}, winGUID(decodeText)...),
			[]byte{0x80, 0xAA, 0xBB},
			[]byte{7},
		)
		b = append(b, 0, 0, 0, 0, 0) // extended-item padding
		pt, err := record.ParseProviderTraits(b)
		require.NoError(t, err)
		assert.Equal(t, "Microsoft.Windows.Test", pt.Name)
		assert.True(t, pt.HasGroup)
		assert.Equal(t, uuid.MustParse(groupText), pt.Group)
		assert.True(t, pt.HasDecodeGuid)
		assert.Equal(t, uuid.MustParse(decodeText), pt.DecodeGuid)
		require.Len(t, pt.Traits, 4)
		assert.Equal(t, record.TraitGroup, pt.Traits[0].Type)
		assert.Equal(t, winGUID(groupText), pt.Traits[0].Data)
		assert.Equal(t, record.TraitDecodeGuid, pt.Traits[1].Type)
		assert.Equal(t, record.Trait{Type: 0x80, Data: []byte{0xAA, 0xBB}}, pt.Traits[2])
		assert.Equal(t, record.Trait{Type: 7, Data: []byte{}}, pt.Traits[3])
	})
	t.Run("empty name", func(t *testing.T) {
		pt, err := record.ParseProviderTraits([]byte{3, 0, 0})
		require.NoError(t, err)
		assert.Equal(t, "", pt.Name)
		assert.Empty(t, pt.Traits)
	})
}

func TestParseProviderTraitsMalformed(t *testing.T) {
	good := traitsBlob("P", append([]byte{1}, winGUID(groupText)...))
	cases := []struct {
		name  string
		b     []byte
		want  string
		named bool // the name is read all the same
	}{
		{"empty", nil, "at least 2", false},
		{"size too small", []byte{2, 0, 0}, "size 2", false},
		{"size past end", []byte{9, 0, 'a', 0}, "size 9", false},
		{"no NUL", []byte{4, 0, 'a', 'b'}, "no NUL", false},
		{"stray bytes", traitsBlobRaw("P", []byte{1, 0}), "stray", true},
		{"trait size below header", traitsBlobRaw("P", []byte{2, 0, 1}), "size 2", true},
		{"trait past blob", traitsBlobRaw("P", []byte{9, 0, 1, 0}), "size 9", true},
		{"short group GUID", traitsBlob("P", []byte{1, 1, 2, 3}), "16-byte GUID", true},
		{"group before a short group", traitsBlob("P", append([]byte{1}, winGUID(groupText)...), []byte{1, 1}), "16-byte GUID", true},
		{"too many traits", traitsBlob("P", repeat([]byte{9}, 65)...), "more than 64", true},
		{"size past the bytes given", good[:len(good)-1], "size", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pt, err := record.ParseProviderTraits(c.b)
			assert.ErrorIs(t, err, buffer.ErrMalformed)
			assert.Contains(t, err.Error(), c.want)
			want := record.ProviderTraits{}
			if c.named {
				want.Name = "P"
			}
			// A damaged trait list costs the traits, never the name.
			assert.Equal(t, want, pt)
		})
	}
}

// TestReservedTraitsSkippedBySize: trait types other than 1 are reserved,
// so their data is not checked, whatever its length, and a short one
// neither fails the blob nor hides the name or the group.
func TestReservedTraitsSkippedBySize(t *testing.T) {
	for _, typ := range []byte{0, 2, 3, 0x7F, 0x80, 0xFF} {
		for _, data := range [][]byte{nil, {0xAA}, make([]byte, 15)} {
			b := traitsBlob("Contoso.Widget",
				append([]byte{typ}, data...),
				append([]byte{1}, winGUID(groupText)...))
			pt, err := record.ParseProviderTraits(b)
			require.NoError(t, err, "type %d with %d bytes", typ, len(data))
			assert.Equal(t, "Contoso.Widget", pt.Name)
			assert.True(t, pt.HasGroup)
			assert.Equal(t, uuid.MustParse(groupText), pt.Group)
			assert.False(t, pt.HasDecodeGuid)
			require.Len(t, pt.Traits, 2)
			assert.Equal(t, record.Trait{Type: record.TraitType(typ), Data: append([]byte{}, data...)}, pt.Traits[0])

			var c record.TraitsCache
			r := eventRecord(t, nil, record.ExtendedItem{Type: record.ExtProviderTraits, Data: b})
			assert.Equal(t, "Contoso.Widget", c.ProviderName(r))
			assert.Equal(t, "Contoso.Widget", string(r.ProviderNameBytes()))
		}
	}
}

// traitsBlobRaw appends raw bytes after the name and fixes the size.
func traitsBlobRaw(name string, rest []byte) []byte {
	b := append(append([]byte{0, 0}, name...), 0)
	b = append(b, rest...)
	binary.LittleEndian.PutUint16(b, uint16(len(b)))
	return b
}

func repeat(b []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// eventRecord builds an EVENT_HEADER64 record with the given extended
// items (type, data) and user data, and decodes it.
func eventRecord(t testing.TB, payload []byte, items ...record.ExtendedItem) *record.Record {
	b := make([]byte, 0x50)
	b[2], b[3] = byte(header.TypeEventHeader64), 0xC0
	if len(items) > 0 {
		binary.LittleEndian.PutUint16(b[4:], header.FlagExtendedInfo)
	}
	for i, it := range items {
		size := 8 + (len(it.Data)+7)&^7
		var link uint16
		if i < len(items)-1 {
			link = 1
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(size))
		b = binary.LittleEndian.AppendUint16(b, uint16(it.Type))
		b = binary.LittleEndian.AppendUint16(b, link)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(it.Data)))
		b = append(b, it.Data...)
		b = append(b, make([]byte, size-8-len(it.Data))...)
	}
	b = append(b, payload...)
	binary.LittleEndian.PutUint16(b, uint16(len(b)))
	p, end, err := header.ParsePrefix(b)
	require.NoError(t, err)
	require.False(t, end)
	var r record.Record
	require.NoError(t, record.Decode(&r, b, p, 0, &record.Context{}))
	return &r
}

func TestRecordProviderTraits(t *testing.T) {
	blob := traitsBlob("Contoso.Widget", append([]byte{1}, winGUID(groupText)...))
	r := eventRecord(t, []byte{1, 2, 3},
		record.ExtendedItem{Type: record.ExtEventSchemaTL, Data: []byte{5, 0, 0, 'E', 0}},
		record.ExtendedItem{Type: record.ExtProviderTraits, Data: blob})
	pt, ok, err := r.ProviderTraits()
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "Contoso.Widget", pt.Name)
	assert.Equal(t, uuid.MustParse(groupText), pt.Group)
	assert.Equal(t, "Contoso.Widget", string(r.ProviderNameBytes()))
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = r.ProviderNameBytes() }))

	var c record.TraitsCache
	assert.Equal(t, "Contoso.Widget", c.ProviderName(r))
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		if c.ProviderName(r) != "Contoso.Widget" {
			t.Fatal("wrong name")
		}
	}))
	p1, err := c.Lookup(blob)
	require.NoError(t, err)
	p2, err := c.Lookup(append(append([]byte{}, blob...), 0, 0, 0))
	require.NoError(t, err)
	assert.Same(t, p1, p2, "padding after the blob does not change the key")
	// The cached traits do not refer to the caller's bytes.
	blob[len(blob)-1] ^= 0xFF
	assert.Equal(t, uuid.MustParse(groupText), p1.Group)
	assert.Equal(t, winGUID(groupText), p1.Traits[0].Data)

	none := eventRecord(t, []byte{1})
	_, ok, err = none.ProviderTraits()
	assert.False(t, ok)
	assert.NoError(t, err)
	assert.Nil(t, none.ProviderNameBytes())
	assert.Equal(t, "", c.ProviderName(none))

	bad := eventRecord(t, nil, record.ExtendedItem{Type: record.ExtProviderTraits, Data: []byte{4, 0, 'a', 'b'}})
	_, ok, err = bad.ProviderTraits()
	assert.True(t, ok)
	assert.ErrorIs(t, err, buffer.ErrMalformed)
	assert.Nil(t, bad.ProviderNameBytes())
	assert.Equal(t, "", c.ProviderName(bad))
	_, err = c.Lookup([]byte{4, 0, 'a', 'b'})
	assert.ErrorIs(t, err, buffer.ErrMalformed)
}

func TestTraitsCacheBounded(t *testing.T) {
	var c record.TraitsCache
	for i := 0; i < 3000; i++ {
		name := string(rune('A'+i%26)) + string(rune('a'+i/26%26)) + string(rune('0'+i/676))
		pt, err := c.Lookup(traitsBlob(name))
		require.NoError(t, err)
		require.Equal(t, name, pt.Name)
		require.LessOrEqual(t, record.TraitsCacheLen(&c), record.TraitsCacheEntries)
	}
	// 3000 distinct blobs went in; the cache is full, keeps its bound and
	// still answers.
	assert.Equal(t, record.TraitsCacheEntries, record.TraitsCacheLen(&c))
	pt, err := c.Lookup(traitsBlob("Aa0"))
	require.NoError(t, err)
	assert.Equal(t, "Aa0", pt.Name)
	assert.Equal(t, record.TraitsCacheEntries, record.TraitsCacheLen(&c))
}

func FuzzProviderTraits(f *testing.F) {
	f.Add([]byte{0x0B, 0x00, 'M', 'y', 'S', 'o', 'u', 'r', 'c', 'e', 0})
	f.Add(traitsBlob("Microsoft.Windows.Test", append([]byte{1}, winGUID(groupText)...), []byte{0x80, 1}))
	f.Add(traitsBlob("P", append([]byte{2}, winGUID(decodeText)...)))
	f.Add(traitsBlob("P", []byte{2, 1}, append([]byte{1}, winGUID(groupText)...)))
	f.Add(traitsBlob("P", []byte{1, 1, 2}))
	f.Fuzz(func(t *testing.T, b []byte) {
		pt, err := record.ParseProviderTraits(b)
		var c record.TraitsCache
		cached, cerr := c.Lookup(b)
		if (err == nil) != (cerr == nil) {
			t.Fatalf("parser and cache disagree: %v, %v", err, cerr)
		}
		// The name the filter matches is the name the display shows.
		r := eventRecord(t, nil, record.ExtendedItem{Type: record.ExtProviderTraits, Data: b})
		view := r.ProviderNameBytes()
		if len(b) >= 2 && len(b) <= 0xFFF0 {
			if string(view) != pt.Name || c.ProviderName(r) != pt.Name {
				t.Fatalf("names disagree: view %q, parsed %q, cached %q", view, pt.Name, c.ProviderName(r))
			}
			if (view == nil) != (cached == nil) {
				t.Fatalf("name read by one reader only: view %v, cached %v", view != nil, cached != nil)
			}
		}
		if err != nil {
			if pt.Traits != nil || pt.HasGroup || pt.HasDecodeGuid {
				t.Fatal("traits returned with an error")
			}
			if cached != nil && (cached.Name != pt.Name || cached.Traits != nil) {
				t.Fatal("cache kept more than the name of a damaged blob")
			}
			return
		}
		if cached == nil || cached.Name != pt.Name || len(cached.Traits) != len(pt.Traits) {
			t.Fatalf("cache disagrees: %v", cerr)
		}
		size := int(binary.LittleEndian.Uint16(b))
		if len(pt.Name)+3 > size {
			t.Fatalf("name of %d bytes in a %d-byte blob", len(pt.Name), size)
		}
		total := 2 + len(pt.Name) + 1
		for _, tr := range pt.Traits {
			total += 3 + len(tr.Data)
		}
		if total != size {
			t.Fatalf("traits cover %d bytes of %d", total, size)
		}
	})
}
