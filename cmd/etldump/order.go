package main

import (
	"iter"

	"github.com/etlkit/etlkit/record"
)

// ordered iterates the records of every input in the order --order asks
// for. Errors are the inputs' *etl.FormatError values, passed on so that
// progress counts them; the damage summary is read from each file's Stats.
func (d *dumper) ordered() iter.Seq2[*record.Record, error] {
	return func(yield func(*record.Record, error) bool) {
		for _, in := range d.inputs {
			for r, err := range in.f.Records() {
				if !yield(r, err) {
					return
				}
			}
		}
	}
}
