package wpp_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/schema/wpp"
)

// FuzzParseTMF: any text parses without a panic into messages that decode
// and render any bytes.
func FuzzParseTMF(f *testing.F) {
	f.Add([]byte(grammarTMF))
	f.Add([]byte(typesTMF))
	f.Add([]byte(pdbEntries))
	f.Add([]byte("x\n#typev a 1 \"%0 %10!-08.3I64X! %!A! %%%n%1!s!\" // A=b FUNC=c d\n{\ne, ItemSetByte(a,b=3) -- 10\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tf := wpp.ParseTMF(data, "fuzz.tmf")
		for _, m := range tf.Messages {
			if len(m.Args) > wpp.MaxArgs {
				t.Fatalf("%d arguments", len(m.Args))
			}
			for _, a := range m.Args {
				if len(a.Labels) > wpp.MaxLabels {
					t.Fatalf("%d labels", len(a.Labels))
				}
			}
			p := &wpp.Prefix{CPU: 3, Time: time.Unix(0, 0)}
			for _, args := range [][]byte{nil, data} {
				vals, _ := m.Decode(nil, args, 8)
				m.AppendText(nil, vals, p)
				m.AppendLine(nil, vals, p, nil)
			}
		}
		s := wpp.NewSet()
		s.AddFile(tf)
		if s.Len() > len(tf.Messages) {
			t.Fatalf("set of %d from %d messages", s.Len(), len(tf.Messages))
		}
	})
}

// FuzzParsePDB: any bytes give messages or an error, never a panic.
func FuzzParsePDB(f *testing.F) {
	f.Add(smallPDB(f, 512))
	f.Add(smallPDB(f, 1024)[:3000])
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := wpp.ParsePDB(bytes.NewReader(data), int64(len(data)), "fuzz.pdb")
		if err != nil {
			var pe *wpp.PDBError
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(pf.Messages) == 0 && len(pf.Controls) == 0 {
			t.Fatal("no messages and no error")
		}
		for _, m := range pf.Messages {
			vals, _ := m.Decode(nil, data, 4)
			m.AppendText(nil, vals, nil)
		}
	})
}

// FuzzDecode: any argument bytes decode against every message of the
// types TMF without a panic; the values hold only bytes of the record,
// every argument or the error says why not, and they render.
func FuzzDecode(f *testing.F) {
	set := wpp.NewSet()
	tf := wpp.ParseTMF([]byte(typesTMF), "types.tmf")
	set.AddFile(tf)
	for _, c := range typesCases {
		f.Add(c.number, c.args(8), true)
		f.Add(c.number, c.args(4), false)
	}
	f.Add(uint16(20), []byte{1, 2, 3, 4, 5}, true)
	f.Fuzz(func(t *testing.T, number uint16, args []byte, ptr64 bool) {
		m := set.Lookup(typesGUID, 10+number%11)
		ptr := 4
		if ptr64 {
			ptr = 8
		}
		vals, err := m.Decode(make([]payload.Value, 0, 2), args, ptr)
		used := 0
		for _, v := range vals {
			used += len(v.Raw())
		}
		if used > len(args) {
			t.Fatalf("values hold %d bytes of %d", used, len(args))
		}
		if err == nil && len(vals) != len(m.Args) {
			t.Fatalf("%d values of %d arguments and no error", len(vals), len(m.Args))
		}
		if len(vals) > len(m.Args)+1 {
			t.Fatalf("%d values of %d arguments", len(vals), len(m.Args))
		}
		p := &wpp.Prefix{PointerSize: ptr, CPU: 1}
		line := m.AppendLine(nil, vals, p, nil)
		payload.AppendJSONObject(nil, vals)
		// The line from the described values, which hold the text, is
		// the line rendered from the arguments.
		var text []byte
		described, _ := m.Values(nil, &text, args, ptr, p)
		if got := m.AppendLine(nil, described, p, nil); !bytes.Equal(got, line) {
			t.Fatalf("line from the text %q, from the arguments %q", got, line)
		}
		if !bytes.Equal(text, m.AppendText(nil, vals, p)) {
			t.Fatalf("text %q, rendered %q", text, m.AppendText(nil, vals, p))
		}
	})
}
