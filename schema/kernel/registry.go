package kernel

import (
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// Registry group (0x09), kernel-events.md §14: registry operations, key
// control block (KCB) rundowns that pair a KeyHandle with a name, hive
// events and transactional registry (TxR) events.

const groupRegistry = 0x09

// registryElapsedField is the duration of a v2 registry operation: the
// record's time stamp less InitialTime, both in session-clock ticks.
var registryElapsedField = payload.Field{Name: "ElapsedTimeMSec", InType: payload.InDouble}

func registryComputed(r *record.Record, vals []payload.Value) []payload.Value {
	v, ok := payload.Lookup(vals, "InitialTime")
	if !ok || v.Int() < 0 || v.Int() > r.RawTimeStamp {
		return vals
	}
	if ms, ok := clockMSec(r.Clock, uint64(r.RawTimeStamp-v.Int())); ok {
		vals = append(vals, payload.NewFloat(&registryElapsedField, ms))
	}
	return vals
}

func init() {
	later(func() {
		const g = groupRegistry
		// Status is pointer-sized before v2, a 4-byte NTSTATUS since; v0 and
		// v1 carry the elapsed time where v2 has the start time.
		register(
			class{name: "Registry_V0_TypeGroup1", group: g, version: 0, opcodes: []uint8{
				10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}, fields: fields(
				ptr("Status"), ptr("KeyHandle"), i64("ElapsedTime"), wstr("KeyName"))},
			class{name: "Registry_V1_TypeGroup1", group: g, version: 1, opcodes: []uint8{
				10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}, fields: fields(
				ptr("Status"), ptr("KeyHandle"), i64("ElapsedTime"), u32("Index"), wstr("KeyName"))},
			class{name: "Registry_TypeGroup1", group: g, version: 2, opcodes: []uint8{
				10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29},
				computed: registryComputed, fields: fields(
					i64("InitialTime"), hex(u32("Status")), u32("Index"), ptr("KeyHandle"), wstr("KeyName"))},
			class{name: "Registry_TxR", group: g, version: 2, opcodes: []uint8{30, 31, 32}, fields: fields(
				guid("TxrGUID"), hex(u32("Status")), u32("UowCount"), u64("OperationTime"), wstr("Hive"))},
			class{name: "Registry_Counters", group: g, version: 2, opcodes: []uint8{34}, fields: fields(
				u64("Counter1"), u64("Counter2"), u64("Counter3"), u64("Counter4"), u64("Counter5"), u64("Counter6"),
				u64("Counter7"), u64("Counter8"), u64("Counter9"), u64("Counter10"), u64("Counter11"))},
			class{name: "Registry_Config", group: g, version: 2, opcodes: []uint8{35}, fields: fields(
				u32("CurrentControlSet"))},
			class{name: "Registry_HiveInitialize", group: g, version: 2, opcodes: []uint8{36}, fields: fields(
				ptr("Hive"), u32("OperationType"), u32("PoolTag"), u32("Size"), wstr("FileName"))},
			class{name: "Registry_HiveDestroy", group: g, version: 2, opcodes: []uint8{37}, fields: fields(
				ptr("Hive"), wstr("FileName"), wstr("Path"))},
			class{name: "Registry_HiveLink", group: g, version: 2, opcodes: []uint8{38}, fields: fields(
				ptr("Hive"), wstr("Path"))},
			class{name: "Registry_HiveRundown", group: g, version: 2, opcodes: []uint8{39}, fields: fields(
				u64("Size"), ptr("Hive"), u32("LoadedKeyCount"), wstr("FileName"), wstr("LinkPath"))},
			class{name: "Registry_HiveDirty", group: g, version: 2, opcodes: []uint8{40}, fields: fields(
				ptr("Hive"), wstr("LinkPath"), u32("DirtyReason"))},
			class{name: "Registry_ChangeNotification", group: g, version: 2, opcodes: []uint8{48}, fields: fields(
				ptr("Notification"), ptr("KeyHandle"), u8("Type"), u8("WatchSubtree"), u8("Primary"))},
		)
	})
}
