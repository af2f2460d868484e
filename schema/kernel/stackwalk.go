package kernel

import (
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// StackWalk group (0x18), kernel-events.md §9. A stack holds as many
// frames as its payload has room for, whatever the MOF's 32 or 192 named
// slots say: the frames are an array to the end of the payload.

// stackFramesIndex is the index of the frames in StackWalk_Event.
const stackFramesIndex = 3

func init() {
	later(func() {
		const g = 0x18
		register(
			class{name: "StackWalk_Event", group: g, version: 2, opcodes: []uint8{32}, computed: frameCount, fields: fields(
				wmiTime("EventTimeStamp"), u32("StackProcess"), u32("StackThread"), toEnd(ptr("Stack")))},
			class{name: "StackWalk_TypeGroup1", group: g, version: 2, opcodes: []uint8{34, 35, 36}, fields: fields(
				ptr("Key"), toEnd(ptr("StackFrame")))},
			class{name: "StackWalk_Key", group: g, version: 2, opcodes: []uint8{37, 38}, fields: fields(
				wmiTime("EventTimeStamp"), u32("StackProcess"), u32("StackThread"), ptr("StackKey"))},
		)
	})
}

// frameCount appends FrameCount, the number of frames of a stack.
func frameCount(_ *record.Record, vals []payload.Value) []payload.Value {
	v, ok := valueAt(vals, stackFramesIndex, "Stack")
	if !ok {
		return vals
	}
	return append(vals, payload.NewUint(frameCountField, uint64(len(v.Elems()))))
}
