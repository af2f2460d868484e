package payload

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/etlkit/etlkit/header"
)

// numbersToRender are the edges of every digit count and width, and a
// spread of values between them.
func numbersToRender() []uint64 {
	xs := []uint64{0, 1, 9, 10, 99, 100, math.MaxUint32, math.MaxUint64, math.MaxInt64, 1 << 63}
	for p := uint64(1); p <= 1e19 && p != 0; p *= 10 {
		xs = append(xs, p-1, p, p+1)
		if p > math.MaxUint64/10 {
			break
		}
	}
	for i := range 64 {
		xs = append(xs, 1<<i, 1<<i-1)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		xs = append(xs, rng.Uint64()>>rng.IntN(64))
	}
	return xs
}

func TestAppendHexMatchesFmt(t *testing.T) {
	prefix := []byte("x=")
	for _, x := range numbersToRender() {
		for _, digits := range []int{0, 1, 8, 12, 16, 20} {
			want := fmt.Sprintf("x=0x%0*X", min(digits, 16), x)
			if got := string(appendHex(prefix, x, digits)); got != want {
				t.Fatalf("appendHex(%#x, %d) = %q, want %q", x, digits, got, want)
			}
		}
	}
}

// The runs of plain characters that the string appenders copy at a time
// give what writing one rune at a time gives, in JSON and in text, for
// UTF-16 strings of every mix of plain, escaped and non-ASCII units at
// every alignment.
func TestUTF16RunsMatchRuneByRune(t *testing.T) {
	alphabet := []uint16{'a', 'Z', ' ', '~', '"', '\\', 0x7F, 0x1F, '\n', 0, 0xE9, 0x20AC, 0xD83D, 0xDE00, 0xDC00, '/'}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 4000 {
		units := make([]uint16, rng.IntN(40))
		for i := range units {
			if rng.IntN(4) == 0 {
				units[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				units[i] = uint16('a' + rng.IntN(26))
			}
		}
		if n%7 == 0 {
			for i := range units {
				units[i] = uint16('A' + i%26) // all plain
			}
		}
		raw := make([]byte, 2*len(units))
		for i, u := range units {
			raw[2*i], raw[2*i+1] = byte(u), byte(u>>8)
		}
		it := runeIter{b: raw, utf16: true}
		want := []byte{'"'}
		for r, ok := it.next(); ok; r, ok = it.next() {
			want = appendJSONRune(want, r)
		}
		want = append(want, '"')
		if got := appendJSONString(nil, runeIter{b: raw, utf16: true}); string(got) != string(want) {
			t.Fatalf("JSON of %x: %q, want %q", units, got, want)
		}
		it = runeIter{b: raw, utf16: true}
		want = want[:0]
		for r, ok := it.next(); ok; r, ok = it.next() {
			want = appendTextRune(want, r)
		}
		v := Value{kind: KindString, flags: flagUTF16, raw: raw}
		if got := v.appendStringText(nil); string(got) != string(want) {
			t.Fatalf("text of %x: %q, want %q", units, got, want)
		}
	}
}

// A payload decodes to the same values, or fails the same way, whether
// its leading numbers are read as a run at fixed offsets or one field at
// a time.
func TestNumberRunMatchesFieldByField(t *testing.T) {
	numberTypes := []InType{InInt8, InUInt8, InInt16, InUInt16, InInt32, InUInt32, InInt64, InUInt64,
		InFloat, InDouble, InBoolean, InPointer, InSizeT, InFileTime, InHexInt32, InHexInt64}
	rng := rand.New(rand.NewPCG(5, 6))
	for n := range 3000 {
		var fields []Field
		for i := range 1 + rng.IntN(8) {
			f := Field{Name: fmt.Sprintf("F%d", i), InType: numberTypes[rng.IntN(len(numberTypes))]}
			switch rng.IntN(12) {
			case 0:
				f.OutType = OutBoolean // a UInt8 Boolean ends the run
			case 1:
				f.InType = InUnicodeString
			case 2:
				f.Optional = i > 0
			}
			fields = append(fields, f)
		}
		if n%5 == 0 {
			// A count field, referred to, ends the run too.
			fields = append(fields, Field{Name: "Count", InType: InUInt16},
				Field{Name: "Items", InType: InUInt32, Arity: CountFromField, CountField: "Count"})
		}
		for i := range fields {
			if fields[i].Optional && i+1 < len(fields) && !fields[i+1].Optional {
				fields[i].Optional = false // only trailing fields can be optional
			}
		}
		s, err := NewSchema("E", fields)
		if err != nil {
			continue
		}
		one := *s
		one.numbers = [2]numberRun{}
		payload := make([]byte, rng.IntN(70))
		for i := range payload {
			payload[i] = byte(rng.Uint32())
		}
		for _, ptr := range []int{4, 8, 3} {
			got, gotErr := s.Decode(payload, ptr, nil)
			want, wantErr := one.Decode(payload, ptr, nil)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("%v, %d-byte pointers, payload %x: error %v, field by field %v", fields, ptr, payload, gotErr, wantErr)
			}
			if len(got) != len(want) {
				t.Fatalf("%v, payload %x: %d values, field by field %d", fields, payload, len(got), len(want))
			}
			for i := range got {
				if got[i].field != want[i].field || got[i].kind != want[i].kind || got[i].flags != want[i].flags ||
					got[i].num != want[i].num || string(got[i].raw) != string(want[i].raw) || string(got[i].AppendJSON(nil)) != string(want[i].AppendJSON(nil)) {
					t.Fatalf("%v, %d-byte pointers, payload %x: value %d is %+v, field by field %+v", fields, ptr, payload, i, got[i], want[i])
				}
			}
		}
	}
}

