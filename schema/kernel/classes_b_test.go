package kernel

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/payload"
)

// groupsB are the groups of diskio.go … wnf.go.
var groupsB = map[uint8]bool{
	groupDiskIo: true, groupFileIo: true, groupTcpIp: true, groupUdpIp: true, groupRegistry: true, groupALPC: true,
	groupSystemConfig: true, groupSplitIo: true, groupObject: true, groupPool: true, groupHeap: true, groupPower: true,
	groupDbgPrint: true, groupCritSec: true, groupThreadPool: true, groupWnf: true, groupUms: true, groupLbr: true,
}

// synthesize writes a payload for fields with pointers of size ps: every
// integer 2 (so that counts are 2), every string "ab", arrays of their
// count or of 2 elements.
func synthesize(b []byte, fs []payload.Field, ps int) []byte {
	for i := range fs {
		f := &fs[i]
		n := 1
		switch f.Arity {
		case payload.FixedCount:
			n = int(f.Count)
		case payload.CountFromField, payload.CountToEnd:
			n = 2
		}
		for ; n > 0; n-- {
			b = synthesizeOne(b, f, ps)
		}
	}
	return b
}

func synthesizeOne(b []byte, f *payload.Field, ps int) []byte {
	le := binary.LittleEndian
	switch f.InType {
	case payload.InStruct:
		return synthesize(b, f.Members, ps)
	case payload.InInt8, payload.InUInt8:
		return append(b, 2)
	case payload.InInt16, payload.InUInt16:
		return le.AppendUint16(b, 2)
	case payload.InInt32, payload.InUInt32, payload.InHexInt32, payload.InBoolean, payload.InFloat:
		return le.AppendUint32(b, 2)
	case payload.InInt64, payload.InUInt64, payload.InHexInt64, payload.InFileTime, payload.InDouble:
		return le.AppendUint64(b, 2)
	case payload.InPointer, payload.InSizeT:
		if ps == 4 {
			return le.AppendUint32(b, 2)
		}
		return le.AppendUint64(b, 2)
	case payload.InWBEMSID:
		return le.AppendUint32(b, 0)
	case payload.InGUID, payload.InSystemTime:
		return append(b, make([]byte, 16)...)
	case payload.InBinary:
		if f.Length == 0 && f.OutType == payload.OutIPv6 {
			return append(b, make([]byte, 16)...)
		}
		return append(b, make([]byte, f.Length)...)
	case payload.InAnsiString:
		return append(b, 'a', 'b', 0)
	case payload.InUnicodeString:
		if f.FixedLength {
			s := make([]byte, 2*int(f.Length))
			copy(s, "a\x00b\x00")
			return append(b, s...)
		}
		return append(b, 'a', 0, 'b', 0, 0, 0)
	}
	panic("synthesize: in-type " + f.InType.String())
}

// TestClassesB checks every class of groupsB, and the classic events shown
// under the kernel's name: each has an event name; a payload written for
// its fields decodes completely at both pointer sizes; and every shorter
// payload gives a decode error, stops before an optional field, or holds
// fewer elements of an array that fills the payload.
func TestClassesB(t *testing.T) {
	buildIndex()
	n := 0
	for _, c := range classes {
		if !groupsB[c.group] {
			continue
		}
		n++
		for _, op := range c.opcodes {
			assert.NotEmpty(t, EventName(c.group, op), "%s opcode %d", c.name, op)
		}
		e, exact, _ := Lookup(c.group, c.opcodes[0], c.version)
		require.True(t, exact, c.name)
		checkSchema(t, c.name, e.Payload)
	}
	assert.Equal(t, 185, n, "classes of groupsB")
	kernelClassic := 0
	for _, c := range classic {
		for _, e := range c.events {
			if e == nil || e.Provider != ProviderName {
				continue
			}
			kernelClassic++
			assert.NotEmpty(t, e.Name)
			if e.Payload != nil {
				checkSchema(t, e.Name, e.Payload)
			}
		}
	}
	assert.Equal(t, 4+6+1, kernelClassic, "SysConfig, MMCSS and MUI events")
}

func checkSchema(t *testing.T, name string, s *payload.Schema) {
	t.Helper()
	var vals []payload.Value
	for _, ps := range []int{4, 8} {
		full := synthesize(nil, s.Fields, ps)
		vals, err := s.Decode(full, ps, vals[:0])
		require.NoError(t, err, "%s ps%d", name, ps)
		require.Len(t, vals, len(s.Fields), "%s ps%d", name, ps)
		for k := 0; k < len(full); k++ {
			cut := full[:k:k]
			vals, err = s.Decode(cut, ps, vals[:0])
			switch {
			case err != nil:
			case len(vals) < len(s.Fields):
				assert.True(t, s.Fields[len(vals)].Optional, "%s ps%d: stops at %d bytes before a required field", name, ps, k)
			default:
				// Fewer elements of an array that fills the payload.
				assert.Equal(t, payload.CountToEnd, s.Fields[len(s.Fields)-1].Arity, "%s ps%d: %d of %d bytes decode",
					name, ps, k, len(full))
			}
		}
	}
}
