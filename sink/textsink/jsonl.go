package textsink

import (
	"unsafe"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// jsonlEncoder writes one compact JSON object per record with fixed field
// names, in a fixed order, so that jq and log pipelines can rely on them.
type jsonlEncoder struct {
	clock timeCache
	raw   rawCache
	names quotedNames
	file  bool // Options.FileColumn
	// process is the ProcessName member last written, which the records
	// of one process repeat.
	process       string
	processMember []byte
}

func (*jsonlEncoder) begin(dst []byte) []byte { return dst }
func (*jsonlEncoder) end(dst []byte) []byte   { return dst }

func (e *jsonlEncoder) record(dst []byte, r *record.Record, d *describe.Description, x *Extra) []byte {
	fs := record.DescriptorFieldsOf(r.HeaderType)
	ed := &r.EventDescriptor
	if e.file {
		dst = append(dst, `{"File":`...)
		dst = payload.AppendJSONString(dst, x.File)
		dst = append(dst, `,"TimeStamp":"`...)
	} else {
		dst = append(dst, `{"TimeStamp":"`...)
	}
	dst = e.clock.append(dst, r.TimeStamp())
	dst = append(dst, `","RawTimeStamp":`...)
	dst = e.raw.append(dst, r.RawTimeStamp)
	dst = append(dst, `,"HeaderType":"`...)
	dst = append(dst, r.HeaderType.String()...)
	dst = append(dst, '"')
	if r.HasProvider() {
		dst = append(dst, `,"ProviderId":"`...)
		dst = guid.Append(dst, r.ProviderId)
		dst = append(dst, '"')
	}
	if d.ProviderName != "" || d.EventName != "" {
		dst = e.names.append(dst, d.ProviderName, d.EventName)
	}
	if fs&record.FieldID != 0 {
		dst = append(dst, `,"Id":`...)
		dst = appendUint(dst, uint64(ed.Id))
	}
	if fs&record.FieldVersion != 0 {
		dst = append(dst, `,"Version":`...)
		dst = appendUint(dst, uint64(ed.Version))
		// Version is the byte ProcessTrace gives; a classic or kernel header
		// whose 16-bit version does not fit in it shows the whole one too.
		if r.ClassVersion != uint16(ed.Version) {
			dst = append(dst, `,"ClassVersion":`...)
			dst = appendUint(dst, uint64(r.ClassVersion))
		}
	}
	if fs&record.FieldChannel != 0 {
		dst = append(dst, `,"Channel":`...)
		dst = appendUint(dst, uint64(ed.Channel))
	}
	if fs&record.FieldLevel != 0 {
		dst = append(dst, `,"Level":`...)
		dst = appendUint(dst, uint64(ed.Level))
	}
	if fs&record.FieldOpcode != 0 {
		dst = append(dst, `,"Opcode":`...)
		dst = appendUint(dst, uint64(ed.Opcode))
	}
	if fs&record.FieldTask != 0 {
		dst = append(dst, `,"Task":`...)
		dst = appendUint(dst, uint64(ed.Task))
	}
	if fs&record.FieldKeyword != 0 {
		dst = append(dst, `,"Keyword":"`...)
		dst = appendHex16(dst, ed.Keyword)
		dst = append(dst, '"')
	}
	if r.HasThreadProcess {
		dst = append(dst, `,"ProcessId":`...)
		dst = appendID(dst, r.ProcessId)
		dst = append(dst, `,"ThreadId":`...)
		dst = appendID(dst, r.ThreadId)
	}
	if x.Subject.Differs(r) {
		dst = append(dst, `,"SubjectProcessId":`...)
		dst = appendID(dst, x.Subject.ProcessID)
		if x.ProcessName != "" {
			if x.ProcessName != e.process || e.processMember == nil {
				e.process = x.ProcessName
				e.processMember = payload.AppendJSONString(append(e.processMember[:0], `,"ProcessName":`...), x.ProcessName)
			}
			dst = append(dst, e.processMember...)
		}
	}
	dst = append(dst, `,"ProcessorNumber":`...)
	dst = appendUint(dst, uint64(r.ProcessorNumber))
	if fs&record.FieldActivityID != 0 {
		dst = append(dst, `,"ActivityId":"`...)
		dst = guid.Append(dst, r.ActivityId)
		dst = append(dst, '"')
	}
	if id, ok := r.RelatedActivity(); ok {
		dst = append(dst, `,"RelatedActivityId":"`...)
		dst = guid.Append(dst, id)
		dst = append(dst, '"')
	}
	dst = append(dst, `,"Flags":`...)
	dst = appendUint(dst, uint64(r.Flags))
	if d.Decoded {
		dst = append(dst, `,"Payload":`...)
		dst = payload.AppendJSONObject(dst, d.Fields)
	} else if len(r.UserData) > 0 {
		dst = append(dst, `,"UserData":"`...)
		dst = appendHexBytes(dst, r.UserData)
		dst = append(dst, '"')
		dst = appendStrings(dst, `,"UserDataStrings":`, r.UserData)
	}
	return append(dst, '}', '\n')
}

// quotedNames remembers the ProviderName and EventName members of lines,
// as JSON. The names of a trace are few and each is one string held by its
// schema, so a slot chosen by where the event name lives nearly always
// holds the pair already; quoting them anew costs a test a character, a
// large part of a short line.
type quotedNames struct {
	slots [64]quotedName
}

type quotedName struct {
	provider, event string
	members         []byte // `,"ProviderName":"…","EventName":"…"`
}

// append appends the members of the names that are not empty; one of them
// is not.
func (q *quotedNames) append(dst []byte, provider, event string) []byte {
	at := unsafe.StringData(event)
	if event == "" {
		at = unsafe.StringData(provider)
	}
	s := &q.slots[uintptr(unsafe.Pointer(at))>>4%uintptr(len(q.slots))]
	// Comparing the same string is comparing two pointers; another
	// string of the same text is still equal.
	if s.members == nil || s.provider != provider || s.event != event {
		s.provider, s.event = provider, event
		m := s.members[:0]
		if provider != "" {
			m = append(m, `,"ProviderName":`...)
			m = payload.AppendJSONString(m, provider)
		}
		if event != "" {
			m = append(m, `,"EventName":`...)
			m = payload.AppendJSONString(m, event)
		}
		s.members = m
	}
	return append(dst, s.members...)
}
