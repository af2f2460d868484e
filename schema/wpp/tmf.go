package wpp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/payload"
)

// Message is one message of a TMF: a #typev entry under the GUID line of
// its source file. Its fields are what the TMF says, and Keyword what the
// Set it is loaded into adds; once loading is done a Message does not
// change, and may be read from any goroutine.
type Message struct {
	// GUID is the message GUID of the GUID line, the one the records
	// carry; Number is the message number after the name.
	GUID   uuid.UUID
	Number uint16
	// Name is the message name, the source file with its last dot made
	// "_" and the line number: "Device_c311" (the %2 prefix variable).
	Name string
	// Format is the format string, without its quotes.
	Format string
	// Module is the friendly name of the GUID line (the %1 prefix
	// variable): the directory the provider was built in, or its -p name.
	Module string
	// Source, MajorComp and MinorComp are the SRC=, MJ= and MN= values of
	// the GUID line.
	Source, MajorComp, MinorComp string
	// Attrs are the KEY=value pairs after "//" on the #typev line, in
	// order; Level, Flags and Func are the values of LEVEL=, FLAGS= and
	// FUNC= among them ("" when absent).
	Attrs              []Attr
	Level, Flags, Func string
	// Args are the arguments in payload order.
	Args []Arg
	// Origin says where the entry was read: "file.tmf:12", or for a PDB
	// the file, module and offset of its annotation.
	Origin string

	// LevelValue is the numeric level of Level: TRACE_LEVEL_CRITICAL 1
	// to TRACE_LEVEL_VERBOSE 5, or a number written as such; 0 when
	// unknown.
	LevelValue uint8
	// Keyword is the enable-flags bit of Flags, from the flag names of
	// the provider's control GUID (which a PDB holds and a TMF does
	// not); 0 when unknown.
	Keyword uint64

	format []segment
	// lead are the metadata values (Level, Flags) the message adds in
	// front of its arguments.
	lead []payload.Value
	// prefixVars: the format refers to prefix variables (%1–%9) besides
	// %0, so that its text needs the record's Prefix.
	prefixVars bool
	// leadingPrefix: the format starts with its only %0, so that its line
	// is the prefix, gap (the spaces after %0) and its text.
	leadingPrefix bool
	gap           string
}

// Attr is one KEY=value pair of a #typev line.
type Attr struct{ Key, Value string }

// Arg is one argument of a message.
type Arg struct {
	// Name is the C expression the source passed: "status",
	// "KeGetCurrentIrql()", "*(PULONGLONG)&pDevCtx->DeviceAddress".
	Name string
	Type ItemType
	// TypeName is the type as the TMF writes it, without a list.
	TypeName string
	// Labels name the values of an ItemList type or the bits of an
	// ItemSet type; Enum is the C enum name of ItemEnum/ItemFlagsEnum.
	Labels []Label
	Enum   string
	// Insert is the insert number the format string refers to it by.
	Insert int

	// schema decodes the argument's bytes into its value; conv is the
	// first conversion of its insert in the format string.
	schema *payload.Schema
	conv   conversion
}

// Label is one name of a list or set: the value it names (for a set, the
// bit's value 1<<i).
type Label struct {
	Name  string
	Value uint64
}

// EventName is the name the message goes by as an event: its function
// when the TMF names one, else its message name.
func (m *Message) EventName() string {
	if m.Func != "" {
		return m.Func
	}
	return m.Name
}

// Attr returns the value of the #typev pair KEY=, compared without regard
// to case.
func (m *Message) Attr(key string) (string, bool) {
	for _, a := range m.Attrs {
		if strings.EqualFold(a.Key, key) {
			return a.Value, true
		}
	}
	return "", false
}

// SyntaxError is a TMF line that could not be read: it costs the message
// it belongs to, and reading goes on.
type SyntaxError struct {
	File string
	Line int // 1-based; 0 when the place is not a line of a file
	// Where replaces File:Line for text that did not come from a file
	// of its own (a PDB annotation).
	Where string
	Msg   string
}

