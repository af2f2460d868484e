package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// built is the command as a program of its own, made once for the tests
// that run it as a separate process (signals, pipes, peak memory).
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// etldumpBinary builds the command on first use and returns its path.
func etldumpBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "etldump-test-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "etldump")
		if runtime.GOOS == "windows" {
			built.path += ".exe"
		}
		build := exec.Command("go", "build", "-o", built.path, ".")
		build.Stderr = os.Stderr
		built.err = build.Run()
	})
	require.NoError(t, built.err, "building etldump")
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
