package main

import (
	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/record"
)

// describer fills a describe.Description for each record: provider and
// event names, and the payload decoded where a schema is known. payload
// says whether the encoder prints the payload; --count and --stats need
// only the names.
type describer struct {
	d       *describe.Describer
	payload bool
}

func newDescriber(payload bool) *describer {
	return &describer{d: describe.New(describe.Options{}), payload: payload}
}

func (z *describer) describe(r *record.Record, d *describe.Description) {
	z.d.Describe(r, d, z.payload)
}