func (e *SyntaxError) Error() string {
	switch {
	case e.Where != "":
		return e.Where + ": " + e.Msg
	case e.Line > 0:
		return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return e.File + ": " + e.Msg
}

// File is what one TMF (or the annotations of one PDB) holds.
type File struct {
	// Name is the file's name as given to the parser.
	Name string
	// PDB is the PDB named by a "// PDB:" comment, "" when none.
	PDB string
	// Messages in file order; a message listed twice with the same GUID
	// and number (tracepdb repeats whole files, and lists a function's
	// funclets under the same number) is kept once, the first time.
	Messages []*Message
	// Controls are the control GUIDs a PDB defines (TMC annotations).
	Controls []*Control
	// Warnings are the lines that cost a message (*SyntaxError).
	Warnings []error
}

// Control is a control GUID as WPP_DEFINE_CONTROL_GUID defines it: the
// GUID sessions enable, its name, and its flag names in bit order (Flags[i]
// is the enable flag 1<<i).
type Control struct {
	GUID  uuid.UUID
	Name  string
	Flags []string
}

// Limits on what one TMF source may define; far above real ones, they
// bound the memory hostile text costs.
const (
	// MaxArgs bounds the arguments of one message (WPP allows 99 inserts).
	MaxArgs = 100
	// MaxLabels bounds the labels of one list or set.
	MaxLabels = 1024
	// maxWarnings bounds the warnings one file keeps.
	maxWarnings = 100
)

// ParseTMF reads the text of a TMF file. It never fails as a whole: each
// line it cannot read costs the message it belongs to and is reported in
// File.Warnings.
func ParseTMF(data []byte, name string) *File {
	p := &parser{f: &File{Name: name}, seen: map[uint16]struct{}{}}
	p.lines = splitLines(data)
	p.lineOf = func(i int) (string, int, string) { return name, i + 1, "" }
	p.run()
	return p.f
}

// splitLines cuts text into lines at LF, dropping a CR before it.
func splitLines(data []byte) []string {
	text := string(data)
	n := strings.Count(text, "\n") + 1
	lines := make([]string, 0, n)
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		line := text
		if i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		lines = append(lines, strings.TrimSuffix(line, "\r"))
	}
	return lines
}

// parser reads lines into messages. The GUID line's values stay current
// until the next GUID line: tracepdb repeats a file's entries without
// repeating its GUID line.
type parser struct {
	f      *File
	lines  []string
	lineOf func(i int) (file string, line int, where string)

	guid                         uuid.UUID
	haveGUID                     bool
	module, source, major, minor string
	seen                         map[uint16]struct{}
	forceFunc                    string // PDB: the enclosing function
}

