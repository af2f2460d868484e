package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
)

// TestLogfileHeaderEventFields decodes the first record of a 64-bit and a
// 32-bit session into named fields and compares them with the header the
// reader decoded on its own.
func TestLogfileHeaderEventFields(t *testing.T) {
	for _, name := range []string{"win11-waasmedic.etl", "small-32bit-compressed.etl"} {
		f, err := etl.Open(samples.Path(t, name))
		require.NoError(t, err)
		h := f.Header()
		var vals []payload.Value
		for r, err := range f.Records() {
			require.NoError(t, err)
			vals = decodeRecord(t, r, vals)
			break
		}
		f.Close()
		get := func(n string) payload.Value {
			v, ok := payload.Lookup(vals, n)
			require.True(t, ok, "%s: field %s", name, n)
			return v
		}
		assert.Equal(t, uint64(h.BufferSize), get("BufferSize").Uint(), name)
		assert.Equal(t, uint64(h.PointerSize), get("PointerSize").Uint(), name)
		assert.Equal(t, uint64(h.ReservedFlags), get("ReservedFlags").Uint(), name)
		assert.Equal(t, h.PerfFreq, get("PerfFreq").Int(), name)
		assert.Equal(t, h.LoggerName, get("SessionName").Str(), name)
		assert.Equal(t, h.LogFileName, get("LogFileName").Str(), name)
		assert.Equal(t, h.TimeZone.StandardName, get("StandardName").Str(), name)
		assert.Equal(t, int64(h.TimeZone.Bias), get("TimeZoneBias").Int(), name)
		st := get("StartTime").Time()
		assert.Equal(t, h.StartTime, st.Unix()*10_000_000+int64(st.Nanosecond()/100)+116444736000000000, name)
	}
}
