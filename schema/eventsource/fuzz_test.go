package eventsource_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/schema/eventsource"
)

// A fuzz input is a run of manifest events, each framed as: a provider
// selector byte, a process byte, a u16 length, then that many bytes of
// user data (envelope and chunk).
var fuzzProviders = [3]uuid.UUID{provA, provB, uuid.MustParse("8e9f5090-2d75-4d03-8a81-e5afbf85daf1")}

func frame(dst []byte, provider, pid uint8, userData []byte) []byte {
	dst = append(dst, provider, pid)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(userData)))
	return append(dst, userData...)
}

// cutSeed cuts a manifest into chunks of size and frames them, last first.
func cutSeed(m []byte, size int) []byte {
	n := (len(m) + size - 1) / size
	var out []byte
	for j := n - 1; j >= 0; j-- {
		out = frame(out, 1, 1, envelope(uint16(n), uint16(j), string(m[j*size:min(len(m), (j+1)*size)])))
	}
	return out
}

func FuzzAssemble(f *testing.F) {
	f.Add(frame(nil, 0, 0, envelope(1, 0, `<instrumentationManifest><provider name="A"/></instrumentationManifest>`)))
	f.Add(frame(frame(frame(nil, 0, 0, envelope(2, 1, `der name="A"/></m>`)), 1, 0, envelope(1, 0, "<m/>")), 0, 0, envelope(2, 0, `<m><provi`)))
	f.Add(frame(frame(nil, 2, 3, envelope(3, 0, "a")), 2, 3, envelope(3, 0, "b")))
	if samples.Dir() != "" {
		for _, name := range []string{"net452-x64-merged-compressed.etl", "diaghub-user-paged.etl"} {
			for _, c := range sampleChunks(f, name) {
				// The head of each real manifest (its provider element),
				// in small chunks: large inputs slow every step of the
				// fuzzer, minimizing above all.
				f.Add(cutSeed(c.Data[:min(len(c.Data), 640)], 160))
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var a eventsource.Assembler
		for len(b) >= 4 {
			sel, pid := b[0], b[1]
			n := int(binary.LittleEndian.Uint16(b[2:]))
			b = b[4:]
			if n > len(b) {
				n = len(b)
			}
			ud := b[:n]
			b = b[n:]
			env, data, err := eventsource.ParseEnvelope(ud)
			if err != nil {
				if !errors.Is(err, eventsource.ErrEnvelope) || !errors.Is(err, buffer.ErrMalformed) {
					t.Fatalf("envelope error %v", err)
				}
				continue
			}
			c := eventsource.Chunk{Provider: fuzzProviders[int(sel)%len(fuzzProviders)], ProcessID: uint32(pid), Envelope: env, Data: data}
			m, done, err := a.Add(c)
			if err != nil {
				t.Fatalf("a parsed envelope refused: %v", err)
			}
			if done {
				if len(m) < len(data) {
					t.Fatalf("manifest of %d bytes from a last chunk of %d", len(m), len(data))
				}
				if _, err := eventsource.ProviderOf(m); err != nil && !errors.Is(err, buffer.ErrMalformed) {
					t.Fatalf("provider error %v", err)
				}
			}
		}
		for _, p := range a.Pending() {
			if p.Have <= 0 || p.Have >= p.Total {
				t.Fatalf("pending manifest with %d of %d chunks", p.Have, p.Total)
			}
		}
	})
}
