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
	"slices"
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

// Options says how Parse and LoadPaths read manifests. The zero value
// reads what can be read and drops the warnings.
type Options struct {
	// Strict refuses a manifest for any problem mc, the SDK's manifest
	// compiler, refuses it for where decoding depends on it: every type,
	// template, map, task, opcode, level, keyword and channel an element
	// names must exist, every win:Binary must have a length, and every
	// length and count must be a number or the name of an earlier integer
	// field.
	//
	// Otherwise many real manifests are read that mc would refuse (those
	// dumped from TDH by PerfView and others use levels such as
	// win:Always, opcodes such as win:Start_8_1, tasks they do not
	// declare, win:Binary without a length): an undefined task, opcode,
	// level, keyword or channel is shown by the name the event gives it,
	// an undefined map leaves the value a number, and at a field whose
	// size cannot be known (an unknown type, a binary without a length, a
	// length or count that names no earlier integer field) the template
	// ends: the fields before it decode, the bytes from it on are kept as
	// payload.TrailingData.
	Strict bool
	// Warn, when set, is told of each problem read in spite of, once per
	// manifest and problem: an *Error at its first place, whose message
	// says what was done instead. LoadPaths also tells it of each file of
	// a directory it passes over, and why.
	Warn func(error)
}

// Parse reads a manifest with the zero Options.
func Parse(data []byte, source string) ([]*Provider, error) {
	return ParseWith(data, source, Options{})
}

// ParseWith reads a manifest. source names it in errors (a file name, or
// where in a trace the manifest came from). Every provider of the document
// is returned, in document order; a document with none is not an error.
// A problem that opts does not let pass is returned as an *Error naming
// its position.
func ParseWith(data []byte, source string, opts Options) ([]*Provider, error) {
	root, err := parseTree(data, source)
	if err != nil {
		return nil, err
	}
	p := &parser{source: source, opts: opts, warned: map[string]*warning{}}
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
	if opts.Warn != nil {
		for _, w := range p.warnings {
			e := *w.first
			if w.count > 1 {
				e.Msg += fmt.Sprintf(" (%d places)", w.count)
			}
			opts.Warn(&e)
		}
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
	opts    Options
	// The problems passed over, by message, and in the order first met.
	warned   map[string]*warning
	warnings []*warning
}

type warning struct {
	first *Error
	count int
}

func (p *parser) errorf(n *node, format string, args ...any) error {
	return errorAt(p.source, n, format, args...)
}

// tolerate is the error of a problem that Options.Strict refuses: nil
// otherwise, and the problem is counted among the warnings, with what is
// done instead.
func (p *parser) tolerate(n *node, instead, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if p.opts.Strict {
		return p.errorf(n, "%s", msg)
	}
	msg += ": " + instead
	w := p.warned[msg]
	if w == nil {
		w = &warning{first: errorAt(p.source, n, "%s", msg)}
		p.warned[msg] = w
		p.warnings = append(p.warnings, w)
	}
	w.count++
	return nil
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
		tr := &templateReader{provider: pr}
		fields, err := tr.fields(t, 0)
		if err != nil {
			return err
		}
		if tr.end != "" {
			pr.tolerate(tr.endAt, "the fields from it on are not decoded, their bytes are kept as TrailingData",
				"provider %s: template %q: %s", pr.name, tid, tr.end)
		}
		s, err := payload.NewSchema(tid, fields)
		if err != nil {
			return pr.errorf(t, "provider %s: template %q: %v", pr.name, tid, err)
		}
		pr.templates[tid] = s
	}
	return nil
}

// templateReader reads the fields of one template. Unless Strict, it
// stops at the first field whose size cannot be known, as the payload
// cannot be followed past it.
type templateReader struct {
	*provider
	// known are the names of the earlier integer fields a length or count
	// may refer to, as payload.NewSchema resolves them.
	known []string
	// end says why the fields end early, at endAt; "" when they do not.
	end   string
	endAt *node
}

// stop ends the template at n. In Strict mode it is the error instead.
func (tr *templateReader) stop(n *node, format string, args ...any) error {
	if tr.opts.Strict {
		return tr.errorf(n, format, args...)
	}
	tr.end, tr.endAt = fmt.Sprintf(format, args...), n
	return nil
}

// fields reads the data and struct elements of a template or a struct.
func (tr *templateReader) fields(n *node, depth int) ([]payload.Field, error) {
	var fs []payload.Field
	for _, k := range n.kids {
		if k.name != "data" && k.name != "struct" {
			continue
		}
		f, keep, err := tr.field(k, depth)
		if err != nil {
			return nil, err
		}
		if keep {
			fs = append(fs, f)
		}
		if tr.end != "" {
			break
		}
	}
	return fs, nil
}

