package seeds

import (
	"bytes"
	"os"
	"testing"

	"github.com/etlkit/etlkit/buffer"
)

// TestSmallFiles: every small seed is within its bound, and one cut down
// from a larger trace walks as a trace of whole buffers, most of them more
// than one.
func TestSmallFiles(t *testing.T) {
	cut, multi := 0, 0
	for _, p := range TracePaths() {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		f := smallFile(p)
		if len(f) > MaxSmallFile {
			t.Fatalf("%s: seed of %d bytes", p, len(f))
		}
		if st.Size() <= MaxSmallFile || len(f) == 0 {
			continue
		}
		cut++
		w := buffer.NewWalker(bytes.NewReader(f), int64(len(f)))
		var b buffer.Buffer
		n := 0
		for w.Next(&b) == nil {
			if b.Truncated {
				t.Fatalf("%s: buffer %d cut short", p, b.Index)
			}
			n++
		}
		if n > 1 {
			multi++
		}
	}
	if cut == 0 || multi < cut/2 {
		t.Fatalf("only %d of %d seeds cut from larger traces hold more than one buffer", multi, cut)
	}
}
