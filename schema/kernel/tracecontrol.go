package kernel

import "github.com/etlkit/etlkit/payload"

// KernelTraceControl's classic events, kernel-events.md §19: what xperf
// and PerfView add when they merge a trace, so that the images in it can
// be matched with their symbols elsewhere. Names are TraceEvent's:
// "ImageID" for opcode 0, "ImageID/<opcode>" for the others, and
// PDBFileName for the CodeView record's file name. Opcodes the notes do
// not name (34, 39 and 41 turn up in merged traces) show as
// ImageID/Opcode(N), with their bytes.

// KernelTraceControl opcodes of the ImageID task.
const (
	OpcodeImageID      = 0
	OpcodeNone         = 32
	OpcodeDbgIDRSDS    = 36
	OpcodeDbgIDILRSDS  = 37
	OpcodeDbgPPDB      = 38
	OpcodeDbgDeterm    = 40
	OpcodeFileVersion  = 64
	opcodeWinSPR       = 33
	opcodeWinSATMetric = 35
	opcodeWinSATConfig = 37
)

func init() {
	later(func() {
		// The CodeView (RSDS) record of an image; ILRSDS, the one of its IL
		// PDB, has the same layout in the samples (the name follows Age).
		rsds := func() []payload.Field {
			return fields(ptr("ImageBase"), u32("ProcessID"), guid("GuidSig"), u32("Age"), astr("PDBFileName"))
		}
		registerTraceControl(ImageIDTask, OpcodeImageID, "ImageID", fields(
			ptr("ImageBase"), size("ImageSize"), u32("ProcessID"), u32("TimeDateStamp"), wstr("OriginalFileName")),
			withBuildTime(3))
		// An image without debug information: the notes give no fields, the
		// samples hold its base and process, as DbgDeterm does (TraceEvent
		// shows none).
		registerTraceControl(ImageIDTask, OpcodeNone, "ImageID/None", fields(ptr("ImageBase"), u32("ProcessID")), nil)
		registerTraceControl(ImageIDTask, OpcodeDbgIDRSDS, "ImageID/DbgID_RSDS", rsds(), nil)
		registerTraceControl(ImageIDTask, OpcodeDbgIDILRSDS, "ImageID/DbgID_ILRSDS", rsds(), nil)
		registerTraceControl(ImageIDTask, OpcodeDbgPPDB, "ImageID/DbgPPDB", fields(
			ptr("ImageBase"), u32("ProcessID"), u32("TimeDateStamp"), u16("MajorVersion"), u16("MinorVersion")),
			withBuildTime(2))
		registerTraceControl(ImageIDTask, OpcodeDbgDeterm, "ImageID/DbgDeterm", fields(
			ptr("ImageBase"), u32("ProcessID")), nil)
		// The image's version resource; it names no image, and belongs to the
		// ImageID events with the same time stamp.
		registerTraceControl(ImageIDTask, OpcodeFileVersion, "ImageID/FileVersion", fields(
			u32("ImageSize"), u32("TimeDateStamp"), wstr("OrigFileName"), wstr("FileDescription"), wstr("FileVersion"),
			wstr("BinFileVersion"), wstr("VerLanguage"), wstr("ProductName"), wstr("CompanyName"),
			wstr("ProductVersion"), wstr("FileId"), wstr("ProgramId")),
			withBuildTime(1))

		// TDH metadata for the events of the trace; their payloads are read
		// where the trace's own schemas are learned, so only the names are
		// here.
		registerTraceControl(MetaDataTask, OpcodeEventInfo, "MetaData/EventInfo", nil, nil)
		registerTraceControl(MetaDataTask, OpcodeEventMapInfo, "MetaData/EventMapInfo", nil, nil)

		// WinSAT results: a state, the size of the XML document once
		// uncompressed, and the document, LZNT1-compressed, to the end.
		winsat := func() []payload.Field {
			return fields(u32("State"), u32("UncompressedLength"), toEnd(
				payload.Field{Name: "CompressedData", InType: payload.InUInt8, OutType: payload.OutHexBinary}))
		}
		registerTraceControl(WinSatTask, opcodeWinSPR, "WinSat/WinSPR", winsat(), nil)
		registerTraceControl(WinSatTask, opcodeWinSATMetric, "WinSat/Metrics", winsat(), nil)
		registerTraceControl(WinSatTask, opcodeWinSATConfig, "WinSat/SystemConfig", winsat(), nil)

		// Lost_Event (kernel-events.md §17): a real-time session's notice of
		// lost events, buffers or its backing file; no payload.
		for op, name := range map[uint8]string{32: "RTLostEvent", 33: "RTLostBuffer", 34: "RTLostFile"} {
			registerClassic(LostEventClass, SystemTraceName, op, "Lost_Event/"+name, noFields, nil)
		}
	})
}
