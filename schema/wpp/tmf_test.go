package wpp_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/schema/wpp"
)

// TestParseSampleTMFs reads every real TMF: none may cost a message, and
// the counts are those the folder's README gives (84 files, 2,454 distinct
// GUID and number pairs).
func TestParseSampleTMFs(t *testing.T) {
	dir := samples.TMFDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.tmf"))
	require.NoError(t, err)
	require.Len(t, files, 84)
	total := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		tf := wpp.ParseTMF(data, f)
		assert.Empty(t, tf.Warnings, f)
		require.NotEmpty(t, tf.Messages, f)
		// The GUID comes from the content; the samples are named by it.
		want := strings.TrimSuffix(filepath.Base(f), ".tmf")
		for _, m := range tf.Messages {
			assert.Equal(t, want, m.GUID.String(), m.Origin)
			assert.True(t, strings.HasPrefix(m.Format, "%0"), m.Origin)
			assert.NotEmpty(t, m.Func, m.Origin)
			assert.NotZero(t, m.LevelValue, m.Origin)
			for i, a := range m.Args {
				assert.Equal(t, 10+i, a.Insert, m.Origin)
				assert.NotEqual(t, wpp.ItemUnknown, a.Type, m.Origin)
			}
		}
		total += len(tf.Messages)
	}
	assert.Equal(t, 2454, total)
	set, err := wpp.Load(dir)
	require.NoError(t, err)
	assert.Empty(t, set.Warnings())
	assert.Equal(t, 2454, set.Len())
	assert.Equal(t, 84, set.Sources())

	// The worked example of the shared notes.
	m := set.Lookup(uuid.MustParse("324ed36d-6949-3aa1-d581-3e2dc9652ec2"), 13)
	require.NotNil(t, m)
	assert.Equal(t, "Queue_c174", m.Name)
	assert.Equal(t, "%0 [%!FUNC!]>> Bulk IN transfer (PipeHandle: %10!p!)", m.Format)
	assert.Equal(t, "BthPS3PSM", m.Module)
	assert.Equal(t, "Queue.c", m.Source)
	assert.Equal(t, "TRACE_LEVEL_VERBOSE", m.Level)
	assert.Equal(t, uint8(5), m.LevelValue)
	assert.Equal(t, "TRACE_QUEUE", m.Flags)
	assert.Equal(t, "BthPS3PSMEvtIoInternalDeviceControl", m.Func)
	assert.Equal(t, "BthPS3PSMEvtIoInternalDeviceControl", m.EventName())
	require.Len(t, m.Args, 1)
	assert.Equal(t, wpp.Arg{Name: "urb->UrbBulkOrInterruptTransfer.PipeHandle", Type: wpp.ItemPtr, TypeName: "ItemPtr", Insert: 10}, exported(m.Args[0]))

	// A message listed again for a funclet keeps its first function.
	m = set.Lookup(uuid.MustParse("be80de12-e54c-3cd4-5447-17602f7cac8e"), 19)
	require.NotNil(t, m)
	assert.Equal(t, "Pdo_DeviceWdmIrpPnPPowerPreprocess", m.Func)

	// An irql list, and an expression with commas and parentheses.
	m = set.Lookup(uuid.MustParse("1cd9540d-3b93-37c1-6f28-f268613fca07"), 14)
	require.NotNil(t, m)
	assert.Equal(t, "Bluetooth.Connection_c91", m.Name, "tracepdb keeps the inner dots")
	assert.Equal(t, []wpp.Arg{{Name: "KeGetCurrentIrql()", Type: wpp.ItemListByte, TypeName: "ItemListByte", Insert: 10,
		Labels: []wpp.Label{{"Low", 0}, {"APC", 1}, {"DPC", 2}}}}, exportedArgs(m.Args))
}

// exported is the part of an Arg that tests compare.
func exported(a wpp.Arg) wpp.Arg {
	return wpp.Arg{Name: a.Name, Type: a.Type, TypeName: a.TypeName, Labels: a.Labels, Enum: a.Enum, Insert: a.Insert}
}

