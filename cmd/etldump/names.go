package main

import (
	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
	"github.com/etlkit/etlkit/schema/providers"
)

// describer fills a describe.Description for each record: provider and
// event names, and the payload decoded where a schema is known. payload
// says whether the encoder prints the payload; --count and --stats need
// only the names.
type describer struct {
	d       *describe.Describer
	payload bool
}

// newDescriber describes with the --manifest events (nil for none) and the
// built-in tables.
func newDescriber(payload bool, manifests *schema.Set) *describer {
	return &describer{d: describe.New(describe.Options{
		Manifests:     manifests,
		BuiltIn:       []*schema.Set{dotnet.Set()},
		ProviderNames: providers.Name,
	}), payload: payload}
}

func (z *describer) describe(r *record.Record, d *describe.Description) {
	z.d.Describe(r, d, z.payload)
}
