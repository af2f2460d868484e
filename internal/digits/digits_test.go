package digits

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// numbers are the edges of every digit count, and a spread between them.
func numbers() []uint64 {
	xs := []uint64{0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, math.MaxUint32, math.MaxInt64, 1 << 63, math.MaxUint64}
	for p := uint64(10); p <= 1e19; p *= 10 {
		xs = append(xs, p-1, p, p+1)
		if p > math.MaxUint64/10 {
			break
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		xs = append(xs, rng.Uint64()>>rng.IntN(64))
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
