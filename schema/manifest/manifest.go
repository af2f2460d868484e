// Package manifest reads instrumentation manifests (.man and .xml files,
// and the manifests EventSources write into their traces) into event
// schemas: for every event its names, its message and the layout of its
// payload.
//
// A manifest is read once, when it is loaded; records are then decoded
// with the payload.Schema each event holds, which costs nothing more per
// record than any other schema source.
package manifest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema"
)

// Provider is one provider of a manifest with its events.
type Provider struct {
	Name string
	GUID uuid.UUID
	// Symbol is the provider's symbol attribute, DisplayName its message
	// (the name when it has none).
	Symbol      string
	DisplayName string
	// Events in the order the manifest lists them.
	Events []Event
}

// Event is one event of a provider.
type Event struct {
	ID      uint16
	Version uint8
	Symbol  string
	// Template is the tid of the event's template, "" when it has none.
	Template string
	Schema   *schema.Event
}

// Key is the event's key in a schema.Set.
func (p *Provider) Key(e *Event) schema.Key {
	return schema.Key{Provider: p.GUID, ID: e.ID, Version: uint16(e.Version)}
}

// AddTo adds every event of the provider to s, and the provider's name.
func (p *Provider) AddTo(s *schema.Set) {
	s.SetProviderName(p.GUID, p.Name)
	for i := range p.Events {
		s.Add(p.Key(&p.Events[i]), p.Events[i].Schema)
	}
}

// UseEventSourceMaps makes the bit maps of the provider's events name
// values as TraceEvent shows the manifests EventSources write into their
// traces: by their single bits, joined with "|".
func (p *Provider) UseEventSourceMaps() {
	var walk func(fs []payload.Field)
	walk = func(fs []payload.Field) {
		for i := range fs {
			if m := fs[i].Map; m != nil && m.Bits {
				m.Separator, m.SingleBits = "|", true
			}
			walk(fs[i].Members)
		}
	}
	for i := range p.Events {
		if e := p.Events[i].Schema; e != nil && e.Payload != nil {
			walk(e.Payload.Fields)
		}
	}
}

