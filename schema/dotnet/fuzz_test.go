package dotnet_test

import (
	"testing"

	"github.com/etlkit/etlkit/schema/dotnet"
)

// FuzzTypeNames feeds BulkType payloads to TypeNames: it never panics,
// never reads past the payload, and a name it keeps is no longer than the
// payload could spell (3 bytes of UTF-8 per 2-byte code unit).
func FuzzTypeNames(f *testing.F) {
	type ty = struct {
		id   uint64
		name string
	}
	f.Add(bulkType(ty{1, "System.Object"}, ty{2, "List`1[System.Int32]"}, ty{3, "x"}))
	f.Add(bulkType())
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0})
	f.Fuzz(func(t *testing.T, p []byte) {
		var names dotnet.TypeNames
		r := runtimeRecord(dotnet.BulkTypeID, 1, p)
		names.Learn(r)
		for _, id := range []uint64{1, 2, 3} {
			if n, ok := names.Name(1, id); ok && len(n) > 3*len(p)/2 {
				t.Fatalf("name of %d bytes from a %d-byte payload", len(n), len(p))
			}
		}
	})
}