func (p *parser) warn(i int, format string, args ...any) {
	if len(p.f.Warnings) >= maxWarnings {
		return
	}
	file, line, where := p.lineOf(i)
	p.f.Warnings = append(p.f.Warnings, &SyntaxError{File: file, Line: line, Where: where, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) run() {
	for i := 0; i < len(p.lines); i++ {
		line := strings.TrimSpace(p.lines[i])
		switch {
		case line == "":
		case strings.HasPrefix(line, "//"):
			if pdb, ok := strings.CutPrefix(line, "// PDB:"); ok && p.f.PDB == "" {
				pdb = strings.TrimSpace(pdb)
				if !strings.HasPrefix(pdb, "Last Updated") {
					p.f.PDB = pdb
				}
			}
		case strings.HasPrefix(line, "#typev"):
			i = p.entry(i, line)
		case line[0] == '#':
			// Another kind of entry (old TMFs have #enumv blocks): its
			// block, if any, is skipped with it.
			p.warn(i, "unknown entry %q skipped", firstWord(line))
			i = p.skipBlock(i)
		case line == "{" || line == "}":
			p.warn(i, "%q outside a #typev entry", line)
		default:
			if !p.guidLine(line) {
				p.warn(i, "line not understood: %q", clip(line))
			}
		}
	}
}

// guidLine reads "<GUID> <name> // SRC=<file> MJ=<major> MN=<minor>".
func (p *parser) guidLine(line string) bool {
	tok, rest := cutWord(line)
	g, err := parseGUID(tok)
	if err != nil {
		return false
	}
	p.guid, p.haveGUID = g, true
	p.module, p.source, p.major, p.minor = "", "", "", ""
	p.seen = map[uint16]struct{}{}
	name, rest := cutWord(rest)
	if name == "//" {
		name, rest = "", "// "+rest
	}
	p.module = name
	if c, ok := strings.CutPrefix(strings.TrimSpace(rest), "//"); ok {
		for _, a := range parseAttrs(c) {
			switch strings.ToUpper(a.Key) {
			case "SRC":
				p.source = a.Value
			case "MJ":
				p.major = a.Value
			case "MN":
				p.minor = a.Value
			}
		}
	}
	return true
}

// parseGUID reads a GUID in text, with or without braces.
func parseGUID(s string) (uuid.UUID, error) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	g, err := guid.Parse(s)
	if err != nil {
		return uuid.Nil, fmt.Errorf("%q is not a GUID", s)
	}
	return g, nil
}

// skipBlock passes over the { … } block that follows line i, if any, and
// returns the index of its last line.
func (p *parser) skipBlock(i int) int {
	j := p.nextLine(i)
	if j < 0 || strings.TrimSpace(p.lines[j]) != "{" {
		return i
	}
	for k := j + 1; k < len(p.lines); k++ {
		if strings.TrimSpace(p.lines[k]) == "}" {
			return k
		}
	}
	return len(p.lines) - 1
}

// nextLine is the index of the first non-blank line after i, -1 for none.
func (p *parser) nextLine(i int) int {
	for j := i + 1; j < len(p.lines); j++ {
		if strings.TrimSpace(p.lines[j]) != "" {
			return j
		}
	}
	return -1
}

// entry reads the #typev entry at line i and its argument block; it
// returns the index of the entry's last line.
func (p *parser) entry(i int, line string) int {
	m, err := parseTypev(line)
	if err == nil && !p.haveGUID {
		err = fmt.Errorf("#typev entry before any GUID line")
	}
	if err != nil {
		p.warn(i, "%v", err)
	}
	j := p.nextLine(i)
	if j < 0 || strings.TrimSpace(p.lines[j]) != "{" {
		if err == nil {
			p.warn(i, "#typev entry %s has no argument block", m.Name)
		}
		return i
	}
	bad := err != nil
	end := -1
	for k := j + 1; k < len(p.lines); k++ {
		l := strings.TrimSpace(p.lines[k])
		if l == "}" {
			end = k
			break
		}
		if strings.HasPrefix(l, "#typev") {
			// A block that never closes: the next entry starts here.
			if !bad {
				p.warn(k, "argument block of %s not closed", m.Name)
			}
			return k - 1
		}
		if l == "" || bad {
			continue
		}
		if len(m.Args) >= MaxArgs {
			p.warn(k, "message %s has more than %d arguments", m.Name, MaxArgs)
			bad = true
			continue
		}
		a, err := parseArg(l)
		if err != nil {
			p.warn(k, "message %s: %v", m.Name, err)
			bad = true
			continue
		}
		m.Args = append(m.Args, a)
	}
	if end < 0 {
		if !bad {
			p.warn(j, "argument block of %s not closed", m.Name)
		}
		return len(p.lines) - 1
	}
	if bad {
		return end
	}
	if _, dup := p.seen[m.Number]; dup {
		return end
	}
	m.GUID, m.Module, m.Source, m.MajorComp, m.MinorComp = p.guid, p.module, p.source, p.major, p.minor
	file, ln, where := p.lineOf(i)
	if where != "" {
		m.Origin = where
	} else {
		m.Origin = file + ":" + strconv.Itoa(ln)
	}
	if err := m.finish(); err != nil {
		p.warn(i, "message %s: %v", m.Name, err)
		return end
	}
	p.seen[m.Number] = struct{}{}
	p.f.Messages = append(p.f.Messages, m)
	return end
}

// parseTypev reads `#typev <name> <number> "<format>" // KEY=value ...`.
func parseTypev(line string) (*Message, error) {
	rest := strings.TrimSpace(strings.TrimPrefix(line, "#typev"))
	name, rest := cutWord(rest)
	num, rest := cutWord(rest)
	if name == "" || num == "" {
		return nil, fmt.Errorf("#typev line without a name and a number: %q", clip(line))
	}
	n, err := strconv.ParseUint(num, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("#typev %s: message number %q is not a number 0-65535", name, num)
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, `"`) {
		return nil, fmt.Errorf("#typev %s: format string not in quotes", name)
	}
	// The format runs to the last quote that only a comment follows:
	// quotes inside the text stay in it.
	end := -1
	for k := len(rest) - 1; k > 0; k-- {
		if rest[k] != '"' {
			continue
		}
		after := strings.TrimSpace(rest[k+1:])
		if after == "" || strings.HasPrefix(after, "//") {
			end = k
			break
		}
	}
	if end < 0 {
		return nil, fmt.Errorf("#typev %s: format string not closed", name)
	}
	m := &Message{Name: name, Number: uint16(n), Format: rest[1:end]}
	if c, ok := strings.CutPrefix(strings.TrimSpace(rest[end+1:]), "//"); ok {
		m.Attrs = parseAttrs(c)
	}
	for _, a := range m.Attrs {
		switch strings.ToUpper(a.Key) {
		case "LEVEL":
			m.Level = a.Value
		case "FLAGS":
			m.Flags = a.Value
		case "FUNC":
			m.Func = a.Value
		}
	}
	return m, nil
}

// parseAttrs reads "KEY=value KEY=value ...". A word without "=" (or whose
// key is not an identifier) belongs to the value before it, so values may
// hold spaces; FUNC= runs to the end of the line, since C++ names may hold
// anything.
func parseAttrs(s string) []Attr {
	var out []Attr
	s = strings.TrimSpace(s)
	for s != "" {
		w, rest := cutWord(s)
		key, val, ok := strings.Cut(w, "=")
		if ok && isIdent(key) {
			if strings.EqualFold(key, "FUNC") {
				// The rest of the line, as written.
				val = strings.TrimSpace(s[len(key)+1:])
				rest = ""
			}
			out = append(out, Attr{Key: key, Value: val})
		} else if len(out) > 0 {
			last := &out[len(out)-1]
			if last.Value == "" {
				last.Value = w
			} else {
				last.Value += " " + w
			}
		}
		s = rest
	}
	return out
}

// parseArg reads `<expression>, <ItemType>[(<list>)] -- <n>`, or the
// `<name>, <type> // <n>` of TMFs made from MOF templates. The
// expression is C source and may hold commas and parentheses, so the line
// is read from its end.
func parseArg(line string) (Arg, error) {
	var a Arg
	s := strings.TrimSpace(line)
	i := strings.LastIndexAny(s, " \t")
	if i < 0 {
		return a, fmt.Errorf("argument line %q has no insert number", clip(line))
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 1 || n > 99 {
		return a, fmt.Errorf("argument line %q: insert number %q is not 1-99", clip(line), s[i+1:])
	}
	a.Insert = n
	s = strings.TrimSpace(s[:i])
	if t, ok := strings.CutSuffix(s, "--"); ok {
		s = t
	} else if t, ok := strings.CutSuffix(s, "//"); ok {
		s = t
	} else {
		return a, fmt.Errorf("argument line %q: no \"--\" before the insert number", clip(line))
	}
	s = strings.TrimSpace(s)
	// The type, with any list: an identifier and a balanced (…) at the end.
	typeStart := len(s)
	list, hasList := "", false
	if strings.HasSuffix(s, ")") {
		depth := 0
		open := -1
		for k := len(s) - 1; k >= 0; k-- {
			switch s[k] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				open = k
				break
			}
		}
		if open < 0 {
			return a, fmt.Errorf("argument line %q: unbalanced parentheses in the type", clip(line))
		}
		list, hasList = s[open+1:len(s)-1], true
		typeStart = open
	}
	k := typeStart
	for k > 0 && isIdentByte(s[k-1]) {
		k--
	}
	a.TypeName = s[k:typeStart]
	if a.TypeName == "" {
		return a, fmt.Errorf("argument line %q has no type", clip(line))
	}
	expr := strings.TrimSpace(s[:k])
	expr, ok := strings.CutSuffix(expr, ",")
	if !ok {
		return a, fmt.Errorf("argument line %q: no comma before the type", clip(line))
	}
	a.Name = strings.TrimSpace(expr)
	a.Type = LookupItemType(a.TypeName)
	if hasList {
		switch {
		case a.Type == ItemEnum || a.Type == ItemFlagsEnum:
			a.Enum = strings.TrimSpace(list)
		case a.Type.isList() || a.Type.isSet():
			labels, err := parseLabels(list, a.Type.isSet())
			if err != nil {
				return a, fmt.Errorf("argument %s: %v", a.Name, err)
			}
			a.Labels = labels
		}
	}
	return a, nil
}

// parseLabels splits a list of labels. In a list, a label gives the next
// value; "Name=number" gives its own, and the labels after it count on
// from there. In a set, label i names bit i.
func parseLabels(list string, bits bool) ([]Label, error) {
	parts := strings.Split(list, ",")
	if len(parts) > MaxLabels {
		return nil, fmt.Errorf("more than %d labels", MaxLabels)
	}
	out := make([]Label, 0, len(parts))
	var next uint64
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if bits {
			if i >= 64 {
				return nil, fmt.Errorf("a set of more than 64 bits")
			}
			out = append(out, Label{Name: p, Value: 1 << uint(i)})
			continue
		}
		if name, num, ok := strings.Cut(p, "="); ok {
			v, err := strconv.ParseUint(strings.TrimSpace(num), 0, 64)
			if err != nil {
				return nil, fmt.Errorf("label %q: value is not a number", p)
			}
			p, next = strings.TrimSpace(name), v
		}
		out = append(out, Label{Name: p, Value: next})
		next++
	}
	return out, nil
}

