package kernel_test

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/kernel"
)

func TestKernelEventNames(t *testing.T) {
	type kernelEvent struct {
		group, opcode uint8
		want          string
	}
	named := []kernelEvent{
		{0x00, 0x00, "EventTrace"},
		{0x00, 0x05, "EventTrace/Extension"},
		{0x00, 0x08, "EventTrace/RundownComplete"},
		{0x00, 0x20, "EventTrace/EndExtension"},
		{0x00, 0x40, "EventTrace/DbgIdRSDS"},
		{0x00, 0x42, "EventTrace/BuildLab"},
		{0x00, 0x50, "EventTrace/PartitionInfoExtension"},
		{0x01, 10, "DiskIO/Read"},
		{0x01, 13, "DiskIO/WriteInit"},
		{0x02, 32, "Memory/HardFault"},
		{0x03, 1, "Process/Start"},
		{0x03, 2, "Process/Stop"},
		{0x03, 3, "Process/DCStart"},
		{0x03, 4, "Process/DCStop"},
		{0x03, 10, "Image/Load"},
		{0x03, 39, "Process/Defunct"},
		{0x04, 64, "FileIO/Create"},
		{0x05, 1, "Thread/Start"},
		{0x05, 36, "Thread/CSwitch"},
		{0x05, 72, "Thread/SetName"},
		{0x06, 27, "TcpIp/RecvIPV6"},
		{0x08, 11, "UdpIp/Recv"},
		{0x09, 14, "Registry/SetValue"},
		{0x0B, 10, "SystemConfig/CPU"},
		{0x0B, 23, "SystemConfig/IDEChannel"},
		{0x0B, 25, "SystemConfig/Platform"},
		{0x0F, 46, "PerfInfo/Sample"},
		{0x0F, 73, "PerfInfo/CollectionStart"},
		{0x14, 3, "Image/DCStart"},
		{0x14, 4, "Image/DCStop"},
		{0x14, 10, "Image/Load"},
		{0x18, 32, "StackWalk/Stack"},
		{0x18, 38, "StackWalk/StackKeyUser"},
	}
	// Opcodes without a name, and the fallback text.
	unnamed := []kernelEvent{
		{0x0B, 38, "SystemConfig/Opcode(38)"},
		{0x03, 200, "Process/Opcode(200)"},
		{0x1A, 38, "ALPC/Opcode(38)"},
		{0x2F, 1, "Group(0x2F)/Opcode(1)"},
		{0xFF, 255, "Group(0xFF)/Opcode(255)"},
	}
	for _, c := range named {
		assert.Equal(t, c.want, kernel.EventName(c.group, c.opcode), "%#x/%d", c.group, c.opcode)
		assert.Equal(t, c.want, string(kernel.AppendEventName(nil, c.group, c.opcode)))
	}
	for _, c := range unnamed {
		assert.Equal(t, "", kernel.EventName(c.group, c.opcode), "%#x/%d", c.group, c.opcode)
		assert.Equal(t, c.want, string(kernel.AppendEventName(nil, c.group, c.opcode)))
	}
	buf := make([]byte, 0, 64)
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		_ = kernel.EventName(0x05, 36)
		buf = kernel.AppendEventName(buf[:0], 0x2F, 200)
		buf = record.AppendLevelName(buf, 77)
		buf = record.AppendOpcodeName(buf, 77)
		buf = record.AppendClassicTypeName(buf, 77)
	}))
}

func TestKernelGroups(t *testing.T) {
	cases := []struct {
		group uint8
		name  string
		guid  string
	}{
		{0x00, "EventTrace", "68fdd900-4a3e-11d1-84f4-0000f80464e3"},
		{0x01, "DiskIO", "3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c"},
		{0x02, "Memory", "3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c"},
		{0x03, "Process", "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c"},
		{0x05, "Thread", "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c"},
		{0x0B, "SystemConfig", "01853a65-418f-4f36-aefc-dc0f1d2fd235"},
		{0x0F, "PerfInfo", "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc"},
		{0x14, "Image", "2cb15d1d-5fc1-11d2-abe1-00a0c911f518"},
		{0x18, "StackWalk", "def2fe46-7bd6-4b80-bd94-f57fe20d0ce3"},
		{0x1E, "HypervisorX", "2ce9a149-effe-42f0-a635-a1d39e26c8f2"},
	}
	for _, c := range cases {
		assert.Equal(t, c.name, kernel.GroupName(c.group))
		g := uuid.MustParse(c.guid)
		assert.Equal(t, g, record.KernelGroupGUID(c.group, 1))
		got, ok := record.KernelGroupByGUID(g)
		assert.True(t, ok)
		assert.Equal(t, c.group, got)
	}
	assert.Equal(t, uuid.MustParse("2cb15d1d-5fc1-11d2-abe1-00a0c911f518"), record.KernelGroupGUID(0x03, 10), "Process type 10 is Image/Load")
	assert.Equal(t, "", kernel.GroupName(0x1F))
	assert.Equal(t, uuid.Nil, record.KernelGroupGUID(0x1F, 0))
	_, ok := record.KernelGroupByGUID(uuid.Nil)
	assert.False(t, ok)
	_, ok = record.KernelGroupByGUID(uuid.MustParse("a61ea624-4944-55fc-c2a8-37838829438d"))
	assert.False(t, ok)
	for g := 0; g < 0x1F; g++ {
		assert.NotEmpty(t, kernel.GroupName(uint8(g)), "group %#x", g)
		assert.NotEqual(t, uuid.Nil, record.KernelGroupGUID(uint8(g), 0), "group %#x", g)
	}
}

