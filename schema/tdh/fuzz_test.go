package tdh_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema/tdh"
)

// sampleBlobs are the MetaData payloads of the shared samples that hold
// some, or none when the samples are absent.
func sampleBlobs(f *testing.F) (infos, maps [][]byte) {
	if samples.Dir() == "" {
		return nil, nil
	}
	for _, name := range []string{"diaghub-classic.etl", "net452-x64-merged-compressed.etl"} {
		i, m := metadataBlobs(f, name)
		infos, maps = append(infos, i...), append(maps, m...)
	}
	return infos, maps
}

func FuzzParseEventInfo(f *testing.F) {
	f.Add(eventInfoBlob(createInfo()))
	f.Add(eventInfoBlob(etltest.EventInfo{TopLevel: -1}))
	infos, _ := sampleBlobs(f)
	for _, b := range infos {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ei, err := tdh.ParseEventInfo(b)
		if err != nil {
			var fe *tdh.FormatError
			if !errors.As(err, &fe) || !errors.Is(err, buffer.ErrMalformed) {
				t.Fatalf("error is not a FormatError: %v", err)
			}
			return
		}
		if ei.TopLevel > len(ei.Properties) {
			t.Fatalf("%d top-level properties of %d", ei.TopLevel, len(ei.Properties))
		}
		ei.Key()
		e, err := ei.Event(func(name string) *payload.Map {
			return payload.NewMap(name, len(name)%2 == 0, []payload.MapEntry{{Value: 1, Name: "One"}})
		})
		if e == nil || e.Name == "" {
			t.Fatalf("no event or no name (%v)", err)
		}
		if err == nil && e.Payload == nil {
			t.Fatal("no payload and no error")
		}
		if e.Payload != nil {
			// Any bytes against the schema: an error or values, never a
			// panic.
			vals, _ := e.Payload.Decode(b, 8, nil)
			payload.AppendJSONObject(nil, vals)
		}
	})
}

func FuzzParseEventMapInfo(f *testing.F) {
	p := fileProvider
	f.Add(mapInfoBlob(&p, "ShareMap", tdh.MapManifestBitMap, tdh.MapValueULong, "", []mapEntry{
		{Value: 1, Output: "Read "}, {Value: 2, Output: "Write "}, {Value: 4, Output: "Delete "}}))
	f.Add(mapInfoBlob(&p, "P", tdh.MapManifestPatternMap, 0, "%1", []mapEntry{{Input: "x", Output: "y"}}))
	f.Add(mapInfoBlob(&p, "S", tdh.MapWBEMValueMap, tdh.MapValueString, "", []mapEntry{{Input: "a", Output: "A"}}))
	_, maps := sampleBlobs(f)
	for _, b := range maps {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, mi, err := tdh.ParseEventMapInfo(b)
		if err != nil {
			if !errors.Is(err, buffer.ErrMalformed) {
				t.Fatalf("error does not match ErrMalformed: %v", err)
			}
			return
		}
		if len(mi.Entries)*tdh.MapEntrySize > len(b) {
			t.Fatalf("%d entries from %d bytes", len(mi.Entries), len(b))
		}
		m, ok := mi.Map()
		if !ok {
			return
		}
		if !slices.IsSortedFunc(m.Entries, func(a, b payload.MapEntry) int {
			if a.Value < b.Value {
				return -1
			}
			if a.Value > b.Value {
				return 1
			}
			return 0
		}) {
			t.Fatal("map entries not sorted")
		}
		m.AppendName(nil, 0xFFFFFFFF)
	})
}
