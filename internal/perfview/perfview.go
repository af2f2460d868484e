// Package perfview reads the listings TraceEvent (the library behind
// PerfView) printed for the shared samples (expected/*.perfview.txt), and
// holds what we say of the same records against them. Tests of several
// packages compare with the listings; they share this reading, this
// matching of records to lines and this idea of when two values agree.
//
// A listing has an EVENT line for the first events of each type,
//
//	EVENT <ms since the trace start>: Provider/Task/Opcode PID=..; TID=..; PName=..; ProceNum=..; DataLen=..; F=V; ...
//
// and a COUNT line per event name, "COUNT Provider/Task/Opcode:N".
package perfview

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/etlkit/etlkit/internal/samples"
)

// Event is one EVENT line.
type Event struct {
	Line     int     // line number in the listing, from 1
	MS       float64 // milliseconds since the trace start
	Name     string  // "Provider/Task/Opcode"
	PID, TID int64
	CPU      int
	Fields   []Field // in the order printed, header columns left out
}

// Field is one NAME=VALUE of an EVENT line, as printed.
type Field struct{ Name, Value string }

// Provider is the part of the name before the first "/".
func (e *Event) Provider() string {
	p, _, _ := strings.Cut(e.Name, "/")
	return p
}

// Micros is the event's time in whole microseconds since the trace start.
func (e *Event) Micros() int64 { return int64(math.Round(e.MS * 1000)) }

// Field returns the value printed for a field.
func (e *Event) Field(name string) (string, bool) {
	for _, f := range e.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}

// Listing is a parsed listing.
type Listing struct {
	Events []Event
	Counts map[string]int // by "Provider/Task/Opcode"
}

var eventLine = regexp.MustCompile(`^EVENT ([\d,]+\.\d+): (\S.*?) PID=(-?\d+); TID=(-?\d+); PName=[^;]*; ProceNum=(\d+); DataLen=\d+; (.*)$`)

// headerColumns are the EVENT line's columns that are not payload fields.
var headerColumns = map[string]bool{"PID": true, "TID": true, "PName": true, "ProceNum": true, "DataLen": true}

// Read parses a listing.
func Read(path string) (*Listing, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	l := &Listing{Counts: map[string]int{}}
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "COUNT "); ok {
			i := strings.LastIndexByte(rest, ':')
			if i < 0 {
				return nil, fmt.Errorf("%s:%d: COUNT line without a count", path, n)
			}
			c, err := strconv.Atoi(rest[i+1:])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, n, err)
			}
			l.Counts[rest[:i]] = c
			continue
		}
		m := eventLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		e := Event{Line: n, Name: strings.TrimSpace(m[2])}
		if e.MS, err = strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		e.PID, _ = strconv.ParseInt(m[3], 10, 64)
		e.TID, _ = strconv.ParseInt(m[4], 10, 64)
		e.CPU, _ = strconv.Atoi(m[5])
		for _, part := range splitFields(strings.TrimRight(m[6], "; ")) {
			k, v, ok := strings.Cut(part, "=")
			if ok && !headerColumns[k] {
				e.Fields = append(e.Fields, Field{k, v})
			}
		}
		l.Events = append(l.Events, e)
	}
	return l, sc.Err()
}

