package filter

import "github.com/etlkit/etlkit/header"

// Control codes an EnableCallback receives in its IsEnabled parameter
// (EVENT_CONTROL_CODE_*).
const (
	ControlDisable      uint32 = 0
	ControlEnable       uint32 = 1
	ControlCaptureState uint32 = 2
)

// ProviderState is the enable state a provider keeps from its
// EnableCallback, as the documented sample keeps it. The zero value is a
// provider no session has enabled.
type ProviderState struct {
	Enabled  bool
	Level    uint8
	MatchAny uint64
	MatchAll uint64
}

// Control applies one EnableCallback call. ENABLE stores the arguments as
// received; they already combine every session that enables the provider
// (see Aggregate). DISABLE clears the state. CAPTURE_STATE asks the provider
// to write its rundown events and leaves the state alone, and unknown codes
// are ignored, as the documentation tells providers to do so that future
// codes do not break them. Control reports whether the provider should
// capture its state now.
func (s *ProviderState) Control(code uint32, level uint8, matchAny, matchAll uint64) (captureState bool) {
	switch code {
	case ControlDisable:
		*s = ProviderState{}
	case ControlEnable:
		*s = ProviderState{Enabled: true, Level: level, MatchAny: matchAny, MatchAll: matchAll}
	case ControlCaptureState:
		return true
	}
	return false
}

// EventEnabled is the provider's check before writing an event, the logic
// of the ENABLECALLBACK page's sample (MyProviderEventEnabled), made with
// the values as received: the event's level is at most Level, and its
// keyword is 0 or has a bit of MatchAnyKeyword and every bit of
// MatchAllKeyword. Nothing is added to it: a provider enabled with Level 0
// writes only level-0 events, and with MatchAny 0 only keyword-0 events.
// That is why a session sends "all" for a setting its user did not give
// (see Session), and why Aggregate of such sessions enables all.
func (s *ProviderState) EventEnabled(d header.EventDescriptor) bool {
	if !s.Enabled {
		return false
	}
	return Enablement{Level: s.Level, MatchAny: s.MatchAny, MatchAll: s.MatchAll}.Passes(d.Level, d.Keyword)
}
