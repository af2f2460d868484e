package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRootReadmeFirstScreen keeps the repository README's first command and
// the output it shows true: the command runs on a committed trace and the
// example line is among what it prints.
func TestRootReadmeFirstScreen(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(readme)
	require.Contains(t, text, "go run ./cmd/etldump testdata/etl/tracelogging.etl\ngo test ./...\n")
	_, after, ok := strings.Cut(text, "Its second record")
	require.True(t, ok)
	_, after, _ = strings.Cut(after, "```\n")
	example, _, _ := strings.Cut(after, "\n```")
	out, errs, code := runCmd(t, "../../testdata/etl/tracelogging.etl")
	require.Equal(t, 0, code, errs)
	lines := strings.Split(out, "\n")
	require.Greater(t, len(lines), 2)
	assert.Equal(t, example, lines[1])
}
