package describe_test

import (
	"encoding/binary"
	"strconv"
	"testing"
	"unsafe"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
)

var provider = uuid.MustParse("11111111-2222-3333-4444-555555555555")

func event(name string, fields ...payload.Field) *schema.Event {
	return &schema.Event{Provider: "P-" + name, Name: name, Payload: payload.MustSchema(name, fields)}
}

func manifestRecord(id uint16, version uint8, userData []byte) *record.Record {
	return &record.Record{
		HeaderType:      header.TypeEventHeader64,
		ProviderId:      provider,
		EventDescriptor: header.EventDescriptor{Id: id, Version: version},
		UserData:        userData,
	}
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func TestPrecedence(t *testing.T) {
	k := schema.Key{Provider: provider, ID: 7, Version: 1}
	var trace, user, builtIn schema.Set
	trace.Add(k, event("FromTrace", payload.Field{Name: "A", InType: payload.InUInt32}))
	user.Add(k, event("FromManifest", payload.Field{Name: "B", InType: payload.InUInt32}))
	builtIn.Add(k, event("BuiltIn", payload.Field{Name: "C", InType: payload.InUInt32}))
	builtIn.Add(schema.Key{Provider: provider, ID: 8, Version: 1}, event("OnlyBuiltIn", payload.Field{Name: "C", InType: payload.InUInt32}))
	r := manifestRecord(7, 1, le32(5))
	var d describe.Description

	describe.New(describe.Options{Trace: &trace, Manifests: &user, BuiltIn: []*schema.Set{&builtIn}}).Describe(r, &d, true)
	assert.Equal(t, "FromTrace", d.EventName)
	assert.Equal(t, "P-FromTrace", d.ProviderName)
	require.True(t, d.Decoded)
	assert.Equal(t, "A=5", string(payload.AppendTextFields(nil, d.Fields, " ")))

	describe.New(describe.Options{Manifests: &user, BuiltIn: []*schema.Set{&builtIn}}).Describe(r, &d, true)
	assert.Equal(t, "FromManifest", d.EventName)
	describe.New(describe.Options{BuiltIn: []*schema.Set{&builtIn}}).Describe(r, &d, true)
	assert.Equal(t, "BuiltIn", d.EventName)
	describe.New(describe.Options{Trace: &trace, Manifests: &user, BuiltIn: []*schema.Set{&builtIn}}).Describe(manifestRecord(8, 1, le32(1)), &d, true)
	assert.Equal(t, "OnlyBuiltIn", d.EventName)

	// Names only: the payload is left alone.
	describe.New(describe.Options{Trace: &trace}).Describe(r, &d, false)
	assert.Equal(t, "FromTrace", d.EventName)
	assert.False(t, d.Decoded)
	assert.Empty(t, d.Fields)
}

func TestNewerVersionKeepsKnownFields(t *testing.T) {
	var s schema.Set
	s.Add(schema.Key{Provider: provider, ID: 1, Version: 0}, event("E", payload.Field{Name: "A", InType: payload.InUInt32}))
	z := describe.New(describe.Options{Manifests: &s})
	var d describe.Description

	// Version 2 added a field the schema does not know: the known field
	// decodes, the extra bytes are no error, and they stay in sight.
	z.Describe(manifestRecord(1, 2, append(le32(9), 1, 2, 3, 4)), &d, true)
	require.True(t, d.Decoded)
	assert.NoError(t, d.Err)
	assert.Equal(t, "A=9 TrailingData=0x01020304", string(payload.AppendTextFields(nil, d.Fields, " ")))
	assert.Equal(t, `{"A":9,"TrailingData":"0x01020304"}`, string(payload.AppendJSONObject(nil, d.Fields)))

	// The same bytes at the schema's own version are trailing data: the
	// fields are complete, the bytes kept, and the record says so.
	z.Describe(manifestRecord(1, 0, append(le32(9), 1, 2, 3, 4)), &d, true)
	require.True(t, d.Decoded)
	assert.True(t, payload.IsTrailing(d.Err))
	rest, ok := payload.HasTrailingData(d.Fields)
	require.True(t, ok)
	assert.Equal(t, []byte{1, 2, 3, 4}, rest.Bytes())

	// Neither costs an allocation.
	newer, same := manifestRecord(1, 2, append(le32(9), 1, 2, 3, 4)), manifestRecord(1, 0, append(le32(9), 1, 2, 3, 4))
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		z.Describe(newer, &d, true)
		z.Describe(same, &d, true)
	}))

	// Too short: not decoded, with an error naming the field.
	z.Describe(manifestRecord(1, 0, []byte{1}), &d, true)
	assert.False(t, d.Decoded)
	var de *payload.DecodeError
	require.ErrorAs(t, d.Err, &de)
	assert.Equal(t, "A", de.Field)
	assert.ErrorIs(t, d.Err, buffer.ErrTruncated)
}

