package record_test

import (
	"testing"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/seeds"
	"github.com/etlkit/etlkit/record"
)

// FuzzDecode decodes arbitrary record bytes of every kind, with their
// extended items, and checks that every view stays inside the record and
// that Clone gives an equal, independent copy.
func FuzzDecode(f *testing.F) {
	for _, r := range seeds.Records(8) {
		f.Add(r)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, end, err := header.ParsePrefix(b)
		if end || err != nil {
			return
		}
		var c header.Clock
		lh := header.LogfileHeader{PerfFreq: 3_579_545, ReservedFlags: header.ClockQPC, StartTime: 1 << 57}
		c = header.NewClock(&lh, 1000)
		var r record.Record
		ctx := record.Context{Clock: &c, ProcessorNumber: 3}
		if err := record.Decode(&r, b, p, 0x48, &ctx); err != nil {
			return
		}
		if len(r.UserData) > len(r.Raw) {
			t.Fatalf("user data %d bytes longer than the %d-byte record", len(r.UserData), len(r.Raw))
		}
		for _, it := range r.ExtendedData() {
			if len(it.Data) > len(r.Raw) {
				t.Fatalf("extended item longer than the record")
			}
			it.RelatedActivityID()
			it.SID()
			it.InstanceInfo()
			if st, err := it.StackTrace(); err == nil {
				for i := 0; i < st.Len(); i++ {
					st.Address(i)
				}
			}
			it.EventKey()
			it.TerminalSessionID()
			it.StackKey()
		}
		for i := 0; i < r.PMCCount(); i++ {
			r.PMCCounter(i)
		}
		c2 := r.Clone()
		if string(c2.Raw) != string(r.Raw) || string(c2.UserData) != string(r.UserData) || len(c2.ExtendedData()) != len(r.ExtendedData()) {
			t.Fatalf("clone differs")
		}
		if len(c2.Raw) > 0 {
			c2.Raw[0] ^= 0xFF
			if c2.Raw[0] == b[0] {
				t.Fatalf("clone shares memory with the buffer")
			}
		}
	})
}
