package payload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
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

func TestAppendDecimalMatchesStrconv(t *testing.T) {
	prefix := []byte("x=")
	for _, x := range numbersToRender() {
		if got, want := string(appendDecimal(prefix, x)), "x="+strconv.FormatUint(x, 10); got != want {
			t.Fatalf("appendDecimal(%d) = %q, want %q", x, got, want)
		}
		if got, want := string(appendDecimalInt(prefix, int64(x))), "x="+strconv.FormatInt(int64(x), 10); got != want {
			t.Fatalf("appendDecimalInt(%d) = %q, want %q", int64(x), got, want)
		}
	}
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
