package textsink

import (
	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
)

// csvColumns are the JSON-lines field names, in the same order, so that a
// spreadsheet and a jq script speak of the same things.
const csvColumns = "TimeStamp,RawTimeStamp,HeaderType,ProviderId,ProviderName,EventName,Id,Version,Channel,Level,Opcode,Task,Keyword,ProcessId,ThreadId,ProcessorNumber,ActivityId,RelatedActivityId,Flags,Payload,UserData\r\n"

// csvEncoder writes RFC 4180 CSV: a fixed header row, CRLF line ends, and
// cells quoted only when they hold a comma, a quote or a line break. A
// field the record does not have is an empty cell.
type csvEncoder struct {
	clock timeCache
	raw   rawCache
	cell  []byte // the payload cell before quoting
}

func (*csvEncoder) begin(dst []byte) []byte { return append(dst, csvColumns...) }
func (*csvEncoder) end(dst []byte) []byte   { return dst }

func (e *csvEncoder) record(dst []byte, r *record.Record, d *describe.Description) []byte {
	fs := record.DescriptorFieldsOf(r.HeaderType)
	ed := &r.EventDescriptor
	dst = e.clock.append(dst, r.TimeStamp())
	dst = append(dst, ',')
	dst = e.raw.append(dst, r.RawTimeStamp)
	dst = append(dst, ',')
	dst = append(dst, r.HeaderType.String()...)
	dst = append(dst, ',')
	if r.HasProvider() {
		dst = guid.Append(dst, r.ProviderId)
	}
	dst = append(dst, ',')
	dst = appendCSVString(dst, d.ProviderName)
	dst = append(dst, ',')
	dst = appendCSVString(dst, d.EventName)
	dst = append(dst, ',')
	dst = csvUint(dst, fs&record.FieldID != 0, uint64(ed.Id))
	dst = csvUint(dst, fs&record.FieldVersion != 0, uint64(ed.Version))
	dst = csvUint(dst, fs&record.FieldChannel != 0, uint64(ed.Channel))
	dst = csvUint(dst, fs&record.FieldLevel != 0, uint64(ed.Level))
	dst = csvUint(dst, fs&record.FieldOpcode != 0, uint64(ed.Opcode))
	dst = csvUint(dst, fs&record.FieldTask != 0, uint64(ed.Task))
	if fs&record.FieldKeyword != 0 {
		dst = appendHex16(dst, ed.Keyword)
	}
	dst = append(dst, ',')
	dst = csvUint(dst, r.HasThreadProcess, uint64(r.ProcessId))
	dst = csvUint(dst, r.HasThreadProcess, uint64(r.ThreadId))
	dst = csvUint(dst, true, uint64(r.ProcessorNumber))
	if fs&record.FieldActivityID != 0 {
		dst = guid.Append(dst, r.ActivityId)
	}
	dst = append(dst, ',')
	if id, ok := r.RelatedActivity(); ok {
		dst = guid.Append(dst, id)
	}
	dst = append(dst, ',')
	dst = csvUint(dst, true, uint64(r.Flags))
	if d.Decoded {
		// The payload cell is the jsonl Payload object: numbers stay
		// numbers, with a mapped value's name beside it.
		e.cell = payload.AppendJSONObject(e.cell[:0], d.Fields)
		dst = appendCSVBytes(dst, e.cell)
	}
	dst = append(dst, ',')
	if !d.Decoded {
		dst = appendHexBytes(dst, r.UserData)
	}
	return append(dst, '\r', '\n')
}

// csvUint appends the number when the record has it, then the separator.
func csvUint(dst []byte, has bool, v uint64) []byte {
	if has {
		dst = appendUint(dst, v)
	}
	return append(dst, ',')
}

func appendCSVString(dst []byte, s string) []byte {
	return appendCSVBytes(dst, bytesOf(s))
}

// appendCSVBytes appends one cell, quoted when it holds a comma, a quote
// or a line break.
func appendCSVBytes(dst []byte, b []byte) []byte {
	for _, c := range b {
		switch c {
		case ',', '"', '\r', '\n':
			return appendCSVQuoted(dst, b)
		}
	}
	return append(dst, b...)
}

func appendCSVQuoted(dst []byte, s []byte) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			dst = append(dst, '"')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}
