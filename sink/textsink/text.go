package textsink

import (
	"unsafe"

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
// record does not carry), then the payload fields as name=value, or the
// payload as data=0x… and the strings it holds as strings=[…].
//
//	TIME CPU PID/TID PROVIDER/EVENT LEVEL KEYWORD FIELDS...
type textEncoder struct {
	clock   timeCache
	labels  labelCache
	scratch []byte // a string value's text, before it is quoted
	stamp   []byte // the time of a WPP message's prefix
	// message: an event whose schema has a message shows it, filled,
	// instead of its fields (Options.Message).
	message bool
	file    bool // Options.FileColumn
}

func (*textEncoder) begin(dst []byte) []byte { return dst }
func (*textEncoder) end(dst []byte) []byte   { return dst }

func (e *textEncoder) record(dst []byte, r *record.Record, d *describe.Description, x *Extra) []byte {
	if e.file {
		dst = appendNoSpace(dst, x.File)
		dst = append(dst, ' ')
	}
	if d.WPP != nil && d.Decoded {
		return e.appendWPP(dst, r, d)
	}
	fs := record.DescriptorFieldsOf(r.HeaderType)
	ed := &r.EventDescriptor
	dst = e.clock.append(dst, r.TimeStamp())
	dst = append(dst, ' ')
	dst = appendUint(dst, uint64(r.ProcessorNumber))
	dst = append(dst, ' ')
	if s := &x.Subject; showsSubject(r, s) {
		dst = appendSubject(dst, s)
	} else {
		dst = appendThreadProcess(dst, r.HasThreadProcess, r.ProcessId, r.ThreadId)
	}
	dst = append(dst, ' ')
	dst = e.appendEventLabel(dst, r, d)
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
		dst = appendStrings(dst, " strings=", r.UserData)
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
// EventID(n) or Opcode(n), so that the label is never empty. A name with a
// space, a quote or a control character ("Windows Kernel") makes the whole
// label one JSON string, as a field value with a space is, so that the
// names read the same as in every other format and the line still splits
// at its spaces.
func (e *textEncoder) appendEventLabel(dst []byte, r *record.Record, d *describe.Description) []byte {
	if d.ProviderName != "" && d.EventName != "" {
		return e.labels.append(dst, d.ProviderName, d.EventName)
	}
	quoted := !plainName(d.ProviderName) || !plainName(d.EventName)
	if quoted {
		dst = append(dst, '"')
	}
	switch {
	case d.ProviderName != "":
		dst = appendName(dst, d.ProviderName, quoted)
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
		dst = appendName(dst, d.EventName, quoted)
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
	if quoted {
		dst = append(dst, '"')
	}
	return dst
}

// plainName reports a name that goes into a text column as it is: no
// white space, quote or control character in it.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == '"' || c == 0x7f {
			return false
		}
	}
	return true
}

// appendName appends a name as it is, or escaped for the inside of a JSON
// string.
func appendName(dst []byte, s string, quoted bool) []byte {
	if quoted {
		return payload.AppendJSONBody(dst, bytesOf(s))
	}
	return append(dst, s...)
}

// appendLabel appends PROVIDER/EVENT of two names, as one JSON string when
// either is not plain.
func appendLabel(dst []byte, provider, event string) []byte {
	quoted := !plainName(provider) || !plainName(event)
	if quoted {
		dst = append(dst, '"')
	}
	dst = appendName(dst, provider, quoted)
	dst = append(dst, '/')
	dst = appendName(dst, event, quoted)
	if quoted {
		dst = append(dst, '"')
	}
	return dst
}

// labelCache remembers the PROVIDER/EVENT columns last written, as
// quotedNames does the names of JSON lines: a trace has few names, each a
// string its schema holds, so a slot chosen by where the event name lives
// nearly always holds the label already.
type labelCache struct {
	slots [64]cachedLabel
}

type cachedLabel struct {
	provider, event string
	text            []byte
}

func (c *labelCache) append(dst []byte, provider, event string) []byte {
	s := &c.slots[uintptr(unsafe.Pointer(unsafe.StringData(event)))>>4%uintptr(len(c.slots))]
	if s.text == nil || s.provider != provider || s.event != event {
		s.provider, s.event = provider, event
		s.text = appendLabel(s.text[:0], provider, event)
	}
	return append(dst, s.text...)
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

// showsSubject reports whether the PID/TID column shows the subject
// rather than the header: it names a process or thread the header does
// not, or another one.
func showsSubject(r *record.Record, s *kernel.Subject) bool {
	if !s.HasProcess && !s.HasThread {
		return false
	}
	return !r.HasThreadProcess || s.HasProcess && s.ProcessID != r.ProcessId || s.HasThread && s.ThreadID != r.ThreadId
}

// appendSubject appends the subject's PID/TID, "-" for the one unknown.
func appendSubject(dst []byte, s *kernel.Subject) []byte {
	if s.HasProcess {
		dst = appendID(dst, s.ProcessID)
	} else {
		dst = append(dst, '-')
	}
	dst = append(dst, '/')
	if s.HasThread {
		return appendID(dst, s.ThreadID)
	}
	return append(dst, '-')
}

// appendThreadProcess appends PID/TID, or "-" for a record without them.
func appendThreadProcess(dst []byte, has bool, pid, tid uint32) []byte {
	if !has {
		return append(dst, '-')
	}
	dst = appendID(dst, pid)
	dst = append(dst, '/')
	return appendID(dst, tid)
}

// appendField appends name=value. A string with a space, a quote or an
// equals sign, or an empty one, is quoted as a JSON string, so that the
// pairs still split apart unambiguously; another value with no text (a
// time not set) is "-".
func (e *textEncoder) appendField(dst []byte, v *payload.Value) []byte {
	dst = appendNoSpace(dst, v.Name())
	dst = append(dst, '=')
	if v.Kind() != payload.KindString {
		n := len(dst)
		if dst = v.AppendText(dst); len(dst) == n {
			dst = append(dst, '-')
		}
		return dst
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
	return payload.AppendJSONBytes(dst, e.scratch)
}
