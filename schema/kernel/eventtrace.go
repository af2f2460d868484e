package kernel

import (
	"encoding/binary"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// EventTrace group (0x00), kernel-events.md §3: the events that describe
// the trace itself.

// utcOffset appends UtcOffsetMinutes, as TraceEvent shows it beside the
// header's fields: the time zone's bias (UTC = local time + bias), without
// the daylight bias.
func utcOffset(_ *record.Record, vals []payload.Value) []payload.Value {
	v, ok := valueAt(vals, headerTimeZoneBias, "TimeZoneBias")
	if !ok {
		return vals
	}
	return append(vals, payload.NewInt(utcOffsetMinutesField, v.Int()))
}

// headerTimeZoneBias is the index of TimeZoneBias in the header's fields.
const headerTimeZoneBias = 15

// systemTime is a SYSTEMTIME; the standard and daylight dates of the
// header's time zone hold yearly rules, which payload renders as such.
func systemTime(name string) payload.Field {
	return payload.Field{Name: name, InType: payload.InSystemTime}
}

func init() {
	later(func() {
		const g = record.GroupEventTrace
		// PartitionInfoExtension's own EventVersion, its first field, says
		// whether the partition ids are GUIDs (below 2) or strings; real
		// files log the GUID form with a header version of 2.
		payloadVersions[[2]uint8{g, 80}] = func(p []byte, v uint16) uint16 {
			if len(p) >= 2 && binary.LittleEndian.Uint16(p) >= 2 {
				return 2
			}
			return 0
		}
		// TRACE_LOGFILE_HEADER, then the session and log-file names. The two
		// pointer-sized fields were string pointers before Windows 7 and are
		// clock sources since; the 4-byte pad keeps BootTime 8-byte aligned.
		header := fields(
			u32("BufferSize"), hex(u32("Version")), u32("ProviderVersion"), u32("NumberOfProcessors"),
			payload.Field{Name: "EndTime", InType: payload.InFileTime},
			u32("TimerResolution"), u32("MaxFileSize"), hex(u32("LogFileMode")), u32("BuffersWritten"),
			u32("StartBuffers"), u32("PointerSize"), u32("EventsLost"), u32("CPUSpeed"),
			ptr("LoggerName"), ptr("LogFileNamePointer"),
			i32("TimeZoneBias"), wchars("StandardName", 32), systemTime("StandardDate"), i32("StandardBias"),
			wchars("DaylightName", 32), systemTime("DaylightDate"), i32("DaylightBias"), u32("Padding"),
			payload.Field{Name: "BootTime", InType: payload.InFileTime},
			i64("PerfFreq"),
			payload.Field{Name: "StartTime", InType: payload.InFileTime},
			u32("ReservedFlags"), u32("BuffersLost"),
			wstr("SessionName"), wstr("LogFileName"))
		masks := fields(
			u32("GroupMask1"), u32("GroupMask2"), u32("GroupMask3"), u32("GroupMask4"),
			u32("GroupMask5"), u32("GroupMask6"), u32("GroupMask7"), u32("GroupMask8"))
		for v := uint16(0); v <= 2; v++ {
			register(
				class{name: "EventTrace_Header", group: g, version: v, opcodes: []uint8{0}, fields: header, computed: utcOffset},
				// Before Vista the extension had no KernelEventVersion.
				class{name: "Header_Extension_TypeGroup", group: g, version: v, opcodes: []uint8{5, 32},
					fields: append(masks[:8:8], optional(u32("KernelEventVersion")))},
				class{name: "RDComplete", group: g, version: v, opcodes: []uint8{8}, fields: fields()},
			)
		}
		partition := func(id func(string) payload.Field) []payload.Field {
			return fields(u16("EventVersion"), u16("Reserved"), u32("PartitionType"), i64("QpcOffsetFromRoot"),
				id("PartitionId"), id("ParentId"))
		}
		register(
			class{name: "Header_DbgIdRSDS_TypeGroup", group: g, version: 2, opcodes: []uint8{64}, fields: fields(
				guid("GuidSig"), u32("Age"), astr("PdbFileName"))},
			class{name: "Header_BuildInfo_TypeGroup", group: g, version: 2, opcodes: []uint8{66}, fields: fields(
				astr("BuildLab"))},
			class{name: "Header_ProviderBinaryPath_TypeGroup", group: g, version: 2, opcodes: []uint8{67}, fields: fields(
				u32("GuidCount"), counted(guid("Guid"), "GuidCount"), wstr("BinaryPath"))},
			class{name: "Header_PartitionInfoExtension_TypeGroup", group: g, version: 0, opcodes: []uint8{80}, fields: partition(guid)},
			class{name: "Header_PartitionInfoExtensionV2_TypeGroup", group: g, version: 2, opcodes: []uint8{80}, fields: partition(wstr)},
			class{name: "Header_LastDroppedTimes_TypeGroup", group: g, version: 2, opcodes: []uint8{82}, fields: fields(
				u32("TimeStampCount"), u32("Padding"), counted(u64("TimeStamp"), "TimeStampCount"))},
		)
	})
}
