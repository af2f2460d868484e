package main

import (
	"github.com/google/uuid"

	"github.com/etlkit/etlkit/describe"
)

// providerNames answers filter.Options.ResolveProvider for --provider NAME
// from every source etldump names providers from: the built-in tables,
// --manifest, --tmf, what the first pass learns of the inputs' own
// metadata and, for a name none of these knows, the names the inputs'
// records carry (TraceLogging and EventSource providers). The first pass
// and the reading of the records are made only for a name that needs them.
type providerNames struct {
	d     *dumper
	index *describe.ProviderIndex
	// learned: index holds what the first pass learned; traced: the
	// names the records carry.
	learned, traced bool
}

func (d *dumper) newProviderNames() *providerNames {
	p := &providerNames{d: d}
	p.rebuild()
	return p
}

// rebuild indexes the sources at hand: with the first pass once made.
func (p *providerNames) rebuild() {
	var opts describe.Options
	if p.d.learned != nil {
		opts, p.learned = p.d.learned.DescribeOptions(), true
	} else {
		opts = describe.NewTraceLearner(p.d.traceOptions()).DescribeOptions()
	}
	p.index = describe.NewProviderIndex(opts)
}

func (p *providerNames) resolve(name string) ([]uuid.UUID, error) {
	if ids := p.index.Lookup(name); len(ids) > 0 {
		return ids, nil
	}
	if !p.learned {
		p.d.learnTrace()
		p.rebuild()
		if ids := p.index.Lookup(name); len(ids) > 0 {
			return ids, nil
		}
	}
	if !p.traced {
		p.traced = true
		var names []string
		for _, s := range p.d.opts.session.Providers {
			if s.Name != "" {
				names = append(names, s.Name)
			}
		}
		for _, in := range p.d.inputs {
			p.index.AddRecords(in.f.Records(), names...)
		}
	}
	return p.index.Resolve(name)
}

// namesProviders reports whether a --provider names its provider rather
// than giving its GUID.
func namesProviders(o *options) bool {
	for _, s := range o.session.Providers {
		if s.Name != "" {
			return true
		}
	}
	return false
}