func kernelRecord(t testing.TB, hook uint16, payload []byte) *record.Record {
	b := make([]byte, 0x10)
	binary.LittleEndian.PutUint16(b, 2)
	b[2], b[3] = byte(header.TypePerfInfo64), 0xC0
	binary.LittleEndian.PutUint16(b[6:], hook)
	b = append(b, payload...)
	binary.LittleEndian.PutUint16(b[4:], uint16(len(b)))
	p, end, err := header.ParsePrefix(b)
	require.NoError(t, err)
	require.False(t, end)
	var r record.Record
	require.NoError(t, record.Decode(&r, b, p, 0, &record.Context{}))
	return &r
}

// hexPayload decodes hex digits, with spaces between groups for reading.
func hexPayload(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	require.NoError(t, err)
	return b
}

func TestEventTraceFields(t *testing.T) {
	// Payloads as found in the shared samples: the Extension of
	// net452-x64-merged-compressed.etl and the BuildLab and DbgIdRSDS of
	// win11-waasmedic.etl.
	extension := hexPayload(t, "0f270100 02000000 00000000 00000000 00000000 00000000 00000000 00000000 2a000000")
	buildLab := append([]byte("22621.1.amd64fre.ni_release.220506-1250"), 0)
	rsds := append(hexPayload(t, "71938630d6f723ab8610af80c72ae579 01000000"), "WaaSMedicSvcImpl.pdb\x00"...)
	partition := make([]byte, 48)
	partitionV2 := append(hexPayload(t, "0200 0000 03000000 1000000000000000"), append(u16z("p1"), u16z("root")...)...)

	cases := []struct {
		hook uint16
		in   []byte
		want string
	}{
		{0x0005, extension, `{"GroupMask1":75535,"GroupMask2":2,"GroupMask3":0,"GroupMask4":0,` +
			`"GroupMask5":0,"GroupMask6":0,"GroupMask7":0,"GroupMask8":0,"KernelEventVersion":42}`},
		{0x0020, extension[:0x20], `{"GroupMask1":75535,"GroupMask2":2,"GroupMask3":0,"GroupMask4":0,` +
			`"GroupMask5":0,"GroupMask6":0,"GroupMask7":0,"GroupMask8":0}`},
		{0x0008, nil, `{}`},
		{0x0042, buildLab, `{"BuildLab":"22621.1.amd64fre.ni_release.220506-1250"}`},
		{0x0040, rsds, `{"GuidSig":"30869371-f7d6-ab23-8610-af80c72ae579","Age":1,"PdbFileName":"WaaSMedicSvcImpl.pdb"}`},
		{0x0050, partition, `{"EventVersion":0,"Reserved":0,"PartitionType":0,"QpcOffsetFromRoot":0,` +
			`"PartitionId":"00000000-0000-0000-0000-000000000000","ParentId":"00000000-0000-0000-0000-000000000000"}`},
		{0x0050, partitionV2, `{"EventVersion":2,"Reserved":0,"PartitionType":3,"QpcOffsetFromRoot":16,"PartitionId":"p1","ParentId":"root"}`},
	}
	var vals []payload.Value
	for _, c := range cases {
		r := kernelRecord(t, c.hook, c.in)
		vals = decodeRecord(t, r, vals)
		assert.Equal(t, c.want, string(payload.AppendJSONObject(nil, vals)), "hook %#04x", c.hook)
	}

	decode := func(hook uint16, p []byte) ([]payload.Value, error) {
		e, _, ok := kernel.LookupRecord(kernelRecord(t, hook, p))
		require.True(t, ok)
		return e.Payload.Decode(p, 8, nil)
	}
	vals, err := decode(0x05, extension)
	require.NoError(t, err)
	assert.Equal(t, uint64(0x1270F), vals[0].Uint())
	assert.Equal(t, "KernelEventVersion", vals[8].Name())
	assert.Equal(t, uint64(42), vals[8].Uint())
	r := kernelRecord(t, 0x0040, rsds)
	e, _, _ := kernel.LookupRecord(r)
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { vals, _ = e.Payload.Decode(rsds, 8, vals[:0]) }))

	// Payloads that do not fit.
	_, err = decode(0x05, extension[:10])
	assert.ErrorIs(t, err, buffer.ErrTruncated)
	assert.Contains(t, err.Error(), "GroupMask3")
	_, err = decode(0x42, []byte("no terminator"))
	assert.ErrorIs(t, err, buffer.ErrTruncated)
	vals, err = decode(0x08, []byte{1})
	assert.True(t, payload.IsTrailing(err))
	assert.Empty(t, vals)
}

func u16z(s string) []byte {
	var b []byte
	for _, c := range s {
		b = append(b, byte(c), 0)
	}
	return append(b, 0, 0)
}
