package dotnet_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
)

// bulkType is a BulkType payload naming the types, each with as many type
// parameters as its index.
func bulkType(types ...struct {
	id   uint64
	name string
}) []byte {
	p := new(etltest.Payload).U32(uint32(len(types))).U16(7)
	for i, ty := range types {
		p.U64(ty.id).U64(0x1000).U32(0x2000000).U32(2).U8(18).UTF16Z(ty.name).U32(uint32(i))
		for j := 0; j < i; j++ {
			p.U64(uint64(j))
		}
	}
	return p.Bytes()
}

func runtimeRecord(id uint16, pid uint32, userData []byte) *record.Record {
	return &record.Record{HeaderType: header.TypeEventHeader32, ProviderId: dotnet.RuntimeProvider, ProcessId: pid,
		EventDescriptor: header.EventDescriptor{Id: id}, UserData: userData}
}

// finalize decodes a FinalizeObject record with the built-in tables and
// completes it with names.
func finalize(t *testing.T, names *dotnet.TypeNames, r *record.Record, vals []payload.Value) []payload.Value {
	t.Helper()
	e, _ := dotnet.Set().Lookup(schema.Key{Provider: dotnet.RuntimeProvider, ID: dotnet.FinalizeObjectID})
	require.NotNil(t, e)
	vals, err := e.Payload.DecodeKeep(r.UserData, 4, vals[:0])
	require.NoError(t, err)
	return names.Rewrite(r, vals)
}

func TestTypeNames(t *testing.T) {
	type ty = struct {
		id   uint64
		name string
	}
	var names dotnet.TypeNames
	names.Learn(runtimeRecord(dotnet.BulkTypeID, 10, bulkType(ty{0x72C61F4, "System.Object"}, ty{0x8FA4248, "SubtreeFinalizer"},
		ty{0x100, "Generic`2[A,B]"})))
	n, ok := names.Name(10, 0x8FA4248)
	assert.True(t, ok)
	assert.Equal(t, "SubtreeFinalizer", n)
	n, _ = names.Name(10, 0x100)
	assert.Equal(t, "Generic`2[A,B]", n, "after a type with one parameter")
	_, ok = names.Name(11, 0x8FA4248)
	assert.False(t, ok, "type ids are per process")

	// FinalizeObject: TypeID (a pointer), ObjectID, ClrInstanceID.
	fin := func(pid uint32, id uint32) *record.Record {
		return runtimeRecord(dotnet.FinalizeObjectID, pid, new(etltest.Payload).U32(id).U32(0x1098383C).U16(7).Bytes())
	}
	vals := finalize(t, &names, fin(10, 0x8FA4248), nil)
	assert.Equal(t, "TypeID=0x8FA4248 ObjectID=0x1098383C ClrInstanceID=7 TypeName=SubtreeFinalizer",
		string(payload.AppendTextFields(nil, vals, " ")))
	// An id no BulkType names: an empty name, as TraceEvent shows it.
	vals = finalize(t, &names, fin(11, 0x8FA4248), vals)
	assert.Equal(t, `{"TypeID":"0x8FA4248","ObjectID":"0x1098383C","ClrInstanceID":7,"TypeName":""}`,
		string(payload.AppendJSONObject(nil, vals)))

	// A copy learns on its own; the latest name of an id wins.
	c := names.Clone()
	c.Learn(runtimeRecord(dotnet.BulkTypeID, 10, bulkType(ty{0x8FA4248, "Reused"})))
	n, _ = c.Name(10, 0x8FA4248)
	assert.Equal(t, "Reused", n)
	n, _ = names.Name(10, 0x8FA4248)
	assert.Equal(t, "SubtreeFinalizer", n)

	// A cut payload names the types before the cut, and reads no further.
	whole := bulkType(ty{1, "One"}, ty{2, "Two"})
	for i := range whole {
		var cut dotnet.TypeNames
		cut.Learn(runtimeRecord(dotnet.BulkTypeID, 1, whole[:i]))
		_, one := cut.Name(1, 1)
		_, two := cut.Name(1, 2)
		assert.False(t, two, "cut at %d", i)
		assert.Equal(t, i >= 6+25+8+4, one, "cut at %d", i)
	}

	// Other records are not read, and not completed.
	other := runtimeRecord(1, 10, whole)
	names.Learn(other)
	_, ok = names.Name(10, 1)
	assert.False(t, ok)
	assert.Len(t, names.Rewrite(other, vals[:2]), 2)

	// Learning names already known and completing records cost nothing.
	known := runtimeRecord(dotnet.BulkTypeID, 10, bulkType(ty{0x72C61F4, "System.Object"}, ty{0x8FA4248, "SubtreeFinalizer"}))
	r := fin(10, 0x8FA4248)
	e, _ := dotnet.Set().Lookup(schema.Key{Provider: dotnet.RuntimeProvider, ID: dotnet.FinalizeObjectID})
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		names.Learn(known)
		vals, _ = e.Payload.DecodeKeep(r.UserData, 4, vals[:0])
		vals = names.Rewrite(r, vals)
	}))
	assert.Equal(t, "SubtreeFinalizer", vals[3].Str())
}

// TestIsBulkType recognises BulkType records from their header bytes.
func TestIsBulkType(t *testing.T) {
	rundown := dotnet.RundownProvider
	for _, c := range []struct {
		provider uuid.UUID
		id       uint16
		want     bool
	}{
		{dotnet.RuntimeProvider, dotnet.BulkTypeID, true},
		{dotnet.RuntimeProvider, dotnet.FinalizeObjectID, false},
		{rundown, dotnet.BulkTypeID, false},
	} {
		ev := &etltest.Event{ProviderId: c.provider, Descriptor: header.EventDescriptor{Id: c.id}, UserData: []byte{1}}
		b, err := ev.AppendRecord(nil)
		require.NoError(t, err)
		p, _, err := header.ParsePrefix(b)
		require.NoError(t, err)
		assert.Equal(t, c.want, dotnet.IsBulkType(p.Type, b[:p.Size]), "%v %d", c.provider, c.id)
		assert.False(t, dotnet.IsBulkType(p.Type, b[:header.EventHeaderSize-1]), "too short")
	}
}
