package textsink

import (
	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/kernel"
)

// textEncoder writes one line per record for people and for awk: columns
// separated by one space, none of them empty (a "-" stands for what the
// record does not carry), then the payload fields as name=value.
//
//	TIME CPU PID/TID PROVIDER/EVENT LEVEL KEYWORD FIELDS...
type textEncoder struct {
	clock   timeCache
	scratch []byte // a string value's text, before it is quoted
	stamp   []byte // the time of a WPP message's prefix
	// message: an event whose schema has a message shows it, filled,
	// instead of its fields (Options.Message).
	message bool
}

func (*textEncoder) begin(dst []byte) []byte { return dst }
func (*textEncoder) end(dst []byte) []byte   { return dst }

func (e *textEncoder) record(dst []byte, r *record.Record, d *describe.Description) []byte {
	if d.WPP != nil && d.Decoded {
		return e.appendWPP(dst, r, d)
	}
	fs := record.DescriptorFieldsOf(r.HeaderType)
	ed := &r.EventDescriptor
	dst = e.clock.append(dst, r.TimeStamp())
	dst = append(dst, ' ')
	dst = appendUint(dst, uint64(r.ProcessorNumber))
	dst = append(dst, ' ')
	dst = appendThreadProcess(dst, r.HasThreadProcess, r.ProcessId, r.ThreadId)
	dst = append(dst, ' ')
	dst = appendEventLabel(dst, r, d)
	dst = append(dst, ' ')
	if fs&record.FieldLevel != 0 {
		dst = record.AppendLevelName(dst, ed.Level)
	} else {
		dst = append(dst, '-')
	}
	dst = append(dst, ' ')
	if fs&record.FieldKeyword != 0 {
		dst = appendHexShort(dst, ed.Keyword)
	} else {
		dst = append(dst, '-')
	}
	switch {
	case e.message && d.Decoded && d.Event != nil && d.Event.Message != "":
		dst = append(dst, ' ')
		dst = e.appendMessage(dst, d)
	case d.Decoded:
		for i := range d.Fields {
			dst = append(dst, ' ')
			dst = e.appendField(dst, &d.Fields[i])
		}
	case len(r.UserData) > 0:
		dst = append(dst, " data=0x"...)
		dst = appendHexBytes(dst, r.UserData)
	}
	return append(dst, '\n')
}

// appendMessage appends the event's message, filled, as the rest of the
// line.
func (e *textEncoder) appendMessage(dst []byte, d *describe.Description) []byte {
	e.scratch = schema.AppendMessage(e.scratch[:0], d.Event.Message, d.Fields)
	return appendOneLine(dst, e.scratch)
}

// appendOneLine appends text as the rest of a line: its line breaks (a CR
// LF pair, or either alone) become one space, and other control
// characters are escaped as in field values.
func appendOneLine(dst, m []byte) []byte {
	for i := 0; i < len(m); i++ {
		// Runs of plain bytes go in one copy.
		j := i
		for j < len(m) && m[j] >= 0x20 && m[j] != 0x7f {
			j++
		}
		dst = append(dst, m[i:j]...)
		if i = j; i == len(m) {
			break
		}
		switch c := m[i]; {
		case c == '\r' || c == '\n':
			if c == '\r' && i+1 < len(m) && m[i+1] == '\n' {
				i++
			}
			dst = append(dst, ' ')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20 || c == 0x7f:
			dst = append(dst, '\\', 'x', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&0xF])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// appendEventLabel appends PROVIDER/EVENT with names when known. Without a
// name the event is shown the way TraceEvent shows unknown ones,
// EventID(n) or Opcode(n), so that the label is never empty and never
// contains a space.
func appendEventLabel(dst []byte, r *record.Record, d *describe.Description) []byte {
	switch {
	case d.ProviderName != "":
		dst = appendNoSpace(dst, d.ProviderName)
	case r.HasProvider():
		dst = guid.Append(dst, r.ProviderId)
	case r.HeaderType == header.TypeMessage && r.Message.HasComponentID():
		dst = append(dst, "ComponentId("...)
		dst = appendUint(dst, uint64(r.Message.ComponentId))
		dst = append(dst, ')')
	default:
		// ERROR, TIMED and WNODE records have no provider: their kind
		// stands in its place.
		dst = append(dst, r.HeaderType.String()...)
	}
	dst = append(dst, '/')
	switch {
	case d.EventName != "":
		dst = appendNoSpace(dst, d.EventName)
	case d.Kernel:
		dst = kernel.AppendEventName(dst, d.Group, r.EventDescriptor.Opcode)
	case record.DescriptorFieldsOf(r.HeaderType)&record.FieldID != 0:
		dst = append(dst, "EventID("...)
		dst = appendUint(dst, uint64(r.EventDescriptor.Id))
		dst = append(dst, ')')
	default:
		dst = append(dst, "Opcode("...)
		dst = appendUint(dst, uint64(r.EventDescriptor.Opcode))
		dst = append(dst, ')')
	}
	return dst
}

// appendNoSpace keeps a name inside its column: white space and control
// characters become '_'.
func appendNoSpace(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f {
			c = '_'
		}
		dst = append(dst, c)
	}
	return dst
}

// appendThreadProcess appends PID/TID, or "-" for a record without them.
func appendThreadProcess(dst []byte, has bool, pid, tid uint32) []byte {
	if !has {
		return append(dst, '-')
	}
	dst = appendUint(dst, uint64(pid))
	dst = append(dst, '/')
	return appendUint(dst, uint64(tid))
}

// appendField appends name=value. A string with a space, a quote or an
// equals sign, or an empty one, is quoted as a JSON string, so that the
// pairs still split apart unambiguously.
func (e *textEncoder) appendField(dst []byte, v *payload.Value) []byte {
	dst = appendNoSpace(dst, v.Name())
	dst = append(dst, '=')
	if v.Kind() != payload.KindString {
		return v.AppendText(dst)
	}
	e.scratch = v.AppendText(e.scratch[:0])
	needs := len(e.scratch) == 0
	for _, c := range e.scratch {
		if c == ' ' || c == '"' || c == '=' {
			needs = true
			break
		}
	}
	if !needs {
		return append(dst, e.scratch...)
	}
	return appendJSONBytes(dst, e.scratch)
}
