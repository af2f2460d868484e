package textsink

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/payload"
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

// Summary counts what a pass over one or more traces delivered: records by
// header type, provider and event, and the time they span; with each
// input's buffers, losses and errors and the order the pass found, it
// reports as text or JSON what is in the traces (etldump --stats).
type Summary struct {
	records     int
	headerTypes [256]int
	providers   map[uuid.UUID]*providerCount
	events      map[eventKey]int
	first, last time.Time

	rep statsReport // the inputs and the order
}

// NewSummary returns an empty Summary.
func NewSummary() *Summary {
	return &Summary{providers: make(map[uuid.UUID]*providerCount), events: make(map[eventKey]int),
		rep: statsReport{Errors: []errorReport{}}}
}

// Add counts a record the pass delivered, with what package describe said
// of it (its names; the payload is not needed).
func (s *Summary) Add(r *record.Record, d *describe.Description) {
	s.records++
	s.headerTypes[r.HeaderType]++
	p := s.providers[r.ProviderId]
	if p == nil {
		p = &providerCount{}
		s.providers[r.ProviderId] = p
	}
	p.records++
	if p.name == "" {
		p.name = d.ProviderName
	}
	k := eventKey{provider: r.ProviderId, name: d.EventName}
	if k.name == "" {
		if record.DescriptorFieldsOf(r.HeaderType)&record.FieldID != 0 {
			k.id, k.byId = r.EventDescriptor.Id, true
		} else {
			k.opcode = r.EventDescriptor.Opcode
		}
	}
	s.events[k]++
	ts := r.TimeStamp()
	if s.records == 1 || ts.Before(s.first) {
		s.first = ts
	}
	if s.records == 1 || ts.After(s.last) {
		s.last = ts
	}
}

// statsReport is what a Summary says; its JSON field names are fixed.
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
	// SkippedBuffersCounted of the SkippedBuffers had records that could
	// be counted all the same: RecordsLost (etl.Stats).
	SkippedBuffersCounted int
	RecordsLost           int
	// Inversions are records earlier than the one before them on the same
	// processor, as the merge found them; BackwardSteps are records
	// delivered earlier than the one delivered before them; Late are those
	// the window of the sorted order could not put right.
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

// AddInput adds what an input's Stats counted in the pass (its buffers and
// their losses and errors), and its name; call it once the pass is over.
func (s *Summary) AddInput(f *etl.File) {
	rep := &s.rep
	rep.Files = append(rep.Files, f.Name)
	st := f.Stats()
	rep.Buffers += st.Buffers
	rep.EventsLost += uint64(f.Header().EventsLost)
	rep.BuffersLost += uint64(f.Header().BuffersLost)
	rep.SkippedBuffers += st.BuffersSkipped
	rep.SkippedBuffersCounted += st.BuffersCounted
	rep.RecordsLost += st.RecordsLost
	rep.ErrorCount += st.ErrorCount
	for _, fe := range st.Errors {
		rep.Errors = append(rep.Errors, errorReport{File: f.Name, Offset: fe.Offset, Buffer: fe.Buffer, Message: fe.Detail()})
	}
}

// SetOrder says in which order the pass delivered the records (etldump's
// names: time, file or sorted) and what it found (Stats.Order).
func (s *Summary) SetOrder(mode string, st *order.Stats) {
	s.rep.Order = mode
	s.rep.Inversions, s.rep.BackwardSteps, s.rep.Late = st.Inversions, st.BackwardSteps, st.Late
}

// AppendText appends the summary as text: the counts, then the header
// types, providers and events with their records, most first.
func (s *Summary) AppendText(dst []byte) []byte { return s.report().appendText(dst) }

// AppendJSON appends the summary as one JSON object on one line.
func (s *Summary) AppendJSON(dst []byte) []byte {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s.report()); err != nil {
		panic(err) // the report holds only plain values
	}
	return buf.Bytes()
}

func (s *Summary) report() *statsReport {
	rep := s.rep
	rep.Records, rep.HeaderTypes = s.records, map[string]int{}
	rep.Providers, rep.Events, rep.headerTypeOrder = []providerReport{}, []eventReport{}, nil
	for ht, n := range s.headerTypes {
		if n > 0 {
			name := header.Type(ht).String()
			rep.HeaderTypes[name] = n
			rep.headerTypeOrder = append(rep.headerTypeOrder, name)
		}
	}
	names := map[uuid.UUID]string{}
	for id, p := range s.providers {
		names[id] = p.name
		rep.Providers = append(rep.Providers, providerReport{ProviderId: id.String(), ProviderName: p.name, Records: p.records})
	}
	slices.SortFunc(rep.Providers, func(a, b providerReport) int {
		return cmp.Or(cmp.Compare(b.Records, a.Records), cmp.Compare(a.ProviderId, b.ProviderId))
	})
	for k, n := range s.events {
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
	if s.records > 0 {
		rep.First = string(payload.AppendTime(nil, s.first))
		rep.Last = string(payload.AppendTime(nil, s.last))
		span := s.last.Sub(s.first)
		rep.Span = span.String()
		rep.SpanSeconds = span.Seconds()
	}
	return &rep
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
	switch {
	case rep.SkippedBuffersCounted == 0:
		line("SkippedBuffers: %d", rep.SkippedBuffers)
	case rep.SkippedBuffersCounted == rep.SkippedBuffers:
		line("SkippedBuffers: %d (holding %d records)", rep.SkippedBuffers, rep.RecordsLost)
	default:
		line("SkippedBuffers: %d (%d of them holding %d records)", rep.SkippedBuffers, rep.SkippedBuffersCounted, rep.RecordsLost)
	}
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
