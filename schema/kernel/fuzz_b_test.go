package kernel_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/kernel"
)

// fuzzClasses are the class GUIDs of the classic events LookupRecord
// knows; index 0 stands for a kernel record.
var fuzzClasses = []uuid.UUID{uuid.Nil, uuid.MustParse("9b79ee91-b5fd-41c0-a243-4248e266e9d0"), kernel.MMCSSTask,
	kernel.MUITask, kernel.ImageIDTask}

// fuzzRecord builds the record FuzzKernelRecordB decodes: a PERFINFO
// record with the HookId, or a FULL_HEADER one of a class of fuzzClasses
// with the HookId's low byte as its type.
func fuzzRecord(r *record.Record, buf []byte, data []byte, hook uint16, version uint8, ps64 bool, class uint8) error {
	var b []byte
	if c := fuzzClasses[int(class)%len(fuzzClasses)]; c != uuid.Nil {
		b = append(buf[:0], make([]byte, header.EventTraceHeaderSize)...)
		b[2], b[3], b[4] = byte(header.TypeFull32), 0xC0, uint8(hook)
		if ps64 {
			b[2] = byte(header.TypeFull64)
		}
		binary.LittleEndian.PutUint16(b[6:], uint16(version))
		binary.LittleEndian.PutUint32(b[0x18:], binary.BigEndian.Uint32(c[0:]))
		binary.LittleEndian.PutUint16(b[0x1C:], binary.BigEndian.Uint16(c[4:]))
		binary.LittleEndian.PutUint16(b[0x1E:], binary.BigEndian.Uint16(c[6:]))
		copy(b[0x20:], c[8:])
		if len(data) > header.MaxRecordSize-len(b) {
			data = data[:header.MaxRecordSize-len(b)]
		}
		b = append(b, data...)
		binary.LittleEndian.PutUint16(b, uint16(len(b)))
	} else {
		b = append(buf[:0], make([]byte, 0x10)...)
		b[0], b[2], b[3] = version, byte(header.TypePerfInfo32), 0xC0
		if ps64 {
			b[2] = byte(header.TypePerfInfo64)
		}
		binary.LittleEndian.PutUint16(b[6:], hook)
		binary.LittleEndian.PutUint64(b[8:], 1<<40)
		if len(data) > header.MaxRecordSize-len(b) {
			data = data[:header.MaxRecordSize-len(b)]
		}
		b = append(b, data...)
		binary.LittleEndian.PutUint16(b[4:], uint16(len(b)))
	}
	p, _, err := header.ParsePrefix(b)
	if err != nil {
		return err
	}
	return record.Decode(r, b, p, 0, &record.Context{Clock: &testClock})
}

// FuzzKernelRecordB decodes hostile payloads with the class of any kernel
// group, opcode and version, or of a classic event found by class GUID,
// runs the fields computed from the record and renders the values: a
// decode error names an offset inside the payload, values never hold more
// than the payload, and nothing panics. Seeds: payloads of every kernel
// and classic record of the merged .NET and diagnostics hub samples (a few
// per event and version), and hand-built ones.
func FuzzKernelRecordB(f *testing.F) {
	f.Add(newPB(8).u32(1).u32(0x60043).u32(16384).u32(0).u64(849788928).ptr(1).ptr(2).u64(258208).u32(44).b, uint16(0x010A), uint8(3), true, uint8(0))
	f.Add(newPB(4).u32(4).u32(84).v6().be16(445).be16(64025).u32(3).ptr(5).b, uint16(0x061B), uint8(2), false, uint8(0))
	f.Add(newPB(8).u64(990_000).u32(0).u32(0).ptr(3).w("Version").b, uint16(0x0910), uint8(2), true, uint8(0))
	f.Add(newPB(8).guid("4d36e97d-e325-11ce-bfc1-08002be10318").u32(2).u32(1).u32(0).u32(0).w("a").w("b").w("").w("c").w("d").
		w("u1").w("u2").w("l1").b, uint16(0x0B16), uint8(5), true, uint8(0))
	f.Add(newPB(8).u64(116444736000000000).w("9200").w("Windows 8").b, uint16(32), uint8(0), true, uint8(1))
	f.Add(newPB(4).u64(1).u32(2).u32(3).u32(0).ptr(1).ptr(2).ptr(3).b, uint16(0x0C20), uint8(2), false, uint8(0))
	if samples.Dir() != "" {
		for _, name := range []string{"net452-x64-merged-compressed.etl", "diaghub-kernel.etl"} {
			addSampleSeeds(f, filepath.Join(samples.Dir(), name))
		}
	}
	var (
		r    record.Record
		buf  []byte
		vals []payload.Value
		out  []byte
	)
	f.Fuzz(func(t *testing.T, data []byte, hook uint16, version uint8, ps64 bool, class uint8) {
		if err := fuzzRecord(&r, buf, data, hook, version, ps64, class); err != nil {
			return
		}
		buf = r.Raw[:0]
		e, _, ok := kernel.LookupRecord(&r)
		if !ok || e.Payload == nil {
			return
		}
		before := bytes.Clone(r.UserData)
		var err error
		vals, err = e.Payload.Decode(r.UserData, r.PointerSize(), vals[:0])
		if err != nil && !payload.IsTrailing(err) {
			var de *payload.DecodeError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > len(r.UserData) {
				t.Fatalf("%s: error %v does not name an offset in the %d-byte payload", e.Name, err, len(r.UserData))
			}
			if len(vals) != 0 {
				t.Fatalf("%s: error %v with %d values", e.Name, err, len(vals))
			}
			return
		}
		if e.Computed != nil {
			vals = e.Computed(&r, vals)
		}
		out = payload.AppendJSONObject(out[:0], vals)
		out = payload.AppendTextFields(out, vals, " ")
		if !bytes.Equal(before, r.UserData) {
			t.Fatalf("%s: decoding changed the payload", e.Name)
		}
		for i := range vals {
			if raw := vals[i].Raw(); len(raw) > len(r.UserData) {
				t.Fatalf("%s: value %d holds %d bytes of a %d-byte payload", e.Name, i, len(raw), len(r.UserData))
			}
		}
	})
}

// addSampleSeeds adds the payloads of up to three records per event and
// version of a sample.
func addSampleSeeds(f *testing.F, path string) {
	if _, err := os.Stat(path); err != nil {
		return
	}
	file, err := etl.Open(path)
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	type kind struct {
		hook    uint16
		version uint8
		class   uint8
	}
	seen := map[kind]int{}
	for r, err := range file.Records() {
		if err != nil {
			f.Fatal(err)
		}
		k := kind{hook: r.HookId, version: r.EventDescriptor.Version}
		if !r.HeaderType.IsKernel() {
			k.hook = uint16(r.EventDescriptor.Opcode)
			for i, c := range fuzzClasses[1:] {
				if r.ProviderId == c {
					k.class = uint8(i + 1)
				}
			}
			if k.class == 0 {
				continue
			}
		}
		if seen[k]++; seen[k] > 3 {
			continue
		}
		f.Add(bytes.Clone(r.UserData), k.hook, k.version, r.PointerSize() == 8, k.class)
	}
}
