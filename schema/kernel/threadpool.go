package kernel

import "github.com/etlkit/etlkit/payload"

// ThreadPool group (0x1C), kernel-events.md §18.8: user-mode thread pool
// callbacks, pools and timers. v3 gives the dequeue and cancel events the
// full callback description.

const groupThreadPool = 0x1C

func init() {
	later(func() {
		const g = groupThreadPool
		callback := func(tail ...payload.Field) []payload.Field {
			return append(fields(ptr("PoolId"), ptr("TaskId"), ptr("CallbackFunction"), ptr("CallbackContext"),
				ptr("SubProcessTag")), tail...)
		}
		register(
			class{name: "TP_V2_CBEnqueue", group: g, version: 2, opcodes: []uint8{32, 34}, fields: callback()},
			class{name: "TP_V2_CBDequeue", group: g, version: 2, opcodes: []uint8{33, 35}, fields: fields(ptr("TaskId"))},
			class{name: "TP_V2_CBCancel", group: g, version: 2, opcodes: []uint8{36}, fields: fields(
				ptr("TaskId"), u32("CancelCount"))},
			class{name: "TP_V2_PoolCreateClose", group: g, version: 2, opcodes: []uint8{37, 38}, fields: fields(ptr("PoolId"))},
			class{name: "TP_V2_ThreadSet", group: g, version: 2, opcodes: []uint8{39, 40}, fields: fields(
				ptr("PoolId"), u32("ThreadNum"))},
			class{name: "TP_V2_WTNodeSwitch", group: g, version: 2, opcodes: []uint8{41}, fields: fields(
				ptr("PoolId"), u32("CurrentNode"), u32("NextNode"), u16("CurrentGroup"), u16("NextGroup"),
				u32("CurrentWorkerCount"), u32("NextWorkerCount"))},
			class{name: "TP_V2_TimerSet", group: g, version: 2, opcodes: []uint8{42}, fields: fields(
				u64("DueTime"), ptr("SubQueue"), ptr("Timer"), u32("Period"), u32("WindowLength"), u32("Absolute"))},
			class{name: "TP_V2_TimerCancelled", group: g, version: 2, opcodes: []uint8{43}, fields: fields(
				ptr("SubQueue"), ptr("Timer"))},
			class{name: "TP_V2_TimerSetNtTimer", group: g, version: 2, opcodes: []uint8{44}, fields: fields(
				u64("DueTime"), ptr("SubQueue"), u32("TolerableDelay"))},
			class{name: "TP_V2_TimerExpirationGroup", group: g, version: 2, opcodes: []uint8{45, 46, 47}, fields: fields(
				ptr("SubQueue"))},
			class{name: "TP_V2_TimerExpiration", group: g, version: 2, opcodes: []uint8{48}, fields: fields(
				u64("DueTime"), ptr("SubQueue"), ptr("Timer"), u32("Period"), u32("WindowLength"))},

			class{name: "TPCBDequeue", group: g, version: 3, opcodes: []uint8{33, 35}, fields: callback()},
			class{name: "TPCBCancel", group: g, version: 3, opcodes: []uint8{36}, fields: callback(u32("CancelCount"))},
		)
	})
}
