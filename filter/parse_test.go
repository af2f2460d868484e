package filter

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestParseLevel(t *testing.T) {
	good := map[string]uint8{
		"0": 0, "3": 3, "255": 255, "0x10": 16, " 5 ": 5,
		"critical": 1, "Error": 2, "WARNING": 3, "warn": 3, "Warn": 3, "information": 4, "informational": 4,
		"Informational": 4, "info": 4, "INFO": 4, "Verbose": 5, "1": 1, "2": 2, "4": 4, "5": 5, "0x05": 5,
	}
	for in, want := range good {
		got, err := ParseLevel(in)
		if err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "256", "-1", "debug", "3.0", "0x100", "warnings", "inform", "crit"} {
		if got, err := ParseLevel(in); err == nil {
			t.Errorf("ParseLevel(%q) = %d, want an error", in, got)
		}
	}
}

func TestParseKeyword(t *testing.T) {
	good := map[string]uint64{
		"0x5": 5, "0X5": 5, "5": 5, "010": 10, "0": 0,
		"0xFFFFFFFFFFFFFFFF": AllKeywords, "18446744073709551615": AllKeywords,
		"0x8000000000000000": 1 << 63, "0x0000800000000000": 1 << 47,
	}
	for in, want := range good {
		got, err := ParseKeyword(in)
		if err != nil || got != want {
			t.Errorf("ParseKeyword(%q) = %#x, %v; want %#x", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0x", "0x1FFFFFFFFFFFFFFFF", "18446744073709551616", "-1", "0b101", "five"} {
		if got, err := ParseKeyword(in); err == nil {
			t.Errorf("ParseKeyword(%q) = %#x, want an error", in, got)
		}
	}
}

func TestParseProviderSpec(t *testing.T) {
	id := uuid.MustParse("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716")
	cases := []struct {
		in   string
		want ProviderSpec
	}{
		{"Microsoft-Windows-Kernel-Process", ProviderSpec{Name: "Microsoft-Windows-Kernel-Process"}},
		{"22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716", ProviderSpec{ID: id}},
		{"{22FB2CD6-0E7B-422B-A0C7-2FAD1FD0E716}", ProviderSpec{ID: id}},
		{"Contoso:0x5", ProviderSpec{Name: "Contoso", MatchAny: 5}},
		{"Contoso:0x5:warning", ProviderSpec{Name: "Contoso", MatchAny: 5, Level: 3}},
		{"Contoso:0x5:4:0x4", ProviderSpec{Name: "Contoso", MatchAny: 5, Level: 4, MatchAll: 4}},
		{"Contoso::5", ProviderSpec{Name: "Contoso", Level: 5}},
		{"Contoso:::0x10", ProviderSpec{Name: "Contoso", MatchAll: 0x10}},
		{"Contoso:", ProviderSpec{Name: "Contoso"}},
		{"22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716:0xFFFF000000000000:verbose", ProviderSpec{ID: id, MatchAny: 0xFFFF << 48, Level: 5}},
		// 32 hex digits without dashes stay a name.
		{"22fb2cd60e7b422ba0c72fad1fd0e716", ProviderSpec{Name: "22fb2cd60e7b422ba0c72fad1fd0e716"}},
	}
	for _, c := range cases {
		got, err := ParseProviderSpec(c.in)
		if err != nil {
			t.Errorf("ParseProviderSpec(%q): %v", c.in, err)
			continue
		}
		if got.ID != c.want.ID || got.Name != c.want.Name || got.Level != c.want.Level ||
			got.MatchAny != c.want.MatchAny || got.MatchAll != c.want.MatchAll || got.Group {
			t.Errorf("ParseProviderSpec(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
	for _, in := range []string{"", ":0x5", "Contoso:zz", "Contoso:0x5:loud", "Contoso:1:2:x", "Contoso:1:2:3:4",
		"00000000-0000-0000-0000-000000000000", "{00000000-0000-0000-0000-000000000000}:0x5"} {
		if got, err := ParseProviderSpec(in); err == nil {
			t.Errorf("ParseProviderSpec(%q) = %+v, want an error", in, got)
		}
	}
}

func TestParseProviderSpecProperties(t *testing.T) {
	for in, want := range map[string]bool{
		"Contoso":                           false,
		"Contoso:::":                        false,
		"Contoso::::":                       false,
		"Contoso::::ignore-keyword0":        true,
		"Contoso:0x5:4:0x4:Ignore-Keyword0": true,
		"Contoso::::ignore-keyword0,":       true,
	} {
		got, err := ParseProviderSpec(in)
		if err != nil || got.IgnoreKeyword0 != want || got.Name != "Contoso" {
			t.Errorf("ParseProviderSpec(%q) = %+v, %v; want IgnoreKeyword0 %v", in, got, err, want)
		}
	}
	for _, in := range []string{"Contoso::::stack", "Contoso::::ignore-keyword0,sid", "Contoso:1:2:3:ignore-keyword0:x"} {
		if got, err := ParseProviderSpec(in); err == nil {
			t.Errorf("ParseProviderSpec(%q) = %+v, want an error", in, got)
		}
	}
}

// TestParseProviderSpecDefaults: fields left out take the defaults, and a
// field given keeps its value, 0 included.
func TestParseProviderSpecDefaults(t *testing.T) {
	def := Enablement{Level: 3, MatchAny: 0x5, MatchAll: 0x4}
	cases := []struct {
		in                 string
		level              uint8
		matchAny, matchAll uint64
	}{
		{"Contoso", 3, 0x5, 0x4},
		{"Contoso:::", 3, 0x5, 0x4},
		{"Contoso:0", 3, 0, 0x4},
		{"Contoso::0", 0, 0x5, 0x4},
		{"Contoso:::0", 3, 0x5, 0},
		{"Contoso:0:0:0", 0, 0, 0},
		{"Contoso:0x8:verbose", 5, 0x8, 0x4},
	}
	for _, c := range cases {
		got, err := ParseProviderSpecWith(c.in, def)
		if err != nil || got.Level != c.level || got.MatchAny != c.matchAny || got.MatchAll != c.matchAll {
			t.Errorf("ParseProviderSpecWith(%q, %+v) = %+v, %v; want level %d any %#x all %#x", c.in, def, got, err, c.level, c.matchAny, c.matchAll)
		}
	}
}

func TestParseTimeBound(t *testing.T) {
	rel := map[string]time.Duration{
		"1.5s": 1500 * time.Millisecond, "250ms": 250 * time.Millisecond, "100us": 100 * time.Microsecond,
		"100µs": 100 * time.Microsecond, "10ns": 10, "2m": 2 * time.Minute, "+3s": 3 * time.Second,
		"0s": 0, ".5ms": 500 * time.Microsecond, "0.0001ms": 100,
		// Go durations.
		"1m30s": 90 * time.Second, "1h": time.Hour, "1h2m3.5s": time.Hour + 2*time.Minute + 3500*time.Millisecond,
		"+1m30s": 90 * time.Second,
		// Seconds, with or without decimals.
		"5": 5 * time.Second, "1.5": 1500 * time.Millisecond, "0.0000001": 100, "+2": 2 * time.Second, ".25": 250 * time.Millisecond,
		" 90 ": 90 * time.Second,
	}
	for in, want := range rel {
		got, err := ParseTimeBound(in)
		if err != nil || !got.Relative || got.Offset != want {
			t.Errorf("ParseTimeBound(%q) = %+v, %v; want relative %v", in, got, err, want)
		}
	}
	abs := map[string]time.Time{
		"2024-05-01T12:00:00Z":              time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"2024-05-01T14:00:00.1234567+02:00": time.Date(2024, 5, 1, 12, 0, 0, 123456700, time.UTC),
		// The text output's own form, as it prints a record's time.
		"2020-07-29T00:07:00.6236167Z": time.Date(2020, 7, 29, 0, 7, 0, 623616700, time.UTC),
		// Without a zone: UTC.
		"2020-07-29T00:06:21":         time.Date(2020, 7, 29, 0, 6, 21, 0, time.UTC),
		"2020-07-29T00:06:21.6236167": time.Date(2020, 7, 29, 0, 6, 21, 623616700, time.UTC),
		"2020-07-29 00:06:21.5":       time.Date(2020, 7, 29, 0, 6, 21, 500000000, time.UTC),
	}
	for in, want := range abs {
		got, err := ParseTimeBound(in)
		if err != nil || got.Relative || !got.At.Equal(want) || got.At.Location() != time.UTC {
			t.Errorf("ParseTimeBound(%q) = %+v, %v; want %v UTC", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1s", "-5", "1.2.3s", "s", "2024-05-01", "1 s", "1d", "+-1s", "++1s", "1e3",
		"0001-01-01T00:00:00Z", "1600-12-31T23:59:59Z", "1600-12-31T23:59:59", "2024-05-01T25:00:00", "9999999999h"} {
		if got, err := ParseTimeBound(in); err == nil {
			t.Errorf("ParseTimeBound(%q) = %+v, want an error", in, got)
		}
	}
}
