package tdh_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/tdh"
)

var (
	fileProvider = uuid.MustParse("edd08927-9cc4-4e65-b970-c2560fb5c289")
	classGUID    = uuid.MustParse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c")
)

// createInfo is Microsoft-Windows-Kernel-File's Create event, trimmed, with
// a struct, a count, a length and a map added to cover them.
func createInfo() etltest.EventInfo {
	return etltest.EventInfo{
		Provider:       fileProvider,
		Descriptor:     header.EventDescriptor{Id: 12, Version: 1, Channel: 16, Level: 4, Task: 12, Keyword: 0x80000000000000a0},
		DecodingSource: uint32(tdh.SourceXMLFile), ProviderName: "Microsoft-Windows-Kernel-File",
		Level: "win:Informational", Channel: "Microsoft-Windows-Kernel-File/Analytic",
		Keywords: []string{"KERNEL_FILE_KEYWORD_FILEIO", "KERNEL_FILE_KEYWORD_CREATE"},
		Task:     "Create", Opcode: "win:Info", Message: "File %7 opened. ", ProviderMessage: "Kernel File ",
		Flags: uint32(tdh.TemplateEventData), TopLevel: 7,
		Properties: []etltest.PropertyInfo{
			{Name: "Irp", InType: 16, OutType: 19, Count: 1, Length: 4},
			{Name: "ShareAccess", InType: 8, OutType: 8, MapName: "ShareMap", Count: 1, Length: 4},
			{Name: "NameLength", InType: 6, OutType: 6, Count: 1, Length: 2},
			{Name: "FileName", Flags: uint32(tdh.PropertyParamLength), InType: 1, OutType: 1, Count: 1, Length: 2},
			{Name: "Count", InType: 8, OutType: 8, Count: 1, Length: 4},
			{Name: "Extents", Flags: uint32(tdh.PropertyStruct | tdh.PropertyParamCount), InType: 7, OutType: 2, Count: 4},
			{Name: "Tag", Flags: uint32(tdh.PropertyParamFixedLength | tdh.PropertyHasTags), InType: 2, OutType: 1, Count: 1, Length: 4, Tags: 0xF0000005},
			// Members of Extents.
			{Name: "Offset", InType: 10, OutType: 10, Count: 1, Length: 8},
			{Name: "Length", InType: 8, OutType: 8, Count: 1, Length: 4},
		},
	}
}

func TestParseEventInfo(t *testing.T) {
	ei, err := tdh.ParseEventInfo(eventInfoBlob(createInfo()))
	require.NoError(t, err)
	assert.Equal(t, fileProvider, ei.ProviderGUID)
	assert.Equal(t, uuid.Nil, ei.EventGUID)
	assert.Equal(t, header.EventDescriptor{Id: 12, Version: 1, Channel: 16, Level: 4, Task: 12, Keyword: 0x80000000000000a0}, ei.Descriptor)
	assert.Equal(t, tdh.SourceXMLFile, ei.DecodingSource)
	assert.Equal(t, "Microsoft-Windows-Kernel-File", ei.ProviderName)
	assert.Equal(t, "win:Informational", ei.LevelName)
	assert.Equal(t, "Microsoft-Windows-Kernel-File/Analytic", ei.ChannelName)
	assert.Equal(t, []string{"KERNEL_FILE_KEYWORD_FILEIO", "KERNEL_FILE_KEYWORD_CREATE"}, ei.Keywords)
	assert.Equal(t, "Create", ei.TaskName)
	assert.Equal(t, "win:Info", ei.OpcodeName)
	assert.Equal(t, "File %7 opened. ", ei.EventMessage)
	assert.Equal(t, "Kernel File ", ei.ProviderMessage)
	assert.Equal(t, 7, ei.TopLevel)
	require.Len(t, ei.Properties, 9)
	assert.Equal(t, tdh.PropertyInfo{Name: "ShareAccess", InType: payload.InUInt32, OutType: payload.OutUnsignedInt,
		MapName: "ShareMap", Count: 1, Length: 4}, ei.Properties[1])
	assert.Equal(t, tdh.PropertyInfo{Flags: tdh.PropertyStruct | tdh.PropertyParamCount, Name: "Extents",
		StructStart: 7, StructMembers: 2, Count: 4}, ei.Properties[5])
	// Only the low 28 bits are tags.
	assert.Equal(t, uint32(0x5), ei.Properties[6].Tags)
}

