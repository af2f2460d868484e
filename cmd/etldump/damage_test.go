package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/internal/samples"
)

// countRun runs --count and returns the count, stderr and the exit status.
func countRun(t *testing.T, args ...string) (int, string, int) {
	t.Helper()
	out, errs, code := runCmd(t, append([]string{"--count"}, args...)...)
	n, err := strconv.Atoi(strings.TrimSpace(out))
	require.NoError(t, err, "output %q, stderr %q", out, errs)
	return n, errs, code
}

// TestDamagedBufferHeaderExitsOne: a garbage BufferSize in the middle of a
// real trace costs that buffer's records, in both orders; the run ends
// with status 1 and a message that gives the damaged buffer's offset and
// the bytes skipped and the records they held.
func TestDamagedBufferHeaderExitsOne(t *testing.T) {
	path := samples.Path(t, "win10-explorer-startup.etl")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	const bufferSize, k = 0x2000, 10
	off := int64(k * bufferSize)
	require.Equal(t, uint32(bufferSize), binary.LittleEndian.Uint32(data[off:]))
	whole, _, code := countRun(t, path)
	require.Equal(t, exitOK, code)
	binary.LittleEndian.PutUint32(data[off:], 0xDEADBEEF)
	damaged := filepath.Join(t.TempDir(), "damaged.etl")
	require.NoError(t, os.WriteFile(damaged, data, 0o644))
	for _, order := range []string{"time", "file"} {
		n, errs, code := countRun(t, "--order", order, damaged)
		assert.Equal(t, exitDamaged, code, order)
		assert.Less(t, n, whole, order)
		assert.Greater(t, n, whole*8/10, order)
		assert.Regexp(t, `^etldump: `+regexp.QuoteMeta(damaged)+fmt.Sprintf(`: offset 0x%x: damaged: 1 buffer skipped \(it held %d records\); %d records read; first: buffer %d: buffer header not plausible: BufferSize 0xdeadbeef .*; bytes 0x%x to 0x%x \(0x%x\) skipped, which held %d records\n$`,
			off, whole-n, n, k, off, off+bufferSize, bufferSize, whole-n), errs, order)
	}
}

// TestTruncatedGzipExitsOne: a gzip input cut short prints the records of
// what unwrapped, and says where its content broke off.
func TestTruncatedGzipExitsOne(t *testing.T) {
	path := samples.Path(t, "shutdown-kernel.etl")
	plain, err := os.ReadFile(path)
	require.NoError(t, err)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, err = w.Write(plain)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	cut := filepath.Join(t.TempDir(), "cut.etl.gz")
	require.NoError(t, os.WriteFile(cut, gz.Bytes()[:gz.Len()/2], 0o644))
	whole, _, _ := countRun(t, path)
	n, errs, code := countRun(t, cut)
	assert.Equal(t, exitDamaged, code)
	assert.Greater(t, n, whole/4)
	assert.Less(t, n, whole)
	assert.Regexp(t, `^etldump: `+regexp.QuoteMeta(cut)+fmt.Sprintf(`: offset 0x[0-9a-f]+: damaged: (1 buffer cut short, )?its content breaks off; %d records read; the gzip stream breaks off after 0x[0-9a-f]+ bytes of content \(unexpected EOF\)\n$`, n), errs)
}

