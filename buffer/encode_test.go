package buffer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
)

func TestHeaderPutParse(t *testing.T) {
	h := buffer.Header{
		BufferSize: 0x10000, SavedOffset: 0x298, CurrentOffset: 0x10298, ReferenceCount: -1,
		TimeStamp: -5, SequenceNumber: 908, ClockInfo: 0xFFFFAC85984C3020, ClientContext: 0x0803,
		LoggerId: 0x28, State: buffer.StateFlush, Offset: 0x310, BufferFlag: buffer.FlagFlushMarker,
		BufferType: buffer.TypeHeader, ReferenceTime: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
	}
	b := make([]byte, buffer.HeaderSize+1)
	b[buffer.HeaderSize] = 0x5A
	h.Put(b)
	got, ok := buffer.ParseHeader(b)
	require.True(t, ok)
	assert.Equal(t, h, got)
	assert.Equal(t, byte(0x5A), b[buffer.HeaderSize], "Put writes the header only")
	assert.Panics(t, func() { h.Put(b[:buffer.HeaderSize-1]) })
}

func TestSetProcessor(t *testing.T) {
	var h buffer.Header
	h.ClientContext = 0x0800 // an Alignment byte, as relogged Win7 files have
	h.SetProcessor(3, false)
	assert.Equal(t, uint16(0x0803), h.ClientContext)
	assert.EqualValues(t, 3, h.ProcessorNumber())
	h.SetProcessor(0x123, true)
	assert.Equal(t, buffer.FlagProcIndex, h.BufferFlag&buffer.FlagProcIndex)
	assert.EqualValues(t, 0x123, h.ProcessorNumber())
	h.SetProcessor(7, false)
	assert.Zero(t, h.BufferFlag&buffer.FlagProcIndex)
	assert.EqualValues(t, 7, h.ProcessorNumber())
}
