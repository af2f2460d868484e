package kernel

import (
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// Fields TraceEvent works out from a record rather than reads from its
// payload. Their values are made with payload.New* over these fields, so
// that they render like decoded ones and cost no allocation.
var (
	buildTimeField        = payload.NewField(payload.Field{Name: "BuildTime", InType: payload.InFileTime})
	elapsedField          = payload.NewField(payload.Field{Name: "ElapsedTimeMSec", InType: payload.InDouble})
	parentThreadField     = payload.NewField(payload.Field{Name: "ParentThreadID", InType: payload.InInt32})
	parentProcessField    = payload.NewField(payload.Field{Name: "ParentProcessID", InType: payload.InInt32})
	processorNumberField  = payload.NewField(payload.Field{Name: "ProcessorNumber", InType: payload.InUInt16})
	priorityField         = payload.NewField(payload.Field{Name: "Priority", InType: payload.InUInt8})
	executingDPCField     = payload.NewField(payload.Field{Name: "ExecutingDPC", InType: payload.InUInt8, OutType: payload.OutBoolean})
	executingISRField     = payload.NewField(payload.Field{Name: "ExecutingISR", InType: payload.InUInt8, OutType: payload.OutBoolean})
	frameCountField       = payload.NewField(payload.Field{Name: "FrameCount", InType: payload.InUInt32})
	utcOffsetMinutesField = payload.NewField(payload.Field{Name: "UtcOffsetMinutes", InType: payload.InInt32})
)

// valueAt returns the value of the field called name: vals[i] when the
// class puts it there (the usual case, checked by name), else the first
// value of that name, and false when the payload ended before it.
func valueAt(vals []payload.Value, i int, name string) (payload.Value, bool) {
	if i < len(vals) && vals[i].Name() == name {
		return vals[i], true
	}
	return payload.Lookup(vals, name)
}

// withBuildTime appends BuildTime, the PE TimeDateStamp at vals[i]
// (seconds since 1970, unsigned) as a date, as TraceEvent shows it beside
// every image event that carries one.
func withBuildTime(i int) func(*record.Record, []payload.Value) []payload.Value {
	return func(_ *record.Record, vals []payload.Value) []payload.Value {
		v, ok := valueAt(vals, i, "TimeDateStamp")
		if !ok {
			return vals
		}
		return append(vals, payload.NewFileTime(buildTimeField, header.FileTimeEpochDelta+uint64(uint32(v.Uint()))*10_000_000))
	}
}

// withElapsed appends ElapsedTimeMSec: the time from the session-clock
// reading at vals[i] (when an interrupt, a DPC or a hard fault began) to
// the record's own time stamp (when it ended), in milliseconds.
func withElapsed(i int, name string) func(*record.Record, []payload.Value) []payload.Value {
	return func(r *record.Record, vals []payload.Value) []payload.Value {
		v, ok := valueAt(vals, i, name)
		if !ok || r.Clock == nil {
			return vals
		}
		d := r.Clock.FileTime(r.RawTimeStamp) - r.Clock.FileTime(int64(v.Uint()))
		return append(vals, payload.NewFloat(elapsedField, float64(d)/10_000))
	}
}

// fixedBytes is n bytes shown in hex (a MOF uint8[n] with no meaning
// beyond its bytes).
func fixedBytes(name string, n uint16) payload.Field {
	return payload.Field{Name: name, InType: payload.InBinary, Length: n, FixedLength: true}
}
