package record

import (
	"encoding/binary"

	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
)

// Marker flags of a record with a typed header, and the Version bits that
// announce PEBS/PMC extension bytes after a kernel header.
const (
	typedMarker        = header.MarkerTraceHeader | header.MarkerEventTrace
	kernelVersionExt   = 0x8700
	eventHeaderMinSize = header.EventHeaderSize
)

// decodeFast decodes the cursor's next record when it is of the commonest
// kinds — EVENT_HEADER, and SYSTEM, COMPACT and PERFINFO headers without
// extension bytes — in one pass over its bytes, into the same fields
// Decode sets, and moves the cursor past it. It reports false, having
// changed nothing that matters, for any other kind and for anything that
// needs the general path's checks or error messages; Next then uses Decode.
// TestFastPathEqualsDecode and FuzzFastPath keep the two paths identical.
func (c *Cursor) decodeFast(r *Record) bool {
	data, at := c.buf.Data, c.pos
	if at+8 > len(data) {
		return false
	}
	size := 0
	le := binary.LittleEndian
	marker := le.Uint32(data[at:])
	if marker>>24 != typedMarker {
		return false
	}
	typ := header.Type(marker >> 16)
	var b []byte
	switch typ {
	case header.TypeEventHeader64, header.TypeEventHeader32:
		size = int(uint16(marker))
		if size < eventHeaderMinSize || at+size > len(data) {
			return false
		}
		b = data[at : at+size : at+size]
		_ = b[eventHeaderMinSize-1]
		// Should the extended items fail, Decode places the record again.
		c.ctx.place(r, typ, b, at)
		diskFlags := le.Uint16(b[4:])
		pos := eventHeaderMinSize
		if diskFlags&header.FlagExtendedInfo != 0 {
			var err error
			if pos, err = r.decodeExtended(b, pos); err != nil {
				return false
			}
		}
		r.Flags = c.ctx.flags(typ) | diskFlags&eventHeaderDiskFlags
		r.EventProperty = le.Uint16(b[6:])
		r.ThreadId, r.ProcessId, r.HasThreadProcess = le.Uint32(b[8:]), le.Uint32(b[0xC:]), true
		r.RawTimeStamp = int64(le.Uint64(b[0x10:]))
		guid.ReadWindows(&r.ProviderId, b[0x18:])
		header.ReadEventDescriptor(&r.EventDescriptor, b[0x28:])
		r.ClassVersion = uint16(r.EventDescriptor.Version)
		r.HookId = 0
		r.KernelTime, r.UserTime = le.Uint32(b[0x38:]), le.Uint32(b[0x3C:])
		pt := c.ctx.processorTime()
		r.HasCPUTime, r.HasProcessorTime = !pt, pt
		guid.ReadWindows(&r.ActivityId, b[0x40:])
		r.PEBSIndex, r.HasPEBS, r.pmcRaw = 0, false, nil
		r.UserData = b[pos:]
	case header.TypeSystem64, header.TypeSystem32, header.TypePerfInfo64, header.TypePerfInfo32,
		header.TypeCompact64, header.TypeCompact32:
		version := uint16(marker)
		if version&kernelVersionExt != 0 {
			return false
		}
		size = int(le.Uint16(data[at+4:]))
		fixed := header.SystemHeaderSize
		switch typ {
		case header.TypePerfInfo64, header.TypePerfInfo32:
			fixed = header.PerfInfoHeaderSize
		case header.TypeCompact64, header.TypeCompact32:
			fixed = header.CompactHeaderSize
		}
		if size < fixed || at+size > len(data) {
			return false
		}
		b = data[at : at+size : at+size]
		_ = b[fixed-1]
		hook := le.Uint16(b[6:])
		c.ctx.place(r, typ, b, at)
		r.setCommon(c.ctx.flags(typ), KernelGroupGUID(uint8(hook>>8), uint8(hook)),
			header.EventDescriptor{}, version, hook, 0)
		// Set apart from the zeroed descriptor, for the reason given at
		// guid.ReadWindows.
		r.EventDescriptor.Opcode, r.EventDescriptor.Version = uint8(hook), uint8(version)
		if fixed == header.PerfInfoHeaderSize {
			r.RawTimeStamp = int64(le.Uint64(b[8:]))
			r.ThreadId, r.ProcessId, r.HasThreadProcess = 0, 0, false
		} else {
			r.RawTimeStamp = int64(le.Uint64(b[0x10:]))
			r.ThreadId, r.ProcessId, r.HasThreadProcess = le.Uint32(b[8:]), le.Uint32(b[0xC:]), true
		}
		if fixed == header.SystemHeaderSize {
			r.KernelTime, r.UserTime, r.HasCPUTime = le.Uint32(b[0x18:]), le.Uint32(b[0x1C:]), true
		} else {
			r.KernelTime, r.UserTime, r.HasCPUTime = 0, 0, false
		}
		r.HasProcessorTime = false
		r.UserData = b[fixed:]
	default:
		return false
	}
	c.pos = at + header.Align(size)
	c.done = c.pos >= len(data)
	return true
}

