package wpp

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/etlkit/etlkit/schema/wpp/internal/pdb"
)

// msfMagic is the start of a PDB.
var msfMagic = pdb.Magic

// Errors wrapped by what ParsePDB returns.
var (
	// ErrNotPDB: the file is no PDB this reader knows (MSF 7.00).
	ErrNotPDB = pdb.ErrNotPDB
	// ErrStripped: a public PDB, whose private symbols, the WPP
	// annotations among them, were removed.
	ErrStripped = pdb.ErrStripped
	// ErrNoAnnotations: a PDB with private symbols but no WPP messages.
	ErrNoAnnotations = errors.New("no WPP annotations (TMF:) in its symbols")
)

// PDBError is a PDB that gave no messages: its name and why.
type PDBError struct {
	File string
	Err  error
}

func (e *PDBError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *PDBError) Unwrap() error { return e.Err }

// ParsePDB reads the WPP messages of a private PDB, as tracepdb would write
// them to TMF files: every S_ANNOTATION whose first string is "TMF:" gives
// one message, FUNC= taken from the procedure around it, and the
// annotations whose first string is "TMC:" give the control GUIDs with
// their flag names. A damaged PDB gives an error (a *PDBError wrapping a
// *pdb.FormatError or the read error); a public PDB one wrapping
// ErrStripped, and a private one without WPP messages one wrapping
// ErrNoAnnotations. Annotations that do not read as TMF cost their message
// and are reported in File.Warnings.
func ParsePDB(r io.ReaderAt, size int64, name string) (*File, error) {
	fail := func(err error) (*File, error) { return nil, &PDBError{File: name, Err: err} }
	pf, err := pdb.Open(r, size)
	if err != nil {
		return fail(err)
	}
	dbi, err := pf.ReadDBI()
	if err != nil {
		return fail(err)
	}
	withSymbols := 0
	for _, m := range dbi.Modules {
		if m.SymStream != 0xFFFF {
			withSymbols++
		}
	}
	if dbi.Stripped || withSymbols == 0 && len(dbi.Modules) > 0 {
		return fail(fmt.Errorf("%w: a public PDB holds no WPP messages; give the private PDB, or its TMF files", ErrStripped))
	}
	p := &parser{f: &File{Name: name}}
	seen := map[key]struct{}{}
	err = pf.Annotations(dbi, func(a pdb.Annotation) {
		if len(a.Strings) == 0 {
			return
		}
		where := fmt.Sprintf("%s: module %s: annotation at 0x%x", name, a.Module, a.Offset)
		switch a.Strings[0] {
		case "TMF:":
			p.annotation(a, where, seen)
		case "TMC:":
			c, err := controlOf(a.Strings[1:])
			if err != nil {
				if len(p.f.Warnings) < maxWarnings {
					p.f.Warnings = append(p.f.Warnings, &SyntaxError{Where: where, Msg: err.Error()})
				}
				return
			}
			p.f.Controls = append(p.f.Controls, c)
		}
	})
	if err != nil {
		return fail(err)
	}
	if len(p.f.Messages) == 0 && len(p.f.Controls) == 0 {
		if len(p.f.Warnings) > 0 {
			return fail(fmt.Errorf("%w that read: %v", ErrNoAnnotations, p.f.Warnings[0]))
		}
		return fail(ErrNoAnnotations)
	}
	return p.f, nil
}

// annotation turns one TMF annotation into a message: its strings are
// the GUID line, the #typev line (which FUNC= ends in tracepdb's output),
// "{", one line per argument and "}"; what follows (PUBLIC_TMF:) is not
// part of the message.
func (p *parser) annotation(a pdb.Annotation, where string, seen map[key]struct{}) {
	lines := a.Strings[1:]
	for i, l := range lines {
		if strings.TrimSpace(l) == "}" {
			lines = lines[:i+1]
			break
		}
	}
	if len(lines) >= 2 && a.Function != "" && !hasFunc(lines[1]) {
		l := lines[1]
		if !strings.Contains(l[strings.LastIndexByte(l, '"')+1:], "//") {
			l += " //"
		}
		lines = append([]string{lines[0], l + " FUNC=" + a.Function}, lines[2:]...)
	}
	before := len(p.f.Messages)
	p.lines = lines
	p.lineOf = func(i int) (string, int, string) {
		return "", 0, fmt.Sprintf("%s, string %d", where, i+1)
	}
	p.haveGUID = false
	p.seen = map[uint16]struct{}{}
	p.run()
	// A message may be annotated more than once (a function's funclets
	// repeat it): the first one stays.
	kept := p.f.Messages[:before]
	for _, m := range p.f.Messages[before:] {
		k := key{m.GUID, m.Number}
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		m.Origin = where
		kept = append(kept, m)
	}
	p.f.Messages = kept
}

// hasFunc reports whether a #typev line names its function already
// (projects that define WPP_EMIT_FUNC_NAME put it there).
func hasFunc(l string) bool {
	i := strings.LastIndexByte(l, '"')
	return i >= 0 && strings.Contains(l[i:], "FUNC=")
}

// controlOf reads the strings after "TMC:": the control GUID, its name,
// then its flag names in bit order, up to any "PUBLIC_TMF:".
func controlOf(s []string) (*Control, error) {
	if len(s) < 2 {
		return nil, fmt.Errorf("TMC annotation with %d strings, want a GUID and a name", len(s))
	}
	g, err := parseGUID(strings.TrimSpace(s[0]))
	if err != nil {
		return nil, fmt.Errorf("TMC annotation: %v", err)
	}
	c := &Control{GUID: g, Name: s[1]}
	for _, f := range s[2:] {
		if f == "PUBLIC_TMF:" {
			break
		}
		c.Flags = append(c.Flags, f)
	}
	return c, nil
}
