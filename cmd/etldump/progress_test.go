package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/record"
)

func TestProgressNeverOnAPipeUnlessAsked(t *testing.T) {
	// auto decides on the stream itself: a pipe and a regular file are not
	// terminals, and neither is a writer that is not a file.
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	defer pw.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer file.Close()
	for _, w := range []io.Writer{pw, file, &bytes.Buffer{}} {
		assert.False(t, newProgress("auto", w, nil, true).on, "%T", w)
		assert.False(t, newProgress("never", w, nil, true).on, "%T", w)
		assert.True(t, newProgress("always", w, nil, true).on, "%T", w)
	}
}

func TestProgressLine(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	out, _, code := runCmd(t, "--count", path)
	require.Equal(t, 0, code)
	require.Equal(t, "179474\n", out)

	// Replay the bar on a fake clock over a real iteration, in both ways
	// of measuring: by time in time order, by bytes in file order.
	for _, mode := range []string{"time", "file"} {
		o, _, err := parseOptions([]string{"--count", "--progress", "always", "--order", mode, path})
		require.NoError(t, err)
		var errb bytes.Buffer
		d := &dumper{opts: o, stderr: &errb}
		now := time.Unix(0, 0)
		d.open()
		require.Len(t, d.inputs, 1)
		p := newProgress("always", &errb, d.inputs, mode == "time")
		p.now = func() time.Time { return now }
		p.start, p.last = now, now
		d.progress = p
		n := 0
		d.each(func(*record.Record) bool { n++; now = now.Add(time.Millisecond); return true })
		d.closeInputs()
		assert.Equal(t, 179474, n)
		lines := strings.Split(errb.String(), "\r")
		require.Greater(t, len(lines), 2, "the bar was never drawn")
		mid := lines[len(lines)/2]
		assert.Regexp(t, `^\[#*-*\] +\d+% [\d.]+ [KM]iB of 4\.7 MiB  \d+k records/s  \d+:\d\d left\x1b\[K$`, mid, mode)
		assert.NotContains(t, mid, "100%", "%s: halfway through the bar is not full", mode)
		last := lines[len(lines)-1]
		assert.Regexp(t, `^\[#{20,}-*\] +(8\d|9\d|100)% `, last, mode)
		p.finish()
		assert.True(t, strings.HasSuffix(errb.String(), "\r\x1b[K"), "finish clears the line")
	}
}