// ReadSample parses the listing of a shared sample ("x.etl" has
// expected/x.perfview.txt) and returns it with the sample's path; the test
// is skipped when the samples are absent.
func ReadSample(tb testing.TB, trace string) (*Listing, string) {
	tb.Helper()
	path := samples.Path(tb, trace)
	l, err := Read(filepath.Join(filepath.Dir(path), "expected", strings.TrimSuffix(trace, filepath.Ext(trace))+".perfview.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	return l, path
}

// splitFields splits "A=1; B=x; y; C=2" at each "; " that a name and "="
// follow: a value may hold "; " itself.
func splitFields(s string) []string {
	var parts []string
	start := 0
	for i := 0; i+2 < len(s); i++ {
		if s[i] != ';' || s[i+1] != ' ' {
			continue
		}
		j := i + 2
		if c := s[j]; !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			continue
		}
		for j < len(s) && (s[j] == '_' || s[j] == '.' || 'A' <= s[j] && s[j] <= 'Z' || 'a' <= s[j] && s[j] <= 'z' || '0' <= s[j] && s[j] <= '9') {
			j++
		}
		if j < len(s) && s[j] == '=' {
			parts = append(parts, s[start:i])
			start = i + 2
		}
	}
	return append(parts, s[start:])
}

// Of returns the events whose name starts with one of the prefixes ("Windows
// Kernel/", "Microsoft-Windows-DotNETRuntime"); all when none is given.
func (l *Listing) Of(prefixes ...string) []Event {
	var out []Event
	for _, e := range l.Events {
		if hasAnyPrefix(e.Name, prefixes) {
			out = append(out, e)
		}
	}
	return out
}

// CountsOf returns the COUNT lines whose name starts with one of the
// prefixes.
func (l *Listing) CountsOf(prefixes ...string) map[string]int {
	out := map[string]int{}
	for n, c := range l.Counts {
		if hasAnyPrefix(n, prefixes) {
			out[n] = c
		}
	}
	return out
}

func hasAnyPrefix(s string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// Record is what a test says of one record: its full name
// ("Provider/Event"), the process and thread of its header, and its fields
// by name, of whatever type the test holds them in.
type Record[V any] struct {
	Name     string
	PID, TID uint32
	// HasIDs is false when the header names no process and thread.
	HasIDs bool
	Fields map[string]V
}

// slot is a processor and a microsecond since the trace start.
type slot struct {
	cpu int
	us  int64
}

// Index holds the records near the times of a listing's events.
type Index[V any] struct {
	wanted map[slot]bool
	at     map[slot][]*Record[V]
}

// NewIndex returns an Index for the events: it keeps the records within a
// microsecond of one of them, on its processor. TraceEvent prints times to
// the microsecond, rounded.
func NewIndex[V any](events []Event) *Index[V] {
	x := &Index[V]{wanted: map[slot]bool{}, at: map[slot][]*Record[V]{}}
	for i := range events {
		us := events[i].Micros()
		for d := int64(-1); d <= 1; d++ {
			x.wanted[slot{events[i].CPU, us + d}] = true
		}
	}
	return x
}

// Wants reports whether a record on cpu at us microseconds since the
// trace's first record is near an event (the caller keeps only those).
func (x *Index[V]) Wants(cpu int, us int64) bool { return x.wanted[slot{cpu, us}] }

// Add keeps a record.
func (x *Index[V]) Add(cpu int, us int64, r *Record[V]) {
	k := slot{cpu, us}
	x.at[k] = append(x.at[k], r)
}

// Agree reports whether a record's fields show a field as TraceEvent
// printed want, and what ours is (for the miss's message). fields are
// the record's, by the name the test keyed them with.
type Agree[V any] func(name, want string, fields map[string]V) (ok bool, ours string)

// Outcome is the comparison of one event with our record.
type Outcome struct {
	Event *Event
	// Named: a record of that name was found; There lists the records
	// at that time and processor otherwise.
	Named bool
	There []string
	// Agreed counts the fields that agree, Misses lists the others.
	Agreed int
	Misses []Miss
	// EmptyAbsent counts the fields TraceEvent prints with an empty value
	// and our record does not have; they count as agreeing.
	EmptyAbsent int
}

// Miss is a field of an event whose value we do not show as TraceEvent
// does.
type Miss struct {
	Field, Want, Ours string
}

// Match holds every event against the records near it: on its processor,
// within a microsecond, preferring those whose header names its process
// and thread (TraceEvent shows the subject's process and thread for some
// kernel events, where the header may name the logging thread or none),
// and among the records of its name (case-insensitive) the one on which
// the most fields agree. A field printed with an empty value that our
// record does not have agrees: TraceEvent prints the fields its parser
// knows and the record's version does not hold that way.
func Match[V any](events []Event, x *Index[V], agree Agree[V]) []Outcome {
	out := make([]Outcome, 0, len(events))
	for i := range events {
		e := &events[i]
		o := Outcome{Event: e}
		us := e.Micros()
		var near []*Record[V]
		for _, d := range []int64{0, -1, 1} {
			near = append(near, x.at[slot{e.CPU, us + d}]...)
		}
		var named, same []*Record[V]
		for _, r := range near {
			if !strings.EqualFold(r.Name, e.Name) {
				continue
			}
			named = append(named, r)
			if r.HasIDs && r.PID == uint32(e.PID) && r.TID == uint32(e.TID) {
				same = append(same, r)
			}
		}
		if len(same) > 0 {
			named = same
		}
		if len(named) == 0 {
			for _, r := range near {
				o.There = append(o.There, r.Name)
			}
			out = append(out, o)
			continue
		}
		o.Named, o.Agreed = true, -1
		for _, r := range named {
			c := Outcome{Event: e, Named: true}
			for _, f := range e.Fields {
				ok, ours := agree(f.Name, f.Value, r.Fields)
				switch {
				case ok:
					c.Agreed++
				case f.Value == "" && ours == "":
					c.Agreed++
					c.EmptyAbsent++
				default:
					if ours == "" {
						ours = "missing"
					}
					c.Misses = append(c.Misses, Miss{f.Name, f.Value, ours})
				}
			}
			if c.Agreed > o.Agreed {
				o = c
			}
		}
		out = append(out, o)
	}
	return out
}

// Score counts names and field values that agree.
type Score struct {
	Names, NamesAll, Fields, FieldsAll int
	// EmptyAbsent are the agreeing fields TraceEvent prints empty and we
	// do not have.
	EmptyAbsent int
}

func (s Score) String() string {
	return fmt.Sprintf("names %d/%d (%.1f%%), fields %d/%d (%.1f%%)", s.Names, s.NamesAll,
		100*float64(s.Names)/float64(max(s.NamesAll, 1)), s.Fields, s.FieldsAll,
		100*float64(s.Fields)/float64(max(s.FieldsAll, 1)))
}

// Add counts one outcome.
func (s *Score) Add(o *Outcome) {
	s.NamesAll++
	s.FieldsAll += len(o.Event.Fields)
	if o.Named {
		s.Names++
		s.Fields += o.Agreed
		s.EmptyAbsent += o.EmptyAbsent
	}
}

// Total scores outcomes.
func Total(outs []Outcome) Score {
	var s Score
	for i := range outs {
		s.Add(&outs[i])
	}
	return s
}

// MissKey names a miss by event and field ("" for the event's name).
type MissKey struct{ Event, Field string }

// Misses counts the misses of outcomes by event and field, and describes
// each one (for the test's log).
func Misses(outs []Outcome) (map[MissKey]int, []string) {
	counts := map[MissKey]int{}
	var lines []string
	for i := range outs {
		o := &outs[i]
		if !o.Named {
			counts[MissKey{o.Event.Name, ""}]++
			lines = append(lines, fmt.Sprintf("line %d %.3f %s: no record of that name; there: %v", o.Event.Line, o.Event.MS, o.Event.Name, o.There))
			continue
		}
		for _, m := range o.Misses {
			counts[MissKey{o.Event.Name, m.Field}]++
			lines = append(lines, fmt.Sprintf("line %d %.3f %s: %s=%s (ours %s)", o.Event.Line, o.Event.MS, o.Event.Name, m.Field, m.Want, m.Ours))
		}
	}
	return counts, lines
}

// Why says why TraceEvent shows a value we do not. The tests name every
// miss with one of these.
type Why string

const (
	// NotInRecord: TraceEvent shows a field the record does not hold (of
	// a later version of the event than the record's, as 0, Unknown or
	// empty), which we do not make up.
	NotInRecord Why = "TraceEvent shows a field the record does not hold"
	// Misreads: TraceEvent reads the record wrong, and ours is what the
	// record holds.
	Misreads Why = "TraceEvent misreads the record"
	// Flattened: TraceEvent prints an array's first element as fields of
	// their own (TypeID_0), where we keep the array.
	Flattened Why = "TraceEvent flattens an array into fields"
	// ProcessTable: TraceEvent shows the name its process table has
	// rather than the record's.
	ProcessTable Why = "TraceEvent shows its process table's name"
	// Unnamed: a value TraceEvent names and no schema we have names.
	Unnamed Why = "TraceEvent names a value no schema we have names"
)

// Known is the expected number of lines of a miss, and why it misses.
type Known struct {
	Lines int
	Why   Why
}

// CheckMisses fails the test for every miss not in known, and for every
// known one whose count changed; it logs each miss line. It returns the
// misses TraceEvent's misreadings account for.
func CheckMisses(t testing.TB, outs []Outcome, known map[MissKey]Known) (misread int) {
	t.Helper()
	counts, lines := Misses(outs)
	for _, l := range lines {
		t.Log("miss:", l)
	}
	keys := make([]MissKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].Event < keys[j].Event || keys[i].Event == keys[j].Event && keys[i].Field < keys[j].Field
	})
	for _, k := range keys {
		n := counts[k]
		m, ok := known[k]
		if !ok {
			t.Errorf("unexplained miss: %s %q (%d lines)", k.Event, k.Field, n)
			continue
		}
		if m.Lines != n {
			t.Errorf("%s %q (%s): %d lines miss, not %d", k.Event, k.Field, m.Why, n, m.Lines)
		}
		if m.Why == Misreads {
			misread += n
		}
	}
	for k, m := range known {
		if _, ok := counts[k]; !ok {
			t.Errorf("%s %q (%s) no longer misses", k.Event, k.Field, m.Why)
		}
	}
	return misread
}

// MergedKernelMisses are the kernel values TraceEvent's listing of the
// merged .NET sample (net452-x64-merged-compressed.etl) shows that our
// records do not, in the groups every kernel test compares; the tests add
// their own.
func MergedKernelMisses() map[MissKey]Known {
	return map[MissKey]Known{
		// TraceEvent reads v2 IPv4 UDP records with two getters of the v0
		// layout: context is the PID and size read as one pointer, dsize
		// bytes of the sequence number.
		{Event: "Windows Kernel/UdpIp/Recv", Field: "context"}: {Lines: 5, Why: Misreads},
		{Event: "Windows Kernel/UdpIp/Recv", Field: "dsize"}:   {Lines: 5, Why: Misreads},
		{Event: "Windows Kernel/UdpIp/Send", Field: "context"}: {Lines: 1, Why: Misreads},
		{Event: "Windows Kernel/UdpIp/Send", Field: "dsize"}:   {Lines: 1, Why: Misreads},
		// TraceEvent shows the name its process table has for the
		// ProcessID ("Idle", "svchost") instead of the record's ("",
		// "svchost.exe").
		{Event: "Windows Kernel/SystemConfig/Services", Field: "ProcessName"}: {Lines: 5, Why: ProcessTable},
	}
}
