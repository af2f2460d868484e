package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// eventKey identifies an event kind for the per-event counts without
// building its label per record: name strings come interned from the
// describer and the schema cache.
type eventKey struct {
	provider uuid.UUID
	name     string
	id       uint16
	opcode   uint8
	byId     bool // EVENT_HEADER and WPP events are told apart by id, the rest by opcode
}

type providerCount struct {
	name    string
	records int
}

// tally accumulates the --stats counts over the records that pass the
// filters.
type tally struct {
	records     int
	headerTypes [256]int
	providers   map[uuid.UUID]*providerCount
	events      map[eventKey]int
	first, last time.Time
}

func (t *tally) add(r *record.Record, d *describe.Description) {
	t.records++
	t.headerTypes[r.HeaderType]++
	p := t.providers[r.ProviderId]
	if p == nil {
		p = &providerCount{}
		t.providers[r.ProviderId] = p
	}
	p.records++
	if p.name == "" {
		p.name = d.ProviderName
	}
	k := eventKey{provider: r.ProviderId, name: d.EventName}
	if k.name == "" {
		if byEventID(r.HeaderType) {
			k.id, k.byId = r.EventDescriptor.Id, true
		} else {
			k.opcode = r.EventDescriptor.Opcode
		}
	}
	t.events[k]++
	ts := r.TimeStamp()
	if t.records == 1 || ts.Before(t.first) {
		t.first = ts
	}
	if t.records == 1 || ts.After(t.last) {
		t.last = ts
	}
}

func (d *dumper) stats() {
	t := &tally{providers: make(map[uuid.UUID]*providerCount), events: make(map[eventKey]int)}
	d.describe = newDescriber(false, d.learnTrace(), d.manifests, nil, d.wpp)
	var ds describe.Description
	d.each(func(r *record.Record) bool {
		d.describe.describe(r, &ds)
		t.add(r, &ds)
		return true
	})
	rep := d.report(t)
	var b []byte
	if d.opts.format == "json" {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			panic(err) // the report holds only plain values
		}
		b = buf.Bytes()
	} else {
		b = rep.appendText(d.line[:0])
	}
	d.write(b)
}

// statsReport is the --stats view; its JSON field names are fixed.
type statsReport struct {
	Files          []string
	Records        int
	Buffers        int
	HeaderTypes    map[string]int
	Providers      []providerReport
	Events         []eventReport
	EventsLost     uint64
	BuffersLost    uint64
	SkippedBuffers int
	// Inversions are records earlier than the one before them on the same
	// processor, as the merge found them; BackwardSteps are records
	// delivered earlier than the one delivered before them; Late are those
	// the --order sorted window could not put right.
	Inversions    int
	BackwardSteps int
	Late          int
	Order         string
	First         string `json:",omitempty"`
	Last          string `json:",omitempty"`
	Span          string `json:",omitempty"`
	SpanSeconds   float64
	ErrorCount    int
	Errors        []errorReport

	headerTypeOrder []string
}

type providerReport struct {
	ProviderId   string
	ProviderName string `json:",omitempty"`
	Records      int
}

type eventReport struct {
	ProviderId   string
	ProviderName string  `json:",omitempty"`
	EventName    string  `json:",omitempty"`
	Id           *uint16 `json:",omitempty"`
	Opcode       *uint8  `json:",omitempty"`
	Records      int

	label string
}

type errorReport struct {
	File    string
	Offset  int64
	Buffer  int
	Message string
}