const grammarTMF = "// PDB:  demo.pdb\r\n" +
	"// PDB:  Last Updated :2025-04-28:18:52:26:152 (UTC) [Tracepdb]\r\n" +
	"{AAAAAAAA-97D7-3776-3DAF-3296492866AA} demo // SRC=Some File.c MJ=Major MN=Minor\r\n" +
	"#typev  Some_File_c10 10 \"%0 say \"%10!s!\" now\" //   LEVEL=TRACE_LEVEL_WARNING FLAGS=TRACE_A FUNC=`F'::`1'::fin$0 x=y\r\n" +
	"{\r\n" +
	"*(PULONGLONG)&ctx->a, b, ItemLongLongXX -- 10\r\n" +
	"}\r\n" +
	"#typev Some_File_c20 11 \"%0 %10!s! %11!s!\" // LEVEL=5 FLAGS=TRACE_B\r\n" +
	"{\r\n" +
	"f(x, y), ItemListLong(Zero,One,Five=5,Six) -- 10\r\n" +
	"bits, ItemSetShort(A, B, C) // 11\r\n" +
	"}\r\n" +
	"#typev Some_File_c30 12 \"%0 no args\"\r\n" +
	"{\r\n" +
	"}\r\n" +
	"#typev Some_File_c40 13 \"%0 bad arg\" // LEVEL=TRACE_LEVEL_ERROR\r\n" +
	"{\r\n" +
	"this line has no type\r\n" +
	"}\r\n" +
	"#typev Some_File_c50 x14 \"%0 bad number\"\r\n" +
	"{\r\n" +
	"v, ItemLong -- 10\r\n" +
	"}\r\n" +
	"#typev Some_File_c60 15 \"%0 never closed\"\r\n" +
	"{\r\n" +
	"v, ItemLong -- 10\r\n" +
	"#typev Some_File_c70 16 \"%0 after\" // FLAGS=TRACE_C\r\n" +
	"{\r\n" +
	"e, ItemEnum(_MachineState) -- 10\r\n" +
	"}\r\n" +
	"#typev Some_File_c80 17 \"%0 shared insert\"\r\n" +
	"{\r\n" +
	"a, ItemLong -- 10\r\n" +
	"b, ItemLong -- 10\r\n" +
	"}\r\n" +
	"garbage here\r\n" +
	"#typev Some_File_c90 10 \"%0 a second message 10\"\r\n" +
	"{\r\n" +
	"}\r\n" +
	"#typev Some_File_c91 18 \"%0 DoTraceMessage\" // LEVEL=MY_FLAG\r\n" +
	"{\r\n" +
	"}\r\n"

// TestParseGrammar reads the forms of the grammar, and the lines that cost
// their message: each such message is reported with its file and line, and
// the others are kept.
func TestParseGrammar(t *testing.T) {
	f := wpp.ParseTMF([]byte(grammarTMF), "demo.tmf")
	assert.Equal(t, "demo.pdb", f.PDB)
	var names []string
	for _, m := range f.Messages {
		names = append(names, m.Name)
	}
	assert.Equal(t, []string{"Some_File_c10", "Some_File_c20", "Some_File_c30", "Some_File_c70", "Some_File_c91"}, names)
	var warns []string
	for _, w := range f.Warnings {
		var se *wpp.SyntaxError
		require.True(t, errors.As(w, &se))
		warns = append(warns, w.Error())
	}
	assert.Equal(t, []string{
		`demo.tmf:18: message Some_File_c40: argument line "this line has no type": insert number "type" is not 1-99`,
		`demo.tmf:20: #typev Some_File_c50: message number "x14" is not a number 0-65535`,
		// Found where the next entry starts.
		`demo.tmf:27: argument block of Some_File_c60 not closed`,
		`demo.tmf:31: message Some_File_c80: arguments a and b share insert 10`,
		`demo.tmf:36: line not understood: "garbage here"`,
	}, warns)

	m := f.Messages[0]
	assert.Equal(t, uuid.MustParse("aaaaaaaa-97d7-3776-3daf-3296492866aa"), m.GUID)
	assert.Equal(t, uint16(10), m.Number)
	assert.Equal(t, `%0 say "%10!s!" now`, m.Format)
	assert.Equal(t, "demo", m.Module)
	assert.Equal(t, "Some File.c", m.Source)
	assert.Equal(t, "Major", m.MajorComp)
	assert.Equal(t, "Minor", m.MinorComp)
	assert.Equal(t, "TRACE_LEVEL_WARNING", m.Level)
	assert.Equal(t, uint8(3), m.LevelValue)
	assert.Equal(t, "TRACE_A", m.Flags)
	assert.Equal(t, "`F'::`1'::fin$0 x=y", m.Func, "FUNC= runs to the end of the line")
	assert.Equal(t, "demo.tmf:4", m.Origin)
	assert.Equal(t, []wpp.Arg{{Name: "*(PULONGLONG)&ctx->a, b", Type: wpp.ItemLongLongXX, TypeName: "ItemLongLongXX", Insert: 10}}, exportedArgs(m.Args))

	m = f.Messages[1]
	assert.Equal(t, uint8(5), m.LevelValue)
	v, ok := m.Attr("flags")
	assert.True(t, ok)
	assert.Equal(t, "TRACE_B", v)
	assert.Equal(t, []wpp.Arg{
		{Name: "f(x, y)", Type: wpp.ItemListLong, TypeName: "ItemListLong", Insert: 10,
			Labels: []wpp.Label{{"Zero", 0}, {"One", 1}, {"Five", 5}, {"Six", 6}}},
		{Name: "bits", Type: wpp.ItemSetShort, TypeName: "ItemSetShort", Insert: 11,
			Labels: []wpp.Label{{"A", 1}, {"B", 2}, {"C", 4}}},
	}, exportedArgs(m.Args))

	m = f.Messages[2]
	assert.Empty(t, m.Attrs)
	assert.Empty(t, m.Args)
	assert.Equal(t, "Some_File_c30", m.EventName())

	m = f.Messages[3]
	assert.Equal(t, []wpp.Arg{{Name: "e", Type: wpp.ItemEnum, TypeName: "ItemEnum", Enum: "_MachineState", Insert: 10}}, exportedArgs(m.Args))

	m = f.Messages[4]
	assert.Equal(t, "MY_FLAG", m.Flags, "with DoTraceMessage, LEVEL holds the flag")
	assert.Zero(t, m.LevelValue)
}