// fastFixed gives, for each header type, the size of the fixed header of
// the kernel kinds decodeFast serves, fastEvent for EVENT_HEADER, and 0
// for the kinds it leaves to Decode: one load instead of a switch, for
// every record Skim steps over. Skim makes decodeFast's checks this way;
// sameSkim, in TestSkimEqualsNext and FuzzFastPath, holds the two to the
// same answer.
var fastFixed = func() (t [256]uint8) {
	t[header.TypeEventHeader64], t[header.TypeEventHeader32] = fastEvent, fastEvent
	t[header.TypeSystem64], t[header.TypeSystem32] = header.SystemHeaderSize, header.SystemHeaderSize
	t[header.TypePerfInfo64], t[header.TypePerfInfo32] = header.PerfInfoHeaderSize, header.PerfInfoHeaderSize
	t[header.TypeCompact64], t[header.TypeCompact32] = header.CompactHeaderSize, header.CompactHeaderSize
	return t
}()

// fastEvent stands for EVENT_HEADER in fastFixed; no kernel header is that
// small.
const fastEvent = 1

// Skim steps over the next record as Next would and gives only its raw
// timestamp, for a pass that orders records without delivering them. The
// kinds decodeFast serves, EVENT_HEADER records with extended items
// excepted, are not decoded: decoding them cannot fail, so their outcome
// is known from their size. Any other record is decoded into scratch.
// The outcome (ok, err) is the one Next gives for the same record, so that
// a second cursor's Next over the same buffer meets the same sequence.
func (c *Cursor) Skim(scratch *Record) (raw int64, ok bool, err error) {
	if c.done {
		return 0, false, nil
	}
	data := c.buf.Data
	at := c.pos
	// decodeFast's checks, made inline: this runs for every record.
	if at >= 0 && at+0x18 <= len(data) {
		le := binary.LittleEndian
		b := data[at : at+0x18]
		marker := le.Uint32(b)
		size, fixed := 0, int(fastFixed[uint8(marker>>16)])
		switch {
		case marker>>24 != typedMarker || fixed == 0:
		case fixed == fastEvent:
			// Extended items could fail to decode: Next decides those.
			if le.Uint16(b[4:])&header.FlagExtendedInfo == 0 && int(uint16(marker)) >= eventHeaderMinSize {
				size, raw = int(uint16(marker)), int64(le.Uint64(b[0x10:]))
			}
		case uint16(marker)&kernelVersionExt == 0 && int(le.Uint16(b[4:])) >= fixed:
			size = int(le.Uint16(b[4:]))
			if fixed == header.PerfInfoHeaderSize {
				raw = int64(le.Uint64(b[8:]))
			} else {
				raw = int64(le.Uint64(b[0x10:]))
			}
		}
		if size > 0 && at+size <= len(data) {
			c.pos = at + header.Align(size)
			if c.pos >= len(data) {
				c.done = true
			}
			return raw, true, nil
		}
	}
	ok, err = c.Next(scratch)
	return scratch.RawTimeStamp, ok, err
}