// Parse reads a manifest. source names it in errors (a file name, or where
// in a trace the manifest came from). Every provider of the document is
// returned, in document order; a document with none is not an error.
//
// The whole manifest is checked as mc checks it where decoding depends on
// it: every type, template, map, task, opcode, level, keyword and channel
// an element names must exist, and every length and count must be a number
// or the name of an earlier integer field. The first problem is returned as
// an *Error naming its position.
func Parse(data []byte, source string) ([]*Provider, error) {
	root, err := parseTree(data, source)
	if err != nil {
		return nil, err
	}
	p := &parser{source: source}
	p.strings = stringTable(root)
	var provs []*Provider
	var walk func(n *node, parent string) error
	walk = func(n *node, parent string) error {
		if n.name == "provider" && parent == "events" {
			pr, err := p.provider(n)
			if err != nil {
				return err
			}
			provs = append(provs, pr)
			return nil
		}
		for _, k := range n.kids {
			if err := walk(k, n.name); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, ""); err != nil {
		return nil, err
	}
	return provs, nil
}

// preferredCulture is the string table taken when a manifest has several.
const preferredCulture = "en-US"

// stringTable gathers the strings of the manifest's localization: those
// of the en-US resources, else of the first resources element.
func stringTable(root *node) map[string]string {
	var first, preferred *node
	var walk func(n *node)
	walk = func(n *node) {
		if n.name == "resources" {
			if first == nil {
				first = n
			}
			if preferred == nil && strings.EqualFold(n.attr("culture"), preferredCulture) {
				preferred = n
			}
			return
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(root)
	res := preferred
	if res == nil {
		res = first
	}
	table := map[string]string{}
	if res == nil {
		return table
	}
	for _, st := range res.kids {
		if st.name != "stringTable" {
			continue
		}
		for _, s := range st.kids {
			if s.name == "string" {
				if _, dup := table[s.attr("id")]; !dup {
					table[s.attr("id")] = s.attr("value")
				}
			}
		}
	}
	return table
}

type parser struct {
	source  string
	strings map[string]string
}

func (p *parser) errorf(n *node, format string, args ...any) error {
	return errorAt(p.source, n, format, args...)
}

// text resolves a message attribute: $(string.ID) from the string table;
// any other text is taken as it is. ok is false for a reference to a
// string the table does not hold.
func (p *parser) text(ref string) (string, bool) {
	id, ok := strings.CutPrefix(ref, "$(string.")
	if !ok {
		return ref, true
	}
	id, ok = strings.CutSuffix(id, ")")
	if !ok {
		return ref, true
	}
	s, ok := p.strings[id]
	return s, ok
}

// display is an element's display name: its message, else its name.
func (p *parser) display(n *node) string {
	if m := n.attr("message"); m != "" {
		if s, ok := p.text(m); ok && s != "" {
			return s
		}
	}
	return n.attr("name")
}

// number parses a decimal or 0x-hex attribute value of at most bits bits.
func (p *parser) number(n *node, attr string, bits int) (uint64, error) {
	s := strings.TrimSpace(n.attr(attr))
	var v uint64
	var err error
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		v, err = strconv.ParseUint(h, 16, bits)
	} else {
		v, err = strconv.ParseUint(s, 10, bits)
	}
	if err != nil {
		return 0, p.errorf(n, "<%s %s=%q>: want a number of at most %d bits", n.name, attr, s, bits)
	}
	return v, nil
}

// isNumber reports whether a length or count attribute is a constant
// rather than the name of a field.
func isNumber(s string) bool {
	s = strings.TrimSpace(s)
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		_, err := strconv.ParseUint(h, 16, 64)
		return err == nil
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

type opcode struct {
	value   uint8
	display string
}

type task struct {
	display string
	opcodes map[string]opcode
}

// provider holds what the events of one provider refer to by name.
type provider struct {
	*parser
	name      string
	tasks     map[string]*task
	opcodes   map[string]opcode
	levels    map[string]string
	keywords  map[string]string
	channels  map[string]string
	maps      map[string]*payload.Map
	templates map[string]*payload.Schema
}

func (p *parser) provider(n *node) (*Provider, error) {
	pr := &provider{parser: p, tasks: map[string]*task{}, opcodes: map[string]opcode{},
		levels: map[string]string{}, keywords: map[string]string{}, channels: map[string]string{},
		maps: map[string]*payload.Map{}, templates: map[string]*payload.Schema{}}
	out := &Provider{Name: n.attr("name"), Symbol: n.attr("symbol"), DisplayName: p.display(n)}
	if out.Name == "" {
		return nil, p.errorf(n, "<provider> has no name")
	}
	pr.name = out.Name
	id, err := guid.Parse(strings.TrimSpace(n.attr("guid")))
	if err != nil {
		return nil, p.errorf(n, "provider %s: guid %q is not a GUID", out.Name, n.attr("guid"))
	}
	out.GUID = id
	// The lists events refer to come first, whatever their order in the
	// document; templates refer to maps.
	for _, pass := range [...]func(*node) error{pr.lists, pr.template} {
		for _, k := range n.kids {
			if err := pass(k); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range n.kids {
		if k.name != "events" {
			continue
		}
		seen := map[[2]uint64]bool{}
		for _, e := range k.kids {
			if e.name != "event" {
				continue
			}
			ev, err := pr.event(e)
			if err != nil {
				return nil, err
			}
			key := [2]uint64{uint64(ev.ID), uint64(ev.Version)}
			if seen[key] {
				return nil, p.errorf(e, "provider %s: event %d version %d is defined twice", out.Name, ev.ID, ev.Version)
			}
			seen[key] = true
			out.Events = append(out.Events, ev)
		}
	}
	return out, nil
}

// lists reads one of the provider's lists of names.
func (pr *provider) lists(n *node) error {
	switch n.name {
	case "tasks":
		for _, t := range n.kids {
			if t.name != "task" {
				continue
			}
			tk := &task{display: pr.display(t), opcodes: map[string]opcode{}}
			for _, ops := range t.kids {
				if ops.name == "opcodes" {
					if err := pr.opcodeList(ops, tk.opcodes); err != nil {
						return err
					}
				}
			}
			pr.tasks[t.attr("name")] = tk
		}
	case "opcodes":
		return pr.opcodeList(n, pr.opcodes)
	case "levels":
		for _, l := range n.kids {
			if l.name == "level" {
				pr.levels[l.attr("name")] = pr.display(l)
			}
		}
	case "keywords":
		for _, k := range n.kids {
			if k.name == "keyword" {
				pr.keywords[k.attr("name")] = pr.display(k)
			}
		}
	case "channels":
		for _, c := range n.kids {
			if c.name != "channel" && c.name != "importChannel" {
				continue
			}
			d := pr.display(c)
			if name := c.attr("name"); name != "" {
				pr.channels[name] = d
			}
			if chid := c.attr("chid"); chid != "" {
				pr.channels[chid] = d
			}
		}
	case "maps":
		for _, m := range n.kids {
			if m.name != "valueMap" && m.name != "bitMap" {
				continue
			}
			var entries []payload.MapEntry
			for _, e := range m.kids {
				if e.name != "map" {
					continue
				}
				v, err := pr.number(e, "value", 64)
				if err != nil {
					return err
				}
				// An entry whose message cannot be found names nothing:
				// the value then shows as its number.
				if s, ok := pr.text(e.attr("message")); ok {
					entries = append(entries, payload.MapEntry{Value: v, Name: s})
				}
			}
			pr.maps[m.attr("name")] = payload.NewMap(m.attr("name"), m.name == "bitMap", entries)
		}
	}
	return nil
}

func (pr *provider) opcodeList(n *node, into map[string]opcode) error {
	for _, o := range n.kids {
		if o.name != "opcode" {
			continue
		}
		v, err := pr.number(o, "value", 8)
		if err != nil {
			return err
		}
		into[o.attr("name")] = opcode{value: uint8(v), display: pr.display(o)}
	}
	return nil
}

// template reads a template into a payload schema, shared by the events
// that use it.
func (pr *provider) template(n *node) error {
	if n.name != "templates" {
		return nil
	}
	for _, t := range n.kids {
		if t.name != "template" {
			continue
		}
		tid := t.attr("tid")
		if tid == "" {
			return pr.errorf(t, "provider %s: <template> has no tid", pr.name)
		}
		if _, dup := pr.templates[tid]; dup {
			return pr.errorf(t, "provider %s: template %q is defined twice", pr.name, tid)
		}
		fields, err := pr.fields(t, 0)
		if err != nil {
			return err
		}
		s, err := payload.NewSchema(tid, fields)
		if err != nil {
			return pr.errorf(t, "provider %s: template %q: %v", pr.name, tid, err)
		}
		pr.templates[tid] = s
	}
	return nil
}

// fields reads the data and struct elements of a template or a struct.
func (pr *provider) fields(n *node, depth int) ([]payload.Field, error) {
	var fs []payload.Field
	for _, k := range n.kids {
		if k.name != "data" && k.name != "struct" {
			continue
		}
		f, err := pr.field(k, depth)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}

func (pr *provider) field(n *node, depth int) (payload.Field, error) {
	f := payload.Field{Name: n.attr("name")}
	if n.name == "struct" {
		if depth >= payload.MaxDepth-1 {
			return f, pr.errorf(n, "structs nested deeper than %d", payload.MaxDepth-1)
		}
		f.InType = payload.InStruct
		members, err := pr.fields(n, depth+1)
		if err != nil {
			return f, err
		}
		f.Members = members
	} else {
		in, ok := inTypes[local(n.attr("inType"))]
		if !ok {
			return f, pr.errorf(n, "data %q: unknown inType %q", f.Name, n.attr("inType"))
		}
		f.InType = in
		if out := n.attr("outType"); out != "" {
			// An out-type this reader does not know leaves the in-type's
			// default, as TDH does with a pair it cannot render.
			f.OutType = outTypes[local(out)]
		}
		if m := n.attr("map"); m != "" {
			mp, ok := pr.maps[m]
			if !ok {
				return f, pr.errorf(n, "data %q: map %q is not defined", f.Name, m)
			}
			f.Map = mp
		}
		if err := pr.length(n, &f); err != nil {
			return f, err
		}
	}
	if err := pr.count(n, &f); err != nil {
		return f, err
	}
	return f, nil
}

// length reads the length of a string or binary field; other types have a
// size of their own and ignore it, as mc does for SIDs.
func (pr *provider) length(n *node, f *payload.Field) error {
	switch f.InType {
	case payload.InUnicodeString, payload.InAnsiString, payload.InBinary:
	default:
		return nil
	}
	l := strings.TrimSpace(n.attr("length"))
	switch {
	case l == "":
		if f.InType == payload.InBinary && f.OutType != payload.OutIPv6 {
			return pr.errorf(n, "data %q: win:Binary needs a length", f.Name)
		}
	case isNumber(l):
		v, err := pr.number(n, "length", 16)
		if err != nil {
			return err
		}
		f.Length, f.FixedLength = uint16(v), true
	default:
		f.LengthField = l
	}
	return nil
}

// count reads an element count: count="0" is a scalar, as mc compiles it,
// and any other number a fixed-size array.
func (pr *provider) count(n *node, f *payload.Field) error {
	c := strings.TrimSpace(n.attr("count"))
	switch {
	case c == "":
	case isNumber(c):
		v, err := pr.number(n, "count", 16)
		if err != nil {
			return err
		}
		if v > 0 {
			f.Arity, f.Count = payload.FixedCount, uint16(v)
		}
	default:
		f.Arity, f.CountField = payload.CountFromField, c
	}
	return nil
}

// local is the part of a QName after its prefix: "win:UInt32" → "UInt32".
func local(qname string) string {
	if i := strings.IndexByte(qname, ':'); i >= 0 {
		return qname[i+1:]
	}
	return qname
}

func (pr *provider) event(n *node) (Event, error) {
	v, err := pr.number(n, "value", 16)
	if err != nil {
		return Event{}, err
	}
	ev := Event{ID: uint16(v), Symbol: n.attr("symbol"), Template: n.attr("template")}
	if n.has("version") {
		ver, err := pr.number(n, "version", 8)
		if err != nil {
			return Event{}, err
		}
		ev.Version = uint8(ver)
	}
	what := fmt.Sprintf("provider %s: event %d version %d", pr.name, ev.ID, ev.Version)
	e := &schema.Event{Provider: pr.name}
	var tk *task
	if name := n.attr("task"); name != "" {
		if tk = pr.tasks[name]; tk == nil {
			return Event{}, pr.errorf(n, "%s: task %q is not defined", what, name)
		}
		e.Task = tk.display
	}
	var opValue uint8
	if name := n.attr("opcode"); name != "" {
		op, ok := pr.opcode(name, tk)
		if !ok {
			return Event{}, pr.errorf(n, "%s: opcode %q is not defined", what, name)
		}
		opValue, e.Opcode = op.value, op.display
	}
	if name := n.attr("level"); name != "" {
		d, ok := pr.levels[name]
		if !ok {
			if w, isWin := strings.CutPrefix(name, "win:"); isWin {
				d, ok = winLevels[w]
			}
		}
		if !ok && isNumber(name) {
			// EventSources write levels of 16 and above as numbers.
			d, ok = strings.TrimSpace(name), true
		}
		if !ok {
			return Event{}, pr.errorf(n, "%s: level %q is not defined", what, name)
		}
		e.Level = d
	}
	for _, name := range strings.Fields(n.attr("keywords")) {
		d, ok := pr.keywords[name]
		if !ok {
			if w, isWin := strings.CutPrefix(name, "win:"); isWin {
				d, ok = winKeywords[w]
			}
		}
		if !ok {
			return Event{}, pr.errorf(n, "%s: keyword %q is not defined", what, name)
		}
		e.Keywords = append(e.Keywords, d)
	}
	if name := n.attr("channel"); name != "" {
		d, ok := pr.channels[name]
		if !ok {
			d, ok = winChannels[local(name)]
		}
		if !ok {
			return Event{}, pr.errorf(n, "%s: channel %q is not defined", what, name)
		}
		e.Channel = d
	}
	if m := n.attr("message"); m != "" {
		e.Message, _ = pr.text(m)
	}
	symbol := ev.Symbol
	if symbol == "" {
		symbol = n.attr("name")
	}
	e.Name = schema.EventName(e.Task, e.Opcode, opValue, symbol)
	if ev.Template != "" {
		s, ok := pr.templates[ev.Template]
		if !ok {
			return Event{}, pr.errorf(n, "%s: template %q is not defined", what, ev.Template)
		}
		e.Payload = s
	} else {
		e.Payload = emptySchema
	}
	ev.Schema = e
	return ev, nil
}

// emptySchema is the payload of events without a template: none.
var emptySchema = payload.MustSchema("", nil)

// opcode finds an opcode by name: the event's task's own opcodes first,
// then the provider's, then the predefined ones.
func (pr *provider) opcode(name string, tk *task) (opcode, bool) {
	if tk != nil {
		if op, ok := tk.opcodes[name]; ok {
			return op, true
		}
	}
	if op, ok := pr.opcodes[name]; ok {
		return op, true
	}
	if w, ok := strings.CutPrefix(name, "win:"); ok {
		if p, ok := winOpcodes[w]; ok {
			return opcode{value: p.value, display: p.display}, true
		}
	}
	return opcode{}, false
}
