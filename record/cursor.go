package record

import (
	"strconv"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
)

// Cursor walks the records of one buffer in the order they were written.
type Cursor struct {
	buf  *buffer.Buffer
	pos  int
	done bool
	ctx  Context
}

// Reset points the cursor at the first record of buf. clock converts the
// buffer's timestamps; records decoded with a nil clock have none.
func (c *Cursor) Reset(buf *buffer.Buffer, clock *header.Clock) {
	c.buf = buf
	c.pos = buffer.HeaderSize
	c.done = len(buf.Data) <= buffer.HeaderSize
	c.ctx = NewContext(buf, clock)
}

// NewContext is what the records of buf inherit from it, for Decode; clock
// converts their timestamps.
func NewContext(buf *buffer.Buffer, clock *header.Clock) Context {
	return Context{
		Clock:            clock,
		ProcessorNumber:  buf.ProcessorNumber(),
		ProcessorIndex:   buf.BufferFlag&buffer.FlagProcIndex != 0,
		BufferTimeStamp:  buf.TimeStamp,
		BufferIndex:      buf.Index,
		BufferFileOffset: buf.FileOffset,
		Compressed:       buf.Compressed(),
	}
}

// Position is the offset inside the buffer of the next record.
func (c *Cursor) Position() int { return c.pos }

// Next decodes the next record into r. It returns false at the end of the
// buffer's records. A non-nil error is a *buffer.FormatError: when r could
// not be decoded but its size was known, Next returns (true, err) and the
// following call goes on with the next record; when the records cannot be
// followed any further, it returns (false, err) and the rest of the buffer
// is lost.
func (c *Cursor) Next(r *Record) (bool, error) {
	if c.done {
		return false, nil
	}
	if c.decodeFast(r) {
		return true, nil
	}
	data := c.buf.Data
	at := c.pos
	p, end, err := header.ParsePrefix(data[at:])
	if end {
		c.done = true
		return false, nil
	}
	if err != nil {
		c.done = true
		return false, c.errorAt(at, err)
	}
	c.pos = at + header.Align(p.Size)
	if c.pos >= len(data) {
		c.done = true
	}
	if err := Decode(r, data[at:], p, at, &c.ctx); err != nil {
		return true, c.errorAt(at, err)
	}
	return true, nil
}

func (c *Cursor) errorAt(at int, err error) *buffer.FormatError {
	off := c.buf.FileOffset
	reason := "record at buffer offset 0x" + strconv.FormatInt(int64(at), 16)
	if !c.buf.Compressed() {
		off += int64(at)
		reason = "record"
	} else {
		reason += " (decompressed)"
	}
	return &buffer.FormatError{Offset: off, Buffer: c.buf.Index, Reason: reason, Err: err}
}
