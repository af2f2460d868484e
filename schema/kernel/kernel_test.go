package kernel_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/kernel"
)

// TestProcessDCStartSample decodes the second Process/DCStart of the merged
// .NET sample, which TraceEvent prints as
// ProcessID=4; ParentID=0; ImageFileName=System; PageDirectoryBase=0x00187000;
// Flags=Protected; SessionID=-1; ExitStatus=259; UniqueProcessKey=0xfffffa830007e4c0.
func TestProcessDCStartSample(t *testing.T) {
	f, err := etl.Open(samples.Path(t, "net452-x64-merged-compressed.etl"))
	require.NoError(t, err)
	defer f.Close()
	var vals []payload.Value
	n := 0
	for r, err := range f.Events() {
		require.NoError(t, err)
		e, exact, ok := kernel.LookupRecord(r)
		if !ok || e.Name != "Process/DCStart" {
			continue
		}
		if n++; n < 2 {
			continue
		}
		assert.True(t, exact)
		vals, err = e.Payload.Decode(r.UserData, r.PointerSize(), vals[:0])
		require.NoError(t, err)
		assert.Equal(t, `UniqueProcessKey=0xFFFFFA830007E4C0 ProcessID=4 ParentID=0 SessionID=-1 ExitStatus=259 `+
			`PageDirectoryBase=0x187000 Flags=Protected UserSID=S-1-5-18 ImageFileName=System CommandLine= PackageFullName= ApplicationID=`,
			string(payload.AppendTextFields(nil, vals, " ")))
		return
	}
	t.Fatal("no second Process/DCStart")
}

// TestLookupVersions: a record's version picks the class; a version no
// class has falls back to the highest lower one, marked inexact; the
// Process group's type 10 is Image/Load.
func TestLookupVersions(t *testing.T) {
	for _, c := range []struct {
		group, opcode uint8
		version       uint16
		schema        string
		exact         bool
	}{
		{0x03, 10, 3, "Image_Load", true},
		{0x14, 10, 2, "Image_Load_V2", true},
		{0x03, 10, 0, "Image_V0_Load", true},
		{0x05, 36, 5, "CSwitch_V4", false}, // Windows 11 24H2 logs CSwitch v5
		{0x05, 2, 1, "Thread_V1_TypeGroup2", true},
		{0x05, 1, 3, "Thread_V3_TypeGroup1", true},
		{0x02, 32, 3, "PageFault_HardFault", false},
		{0x02, 100, 3, "PageFault_HeapRangeRundown_V3", true},
		{0x02, 100, 4, "PageFault_HeapRangeRundown_V4", true},
		{0x0F, 73, 3, "SampledProfileInterval_V3", true},
		{0x0F, 46, 1, "SampledProfile_V1", true},
		{0x0F, 68, 0, "DPC", false}, // below every class: the highest
		{0x18, 32, 2, "StackWalk_Event", true},
		{0x03, 39, 5, "Process_Defunct_TypeGroup1", true},
	} {
		e, exact, ok := kernel.Lookup(c.group, c.opcode, c.version)
		require.True(t, ok, "%#x/%d v%d", c.group, c.opcode, c.version)
		require.NotNil(t, e.Payload, "%#x/%d v%d", c.group, c.opcode, c.version)
		assert.Equal(t, c.schema, e.Payload.Name, "%#x/%d v%d", c.group, c.opcode, c.version)
		assert.Equal(t, c.exact, exact, "%#x/%d v%d", c.group, c.opcode, c.version)
	}
	e, _, ok := kernel.Lookup(0x14, 33, 2)
	require.True(t, ok)
	assert.Equal(t, "MSNT_SystemTrace/Image/KernelBase", e.FullName())
	e, _, ok = kernel.Lookup(0x0F, 200, 2)
	assert.False(t, ok, "an opcode with neither a class nor a name")
	assert.Nil(t, e)
	_, _, ok = kernel.Lookup(0x40, 1, 2)
	assert.False(t, ok, "a group past the five bits of a HookId")
}

// TestClassicEvents: KernelTraceControl and Lost_Event records are found by
// class GUID and opcode.
func TestClassicEvents(t *testing.T) {
	for _, c := range []struct {
		class  uuid.UUID
		opcode uint8
		name   string
		layout bool
	}{
		{kernel.ImageIDTask, kernel.OpcodeImageID, "KernelTraceControl/ImageID", true},
		{kernel.ImageIDTask, kernel.OpcodeDbgIDRSDS, "KernelTraceControl/ImageID/DbgID_RSDS", true},
		{kernel.ImageIDTask, kernel.OpcodeFileVersion, "KernelTraceControl/ImageID/FileVersion", true},
		{kernel.MetaDataTask, kernel.OpcodeEventInfo, "KernelTraceControl/MetaData/EventInfo", false},
		{kernel.WinSatTask, 35, "KernelTraceControl/WinSat/Metrics", true},
		{kernel.LostEventClass, 32, "MSNT_SystemTrace/Lost_Event/RTLostEvent", true},
	} {
		r := &record.Record{HeaderType: header.TypeFull64, ProviderId: c.class, EventDescriptor: header.EventDescriptor{Opcode: c.opcode}}
		e, exact, ok := kernel.LookupRecord(r)
		require.True(t, ok, c.name)
		assert.True(t, exact, c.name)
		assert.Equal(t, c.name, e.FullName())
		assert.Equal(t, c.layout, e.Payload != nil, c.name)
	}
	// Opcodes the class does not name (34, 39 and 41 turn up in merged
	// traces) are the class's, by number, with no layout.
	for _, op := range []uint8{34, 39, 41, 99} {
		r := &record.Record{HeaderType: header.TypeFull64, ProviderId: kernel.ImageIDTask, EventDescriptor: header.EventDescriptor{Opcode: op}}
		e, _, ok := kernel.LookupRecord(r)
		require.True(t, ok, op)
		assert.Equal(t, fmt.Sprintf("KernelTraceControl/ImageID/Opcode(%d)", op), e.FullName())
		assert.Nil(t, e.Payload)
		again, _, _ := kernel.LookupRecord(r)
		assert.Same(t, e, again, "made once")
	}
	r := &record.Record{HeaderType: header.TypeFull64, ProviderId: uuid.MustParse("11111111-2222-3333-4444-555555555555"),
		EventDescriptor: header.EventDescriptor{Opcode: 34}}
	_, _, ok := kernel.LookupRecord(r)
	assert.False(t, ok, "a class no table knows")
}
