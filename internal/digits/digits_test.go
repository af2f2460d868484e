package digits

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// numbers are the edges of every digit count (9…9, 10…0, 10…01), and
// random values of every bit length.
func numbers() []uint64 {
	xs := []uint64{0, math.MaxUint32, math.MaxInt64, 1 << 63, math.MaxUint64}
	for n := 1; n <= 20; n++ {
		for _, s := range []string{strings.Repeat("9", n), "1" + strings.Repeat("0", n-1), "1" + strings.Repeat("0", max(n-2, 0)) + "1"} {
			if x, err := strconv.ParseUint(s, 10, 64); err == nil {
				xs = append(xs, x)
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for bits := range 64 {
		for range 30 {
			xs = append(xs, rng.Uint64()>>bits)
		}
	}
	return xs
}

func TestAppendDecimalMatchesStrconv(t *testing.T) {
	prefix := []byte("x=")
	for _, x := range numbers() {
		if got, want := string(AppendDecimal(prefix, x)), "x="+strconv.FormatUint(x, 10); got != want {
			t.Fatalf("AppendDecimal(%d) = %q, want %q", x, got, want)
		}
		if got, want := string(AppendInt(prefix, int64(x))), "x="+strconv.FormatInt(int64(x), 10); got != want {
			t.Fatalf("AppendInt(%d) = %q, want %q", int64(x), got, want)
		}
	}
}

func TestHex8MatchesFmt(t *testing.T) {
	for _, x := range numbers() {
		w := uint32(x)
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], w)
		var out [8]byte
		binary.LittleEndian.PutUint64(out[:], Hex8(w, false))
		if got, want := string(out[:]), fmt.Sprintf("%x", b); got != want {
			t.Fatalf("Hex8(%#x, false) = %q, want %q", w, got, want)
		}
		binary.LittleEndian.PutUint64(out[:], Hex8(w, true))
		if got, want := string(out[:]), fmt.Sprintf("%X", b); got != want {
			t.Fatalf("Hex8(%#x, true) = %q, want %q", w, got, want)
		}
	}
}

func TestCounted(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Counted(0, "record", "records"), "0 records"},
		{Counted(1, "record", "records"), "1 record"},
		{Counted(2, "record", "records"), "2 records"},
		{Counted(int64(1), "byte", "bytes"), "1 byte"},
		{Counted(uint32(4294967295), "chunk", "chunks"), "4294967295 chunks"},
		{Counted(-3, "x", "xs"), "-3 xs"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
