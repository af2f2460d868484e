package header_test

import (
	"testing"

	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/seeds"
)

func addRecordSeeds(f *testing.F) {
	for _, r := range seeds.Records(4) {
		f.Add(r)
	}
	f.Add([]byte{0x20, 0, 0x02, 0xC0, 0x20, 0})
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF})
}

// FuzzParsePrefix: whatever the bytes, the prefix is either the end, an
// error, or a size that fits in the input and covers its fixed header.
func FuzzParsePrefix(f *testing.F) {
	addRecordSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		p, end, err := header.ParsePrefix(b)
		if end || err != nil {
			return
		}
		if p.Size > len(b) || p.Size < 4 {
			t.Fatalf("size %d for %d bytes", p.Size, len(b))
		}
	})
}

// FuzzRecordHeaders runs every record header decoder on the bytes; none may
// panic, and offsets they return must lie inside the record.
func FuzzRecordHeaders(f *testing.F) {
	addRecordSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, err := header.ParseSystemHeader(b); err == nil {
			if h.DataOffset > len(b) || h.PMCOffset > h.DataOffset {
				t.Fatalf("kernel header offsets %d/%d outside %d bytes", h.PMCOffset, h.DataOffset, len(b))
			}
		}
		if h, err := header.ParseEventTraceHeader(b); err == nil && h.DataOffset > len(b) {
			t.Fatalf("classic data offset %d outside %d bytes", h.DataOffset, len(b))
		}
		if _, err := header.ParseEventHeader(b); (err == nil) != (len(b) >= header.EventHeaderSize) {
			t.Fatalf("EVENT_HEADER of %d bytes: error %v", len(b), err)
		}
		if m, err := header.ParseMessage(b); err == nil && m.DataOffset > len(b) {
			t.Fatalf("message data offset %d outside %d bytes", m.DataOffset, len(b))
		}
	})
}

// FuzzLogfileHeader decodes both forms of TRACE_LOGFILE_HEADER and builds a
// clock from the result, converting a few timestamps: the anchor maps to
// StartTime, and a FILETIME survives the trip through time.Time.
func FuzzLogfileHeader(f *testing.F) {
	for _, r := range seeds.Records(2) {
		if len(r) > 0x20 && (r[2] == 1 || r[2] == 2) && r[6] == 0 && r[7] == 0 {
			f.Add(r[0x20:], r[2] == 2, int64(12345))
		}
	}
	f.Add(make([]byte, 0x118), true, int64(-1))
	f.Fuzz(func(t *testing.T, b []byte, is64 bool, ts int64) {
		h, err := header.ParseLogfileHeader(b, is64)
		if err != nil {
			return
		}
		c := header.NewClock(&h, ts)
		if got := c.FileTime(ts); got != h.StartTime {
			t.Fatalf("anchor %d maps to %d, not StartTime %d", ts, got, h.StartTime)
		}
		for _, raw := range []int64{ts, ts + 1, ts - 1, 0, -1 << 63, 1<<63 - 1} {
			if got, want := header.TimeToFileTime(c.UTC(raw)), c.FileTime(raw); got != want {
				t.Fatalf("raw %d: UTC gives %v, which is FILETIME %d, not %d", raw, c.UTC(raw), got, want)
			}
		}
		if got := header.TimeToFileTime(header.FileTimeToTime(ts)); got != ts {
			t.Fatalf("FILETIME %d comes back as %d", ts, got)
		}
	})
}
