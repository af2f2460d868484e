package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/record"
)

func TestStackKey(t *testing.T) {
	k32 := record.ExtendedItem{Type: record.ExtStackKey32, Data: []byte{1, 0, 0, 0, 0, 0, 0, 0, 0x78, 0x56, 0x34, 0x12, 0xEE, 0xEE, 0xEE, 0xEE}}
	k, err := k32.StackKey()
	require.NoError(t, err)
	assert.Equal(t, record.StackKey{MatchId: 1, Key: 0x12345678}, k, "the padding after a 32-bit key is not part of it")

	k64 := record.ExtendedItem{Type: record.ExtStackKey64, Data: []byte{0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0xE6, 0x43, 0x03, 0x83, 0xFA, 0xFF, 0xFF}}
	k, err = k64.StackKey()
	require.NoError(t, err)
	assert.Equal(t, record.StackKey{Key: 0xFFFFFA830343E610}, k)

	_, err = record.ExtendedItem{Type: record.ExtStackKey64, Data: make([]byte, 15)}.StackKey()
	assert.ErrorIs(t, err, buffer.ErrMalformed)
	assert.ErrorContains(t, err, "has 15 bytes, want 16")
	_, err = record.ExtendedItem{Type: record.ExtStackKey32, Data: make([]byte, 11)}.StackKey()
	assert.ErrorIs(t, err, buffer.ErrMalformed)
	assert.ErrorContains(t, err, "has 11 bytes, want 12")
	_, err = record.ExtendedItem{Type: record.ExtStackTrace64, Data: make([]byte, 16)}.StackKey()
	assert.Error(t, err, "not a stack key")
}
