package wpp

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/uuid"
)

// Set holds messages by message GUID and number, from any number of TMF
// files and PDBs. Fill it with Load or the Add methods, then read it from
// any number of goroutines.
type Set struct {
	messages map[key]*Message
	controls []*Control
	warnings []error
	sources  int
}

type key struct {
	guid   uuid.UUID
	number uint16
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{messages: map[key]*Message{}} }

// Lookup returns the message of a record's GUID and message number, nil
// when the set has none.
func (s *Set) Lookup(guid uuid.UUID, number uint16) *Message {
	if s == nil {
		return nil
	}
	return s.messages[key{guid, number}]
}

// Len is the number of messages.
func (s *Set) Len() int { return len(s.messages) }

// Sources is the number of TMF files and PDBs that gave messages.
func (s *Set) Sources() int { return s.sources }

// Controls are the control GUIDs the set's PDBs define.
func (s *Set) Controls() []*Control { return s.controls }

// Warnings are what loading skipped: TMF lines that cost their message
// (*SyntaxError), PDBs that could not be read, files of a directory that
// are neither. Loading goes on after each.
func (s *Set) Warnings() []error { return s.warnings }

// AddFile adds the messages and controls of a parsed TMF or PDB, keeping a
// message already held for the same GUID and number, and the file's
// warnings. A message whose FLAGS= names a flag of one of the file's
// controls gets that flag's bit as its Keyword.
func (s *Set) AddFile(f *File) {
	s.warnings = append(s.warnings, f.Warnings...)
	bits := flagBits(f.Controls)
	added := false
	for _, m := range f.Messages {
		k := key{m.GUID, m.Number}
		if _, ok := s.messages[k]; ok {
			continue
		}
		if b, ok := bits[m.Flags]; ok && m.Keyword == 0 {
			m.Keyword = b
		}
		s.messages[k] = m
		added = true
	}
	s.controls = append(s.controls, f.Controls...)
	if added || len(f.Controls) > 0 {
		s.sources++
	}
}

// flagBits maps flag names to their bits, leaving out names two controls
// give different bits.
func flagBits(cs []*Control) map[string]uint64 {
	bits := map[string]uint64{}
	clash := map[string]bool{}
	for _, c := range cs {
		for i, name := range c.Flags {
			if i >= 64 || name == "" {
				continue
			}
			b := uint64(1) << uint(i)
			if old, ok := bits[name]; ok && old != b {
				clash[name] = true
			}
			bits[name] = b
		}
	}
	for name := range clash {
		delete(bits, name)
	}
	return bits
}

// resolveFlags gives the messages still without a Keyword the bit of
// their flag among all the set's controls, where that is unambiguous: a
// TMF directory loaded beside the PDB that defines the control.
func (s *Set) resolveFlags() {
	if len(s.controls) == 0 {
		return
	}
	bits := flagBits(s.controls)
	for _, m := range s.messages {
		if m.Keyword == 0 && m.Flags != "" {
			m.Keyword = bits[m.Flags]
		}
	}
}

// Load reads every path into a new set (see Set.Load).
func Load(paths ...string) (*Set, error) {
	s := NewSet()
	for _, p := range paths {
		if err := s.Load(p); err != nil {
			return s, err
		}
	}
	return s, nil
}

// Load adds a TMF file, a PDB, or every .tmf and .pdb file of a directory
// (not its subdirectories). What a file is comes from its content (a PDB
// starts with the MSF signature), so that names do not matter for files
// given by name. A path that cannot be read at all is an error; a PDB that
// is damaged or has no WPP annotations, and the lines of a TMF that cannot
// be read, are warnings, and loading goes on.
func (s *Set) Load(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		err := s.loadFile(path)
		s.resolveFlags()
		return err
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.IsDir() && (ext == ".tmf" || ext == ".pdb") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if err := s.loadFile(filepath.Join(path, n)); err != nil {
			s.warnings = append(s.warnings, err)
		}
	}
	s.resolveFlags()
	if len(names) == 0 {
		return fmt.Errorf("%s: no .tmf or .pdb files in the directory", path)
	}
	return nil
}

// loadFile adds one file. A PDB that cannot be used is a warning, since it
// costs only itself.
func (s *Set) loadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	head := make([]byte, len(msfMagic))
	n, _ := io.ReadFull(f, head)
	if bytes.HasPrefix(head[:n], msfMagic[:24]) || strings.EqualFold(filepath.Ext(path), ".pdb") {
		pf, err := ParsePDB(f, st.Size(), path)
		if err != nil {
			s.warnings = append(s.warnings, err)
			return nil
		}
		s.AddFile(pf)
		return nil
	}
	if st.Size() > maxTMFSize {
		return fmt.Errorf("%s: %d bytes is too large for a TMF file", path, st.Size())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s.AddFile(ParseTMF(data, path))
	return nil
}

// maxTMFSize bounds the TMF files read: real ones are tens of kilobytes.
const maxTMFSize = 64 << 20

// SearchPath splits a TRACE_FORMAT_SEARCH_PATH value: directories
// separated by semicolons, as on Windows, or by the system's list
// separator; empty entries are dropped.
func SearchPath(v string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == filepath.ListSeparator }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