// field reads one field. keep is false for a field the template ends at;
// a struct whose members end early is kept with the members before, when
// it is not an array (whose next elements could not be found).
func (tr *templateReader) field(n *node, depth int) (f payload.Field, keep bool, err error) {
	f = payload.Field{Name: n.attr("name")}
	if err := tr.count(n, &f); err != nil || tr.end != "" {
		return f, false, err
	}
	if n.name == "struct" {
		if depth >= payload.MaxDepth-1 {
			return f, false, tr.errorf(n, "structs nested deeper than %d", payload.MaxDepth-1)
		}
		f.InType = payload.InStruct
		mark := len(tr.known)
		members, err := tr.fields(n, depth+1)
		if err != nil {
			return f, false, err
		}
		f.Members = members
		if f.Arity != payload.Scalar {
			// The members of one element are not there for what follows.
			tr.known = tr.known[:mark]
		}
		return f, tr.end == "" || f.Arity == payload.Scalar, nil
	}
	in, ok := inTypes[local(n.attr("inType"))]
	if !ok {
		return f, false, tr.stop(n, "data %q: unknown inType %q", f.Name, n.attr("inType"))
	}
	f.InType = in
	if out := n.attr("outType"); out != "" {
		// An out-type this reader does not know leaves the in-type's
		// default, as TDH does with a pair it cannot render.
		f.OutType = outTypes[local(out)]
	}
	if m := n.attr("map"); m != "" {
		if mp, ok := tr.maps[m]; ok {
			f.Map = mp
		} else if err := tr.tolerate(n, "its values are shown as numbers", "provider %s: data %q: map %q is not defined", tr.name, f.Name, m); err != nil {
			return f, false, err
		}
	}
	if err := tr.length(n, &f); err != nil || tr.end != "" {
		return f, false, err
	}
	if f.Arity == payload.Scalar && f.InType.CanCount() {
		tr.known = append(tr.known, f.Name)
	}
	return f, true, nil
}

// isKnown reports whether a length or count can refer to name.
func (tr *templateReader) isKnown(name string) bool {
	return tr.opts.Strict || slices.Contains(tr.known, name)
}

// length reads the length of a string or binary field; other types have a
// size of their own and ignore it, as mc does for SIDs.
func (tr *templateReader) length(n *node, f *payload.Field) error {
	switch f.InType {
	case payload.InUnicodeString, payload.InAnsiString, payload.InBinary:
	default:
		return nil
	}
	l := strings.TrimSpace(n.attr("length"))
	switch {
	case l == "":
		if f.InType == payload.InBinary && f.OutType != payload.OutIPv6 {
			return tr.stop(n, "data %q: win:Binary needs a length", f.Name)
		}
	case isNumber(l):
		v, err := tr.number(n, "length", 16)
		if err != nil {
			return err
		}
		f.Length, f.FixedLength = uint16(v), true
	case !tr.isKnown(l):
		return tr.stop(n, "data %q: its length refers to %q, which is not an earlier integer field", f.Name, l)
	default:
		f.LengthField = l
	}
	return nil
}

// count reads an element count: count="0" is a scalar, as mc compiles it,
// and any other number a fixed-size array.
func (tr *templateReader) count(n *node, f *payload.Field) error {
	c := strings.TrimSpace(n.attr("count"))
	switch {
	case c == "":
	case isNumber(c):
		v, err := tr.number(n, "count", 16)
		if err != nil {
			return err
		}
		if v > 0 {
			f.Arity, f.Count = payload.FixedCount, uint16(v)
		}
	case !tr.isKnown(c):
		return tr.stop(n, "%s %q: its count refers to %q, which is not an earlier integer field", n.name, f.Name, c)
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
		if tk = pr.tasks[name]; tk != nil {
			e.Task = tk.display
		} else if err := pr.undefined(n, what, "task", name); err != nil {
			return Event{}, err
		} else {
			e.Task = name
		}
	}
	var opValue uint8
	if name := n.attr("opcode"); name != "" {
		if op, ok := pr.opcode(name, tk); ok {
			opValue, e.Opcode = op.value, op.display
		} else if err := pr.undefined(n, what, "opcode", name); err != nil {
			return Event{}, err
		} else {
			// The value is the record's; the name says it is no Info.
			opValue, e.Opcode = unknownOpcode, name
		}
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
			if err := pr.undefined(n, what, "level", name); err != nil {
				return Event{}, err
			}
			d = name
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
			if err := pr.undefined(n, what, "keyword", name); err != nil {
				return Event{}, err
			}
			d = name
		}
		e.Keywords = append(e.Keywords, d)
	}
	if name := n.attr("channel"); name != "" {
		d, ok := pr.channels[name]
		if !ok {
			d, ok = winChannels[local(name)]
		}
		if !ok {
			if err := pr.undefined(n, what, "channel", name); err != nil {
				return Event{}, err
			}
			d = name
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

// undefined is the error, or the warning, of an event that names a task,
// opcode, level, keyword or channel the manifest does not define.
func (pr *provider) undefined(n *node, what, kind, name string) error {
	if pr.opts.Strict {
		return pr.errorf(n, "%s: %s %q is not defined", what, kind, name)
	}
	return pr.tolerate(n, "events show it by that name", "provider %s: %s %q is not defined", pr.name, kind, name)
}

// unknownOpcode stands for the value of an opcode the manifest does not
// define: not 0, so that the event's name shows the opcode's.
const unknownOpcode = 0xFF

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
