package parquetsink

import (
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o666) }

func mustGUID(t testing.TB, s string) uuid.UUID {
	t.Helper()
	g, err := uuid.Parse(s)
	require.NoError(t, err)
	return g
}
