// Package seeds gathers fuzz seeds from the committed synthetic traces and,
// when present, the shared real samples.
package seeds

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
)

// MaxFileSeed bounds a whole-file seed so that fuzzing stays quick; larger
// traces contribute their first bytes.
const MaxFileSeed = 64 << 10

func repoDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// TracePaths lists testdata/etl traces and the shared .etl samples.
func TracePaths() []string {
	var out []string
	m, _ := filepath.Glob(filepath.Join(repoDir(), "testdata", "etl", "*.etl"))
	out = append(out, m...)
	if d := samples.Dir(); d != "" {
		m, _ := filepath.Glob(filepath.Join(d, "*.etl"))
		out = append(out, m...)
	}
	sort.Strings(out)
	return out
}

// Files returns the head (at most MaxFileSeed bytes) of every trace.
func Files() [][]byte {
	var out [][]byte
	for _, p := range TracePaths() {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(f, MaxFileSeed))
		f.Close()
		out = append(out, b)
	}
	return out
}

// Records returns up to perType raw records of each header type found in the
// buffers of every trace, compressed ones included.
func Records(perType int) [][]byte {
	var out [][]byte
	seen := map[header.Type]int{}
	var buf buffer.Buffer
	for _, f := range Files() {
		w := buffer.NewWalker(bytes.NewReader(f), int64(len(f)))
		for {
			err := w.Next(&buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				continue
			}
			recs := buf.Records()
			for pos := 0; pos < len(recs); {
				p, stop, err := header.ParsePrefix(recs[pos:])
				if stop || err != nil {
					break
				}
				if seen[p.Type] < perType {
					seen[p.Type]++
					out = append(out, bytes.Clone(recs[pos:pos+p.Size]))
				}
				pos += header.Align(p.Size)
			}
		}
	}
	return out
}
