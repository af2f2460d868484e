package textsink

import (
	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/wpp"
)

// appendWPP writes a WPP message as tracefmt prints it, on one line: the
// prefix ([CPU]PID.TID::TIME [MODULE]) where the format has %0, then the
// text; bytes the TMF does not account for follow as TrailingData=0x….
func (e *textEncoder) appendWPP(dst []byte, r *record.Record, d *describe.Description) []byte {
	p := wpp.PrefixOf(r)
	e.stamp = e.clock.append(e.stamp[:0], p.Time)
	p.TimeText = e.stamp
	e.scratch = d.WPP.AppendLine(e.scratch[:0], d.Fields, &p, nil)
	dst = appendOneLine(dst, e.scratch)
	if v, ok := payload.HasTrailingData(d.Fields); ok {
		dst = append(dst, " TrailingData="...)
		dst = v.AppendText(dst)
	}
	return append(dst, '\n')
}
