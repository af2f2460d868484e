package filter

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/google/uuid"
)

var levelNames = map[string]uint8{
	"critical":    LevelCritical,
	"error":       LevelError,
	"warning":     LevelWarning,
	"information": LevelInformation,
	"info":        LevelInformation,
	"verbose":     LevelVerbose,
}

// ParseLevel reads a level as a number (0-255, decimal or 0x hex) or as one
// of the names critical, error, warning, information (info), verbose, in
// any case.
func ParseLevel(s string) (uint8, error) {
	t := strings.TrimSpace(s)
	if l, ok := levelNames[strings.ToLower(t)]; ok {
		return l, nil
	}
	v, err := parseUint(t, 8)
	if err != nil {
		return 0, fmt.Errorf("level %q: want 0-255 or critical, error, warning, information, info, verbose", s)
	}
	return uint8(v), nil
}

// ParseKeyword reads a 64-bit keyword mask in hex (0x prefix) or decimal.
// A leading 0 does not mean octal: "010" is ten, as a user typing it means.
func ParseKeyword(s string) (uint64, error) {
	v, err := parseUint(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("keyword %q: want a 64-bit mask in hex (0x...) or decimal", s)
	}
	return v, nil
}

func parseUint(s string, bits int) (uint64, error) {
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		return strconv.ParseUint(h, 16, bits)
	}
	if h, ok := strings.CutPrefix(s, "0X"); ok {
		return strconv.ParseUint(h, 16, bits)
	}
	return strconv.ParseUint(s, 10, bits)
}

// ParseProviderSpec reads Provider[:Any[:Level[:All[:Properties]]]], the
// form logman, xperf and PerfView users write. Provider is a GUID, with or
// without braces, or a provider name. Any and All are keyword masks
// (ParseKeyword), Level a level (ParseLevel); an empty or absent field is
// left zero, which a session takes as not given: every keyword, every
// level, nothing required. Properties is a comma-separated list of enable
// properties of the entry; the one known is ignore-keyword0
// (EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0).
func ParseProviderSpec(s string) (ProviderSpec, error) {
	return ParseProviderSpecWith(s, Enablement{})
}

// ParseProviderSpecWith is ParseProviderSpec with defaults for the fields
// left empty or absent: Any, Level and All take those of defaults. A field
// given keeps its value, 0 included, so that "P::0" with a default level 3
// is level 0 (every level), not level 3.
func ParseProviderSpecWith(s string, defaults Enablement) (ProviderSpec, error) {
	fields := strings.Split(s, ":")
	if len(fields) > 5 {
		return ProviderSpec{}, fmt.Errorf("provider %q: want Provider[:Any[:Level[:All[:Properties]]]], got %d fields", s, len(fields))
	}
	p := ProviderSpec{Level: defaults.Level, MatchAny: defaults.MatchAny, MatchAll: defaults.MatchAll}
	name := strings.TrimSpace(fields[0])
	if name == "" {
		return ProviderSpec{}, fmt.Errorf("provider %q: no provider name or GUID", s)
	}
	if id, err := guid.Parse(name); err == nil {
		if id == uuid.Nil {
			// No provider has it, and ProviderSpec reads it as "no GUID".
			return ProviderSpec{}, fmt.Errorf("provider %q: the all-zero GUID names no provider", s)
		}
		p.ID = id
	} else {
		p.Name = name
	}
	field := func(i int) (string, bool) {
		if i >= len(fields) {
			return "", false
		}
		f := strings.TrimSpace(fields[i])
		return f, f != ""
	}
	var err error
	if f, ok := field(1); ok {
		if p.MatchAny, err = ParseKeyword(f); err != nil {
			return ProviderSpec{}, fmt.Errorf("provider %q: any: %w", s, err)
		}
	}
	if f, ok := field(2); ok {
		if p.Level, err = ParseLevel(f); err != nil {
			return ProviderSpec{}, fmt.Errorf("provider %q: %w", s, err)
		}
	}
	if f, ok := field(3); ok {
		if p.MatchAll, err = ParseKeyword(f); err != nil {
			return ProviderSpec{}, fmt.Errorf("provider %q: all: %w", s, err)
		}
	}
	if f, ok := field(4); ok {
		for _, prop := range strings.Split(f, ",") {
			switch strings.ToLower(strings.TrimSpace(prop)) {
			case "ignore-keyword0":
				p.IgnoreKeyword0 = true
			case "":
			default:
				return ProviderSpec{}, fmt.Errorf("provider %q: property %q: the one known is ignore-keyword0", s, prop)
			}
		}
	}
	return p, nil
}

// fileTimeEpoch is FILETIME 0.
var fileTimeEpoch = header.FileTimeToTime(0)

// ParseTimeBound reads an absolute instant in RFC 3339 (converted to UTC),
// or an offset from the trace start: a non-negative decimal number with one
// of the units ns, us (or µs), ms, s, m, as in 1.5s, 250ms, 100us, 10ns, 2m.
func ParseTimeBound(s string) (TimeBound, error) {
	t := strings.TrimSpace(s)
	if at, err := time.Parse(time.RFC3339Nano, t); err == nil {
		// Trace times are FILETIMEs, which start in 1601; an earlier instant
		// is a typo, and year 1 would read as no bound at all.
		if at.Before(fileTimeEpoch) {
			return TimeBound{}, fmt.Errorf("time %q is before 1601, where trace times start", s)
		}
		return TimeBound{At: at.UTC()}, nil
	}
	num, unit := splitUnit(strings.TrimPrefix(t, "+"))
	switch unit {
	case "ns", "us", "µs", "ms", "s", "m":
	default:
		return TimeBound{}, fmt.Errorf("time %q: want RFC 3339 (2024-05-01T12:00:00Z) or an offset from the trace start with a unit ns, us, ms, s or m (1.5s)", s)
	}
	if !isDecimal(num) {
		return TimeBound{}, fmt.Errorf("time %q: offset must be a non-negative decimal number followed by its unit", s)
	}
	d, err := time.ParseDuration(num + unit)
	if err != nil {
		return TimeBound{}, fmt.Errorf("time %q: %w", s, err)
	}
	return TimeBound{Offset: d, Relative: true}, nil
}

// splitUnit splits a trailing run of letters (µ counted) from a number.
func splitUnit(s string) (num, unit string) {
	i := len(s)
	for i > 0 {
		c := s[i-1]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			i--
			continue
		}
		if strings.HasSuffix(s[:i], "µ") {
			i -= len("µ")
			continue
		}
		break
	}
	return s[:i], s[i:]
}

func isDecimal(s string) bool {
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}
