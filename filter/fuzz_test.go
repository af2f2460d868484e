package filter

import (
	"fmt"
	"testing"
)

// FuzzParse feeds command-line text to every parser: none may panic, and
// what they accept must compile and read back the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "0x5", "010", "info", "Verbose", "255", "Contoso:0x5:warning:0x4",
		"{22FB2CD6-0E7B-422B-A0C7-2FAD1FD0E716}::5", "1.5s", "100µs", "+2m", "2024-05-01T12:00:00Z", ":::", "a:b:c:d:e", "a::::ignore-keyword0", "a:0:0:0:Ignore-Keyword0,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if k, err := ParseKeyword(s); err == nil {
			if back, err := ParseKeyword(fmt.Sprintf("%#x", k)); err != nil || back != k {
				t.Errorf("keyword %q = %#x reads back as %#x, %v", s, k, back, err)
			}
		}
		if l, err := ParseLevel(s); err == nil {
			if back, err := ParseLevel(fmt.Sprint(l)); err != nil || back != l {
				t.Errorf("level %q = %d reads back as %d, %v", s, l, back, err)
			}
		}
		if p, err := ParseProviderSpec(s); err == nil {
			if (p.Name == "") == (p.ID.String() == "00000000-0000-0000-0000-000000000000") {
				t.Errorf("spec %q: want exactly one of a name and a GUID, got %+v", s, p)
			}
			if _, err := Compile(Options{}, Session{Providers: []ProviderSpec{p}}); err != nil {
				t.Errorf("spec %q parsed as %+v but does not compile: %v", s, p, err)
			}
		}
		if b, err := ParseTimeBound(s); err == nil {
			if b.IsZero() && !b.Relative {
				t.Errorf("time %q parsed as no bound", s)
			}
			if b.Relative && b.Offset < 0 {
				t.Errorf("time %q parsed as a negative offset %v", s, b.Offset)
			}
		}
	})
}
