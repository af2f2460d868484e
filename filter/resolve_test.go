package filter

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// TestResolveProvider: a name the resolver knows matches the records of
// the GUIDs it gives, in any case, as well as those whose traits carry it;
// a GUID entry still wins over it; an unknown name fails Compile with the
// resolver's error.
func TestResolveProvider(t *testing.T) {
	st := stub()
	errUnknown := errors.New("no such provider")
	var asked []string
	resolve := func(name string) ([]uuid.UUID, error) {
		asked = append(asked, name)
		switch strings.ToLower(name) {
		case "windows kernel":
			return []uuid.UUID{kernelProcess, provD}, nil
		case "contoso.beta":
			return nil, nil
		}
		return nil, errUnknown
	}
	f := mustCompile(t, Options{Lookup: st.lookup(), ResolveProvider: resolve}, Session{Providers: []ProviderSpec{
		{Name: "WINDOWS KERNEL", Level: LevelError},
		{Name: "Contoso.Beta"},
		{ID: provD, Level: LevelVerbose},
	}})
	if len(asked) != 2 {
		t.Errorf("resolver asked %q, want the two names", asked)
	}
	cases := []struct {
		name string
		r    *record.Record
		want bool
	}{
		{"kernel group of the name", &record.Record{HeaderType: header.TypeSystem64, ProviderId: kernelProcess}, true},
		{"resolved GUID, level of the name's entry", evFrom(kernelProcess, 1, 3, 0), false},
		{"GUID entry wins over the name", evFrom(provD, 1, 5, 0), true},
		{"name by traits", evFrom(provB, 1, 5, 0x80), true},
		{"other provider", evFrom(provA, 1, 1, 0), false},
	}
	for _, c := range cases {
		if got := f.Match(c.r); got != c.want {
			t.Errorf("%s: Match = %v, want %v", c.name, got, c.want)
		}
	}
	if en, ok := f.Enablement(Provider{ID: kernelProcess}); !ok || en.Level != LevelError {
		t.Errorf("Enablement of a resolved GUID = %+v, %v; want level %d", en, ok, LevelError)
	}

	_, err := Compile(Options{ResolveProvider: resolve}, Session{Providers: []ProviderSpec{{Name: "NoSuchProvider"}}})
	if !errors.Is(err, errUnknown) || !strings.Contains(err.Error(), "NoSuchProvider") {
		t.Errorf("Compile with an unknown name: %v, want the resolver's error naming it", err)
	}
	// Without a resolver a name matches by traits only, and compiles.
	plain := mustCompile(t, Options{Lookup: st.lookup()}, Session{Providers: []ProviderSpec{{Name: "Windows Kernel"}}})
	if plain.Match(&record.Record{HeaderType: header.TypeSystem64, ProviderId: kernelProcess}) {
		t.Error("without a resolver a kernel record matched a name")
	}
}

// TestProcessLookups: process ids, thread ids and process names judge what
// the lookups give, by default the header's ids and no names.
func TestProcessLookups(t *testing.T) {
	rec := func(pid, tid uint32, has bool) *record.Record {
		r := evFrom(provA, 1, 4, 0)
		r.ProcessId, r.ThreadId, r.HasThreadProcess = pid, tid, has
		return r
	}
	sample := rec(0, 0, false)
	lk := Lookup{
		Process: func(r *record.Record) (uint32, bool) {
			if r == sample {
				return 1980, true
			}
			return r.ProcessId, r.HasThreadProcess
		},
		Thread: func(r *record.Record) (uint32, bool) {
			if r == sample {
				return 584, true
			}
			return r.ThreadId, r.HasThreadProcess
		},
		ProcessName: func(r *record.Record) (string, bool) {
			if p, ok := map[uint32]string{1980: "Test.x64.EXE", 4: "System"}[r.ProcessId]; ok && r != sample {
				return p, true
			}
			if r == sample {
				return "Test.x64.EXE", true
			}
			return "", false
		},
	}
	cases := []struct {
		name string
		s    Session
		r    *record.Record
		def  bool // with the default lookups
		want bool // with lk
	}{
		{"pid of the header", Session{ProcessIDs: []uint32{1980}}, rec(1980, 7, true), true, true},
		{"pid of the lookup", Session{ProcessIDs: []uint32{1980}}, sample, false, true},
		{"other pid", Session{ProcessIDs: []uint32{4}}, sample, false, false},
		{"tid of the header", Session{ThreadIDs: []uint32{7, 9}}, rec(1980, 7, true), true, true},
		{"tid of the lookup", Session{ThreadIDs: []uint32{584}}, sample, false, true},
		{"other tid", Session{ThreadIDs: []uint32{585}}, sample, false, false},
		{"name without .exe, any case", Session{ProcessNames: []string{"test.x64"}}, sample, false, true},
		{"name with .exe", Session{ProcessNames: []string{"TEST.X64.exe"}}, rec(1980, 7, true), false, true},
		{"name without .exe, image without", Session{ProcessNames: []string{"system.exe"}}, rec(4, 8, true), false, true},
		{"other name", Session{ProcessNames: []string{"test"}}, sample, false, false},
		{"unknown process fails a name", Session{ProcessNames: []string{"test.x64"}}, rec(5, 8, true), false, false},
		{"pid and name", Session{ProcessIDs: []uint32{1980}, ProcessNames: []string{"Test.x64"}}, sample, false, true},
		{"tid and other pid", Session{ProcessIDs: []uint32{4}, ThreadIDs: []uint32{584}}, sample, false, false},
	}
	for _, c := range cases {
		if got := mustCompile(t, Options{}, c.s).Match(c.r); got != c.def {
			t.Errorf("%s, default lookups: Match = %v, want %v", c.name, got, c.def)
		}
		if got := mustCompile(t, Options{Lookup: lk}, c.s).Match(c.r); got != c.want {
			t.Errorf("%s: Match = %v, want %v", c.name, got, c.want)
		}
	}
	if _, err := Compile(Options{}, Session{ProcessNames: []string{" "}}); err == nil {
		t.Error("an empty process name compiled")
	}
}
