package buffer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/etlkit/etlkit/buffer"
)

func TestFormatErrorText(t *testing.T) {
	e := &buffer.FormatError{Offset: 0x1048, Buffer: 3, Reason: "record at 0x20 has size 0x2", Err: buffer.ErrMalformed}
	assert.Equal(t, "buffer 3: record at 0x20 has size 0x2: "+buffer.ErrMalformed.Error(), e.Detail())
	assert.Equal(t, "offset 0x1048: "+e.Detail(), e.Error())
	e = &buffer.FormatError{Offset: 0, Buffer: -1, Reason: "reading the input"}
	assert.Equal(t, "reading the input", e.Detail())
	assert.Equal(t, "offset 0x0: reading the input", e.Error())
}