func TestEventFields(t *testing.T) {
	ei, err := tdh.ParseEventInfo(eventInfoBlob(createInfo()))
	require.NoError(t, err)
	share := &payload.Map{Name: "ShareMap"}
	var asked []string
	e, err := ei.Event(func(name string) *payload.Map { asked = append(asked, name); return share })
	require.NoError(t, err)
	assert.Equal(t, []string{"ShareMap"}, asked)
	assert.Equal(t, "Microsoft-Windows-Kernel-File", e.Provider)
	assert.Equal(t, "Create", e.Name, "opcode Info adds nothing to the task name")
	assert.Equal(t, "File %7 opened.", e.Message, "the trailing space TDH adds is trimmed")
	assert.Equal(t, "win:Informational", e.Level)
	require.NotNil(t, e.Payload)
	want := []payload.Field{
		{Name: "Irp", InType: payload.InPointer, OutType: payload.OutHexInt64},
		{Name: "ShareAccess", InType: payload.InUInt32, OutType: payload.OutUnsignedInt, Map: share},
		{Name: "NameLength", InType: payload.InUInt16, OutType: payload.OutUnsignedShort},
		{Name: "FileName", InType: payload.InUnicodeString, OutType: payload.OutString, LengthField: "NameLength"},
		{Name: "Count", InType: payload.InUInt32, OutType: payload.OutUnsignedInt},
		{Name: "Extents", InType: payload.InStruct, Arity: payload.CountFromField, CountField: "Count", Members: []payload.Field{
			{Name: "Offset", InType: payload.InUInt64, OutType: payload.OutUnsignedLong},
			{Name: "Length", InType: payload.InUInt32, OutType: payload.OutUnsignedInt},
		}},
		{Name: "Tag", InType: payload.InAnsiString, OutType: payload.OutString, Length: 4, FixedLength: true, Tags: 5},
	}
	require.Len(t, e.Payload.Fields, len(want))
	for i := range want {
		assert.Equal(t, want[i].String(), e.Payload.Fields[i].String(), "field %d", i)
		assert.Equal(t, want[i].LengthField, e.Payload.Fields[i].LengthField)
		assert.Equal(t, want[i].Length, e.Payload.Fields[i].Length)
		assert.Equal(t, want[i].FixedLength, e.Payload.Fields[i].FixedLength)
		assert.Equal(t, want[i].Tags, e.Payload.Fields[i].Tags)
		assert.Same(t, want[i].Map, e.Payload.Fields[i].Map)
		assert.Len(t, e.Payload.Fields[i].Members, len(want[i].Members))
	}

	// The map is filled after the schema was made, as when its
	// EventMapInfo comes after the EventInfo: values pick it up.
	*share = *payload.NewMap("ShareMap", true, []payload.MapEntry{{Value: 1, Name: "Read "}, {Value: 4, Name: "Delete "}})
	le := binary.LittleEndian
	p := le.AppendUint64(nil, 0xFFFFFA830393A3E8)
	p = le.AppendUint32(p, 5)
	p = le.AppendUint16(p, 2)
	p = append(p, 'a', 0, 'b', 0)
	p = le.AppendUint32(p, 2)
	p = le.AppendUint64(p, 10)
	p = le.AppendUint32(p, 20)
	p = le.AppendUint64(p, 30)
	p = le.AppendUint32(p, 40)
	p = append(p, 'x', 'y', 0, 0)
	vals, err := e.Payload.Decode(p, 8, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"Irp":"0xFFFFFA830393A3E8","ShareAccess":5,"ShareAccessName":"Read, Delete","NameLength":2,"FileName":"ab","Count":2,"Extents":[{"Offset":10,"Length":20},{"Offset":30,"Length":40}],"Tag":"xy"}`,
		string(payload.AppendJSONObject(nil, vals)))
}

func TestArityAndLength(t *testing.T) {
	for _, c := range []struct {
		name string
		p    etltest.PropertyInfo
		want payload.Field
	}{
		{"scalar", etltest.PropertyInfo{Name: "A", InType: 8, Count: 1, Length: 4}, payload.Field{Name: "A", InType: payload.InUInt32}},
		{"count 0 without the fixed-count flag is a scalar", etltest.PropertyInfo{Name: "A", InType: 8, Count: 0, Length: 4},
			payload.Field{Name: "A", InType: payload.InUInt32}},
		{"fixed count", etltest.PropertyInfo{Name: "A", InType: 16, OutType: 19, Count: 2, Length: 4},
			payload.Field{Name: "A", InType: payload.InPointer, OutType: payload.OutHexInt64, Arity: payload.FixedCount, Count: 2}},
		{"one-element array", etltest.PropertyInfo{Name: "A", Flags: uint32(tdh.PropertyParamFixedCount), InType: 8, Count: 1},
			payload.Field{Name: "A", InType: payload.InUInt32, Arity: payload.FixedCount, Count: 1}},
		{"fixed length 0", etltest.PropertyInfo{Name: "A", Flags: uint32(tdh.PropertyParamFixedLength), InType: 1, Count: 1},
			payload.Field{Name: "A", InType: payload.InUnicodeString, FixedLength: true}},
		{"fixed length", etltest.PropertyInfo{Name: "A", InType: 14, Count: 1, Length: 6},
			payload.Field{Name: "A", InType: payload.InBinary, Length: 6}},
		{"custom schema", etltest.PropertyInfo{Name: "A", Flags: uint32(tdh.PropertyHasCustomSchema), InType: 14, Count: 1, CustomProtocol: 5, Custom: []byte{1, 2, 3}},
			payload.Field{Name: "A", InType: payload.InBinary, Arity: payload.Custom, CustomSchema: []byte{1, 2, 3}}},
	} {
		in := etltest.EventInfo{Properties: []etltest.PropertyInfo{c.p}, TopLevel: -1}
		ei, err := tdh.ParseEventInfo(eventInfoBlob(in))
		require.NoError(t, err, c.name)
		fs, err := ei.Fields(nil)
		require.NoError(t, err, c.name)
		require.Len(t, fs, 1, c.name)
		assert.Equal(t, c.want, fs[0], c.name)
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		in   etltest.EventInfo
		want string
	}{
		{etltest.EventInfo{Task: "ETW_TASK_PROVIDER", Opcode: "ETW_OPCODE_REGISTER", Descriptor: header.EventDescriptor{Opcode: 16}},
			"ETW_TASK_PROVIDER/ETW_OPCODE_REGISTER"},
		{etltest.EventInfo{Task: "ProcessStart", Opcode: "win:Start", Descriptor: header.EventDescriptor{Opcode: 1}}, "ProcessStart/Start"},
		{etltest.EventInfo{Task: "TaskStarted", Descriptor: header.EventDescriptor{Id: 8}}, "TaskStarted"},
		{etltest.EventInfo{EventName: "MyEvent", Opcode: "win:Stop", Descriptor: header.EventDescriptor{Opcode: 2}}, "MyEvent/Stop"},
		{etltest.EventInfo{Opcode: "win:Stop", Descriptor: header.EventDescriptor{Id: 7, Opcode: 2}}, "EventID(7)/Stop"},
		{etltest.EventInfo{DecodingSource: uint32(tdh.SourceWbem), Descriptor: header.EventDescriptor{Opcode: 9}}, "Opcode(9)"},
		{etltest.EventInfo{DecodingSource: uint32(tdh.SourceWbem), Task: "FileIo", Opcode: "Create", Descriptor: header.EventDescriptor{Opcode: 64}}, "FileIo/Create"},
	} {
		c.in.TopLevel = -1
		ei, err := tdh.ParseEventInfo(eventInfoBlob(c.in))
		require.NoError(t, err)
		assert.Equal(t, c.want, ei.Name())
	}
}

func TestKeys(t *testing.T) {
	d := header.EventDescriptor{Id: 12, Version: 3, Opcode: 64}
	for _, c := range []struct {
		in   etltest.EventInfo
		want schema.Key
		ok   bool
	}{
		{etltest.EventInfo{Provider: fileProvider, Descriptor: d, DecodingSource: uint32(tdh.SourceXMLFile)}, schema.Key{Provider: fileProvider, ID: 12, Version: 3}, true},
		{etltest.EventInfo{Provider: fileProvider, Descriptor: d, DecodingSource: uint32(tdh.SourceTraceLogging)}, schema.Key{Provider: fileProvider, ID: 12, Version: 3}, true},
		{etltest.EventInfo{Provider: fileProvider, EventGUID: classGUID, Descriptor: d, DecodingSource: uint32(tdh.SourceWbem)},
			schema.Key{Provider: classGUID, ID: 64, Version: 3, Classic: true}, true},
		{etltest.EventInfo{Provider: classGUID, Descriptor: d, DecodingSource: uint32(tdh.SourceWbem)}, schema.Key{Provider: classGUID, ID: 64, Version: 3, Classic: true}, true},
		{etltest.EventInfo{Provider: fileProvider, Descriptor: d, DecodingSource: uint32(tdh.SourceWPP)}, schema.Key{}, false},
	} {
		c.in.TopLevel = -1
		ei, err := tdh.ParseEventInfo(eventInfoBlob(c.in))
		require.NoError(t, err)
		k, ok := ei.Key()
		assert.Equal(t, c.ok, ok)
		assert.Equal(t, c.want, k)
	}
}

func TestWbemNames(t *testing.T) {
	in := etltest.EventInfo{DecodingSource: uint32(tdh.SourceWbem), EventName: "ActivityId", TopLevel: -1}
	ei, err := tdh.ParseEventInfo(eventInfoBlob(in))
	require.NoError(t, err)
	assert.Equal(t, "", ei.EventName)
	assert.Equal(t, "ActivityId", ei.ActivityIDName)
}

// formatError asserts that err is a *tdh.FormatError at off that matches
// buffer.ErrMalformed.
func formatError(t *testing.T, err error, off int, what string) {
	t.Helper()
	var fe *tdh.FormatError
	require.True(t, errors.As(err, &fe), "%s: %v", what, err)
	assert.ErrorIs(t, err, buffer.ErrMalformed, what)
	assert.Equal(t, off, fe.Offset, "%s: %v", what, err)
}

func TestEventInfoErrors(t *testing.T) {
	good := eventInfoBlob(createInfo())
	le := binary.LittleEndian
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	prop := func(i int) int { return tdh.EventInfoSize + i*tdh.PropertyInfoSize }
	for _, c := range []struct {
		name string
		b    []byte
		off  int
	}{
		{"short", good[:tdh.EventInfoSize-1], 0},
		{"property count", mutate(func(b []byte) []byte { le.PutUint32(b[0x64:], 0x0AAAAAAA); return b }), 0x64},
		{"top-level count", mutate(func(b []byte) []byte { le.PutUint32(b[0x68:], 10); return b }), 0x68},
		{"string past the end", mutate(func(b []byte) []byte { le.PutUint32(b[0x34:], uint32(len(b))); return b }), 0x34},
		{"string without NUL", mutate(func(b []byte) []byte {
			le.PutUint32(b[0x44:], uint32(len(b)-2))
			b[len(b)-2], b[len(b)-1] = 'x', 0
			return b
		}), 0x44},
		{"keyword list past the end", mutate(func(b []byte) []byte { le.PutUint32(b[0x40:], 0xFFFFFFF0); return b }), 0x40},
		{"property name", mutate(func(b []byte) []byte { le.PutUint32(b[prop(2)+4:], 0x7FFFFFFF); return b }), prop(2) + 4},
		{"map name", mutate(func(b []byte) []byte { le.PutUint32(b[prop(1)+0xC:], uint32(len(b)+8)); return b }), prop(1) + 0xC},
		{"custom schema", mutate(func(b []byte) []byte {
			le.PutUint32(b[prop(0):], uint32(tdh.PropertyHasCustomSchema))
			le.PutUint32(b[prop(0)+0xC:], uint32(len(b)-2))
			return b
		}), prop(0) + 0xC},
		{"custom schema length", mutate(func(b []byte) []byte {
			le.PutUint32(b[prop(0):], uint32(tdh.PropertyHasCustomSchema))
			le.PutUint32(b[prop(0)+0xC:], uint32(len(b)-4))
			le.PutUint16(b[len(b)-2:], 3)
			return b
		}), prop(0) + 0xC},
	} {
		_, err := tdh.ParseEventInfo(c.b)
		formatError(t, err, c.off, c.name)
	}
}

func TestFieldErrors(t *testing.T) {
	base := createInfo()
	for _, c := range []struct {
		name   string
		change func(in *etltest.EventInfo)
		off    int
	}{
		{"struct members out of range", func(in *etltest.EventInfo) { in.Properties[5].InType = 8 }, tdh.EventInfoSize + 5*tdh.PropertyInfoSize + 8},
		{"struct without members", func(in *etltest.EventInfo) { in.Properties[5].OutType = 0 }, tdh.EventInfoSize + 5*tdh.PropertyInfoSize + 0xA},
		{"count from a property that does not exist", func(in *etltest.EventInfo) { in.Properties[5].Count = 40 }, tdh.EventInfoSize + 5*tdh.PropertyInfoSize + 0x10},
		{"length from itself", func(in *etltest.EventInfo) { in.Properties[3].Length = 3 }, tdh.EventInfoSize + 3*tdh.PropertyInfoSize + 0x12},
		{"unknown in-type", func(in *etltest.EventInfo) { in.Properties[0].InType = 99 }, tdh.EventInfoSize + 8},
		{"struct in-type without the struct flag", func(in *etltest.EventInfo) { in.Properties[0].InType = 24 }, tdh.EventInfoSize + 8},
		{"struct that contains itself", func(in *etltest.EventInfo) { in.Properties[5].InType = 5; in.Properties[5].OutType = 1 }, tdh.EventInfoSize + 5*tdh.PropertyInfoSize},
	} {
		in := createInfo()
		in.Properties = append([]etltest.PropertyInfo(nil), base.Properties...)
		c.change(&in)
		ei, err := tdh.ParseEventInfo(eventInfoBlob(in))
		require.NoError(t, err, c.name)
		e, err := ei.Event(nil)
		formatError(t, err, c.off, c.name)
		assert.Equal(t, "Create", e.Name, "%s: names survive", c.name)
		assert.Nil(t, e.Payload, c.name)
	}

	// A reference payload.NewSchema refuses: a count from a string.
	in := createInfo()
	in.Properties = append([]etltest.PropertyInfo(nil), base.Properties...)
	in.Properties[5].Count = 3
	ei, err := tdh.ParseEventInfo(eventInfoBlob(in))
	require.NoError(t, err)
	_, err = ei.Event(nil)
	assert.ErrorIs(t, err, payload.ErrSchema)
}

func TestMapInfo(t *testing.T) {
	p := fileProvider
	b := mapInfoBlob(&p, "ShareMap", tdh.MapManifestBitMap, tdh.MapValueULong, "", []mapEntry{
		{Value: 1, Output: "Read "}, {Value: 2, Output: "Write "}, {Value: 4, Output: "Delete "}})
	g, mi, err := tdh.ParseEventMapInfo(b)
	require.NoError(t, err)
	assert.Equal(t, fileProvider, g)
	assert.Equal(t, "ShareMap", mi.Name)
	assert.True(t, mi.Bits())
	assert.Equal(t, []tdh.MapEntry{{Value: 1, Output: "Read "}, {Value: 2, Output: "Write "}, {Value: 4, Output: "Delete "}}, mi.Entries)
	m, ok := mi.Map()
	require.True(t, ok)
	assert.Equal(t, payload.NewMap("ShareMap", true, []payload.MapEntry{{Value: 1, Name: "Read"}, {Value: 2, Name: "Write"}, {Value: 4, Name: "Delete"}}), m)
	name, ok := m.AppendName(nil, 5)
	assert.True(t, ok)
	assert.Equal(t, "Read, Delete", string(name))

	// Value maps.
	mi, err = tdh.ParseMapInfo(mapInfoBlob(nil, "Kind", tdh.MapManifestValueMap, tdh.MapValueULong, "", []mapEntry{{Value: 1, Output: "Large "}}))
	require.NoError(t, err)
	assert.False(t, mi.Bits())
	m, ok = mi.Map()
	require.True(t, ok)
	assert.False(t, m.Bits)

	// String and pattern maps name strings, not numbers.
	mi, err = tdh.ParseMapInfo(mapInfoBlob(nil, "S", tdh.MapWBEMValueMap, tdh.MapValueString, "", []mapEntry{{Input: "a", Output: "A"}}))
	require.NoError(t, err)
	assert.Equal(t, []tdh.MapEntry{{Input: "a", Output: "A"}}, mi.Entries)
	_, ok = mi.Map()
	assert.False(t, ok)
	mi, err = tdh.ParseMapInfo(mapInfoBlob(nil, "P", tdh.MapManifestPatternMap, 0, "%1!s!", []mapEntry{{Input: "x", Output: "y"}}))
	require.NoError(t, err)
	assert.Equal(t, "%1!s!", mi.Format)
	_, ok = mi.Map()
	assert.False(t, ok)
}

func TestMapInfoErrors(t *testing.T) {
	p := fileProvider
	good := mapInfoBlob(&p, "M", tdh.MapManifestValueMap, 0, "", []mapEntry{{Value: 1, Output: "One"}})
	le := binary.LittleEndian
	mutate := func(f func(b []byte)) []byte { b := append([]byte(nil), good...); f(b); return b }
	for _, c := range []struct {
		name string
		b    []byte
		off  int
	}{
		{"no provider", good[:15], 0},
		{"short", good[:16+tdh.MapInfoSize-1], 16},
		{"name", mutate(func(b []byte) { le.PutUint32(b[16:], 0xFFFF) }), 16},
		{"entry count", mutate(func(b []byte) { le.PutUint32(b[16+8:], 0x10000000) }), 16 + 8},
		{"entry output", mutate(func(b []byte) { le.PutUint32(b[16+16:], uint32(len(b))) }), 16 + 16},
	} {
		_, _, err := tdh.ParseEventMapInfo(c.b)
		formatError(t, err, c.off, c.name)
	}
}
