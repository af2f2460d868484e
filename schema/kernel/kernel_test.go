package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema/kernel"
)

// TestProcessDCStartSample decodes the second Process/DCStart of the merged
// .NET sample, which TraceEvent prints as
// ProcessID=4; ParentID=0; ImageFileName=System; PageDirectoryBase=0x00187000;
// Flags=Protected; SessionID=-1; ExitStatus=259; UniqueProcessKey=0xfffffa830007e4c0.
func TestProcessDCStartSample(t *testing.T) {
	f, err := etl.Open(samples.Path(t, "net452-x64-merged-compressed.etl"))
	require.NoError(t, err)
	defer f.Close()
	var vals []payload.Value
	n := 0
	for r, err := range f.Events() {
		require.NoError(t, err)
		e, exact, ok := kernel.LookupRecord(r)
		if !ok || e.Name != "Process/DCStart" {
			continue
		}
		if n++; n < 2 {
			continue
		}
		assert.True(t, exact)
		vals, err = e.Payload.Decode(r.UserData, r.PointerSize(), vals[:0])
		require.NoError(t, err)
		assert.Equal(t, `UniqueProcessKey=0xFFFFFA830007E4C0 ProcessID=4 ParentID=0 SessionID=4294967295 ExitStatus=259 `+
			`PageDirectoryBase=0x187000 Flags=Protected UserSID=S-1-5-18 ImageFileName=System CommandLine= PackageFullName= ApplicationID=`,
			string(payload.AppendTextFields(nil, vals, " ")))
		return
	}
	t.Fatal("no second Process/DCStart")
}
