package describe_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/wpp"
)

const describeTMF = `cccccccc-0000-3000-0000-000000000001 mod // SRC=x.c MJ= MN=
#typev x_c10 10 "%0 [%!FUNC!] v=%10!d! on %9!d! p=%11!p!" //   LEVEL=TRACE_LEVEL_WARNING FLAGS=F FUNC=Fn
{
v, ItemLong -- 10
p, ItemPtr -- 11
}
#typev x_c20 11 "%0 no function" //   LEVEL=TRACE_LEVEL_WARNING
{
}
`

// TestDescribeWPP: with a WPP set, a MESSAGE record it knows is named by
// its module and function (or message name) and decoded into its text,
// level, flags and arguments; pointers take the record's width, or
// WPPPointerSize when the header gives none; the others are left as they
// were.
func TestDescribeWPP(t *testing.T) {
	g := uuid.MustParse("cccccccc-0000-3000-0000-000000000001")
	s := etltest.DefaultSession()
	base := uint16(header.MessageGUID | header.MessageSystemInfo)
	out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		b.CPU(2).Add(
			&etltest.Message{MessageNumber: 10, OptionFlags: base | header.MessagePointer64, Guid: g, Args: []byte{5, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}},
			&etltest.Message{MessageNumber: 10, OptionFlags: base, Guid: g, Args: []byte{5, 0, 0, 0, 1, 2, 3, 4}},
			&etltest.Message{MessageNumber: 11, OptionFlags: base, Guid: g},
			&etltest.Message{MessageNumber: 12, OptionFlags: base, Guid: g, Args: []byte{1}},
			&etltest.Message{MessageNumber: 10, OptionFlags: header.MessageComponentID, ComponentId: 3, Args: []byte{1}},
		)
		return nil
	})
	require.NoError(t, err)
	f, err := etl.OpenStream(bytes.NewReader(out), "x.etl", nil)
	require.NoError(t, err)
	defer f.Close()
	set := wpp.NewSet()
	set.AddFile(wpp.ParseTMF([]byte(describeTMF), "x.tmf"))
	z := describe.New(describe.Options{WPP: set, WPPPointerSize: 4})
	plain := describe.New(describe.Options{})
	var got []string
	for r, err := range f.Records() {
		require.NoError(t, err)
		if r.HeaderType != header.TypeMessage {
			continue
		}
		var d, names, before describe.Description
		z.Describe(r, &d, true)
		z.Describe(r, &names, false)
		plain.Describe(r, &before, true)
		assert.Equal(t, d.EventName, names.EventName)
		assert.False(t, names.Decoded)
		if d.WPP == nil {
			assert.Equal(t, before, d, "a message the set does not know")
			got = append(got, "-")
			continue
		}
		require.True(t, d.Decoded)
		require.NoError(t, d.Err)
		got = append(got, d.ProviderName+"/"+d.EventName+" "+string(payload.AppendJSONObject(nil, d.Fields)))
	}
	assert.Equal(t, []string{
		`mod/Fn {"Message":"[Fn] v=5 on 2 p=0807060504030201","Level":"TRACE_LEVEL_WARNING","Flags":"F","v":5,"p":"0x807060504030201"}`,
		`mod/Fn {"Message":"[Fn] v=5 on 2 p=04030201","Level":"TRACE_LEVEL_WARNING","Flags":"F","v":5,"p":"0x4030201"}`,
		`mod/x_c20 {"Message":"no function","Level":"TRACE_LEVEL_WARNING"}`,
		"-", "-",
	}, got)
}

// TestDescribeWPPAllocatesNothing: once warm, describing a WPP message
// allocates nothing per record, whatever its number of arguments (with
// three, the Describer's values filled up exactly at the last one).
func TestDescribeWPPAllocatesNothing(t *testing.T) {
	g := uuid.MustParse("cccccccc-0000-3000-0000-000000000002")
	for n := 0; n <= 8; n++ {
		var format, decl strings.Builder
		for i := range n {
			fmt.Fprintf(&format, " %%%d!d!", 10+i)
			fmt.Fprintf(&decl, "a%d, ItemLong -- %d\n", i, 10+i)
		}
		tmf := fmt.Sprintf("%s mod // SRC=x.c\n#typev x_c10 10 \"%%0%s\" //   LEVEL=TRACE_LEVEL_WARNING FLAGS=F FUNC=Fn\n{\n%s}\n", g, format.String(), decl.String())
		out, _, err := etltest.Build(etltest.DefaultSession(), func(b *etltest.Builder) error {
			b.CPU(0).Add(&etltest.Message{MessageNumber: 10, OptionFlags: uint16(header.MessageGUID | header.MessageSystemInfo), Guid: g, Args: make([]byte, 4*n)})
			return nil
		})
		require.NoError(t, err)
		f, err := etl.OpenStream(bytes.NewReader(out), "x.etl", nil)
		require.NoError(t, err)
		set := wpp.NewSet()
		set.AddFile(wpp.ParseTMF([]byte(tmf), "x.tmf"))
		z := describe.New(describe.Options{WPP: set})
		var r *record.Record
		for rec, err := range f.Records() {
			require.NoError(t, err)
			if rec.HeaderType == header.TypeMessage {
				r = rec.Clone()
			}
		}
		f.Close()
		require.NotNil(t, r)
		var d describe.Description
		z.Describe(r, &d, true)
		require.NoError(t, d.Err)
		require.Len(t, d.Fields, 3+n, "Message, Level, Flags and the arguments")
		assert.Zero(t, testing.AllocsPerRun(100, func() { z.Describe(r, &d, true) }), "%d arguments", n)
	}
}
