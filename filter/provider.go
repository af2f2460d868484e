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
// of the documented MyProviderEventEnabled sample. The keywords are used
// exactly as received: a provider enabled with MatchAny 0 writes only
// keyword-0 events, which is why controllers, and Aggregate, turn "no
// keyword given" into all-ones before it gets here. Level 0 is
// TRACE_LEVEL_NONE, every level.
func (s *ProviderState) EventEnabled(d header.EventDescriptor) bool {
	if !s.Enabled {
		return false
	}
	if s.Level != 0 && d.Level > s.Level {
		return false
	}
	return d.Keyword == 0 ||
		d.Keyword&s.MatchAny != 0 && d.Keyword&s.MatchAll == s.MatchAll
}
