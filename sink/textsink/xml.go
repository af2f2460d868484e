package textsink

import (
	"unicode/utf8"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
)

// xmlEncoder writes the event schema tracerpt writes, so that scripts
// written against `tracerpt -of XML` read our output: one <Event> per
// record inside <Events>, the header fields in <System>, decoded fields as
// <Data Name=…> in <EventData>, and a payload that cannot be decoded as
// <BinaryEventData>. The descriptor elements are always present, as in
// tracerpt, since the schema's consumers expect them.
type xmlEncoder struct {
	clock   timeCache
	scratch []byte
}

func (*xmlEncoder) begin(dst []byte) []byte {
	return append(dst, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Events>\n"...)
}

func (*xmlEncoder) end(dst []byte) []byte { return append(dst, "</Events>\n"...) }

func (e *xmlEncoder) record(dst []byte, r *record.Record, d *describe.Description) []byte {
	fs := record.DescriptorFieldsOf(r.HeaderType)
	ed := &r.EventDescriptor
	dst = append(dst, "<Event xmlns=\"http://schemas.microsoft.com/win/2004/08/events/event\">\n\t<System>\n\t\t<Provider"...)
	if d.ProviderName != "" {
		dst = append(dst, " Name=\""...)
		dst = appendXMLText(dst, d.ProviderName)
		dst = append(dst, '"')
	}
	if r.HasProvider() {
		dst = append(dst, " Guid=\"{"...)
		dst = guid.Append(dst, r.ProviderId)
		dst = append(dst, '}', '"')
	}
	dst = append(dst, " />\n\t\t<EventID>"...)
	dst = appendUint(dst, uint64(ed.Id))
	dst = append(dst, "</EventID>\n\t\t<Version>"...)
	dst = appendUint(dst, uint64(ed.Version))
	dst = append(dst, "</Version>\n\t\t<Level>"...)
	dst = appendUint(dst, uint64(ed.Level))
	dst = append(dst, "</Level>\n\t\t<Task>"...)
	dst = appendUint(dst, uint64(ed.Task))
	dst = append(dst, "</Task>\n\t\t<Opcode>"...)
	dst = appendUint(dst, uint64(ed.Opcode))
	dst = append(dst, "</Opcode>\n\t\t<Keywords>"...)
	dst = appendHexShort(dst, ed.Keyword)
	dst = append(dst, "</Keywords>\n\t\t<TimeCreated SystemTime=\""...)
	dst = e.clock.append(dst, r.TimeStamp())
	dst = append(dst, "\" />\n"...)
	rel, hasRel := r.RelatedActivity()
	if fs&record.FieldActivityID != 0 || hasRel {
		dst = append(dst, "\t\t<Correlation"...)
		if fs&record.FieldActivityID != 0 {
			dst = append(dst, " ActivityID=\"{"...)
			dst = guid.Append(dst, r.ActivityId)
			dst = append(dst, "}\""...)
		}
		if hasRel {
			dst = append(dst, " RelatedActivityID=\"{"...)
			dst = guid.Append(dst, rel)
			dst = append(dst, "}\""...)
		}
		dst = append(dst, " />\n"...)
	}
	dst = append(dst, "\t\t<Execution"...)
	if r.HasThreadProcess {
		dst = append(dst, " ProcessID=\""...)
		dst = appendUint(dst, uint64(r.ProcessId))
		dst = append(dst, "\" ThreadID=\""...)
		dst = appendUint(dst, uint64(r.ThreadId))
		dst = append(dst, '"')
	}
	dst = append(dst, " ProcessorID=\""...)
	dst = appendUint(dst, uint64(r.ProcessorNumber))
	dst = append(dst, '"')
	if r.HasCPUTime {
		dst = append(dst, " KernelTime=\""...)
		dst = appendUint(dst, uint64(r.KernelTime))
		dst = append(dst, "\" UserTime=\""...)
		dst = appendUint(dst, uint64(r.UserTime))
		dst = append(dst, '"')
	}
	if r.HasProcessorTime {
		dst = append(dst, " ProcessorTime=\""...)
		dst = appendUint(dst, r.ProcessorTime())
		dst = append(dst, '"')
	}
	dst = append(dst, " />\n\t\t<Channel>"...)
	dst = appendUint(dst, uint64(ed.Channel))
	dst = append(dst, "</Channel>\n\t\t<Computer />\n\t</System>\n"...)
	switch {
	case d.Decoded:
		dst = append(dst, "\t<EventData>\n"...)
		for i := range d.Fields {
			v := &d.Fields[i]
			dst = append(dst, "\t\t<Data Name=\""...)
			dst = appendXMLText(dst, v.Name())
			dst = append(dst, "\">"...)
			e.scratch = v.AppendText(e.scratch[:0])
			dst = appendXMLBytes(dst, e.scratch)
			dst = append(dst, "</Data>\n"...)
		}
		dst = append(dst, "\t</EventData>\n"...)
	case len(r.UserData) > 0:
		dst = append(dst, "\t<BinaryEventData>"...)
		dst = appendHexBytes(dst, r.UserData)
		dst = append(dst, "</BinaryEventData>\n"...)
	}
	hasMessage := d.Decoded && d.Event != nil && d.Event.Message != ""
	if d.ProviderName != "" || d.EventName != "" || hasMessage {
		dst = append(dst, "\t<RenderingInfo Culture=\"en-US\">\n"...)
		if hasMessage {
			dst = append(dst, "\t\t<Message>"...)
			e.scratch = schema.AppendMessage(e.scratch[:0], d.Event.Message, d.Fields)
			dst = appendXMLBytes(dst, e.scratch)
			dst = append(dst, "</Message>\n"...)
		}
		if d.ProviderName != "" {
			dst = append(dst, "\t\t<Provider>"...)
			dst = appendXMLText(dst, d.ProviderName)
			dst = append(dst, "</Provider>\n"...)
		}
		if d.EventName != "" {
			dst = append(dst, "\t\t<EventName xmlns=\"http://schemas.microsoft.com/win/2004/08/events/trace\">"...)
			dst = appendXMLText(dst, d.EventName)
			dst = append(dst, "</EventName>\n"...)
		}
		dst = append(dst, "\t</RenderingInfo>\n"...)
	}
	return append(dst, "</Event>\n"...)
}

func appendXMLText(dst []byte, s string) []byte {
	return appendXMLBytes(dst, bytesOf(s))
}

// appendXMLBytes escapes text for element content and attribute values.
// Characters XML 1.0 cannot carry at all (most controls, invalid UTF-8)
// become U+FFFD: a parser would reject the whole document otherwise.
func appendXMLBytes(dst []byte, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '&':
				dst = append(dst, "&amp;"...)
			case c == '<':
				dst = append(dst, "&lt;"...)
			case c == '>':
				dst = append(dst, "&gt;"...)
			case c == '"':
				dst = append(dst, "&quot;"...)
			case c == '\t' || c == '\n' || c == '\r':
				dst = append(dst, '&', '#', 'x')
				dst = append(dst, hexLower[c>>4], hexLower[c&15], ';')
			case c < 0x20:
				dst = append(dst, "\uFFFD"...)
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 || r == 0xFFFE || r == 0xFFFF {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, b[i:i+n]...)
		}
		i += n
	}
	return dst
}