func exportedArgs(as []wpp.Arg) []wpp.Arg {
	out := make([]wpp.Arg, len(as))
	for i, a := range as {
		out[i] = exported(a)
	}
	return out
}

// TestItemTypes checks the type table: sizes, names in any case, unknown
// names.
func TestItemTypes(t *testing.T) {
	for _, c := range []struct {
		name      string
		typ       wpp.ItemType
		size4, sz int
	}{
		{"ItemChar", wpp.ItemChar, 1, 1}, {"itemuchar", wpp.ItemUChar, 1, 1}, {"ItemShort", wpp.ItemShort, 2, 2},
		{"ItemLong", wpp.ItemLong, 4, 4}, {"ItemLongLong", wpp.ItemLongLong, 8, 8}, {"ItemULongLong", wpp.ItemULongLong, 8, 8},
		{"ItemLongLongX", wpp.ItemLongLongX, 8, 8}, {"ItemLongLongXX", wpp.ItemLongLongXX, 8, 8}, {"ItemLongLongO", wpp.ItemLongLongO, 8, 8},
		{"ItemDouble", wpp.ItemDouble, 8, 8}, {"ItemPtr", wpp.ItemPtr, 4, 8}, {"ItemGuid", wpp.ItemGuid, 16, 16},
		{"ItemCLSID", wpp.ItemCLSID, 16, 16}, {"ItemLIBID", wpp.ItemLIBID, 16, 16}, {"ItemIID", wpp.ItemIID, 16, 16},
		{"ItemIPV6Addr", wpp.ItemIPV6Addr, 16, 16}, {"ItemChar4", wpp.ItemChar4, 4, 4}, {"ItemIPAddr", wpp.ItemIPAddr, 4, 4},
		{"ItemPort", wpp.ItemPort, 2, 2}, {"ItemNTSTATUS", wpp.ItemNTSTATUS, 4, 4}, {"ItemWINERROR", wpp.ItemWINERROR, 4, 4},
		{"ItemHRESULT", wpp.ItemHRESULT, 4, 4}, {"ItemNDIS_STATUS", wpp.ItemNDISStatus, 4, 4}, {"ItemNDIS_OID", wpp.ItemNDISOid, 4, 4},
		{"ItemTimestamp", wpp.ItemTimestamp, 8, 8}, {"ItemWaitTime", wpp.ItemWaitTime, 8, 8}, {"ItemTimeDelta", wpp.ItemTimeDelta, 8, 8},
		{"ItemListByte", wpp.ItemListByte, 1, 1}, {"ItemListShort", wpp.ItemListShort, 2, 2}, {"ItemListLong", wpp.ItemListLong, 4, 4},
		{"ItemSetByte", wpp.ItemSetByte, 1, 1}, {"ItemSetShort", wpp.ItemSetShort, 2, 2}, {"ItemSetLong", wpp.ItemSetLong, 4, 4},
		{"ItemEnum", wpp.ItemEnum, 4, 4}, {"ItemFlagsEnum", wpp.ItemFlagsEnum, 4, 4},
		{"ItemString", wpp.ItemString, 0, 0}, {"ItemRString", wpp.ItemRString, 0, 0}, {"ItemWString", wpp.ItemWString, 0, 0},
		{"ItemRWString", wpp.ItemRWString, 0, 0}, {"ItemPString", wpp.ItemPString, 0, 0}, {"ItemPWString", wpp.ItemPWString, 0, 0},
		{"ItemSid", wpp.ItemSid, 0, 0}, {"ItemHEXDump", wpp.ItemHexDump, 0, 0},
		{"ItemFloat", wpp.ItemUnknown, 0, 0}, {"ItemHEXBytes", wpp.ItemUnknown, 0, 0},
	} {
		typ := wpp.LookupItemType(c.name)
		assert.Equal(t, c.typ, typ, c.name)
		n4, ok4 := typ.Size(4)
		n8, ok8 := typ.Size(8)
		assert.Equal(t, c.size4, n4, c.name)
		assert.Equal(t, c.sz, n8, c.name)
		assert.Equal(t, c.size4 != 0, ok4, c.name)
		assert.Equal(t, c.sz != 0, ok8, c.name)
	}
	_, ok := wpp.ItemPtr.Size(0)
	assert.False(t, ok, "a pointer of unknown size")
	assert.Equal(t, "ItemNDIS_STATUS", wpp.ItemNDISStatus.String())
}