func (d *dumper) report(t *tally) *statsReport {
	rep := &statsReport{Records: t.records, HeaderTypes: map[string]int{},
		Providers: []providerReport{}, Events: []eventReport{}, Errors: []errorReport{}}
	if d.set != nil {
		ost := d.set.Stats()
		rep.Order = d.opts.order
		rep.Inversions, rep.BackwardSteps, rep.Late = ost.Inversions, ost.BackwardSteps, ost.Late
	}
	for _, in := range d.inputs {
		rep.Files = append(rep.Files, in.name)
		st := in.f.Stats()
		rep.Buffers += st.Buffers
		rep.EventsLost += uint64(in.f.Header().EventsLost)
		rep.BuffersLost += uint64(in.f.Header().BuffersLost)
		rep.SkippedBuffers += st.BuffersSkipped
		rep.ErrorCount += st.ErrorCount
		for _, fe := range st.Errors {
			rep.Errors = append(rep.Errors, errorReport{File: in.name, Offset: fe.Offset, Buffer: fe.Buffer, Message: errorReason(fe)})
		}
	}
	for ht, n := range t.headerTypes {
		if n > 0 {
			name := header.Type(ht).String()
			rep.HeaderTypes[name] = n
			rep.headerTypeOrder = append(rep.headerTypeOrder, name)
		}
	}
	names := map[uuid.UUID]string{}
	for id, p := range t.providers {
		names[id] = p.name
		rep.Providers = append(rep.Providers, providerReport{ProviderId: id.String(), ProviderName: p.name, Records: p.records})
	}
	slices.SortFunc(rep.Providers, func(a, b providerReport) int {
		return cmp.Or(cmp.Compare(b.Records, a.Records), cmp.Compare(a.ProviderId, b.ProviderId))
	})
	for k, n := range t.events {
		e := eventReport{ProviderId: k.provider.String(), ProviderName: names[k.provider], EventName: k.name, Records: n}
		switch {
		case k.name != "":
			e.label = k.name
		case k.byId:
			id := k.id
			e.Id = &id
			e.label = fmt.Sprintf("EventID(%d)", id)
		default:
			op := k.opcode
			e.Opcode = &op
			e.label = fmt.Sprintf("Opcode(%d)", op)
		}
		rep.Events = append(rep.Events, e)
	}
	slices.SortFunc(rep.Events, func(a, b eventReport) int {
		return cmp.Or(cmp.Compare(b.Records, a.Records), cmp.Compare(a.ProviderId, b.ProviderId), cmp.Compare(a.label, b.label))
	})
	if t.records > 0 {
		rep.First = string(appendTime(nil, t.first))
		rep.Last = string(appendTime(nil, t.last))
		span := t.last.Sub(t.first)
		rep.Span = span.String()
		rep.SpanSeconds = span.Seconds()
	}
	return rep
}

func (rep *statsReport) appendText(dst []byte) []byte {
	line := func(format string, args ...any) { dst = fmt.Appendf(dst, format+"\n", args...) }
	for _, f := range rep.Files {
		line("File:           %s", f)
	}
	line("Records:        %d", rep.Records)
	line("Buffers:        %d", rep.Buffers)
	if rep.Records > 0 {
		line("First:          %s", rep.First)
		line("Last:           %s", rep.Last)
		line("Span:           %s", rep.Span)
	}
	line("EventsLost:     %d", rep.EventsLost)
	line("BuffersLost:    %d", rep.BuffersLost)
	line("SkippedBuffers: %d", rep.SkippedBuffers)
	line("Order:          %s", rep.Order)
	line("Inversions:     %d", rep.Inversions)
	line("BackwardSteps:  %d", rep.BackwardSteps)
	if rep.Order == "sorted" {
		line("Late:           %d", rep.Late)
	}
	line("\nHeader types:")
	for _, name := range rep.headerTypeOrder {
		line("  %10d  %s", rep.HeaderTypes[name], name)
	}
	line("\nProviders:")
	for _, p := range rep.Providers {
		if p.ProviderName != "" {
			line("  %10d  %s  %s", p.Records, p.ProviderId, p.ProviderName)
		} else {
			line("  %10d  %s", p.Records, p.ProviderId)
		}
	}
	line("\nEvents:")
	for _, e := range rep.Events {
		prov := e.ProviderName
		if prov == "" {
			prov = e.ProviderId
		}
		line("  %10d  %s/%s", e.Records, prov, e.label)
	}
	if rep.ErrorCount > 0 {
		line("\nErrors: %d", rep.ErrorCount)
		for _, e := range rep.Errors {
			line("  %s: offset 0x%x: %s", e.File, e.Offset, e.Message)
		}
	}
	return dst
}
