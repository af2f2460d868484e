package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStandardInput: "-" reads the trace from standard input, plain or
// wrapped, in time order as from a file; given twice, the second is
// refused.
func TestStandardInput(t *testing.T) {
	plain, err := os.ReadFile(kernelTrace)
	require.NoError(t, err)
	var zst bytes.Buffer
	zw, err := zstd.NewWriter(&zst)
	require.NoError(t, err)
	zw.Write(plain)
	require.NoError(t, zw.Close())
	old := stdin
	defer func() { stdin = old }()

	want, errs, code := runCmd(t, "--format", "jsonl", kernelTrace)
	require.Equal(t, 0, code, errs)
	for name, data := range map[string][]byte{"plain": plain, "zstd": zst.Bytes()} {
		stdin = bytes.NewReader(data)
		got, errs, code := runCmd(t, "--format", "jsonl", "-")
		require.Equal(t, 0, code, errs)
		assert.Equal(t, want, got, name)
	}

	stdin = bytes.NewReader(plain)
	out, errs, code := runCmd(t, "--count", "-", "-")
	assert.Equal(t, exitFatal, code)
	assert.Contains(t, errs, "etldump: -: ")
	assert.Contains(t, errs, "standard input is given more than once")
	assert.Equal(t, "102\n", out)
}