// TestMaxUnwrapped: the flag bounds what an input unwraps to, and says so.
func TestMaxUnwrapped(t *testing.T) {
	path := samples.Path(t, "win11-waasmedic.etl.gz")
	n, errs, code := countRun(t, "--max-unwrapped", "8KiB", path)
	assert.Equal(t, exitDamaged, code)
	assert.Equal(t, 4, n, "the records of the first 8 KiB buffer")
	assert.Equal(t, "etldump: "+path+": offset 0x2000: damaged: its content stops at the unwrapped size limit; 4 records read; "+
		"the gzip content goes on past the limit of 8 KiB on unwrapped content, a guard against decompression bombs; the trace is read up to it\n", errs)
	n, errs, code = countRun(t, "--max-unwrapped", "16384", path)
	assert.Equal(t, exitOK, code, errs)
	assert.Equal(t, 21, n)

	for _, bad := range []string{"0", "-1", "12x", "GiB", "99999999TiB"} {
		_, errs, code := runCmd(t, "--count", "--max-unwrapped", bad, path)
		assert.Equal(t, exitFatal, code, bad)
		assert.Contains(t, errs, "--max-unwrapped: ", bad)
	}
	for v, want := range map[string]int64{"1": 1, "2k": 2 << 10, "3 MiB": 3 << 20, "64GiB": 64 << 30, "1tb": 1 << 40} {
		got, err := parseByteSize(v)
		require.NoError(t, err, v)
		assert.Equal(t, want, got, v)
	}
}

// TestOneRecordRead: the summary counts in the singular too.
func TestOneRecordRead(t *testing.T) {
	data, err := os.ReadFile(samples.Path(t, "small-32bit-compressed.etl"))
	require.NoError(t, err)
	// Garbage over the second buffer's header: only the logfile header is read.
	copy(data[0x200:0x248], bytes.Repeat([]byte{0xA5}, 0x48))
	damaged := filepath.Join(t.TempDir(), "one.etl")
	require.NoError(t, os.WriteFile(damaged, data, 0o644))
	_, errs, code := runCmd(t, "--count", damaged)
	assert.Equal(t, exitDamaged, code)
	assert.Contains(t, errs, "; 1 record read;")
}

// TestDecompressionBomb runs the binary on 2 GiB of zero bytes in gzip: it
// stops after the first bytes, says what it found, and its peak resident
// memory stays under 64 MiB. A real trace followed by the zeros stops at
// --max-unwrapped, its content kept in memory (up to etl.DefaultSpillThreshold,
// 32 MiB) and its peak memory under 128 MiB.
func TestDecompressionBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("peak memory is read from Linux's rusage")
	}
	dir := t.TempDir()
	bin := etldumpBinary(t)

	// 2048 gzip members of 1 MiB of zeros: 2 GiB of content.
	var member bytes.Buffer
	w := gzip.NewWriter(&member)
	_, err := w.Write(make([]byte, 1<<20))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	zeros := bytes.Repeat(member.Bytes(), 2048)
	bomb := filepath.Join(dir, "bomb.etl.gz")
	require.NoError(t, os.WriteFile(bomb, zeros, 0o644))

	trace, err := os.ReadFile(samples.Path(t, "shutdown-kernel.etl"))
	require.NoError(t, err)
	var head bytes.Buffer
	w = gzip.NewWriter(&head)
	_, err = w.Write(trace)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	traceBomb := filepath.Join(dir, "trace-bomb.etl.gz")
	require.NoError(t, os.WriteFile(traceBomb, append(head.Bytes(), zeros...), 0o644))

	for _, c := range []struct {
		args   []string
		code   int
		msg    string
		maxRSS int64 // KiB
	}{
		{[]string{"--count", bomb}, exitFatal, "etldump: " + bomb + ": the gzip content is not a trace: offset 0x0: buffer 0: the input starts with zero bytes where a buffer header should be: not an ETL file\n", 64 << 10},
		{[]string{"--count", "--max-unwrapped", "16MiB", traceBomb}, exitDamaged, "etldump: " + traceBomb + ": offset 0x1000000: damaged: its content stops at the unwrapped size limit; 17078 records read; " +
			"the gzip content goes on past the limit of 16 MiB on unwrapped content, a guard against decompression bombs; the trace is read up to it\n", 128 << 10},
	} {
		cmd, peakRSS := measuredCommand(bin, c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		require.Error(t, err)
		assert.Equal(t, c.code, cmd.ProcessState.ExitCode(), stderr.String())
		assert.Equal(t, c.msg, stderr.String())
		rss, ok := peakRSS()
		require.True(t, ok)
		t.Logf("%v: peak RSS %d KiB", c.args, rss)
		assert.Less(t, rss, c.maxRSS, "peak RSS in KiB")
	}
}
