package filter

import (
	"testing"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// decoded writes an EVENT_HEADER record with the given extended items and
// decodes it, so that the lookups read items laid out as on disk.
func decoded(t *testing.T, items ...etltest.ExtItem) *record.Record {
	t.Helper()
	b, err := (&etltest.Event{ProviderId: provA, Ext: items}).AppendRecord(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := header.ParsePrefix(b)
	if err != nil {
		t.Fatal(err)
	}
	var r record.Record
	if err := record.Decode(&r, b, p, 0, &record.Context{}); err != nil {
		t.Fatal(err)
	}
	return &r
}

// withItem decodes a record carrying one item that mk makes of data, or
// no item when data is nil.
func withItem(t *testing.T, mk func([]byte) etltest.ExtItem, data []byte) *record.Record {
	t.Helper()
	if data == nil {
		return decoded(t)
	}
	return decoded(t, mk(data))
}

func TestTraitsLookups(t *testing.T) {
	grp := uuid.MustParse("4f50731a-89cf-4782-b3e0-dce8c90476ba")
	decodeGUID := etltest.DecodeGUIDTrait(uuid.MustParse("0b0b0b0b-0000-4000-8000-000000000000"))
	withSize := func(b []byte, size uint16) []byte {
		c := append([]byte(nil), b...)
		c[0], c[1] = byte(size), byte(size>>8)
		return c
	}
	good := etltest.ProviderTraits("Contoso.Alpha", etltest.GroupTrait(grp))
	cases := []struct {
		name      string
		traits    []byte // nil: no item
		wantName  string
		nameOK    bool
		wantGroup uuid.UUID
		groupOK   bool
	}{
		{"no item", nil, "", false, uuid.Nil, false},
		{"name and group", good, "Contoso.Alpha", true, grp, true},
		{"group after a decode-GUID trait", etltest.ProviderTraits("B", decodeGUID, etltest.GroupTrait(grp)), "B", true, grp, true},
		{"decode-GUID trait only", etltest.ProviderTraits("B", decodeGUID), "B", true, uuid.Nil, false},
		{"name only", etltest.ProviderTraits("Contoso.Delta"), "Contoso.Delta", true, uuid.Nil, false},
		{"empty name", etltest.ProviderTraits("", etltest.GroupTrait(grp)), "", false, grp, true},
		{"group trait too short", etltest.ProviderTraits("C", etltest.Trait{Type: etltest.TraitGroup, Data: make([]byte, 15)}),
			"C", true, uuid.Nil, false},
		// Padding bytes after TotalSize are not traits.
		{"padding after the blob", append(append([]byte(nil), etltest.ProviderTraits("D")...), 19, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16),
			"D", true, uuid.Nil, false},
		{"size beyond the item", withSize(good, uint16(len(good)+1)), "", false, uuid.Nil, false},
		{"size below its own header", withSize(good, 2), "", false, uuid.Nil, false},
		{"name without a nul", withSize([]byte{0, 0, 'A', 'B'}, 4), "", false, uuid.Nil, false},
		{"trait size zero", append(withSize(etltest.ProviderTraits("E"), uint16(len(etltest.ProviderTraits("E"))+3)), 0, 0, 1),
			"E", true, uuid.Nil, false},
		// A malformed blob has no group, even one read before the damage.
		{"group before a malformed trait", append(withSize(good, uint16(len(good)+3)), 2, 0, 1), "Contoso.Alpha", true, uuid.Nil, false},
		// Types other than 1 are reserved and skipped by their size: a short
		// one costs neither the name nor the group.
		{"short decode-GUID trait before the group", etltest.ProviderTraits("G",
			etltest.Trait{Type: etltest.TraitDecodeGUID, Data: []byte{1, 2, 3}}, etltest.GroupTrait(grp)), "G", true, grp, true},
		{"empty reserved trait after the group", etltest.ProviderTraits("H",
			etltest.GroupTrait(grp), etltest.Trait{Type: 3}), "H", true, grp, true},
		{"trait running past the blob", append(withSize(etltest.ProviderTraits("F"), uint16(len(etltest.ProviderTraits("F"))+3)), 19, 0, 1),
			"F", true, uuid.Nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := withItem(t, etltest.ExtProviderTraits, c.traits)
			name, ok := traitsProviderName(r)
			if name != c.wantName || ok != c.nameOK {
				t.Errorf("name = %q, %v; want %q, %v", name, ok, c.wantName, c.nameOK)
			}
			g, ok := traitsGroup(new(record.TraitsCache))(r)
			if g != c.wantGroup || ok != c.groupOK {
				t.Errorf("group = %v, %v; want %v, %v", g, ok, c.wantGroup, c.groupOK)
			}
			// The output names the record from the same parse.
			if shown := new(record.TraitsCache).ProviderName(r); shown != name {
				t.Errorf("shown as %q, matched as %q", shown, name)
			}
		})
	}
}

func TestEventNameLookup(t *testing.T) {
	meta := func(name string, tags uint32) []byte {
		return (&etltest.TLEvent{Name: name, Tags: tags, Fields: []etltest.TLField{{Name: "x", InType: 1}}}).MustMetadata()
	}
	cases := []struct {
		name string
		meta []byte // nil: no item
		want string
		ok   bool
	}{
		{"no item", nil, "", false},
		{"no tags", meta("Start", 0), "Start", true},
		{"one tag byte", meta("Start", 0x0FE00000), "Start", true},
		{"four tag bytes", meta("Stop", 0x0FFFFFFF), "Stop", true},
		{"empty name", meta("", 0), "", true},
		{"name with spaces and colons", meta(`event crates\gw\src\engine.rs:586`, 0), `event crates\gw\src\engine.rs:586`, true},
		{"no nul before the size", []byte{7, 0, 0, 'S', 't', 'o', 'p', 0}, "", false},
		{"tags run to the end", []byte{4, 0, 0x80, 0x80}, "", false},
		{"too short", []byte{1}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := tlEventName(withItem(t, etltest.ExtEventSchemaTL, c.meta))
			if got != c.want || ok != c.ok {
				t.Errorf("tlEventName = %q, %v; want %q, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
