package buffer_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/internal/seeds"
)

// FuzzWalk walks arbitrary bytes as an ETL file: no panic, every buffer's
// data lies inside its stated size, errors are FormatErrors with an offset
// inside the input, and the walk ends within two steps per 0x48 input bytes
// (a damaged header, then the buffer found after it).
// A HeadersOnly walk gives the same with headers read ahead as without.
func FuzzWalk(f *testing.F) {
	for _, b := range seeds.SmallFiles() {
		f.Add(b, uint32(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, session uint32) {
		sameWalk(t, in, session)
		w := buffer.NewWalker(bytes.NewReader(in), int64(len(in)))
		w.SessionBufferSize = session
		var b buffer.Buffer
		steps := 0
		for {
			steps++
			if steps > 2*len(in)/buffer.HeaderSize+3 {
				t.Fatalf("walk did not end after %d steps over %d bytes", steps, len(in))
			}
			err := w.Next(&b)
			if err == io.EOF {
				return
			}
			if err != nil {
				var fe *buffer.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a FormatError", err)
				}
				if fe.Offset < 0 || fe.Offset > int64(len(in)) {
					t.Fatalf("error offset 0x%x outside the %d-byte input", fe.Offset, len(in))
				}
				continue
			}
			if !b.Compressed() && len(b.Data) > int(b.BufferSize) {
				t.Fatalf("buffer data %d bytes beyond BufferSize %d", len(b.Data), b.BufferSize)
			}
		}
	})
}