// Times read as time.Format reads them with the layout, across the years a
// FILETIME and a SYSTEMTIME hold.
func TestTimeTextMatchesFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	fts := []uint64{0, 1, 9999999, 1e7, 116444736000000000, 133500000000000001, 2650467743999999999, math.MaxInt64, math.MaxUint64}
	for range 5000 {
		fts = append(fts, rng.Uint64()>>rng.IntN(8))
	}
	for _, ft := range fts {
		tm := header.UnsignedFileTimeToTime(ft)
		if got, want := string(AppendTime([]byte("x"), tm)), "x"+tm.Format(timeLayout); got != want {
			t.Fatalf("FILETIME %d: %q, want %q", ft, got, want)
		}
	}
	for _, tm := range []time.Time{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 29, 1, 2, 3, 4000500, time.FixedZone("X", 3600))} {
		if got, want := string(AppendTime([]byte("x"), tm)), "x"+tm.UTC().Format(timeLayout); got != want {
			t.Fatalf("%v: %q, want %q", tm, got, want)
		}
	}
	// Every day over four centuries, so that each leap rule is crossed.
	for d := time.Date(1800, 1, 1, 5, 6, 7, 100, time.UTC); d.Year() < 2200; d = d.AddDate(0, 0, 1) {
		if got, want := string(AppendTime(nil, d)), d.Format("2006-01-02T15:04:05.0000000Z"); got != want {
			t.Fatalf("%v: %q, want %q", d, got, want)
		}
	}
}

func TestHexBytesMatchesEncoding(t *testing.T) {
	b := make([]byte, 70)
	for i := range b {
		b[i] = byte(i*37 + 11)
	}
	for n := range len(b) {
		want := ""
		if n > 0 {
			want = "0x" + strings.ToUpper(hex.EncodeToString(b[:n]))
		}
		if got := string(appendHexBytes([]byte("x"), b[:n])); got != "x"+want {
			t.Fatalf("%d bytes: %q, want %q", n, got, "x"+want)
		}
	}
}

func TestNulUTF16MatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		p := make([]byte, rng.IntN(40))
		for i := range p {
			if rng.IntN(6) != 0 {
				p[i] = byte(1 + rng.IntN(255))
			}
		}
		from := 0
		if len(p) > 0 {
			from = rng.IntN(len(p))
		}
		want := -1
		for i := from; i+1 < len(p); i += 2 {
			if p[i] == 0 && p[i+1] == 0 {
				want = i
				break
			}
		}
		if got := nulUTF16(p, from); got != want {
			t.Fatalf("nulUTF16(%x, %d) = %d, want %d", p, from, got, want)
		}
	}
}
