package packets_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/packettest"
	"github.com/etlkit/etlkit/packets"
	"github.com/etlkit/etlkit/record"
)

// session is the session of the traces the tests build: QPC at 10 MHz, so
// that a raw tick is 100 ns.
func session() etltest.Session { return packettest.NDISSession() }

// fileTime is the FILETIME of raw timestamp ts in session().
func fileTime(ts int64) int64 {
	s := session()
	return s.StartTime + ts - s.HeaderTimeStamp
}

// buildTrace writes a trace with the records fn adds.
func buildTrace(t testing.TB, fn func(b *etltest.Builder) error) []byte {
	t.Helper()
	out, _, err := etltest.Build(session(), fn)
	require.NoError(t, err)
	return out
}

// got is a packet as the Converter gave it, with its bytes kept.
type got struct {
	packets.Packet
	Interface packets.Interface
	Data      []byte
	Comment   string
}

// convert reads the traces in time order through one Converter and
// returns the packets, the converter (for its interfaces and stats).
func convert(t testing.TB, opts packets.Options, traces ...[]byte) ([]got, *packets.Converter) {
	t.Helper()
	c := packets.New(opts)
	var out []got
	for i, tr := range traces {
		f, err := etl.OpenStream(bytes.NewReader(tr), "test.etl", nil)
		require.NoError(t, err)
		for r, err := range f.Events() {
			require.NoError(t, err)
			if p, ok := c.Packet(r, i); ok {
				out = append(out, got{Packet: *p, Interface: c.Interfaces()[p.Interface],
					Data: bytes.Clone(p.Data), Comment: string(p.Comment)})
			}
		}
		require.False(t, f.Stats().Damaged())
		f.Close()
	}
	c.Finish()
	return out, c
}

// decodeEvent returns the record of ev, read back from a trace.
func decodeEvent(t testing.TB, ev *etltest.Event) *record.Record {
	t.Helper()
	tr := buildTrace(t, func(b *etltest.Builder) error {
		b.CPU(0).Add(ev)
		return b.Err()
	})
	f, err := etl.OpenStream(bytes.NewReader(tr), "test.etl", nil)
	require.NoError(t, err)
	defer f.Close()
	for r, err := range f.Events() {
		require.NoError(t, err)
		if r.ProviderId == ev.ProviderId {
			return r.Clone()
		}
	}
	t.Fatal("event not read back")
	return nil
}
