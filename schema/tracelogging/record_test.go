package tracelogging_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	tl "github.com/etlkit/etlkit/schema/tracelogging"
)

// decodeEvent encodes e as a record and decodes it back.
func decodeEvent(t *testing.T, e *etltest.Event) *record.Record {
	t.Helper()
	r, err := etltest.Decode(e, nil)
	require.NoError(t, err)
	return r
}

func TestSchemaOfRecord(t *testing.T) {
	schema := []byte{0x0A, 0x00, 0x00, 'E', 'v', 0, 'n', 0, 0x88, 0x05, 0, 0, 0, 0, 0}
	r := decodeEvent(t, &etltest.Event{
		Ext:      []etltest.ExtItem{etltest.ExtEventSchemaTL(schema), etltest.ExtProviderTraits(etltest.ProviderTraits("P"))},
		UserData: []byte{0x10, 0x27, 0, 0},
	})
	c := tl.NewCache(0, 0)
	s, ok, err := c.SchemaOf(r)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "Ev", s.Name)
	assert.Equal(t, "Ev", c.EventName(r))
	vals, err := s.Decode(r.UserData, r.PointerSize(), nil)
	require.NoError(t, err)
	assert.Equal(t, "n=10000", string(payload.AppendTextFields(nil, vals, " ")))
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _, _, _ = c.SchemaOf(r) }))

	plain := decodeEvent(t, &etltest.Event{})
	_, ok, err = c.SchemaOf(plain)
	assert.False(t, ok)
	assert.NoError(t, err)
	assert.Equal(t, "", c.EventName(plain))

	bad := decodeEvent(t, &etltest.Event{Ext: []etltest.ExtItem{etltest.ExtEventSchemaTL([]byte{3, 0, 0x80})}})
	_, ok, err = c.SchemaOf(bad)
	assert.True(t, ok)
	assert.ErrorIs(t, err, buffer.ErrMalformed)
	assert.Equal(t, "", c.EventName(bad))
}
