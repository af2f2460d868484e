package describe_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// kernelRecord is a SYSTEM64 record of a kernel event.
func kernelRecord(hook uint16, version uint8, userData []byte) *record.Record {
	return &record.Record{HeaderType: header.TypeSystem64, HookId: hook,
		ProviderId:      record.KernelGroupGUID(uint8(hook>>8), uint8(hook)),
		EventDescriptor: header.EventDescriptor{Opcode: uint8(hook), Version: version}, ClassVersion: uint16(version),
		UserData: userData}
}

// TestKernelBadPayloads: a payload that does not fit its class keeps its
// bytes and says which field failed where; it never reads past the
// payload.
func TestKernelBadPayloads(t *testing.T) {
	p := func() *etltest.Payload { return new(etltest.Payload) }
	image := p().Ptr(8, 0x77000000).Ptr(8, 0x3C000).U32(1).U32(2).U32(3).U8(0).U8(0).U16(0).Ptr(8, 0x77000000).
		U32(0).U32(0).U32(0).U32(0).Bytes()
	for _, c := range []struct {
		what     string
		r        *record.Record
		field    string
		offset   int
		sentinel error
	}{
		{"shorter than its class", kernelRecord(0x0301, 4, p().Ptr(8, 1).U16(7).Bytes()),
			"ProcessID", 8, buffer.ErrTruncated},
		{"a string with no terminator", kernelRecord(0x030A, 3, append(image, 'a', 0, 'b', 0)),
			"FileName", 56, buffer.ErrTruncated},
		{"a count past the end", kernelRecord(0x053F, 2, p().U32(1).U32(3).U64(1).U64(2).Bytes()),
			"Entries[2]", 24, buffer.ErrTruncated},
		{"a count no payload of that size can hold", kernelRecord(0x053F, 2, p().U32(1).U32(100_000).U64(1).Bytes()),
			"Entries", 8, payload.ErrTooManyValues},
		{"a SID past the end", kernelRecord(0x0301, 4, p().Ptr(8, 1).U32(2).U32(3).U32(4).I32(0).Ptr(8, 5).U32(0).
			Ptr(8, 1).Ptr(8, 0).U8(1).U8(5).Bytes()),
			// The field starts at 36; the SID after its TOKEN_USER, at 52.
			"UserSID", 52, buffer.ErrTruncated},
	} {
		t.Run(c.what, func(t *testing.T) {
			raw := append([]byte(nil), c.r.UserData...)
			var d describe.Description
			describe.New(describe.Options{}).Describe(c.r, &d, true)
			assert.NotEmpty(t, d.EventName)
			assert.False(t, d.Decoded)
			assert.Empty(t, d.Fields)
			var de *payload.DecodeError
			require.ErrorAs(t, d.Err, &de)
			assert.Equal(t, c.field, de.Field)
			assert.Equal(t, c.offset, de.Offset)
			assert.ErrorIs(t, d.Err, c.sentinel)
			assert.Equal(t, raw, c.r.UserData, "the record keeps its bytes")
		})
	}

	// A stack whose last frame is cut: the whole frames decode, the
	// record says that bytes were left, and keeps them in sight.
	r := kernelRecord(0x1820, 2, p().U64(1).U32(2).U32(3).Ptr(8, 0x10).Ptr(8, 0x20).U32(0x30).Bytes())
	var d describe.Description
	describe.New(describe.Options{}).Describe(r, &d, true)
	require.True(t, d.Decoded)
	assert.True(t, payload.IsTrailing(d.Err))
	assert.Equal(t, `EventTimeStamp=1 StackProcess=2 StackThread=3 Stack=["0x10","0x20"] TrailingData=0x30000000 FrameCount=2`,
		string(payload.AppendTextFields(nil, d.Fields, " ")))
}
