package etl_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
)

// TestProviderTraitsSamples reads the provider of every TraceLogging record.
func TestProviderTraitsSamples(t *testing.T) {
	cases := map[string]struct {
		names  map[string]int
		groups map[string]uuid.UUID
	}{
		"lxcore-tracelogging.etl": {
			names:  map[string]int{"Microsoft.Windows.Subsystem.LxCore": 2},
			groups: map[string]uuid.UUID{"Microsoft.Windows.Subsystem.LxCore": uuid.MustParse("4f50731a-89cf-4782-b3e0-dce8c90476ba")},
		},
		"selfdescribing-compressed.etl": {names: map[string]int{"MySource": 1}},
		"amsi-tracelogging.etl":         {names: map[string]int{"AmsiTrace": 19}},
		"win11-sih.etl":                 {names: map[string]int{"SIHTraceLogging": 10}},
		"hw3d-tracelogging.etl":         {names: map[string]int{"Atum-Hw3d": 1}},
	}
	for file, c := range cases {
		t.Run(file, func(t *testing.T) {
			f, err := etl.Open(samples.Path(t, file))
			require.NoError(t, err)
			defer f.Close()
			var cache record.TraitsCache
			names := map[string]int{}
			groups := map[string]uuid.UUID{}
			for r, err := range f.Records() {
				require.NoError(t, err)
				pt, ok, err := r.ProviderTraits()
				require.NoError(t, err)
				if !ok {
					continue
				}
				names[pt.Name]++
				assert.Equal(t, pt.Name, string(r.ProviderNameBytes()))
				assert.Equal(t, pt.Name, cache.ProviderName(r))
				if pt.HasGroup {
					groups[pt.Name] = pt.Group
				}
			}
			assert.Equal(t, c.names, names)
			if c.groups == nil {
				c.groups = map[string]uuid.UUID{}
			}
			assert.Equal(t, c.groups, groups)
		})
	}
}