func TestProviderNames(t *testing.T) {
	other := uuid.MustParse("99999999-2222-3333-4444-555555555555")
	var s schema.Set
	s.SetProviderName(provider, "FromSet")
	z := describe.New(describe.Options{Manifests: &s, ProviderNames: func(id uuid.UUID) (string, bool) {
		if id == other {
			return "WellKnown", true
		}
		return "", false
	}})
	var d describe.Description
	z.Describe(manifestRecord(1, 0, nil), &d, false)
	assert.Equal(t, "FromSet", d.ProviderName)
	assert.Equal(t, "", d.EventName)
	r := manifestRecord(1, 0, nil)
	r.ProviderId = other
	z.Describe(r, &d, false)
	assert.Equal(t, "WellKnown", d.ProviderName)
	r.ProviderId = uuid.MustParse("aaaaaaaa-2222-3333-4444-555555555555")
	z.Describe(r, &d, false)
	assert.Equal(t, "", d.ProviderName)
}

func TestKernelRecords(t *testing.T) {
	z := describe.New(describe.Options{})
	var d describe.Description
	// Process/Terminate: a class with one field.
	r := &record.Record{HeaderType: header.TypeSystem64, HookId: 0x030B,
		EventDescriptor: header.EventDescriptor{Opcode: 11, Version: 2}, UserData: le32(1234)}
	z.Describe(r, &d, true)
	assert.True(t, d.Kernel)
	assert.Equal(t, uint8(3), d.Group)
	assert.Equal(t, "Windows Kernel", d.ProviderName)
	assert.Equal(t, "Process/Terminate", d.EventName)
	require.True(t, d.Decoded)
	assert.Equal(t, "ProcessID=1234", string(payload.AppendTextFields(nil, d.Fields, " ")))

	// An opcode without a name gets TraceEvent's fallback, the same string
	// each time.
	r = &record.Record{HeaderType: header.TypeSystem64, HookId: 0x03C8, EventDescriptor: header.EventDescriptor{Opcode: 200}}
	z.Describe(r, &d, true)
	assert.Equal(t, "Process/Opcode(200)", d.EventName)
	assert.False(t, d.Decoded)
	first := d.EventName
	assert.Zero(t, testing.AllocsPerRun(100, func() { z.Describe(r, &d, true) }))
	assert.Same(t, unsafeStringData(first), unsafeStringData(d.EventName))
}

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }

// A Describer remembers what the sets said of a key; an event added to a
// set afterwards, as a Learner adds one record at a time, is seen all the
// same.
func TestLookupsFollowTheSets(t *testing.T) {
	var trace, builtIn schema.Set
	z := describe.New(describe.Options{Trace: &trace, BuiltIn: []*schema.Set{&builtIn}})
	var d describe.Description
	r := manifestRecord(3, 0, le32(1))
	z.Describe(r, &d, true)
	assert.Equal(t, "", d.EventName)

	builtIn.Add(schema.Key{Provider: provider, ID: 3}, event("BuiltIn", payload.Field{Name: "B", InType: payload.InUInt32}))
	z.Describe(r, &d, true)
	assert.Equal(t, "BuiltIn", d.EventName)

	trace.Add(schema.Key{Provider: provider, ID: 3}, event("FromTrace", payload.Field{Name: "A", InType: payload.InUInt32}))
	z.Describe(r, &d, true)
	assert.Equal(t, "FromTrace", d.EventName)

	// Many keys at once, each described as its own, again and again.
	for id := uint16(100); id < 1100; id++ {
		trace.Add(schema.Key{Provider: provider, ID: id}, event("E"+strconv.Itoa(int(id)), payload.Field{Name: "A", InType: payload.InUInt32}))
	}
	for range 3 {
		for id := uint16(100); id < 1100; id++ {
			z.Describe(manifestRecord(id, 0, le32(1)), &d, true)
			require.Equal(t, "E"+strconv.Itoa(int(id)), d.EventName)
		}
	}
	// A classic record's key is not an event's with the same numbers.
	c := &record.Record{HeaderType: header.TypeFull64, ProviderId: provider,
		EventDescriptor: header.EventDescriptor{Opcode: 3}, UserData: le32(1)}
	z.Describe(c, &d, true)
	assert.Equal(t, "", d.EventName)
	trace.Add(schema.Key{Provider: provider, ID: 3, Classic: true}, event("Classic", payload.Field{Name: "C", InType: payload.InUInt32}))
	z.Describe(c, &d, true)
	assert.Equal(t, "Classic", d.EventName)
	z.Describe(r, &d, true)
	assert.Equal(t, "FromTrace", d.EventName)
}