// levels are the level names of evntrace.h.
var levels = map[string]uint8{
	"TRACE_LEVEL_NONE": 0, "TRACE_LEVEL_CRITICAL": 1, "TRACE_LEVEL_FATAL": 1, "TRACE_LEVEL_ERROR": 2,
	"TRACE_LEVEL_WARNING": 3, "TRACE_LEVEL_INFORMATION": 4, "TRACE_LEVEL_VERBOSE": 5,
	"TRACE_LEVEL_RESERVED6": 6, "TRACE_LEVEL_RESERVED7": 7, "TRACE_LEVEL_RESERVED8": 8, "TRACE_LEVEL_RESERVED9": 9,
}

// levelValue is the number of a LEVEL= value, and false for a name that
// is not a level (with DoTraceMessage, WPP's "LEVEL" holds a flag name).
func levelValue(s string) (uint8, bool) {
	if v, ok := levels[strings.ToUpper(s)]; ok {
		return v, true
	}
	if v, err := strconv.ParseUint(s, 0, 8); err == nil {
		return uint8(v), true
	}
	return 0, false
}

// finish works out what the message needs to decode and render: the
// numeric level, the compiled format, each argument's conversion and
// decoding schema.
func (m *Message) finish() error {
	if v, ok := levelValue(m.Level); ok {
		m.LevelValue = v
	} else if m.Level != "" && m.Flags == "" {
		// DoTraceMessage(FLAG, …): its "level" is the flag.
		m.Flags = m.Level
	}
	m.format = compileFormat(m.Format)
	prefixes := 0
	for _, s := range m.format {
		switch {
		case s.kind == segInsert && s.n <= 9:
			m.prefixVars = true
		case s.kind == segPrefix:
			prefixes++
		}
	}
	if prefixes == 1 && m.format[0].kind == segPrefix {
		m.leadingPrefix = true
		if len(m.format) > 1 && m.format[1].kind == segText {
			t := m.format[1].text
			m.gap = t[:len(t)-len(strings.TrimLeft(t, " \t"))]
		}
	}
	for i := range m.Args {
		a := &m.Args[i]
		for j := range m.Args[:i] {
			if m.Args[j].Insert == a.Insert {
				return fmt.Errorf("arguments %s and %s share insert %d", m.Args[j].Name, a.Name, a.Insert)
			}
		}
		a.conv = defaultConversion
		for _, s := range m.format {
			if s.kind == segInsert && s.n == a.Insert {
				a.conv = s.conv
				break
			}
		}
		sch, err := argSchema(a)
		if err != nil {
			return err
		}
		a.schema = sch
	}
	if m.Level != "" {
		m.lead = append(m.lead, payload.NewString(LevelField, bytesOf(m.Level)))
	}
	if m.Flags != "" {
		m.lead = append(m.lead, payload.NewString(FlagsField, bytesOf(m.Flags)))
	}
	return nil
}

func cutWord(s string) (word, rest string) {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}

func firstWord(s string) string { w, _ := cutWord(s); return w }

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

// clip shortens a line quoted in a warning.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
