package record

import (
	"strconv"

	"github.com/google/uuid"
)

// KernelGroupByGUID maps a kernel group's provider GUID back to the group,
// for classic records that carry one (relogged kernel events).
func KernelGroupByGUID(g uuid.UUID) (group uint8, ok bool) {
	if g == uuid.Nil {
		return 0, false
	}
	for i, k := range kernelGroupGUIDs {
		if k == g {
			return uint8(i), true
		}
	}
	return 0, false
}

// the range it reserves; types from 10 up belong to the event class.
var classicTypes = [...]string{
	0: "Info",       // EVENT_TRACE_TYPE_INFO
	1: "Start",      // EVENT_TRACE_TYPE_START
	2: "End",        // EVENT_TRACE_TYPE_END (also _STOP)
	3: "DC_Start",   // EVENT_TRACE_TYPE_DC_START
	4: "DC_End",     // EVENT_TRACE_TYPE_DC_END
	5: "Extension",  // EVENT_TRACE_TYPE_EXTENSION
	6: "Reply",      // EVENT_TRACE_TYPE_REPLY
	7: "Dequeue",    // EVENT_TRACE_TYPE_DEQUEUE (also _RESUME)
	8: "Checkpoint", // EVENT_TRACE_TYPE_CHECKPOINT (also _SUSPEND)
	9: "Send",       // EVENT_TRACE_TYPE_WINEVT_SEND
}

// ClassicTypeName is the name of a classic (FULL/INSTANCE header) event's
// Class.Type, "" for the class-defined types from 10 up.
// EVENT_TRACE_TYPE_WINEVT_RECEIVE (240) is left to the class too: classic
// providers use types up to 255 as their own.
func ClassicTypeName(t uint8) string {
	if int(t) < len(classicTypes) {
		return classicTypes[t]
	}
	return ""
}

// AppendClassicTypeName appends the type's name, or its number when it is
// class-defined.
func AppendClassicTypeName(dst []byte, t uint8) []byte {
	if n := ClassicTypeName(t); n != "" {
		return append(dst, n...)
	}
	return strconv.AppendUint(dst, uint64(t), 10)
}

// Standard event levels (winmeta.h WINEVENT_LEVEL_*).
const (
	LevelLogAlways = 0
	LevelCritical  = 1
	LevelError     = 2
	LevelWarning   = 3
	LevelInfo      = 4
	LevelVerbose   = 5
)

var levelNames = [...]string{"LOG_ALWAYS", "CRITICAL", "ERROR", "WARNING", "INFO", "VERBOSE"}

// LevelName is the name of a standard level, "" for the reserved levels
// 6–15 and the provider-defined 16–255.
func LevelName(l uint8) string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return ""
}

// AppendLevelName appends the level's name, or "Reserved(N)" or
// "Level(N)" (provider-defined) for the others.
func AppendLevelName(dst []byte, l uint8) []byte {
	switch {
	case l < 6:
		return append(dst, levelNames[l]...)
	case l < 16:
		return appendNumbered(dst, "Reserved(", l)
	}
	return appendNumbered(dst, "Level(", l)
}

// OpcodeName is the name of a standard opcode (winmeta.h
// WINEVENT_OPCODE_*), "" for the others, which the provider defines.
func OpcodeName(o uint8) string {
	switch o {
	case 0:
		return "Info"
	case 1:
		return "Start"
	case 2:
		return "Stop"
	case 3:
		return "DC_Start"
	case 4:
		return "DC_Stop"
	case 5:
		return "Extension"
	case 6:
		return "Reply"
	case 7:
		return "Resume"
	case 8:
		return "Suspend"
	case 9:
		return "Send"
	case 240:
		return "Receive"
	}
	return ""
}

// AppendOpcodeName appends the opcode's name, or "Opcode(N)".
func AppendOpcodeName(dst []byte, o uint8) []byte {
	if n := OpcodeName(o); n != "" {
		return append(dst, n...)
	}
	return appendNumbered(dst, "Opcode(", o)
}

// Channels with a meaning of their own (winmeta.h WINEVENT_CHANNEL_*).
const (
	ChannelSystem      = 8
	ChannelApplication = 9
	ChannelSecurity    = 10
	// ChannelTraceLogging marks TraceLogging events: their layout is in the
	// EVENT_SCHEMA_TL item, not in a manifest.
	ChannelTraceLogging = 11
	// ChannelProviderMetadata marks manifest-based events of a provider that
	// also carries provider traits (PROV_TRAITS), e.g. its name or group.
	ChannelProviderMetadata = 12
)

// ChannelName is the name of a channel with a fixed meaning, "" for the
// others, which a manifest defines.
func ChannelName(c uint8) string {
	switch c {
	case ChannelSystem:
		return "System"
	case ChannelApplication:
		return "Application"
	case ChannelSecurity:
		return "Security"
	case ChannelTraceLogging:
		return "TraceLogging"
	case ChannelProviderMetadata:
		return "ProviderMetadata"
	}
	return ""
}

const hexDigits = "0123456789ABCDEF"

func appendNumbered(dst []byte, prefix string, n uint8) []byte {
	dst = append(dst, prefix...)
	dst = strconv.AppendUint(dst, uint64(n), 10)
	return append(dst, ')')
}
