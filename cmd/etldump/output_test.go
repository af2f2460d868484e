package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
)

// Every format, and every view, refuses an -o that is one of its inputs,
// however it is named, before anything is written: the input stays as it
// was, byte for byte.
func TestOutputThatIsAnInputIsRefused(t *testing.T) {
	trace, err := os.ReadFile(kernelTrace)
	require.NoError(t, err)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.etl")
	require.NoError(t, os.WriteFile(in, trace, 0o644))
	names := map[string]string{"direct": in, "relative path": filepath.Join(dir, ".", "in.etl")}
	if err := os.Symlink(in, filepath.Join(dir, "link.etl")); err == nil {
		names["symbolic link"] = filepath.Join(dir, "link.etl")
	} else {
		t.Logf("no symbolic links here: %v", err)
	}
	if err := os.Link(in, filepath.Join(dir, "hard.etl")); err == nil {
		names["hard link"] = filepath.Join(dir, "hard.etl")
	} else {
		t.Logf("no hard links here: %v", err)
	}
	formats := [][]string{
		{"--format", "text"}, {"--format", "jsonl"}, {"--format", "csv"}, {"--format", "xml"},
		{"--format", "etl"}, {"--format", "parquet"}, {"--format", "pprof"}, {"--format", "speedscope"},
		{"--format", "folded"}, {"--count"}, {"--stats"}, {"--header"},
	}
	check := func(t *testing.T, args ...string) {
		t.Helper()
		stdout, errs, code := runCmd(t, args...)
		assert.Equal(t, exitFatal, code, errs)
		assert.Empty(t, stdout)
		assert.Contains(t, errs, "write to another file")
		assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
		after, err := os.ReadFile(in)
		require.NoError(t, err)
		require.True(t, bytes.Equal(trace, after), "the input is unchanged")
		files, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, f := range files {
			assert.False(t, strings.HasSuffix(f.Name(), ".tmp"), "nothing was opened for writing: %s", f.Name())
		}
	}
	for how, out := range names {
		for _, f := range formats {
			t.Run(how+" "+strings.Join(f, " "), func(t *testing.T) {
				// The input is named in every way too, and the output
				// directly: any pair that is one file is refused.
				check(t, append(append([]string{}, f...), "-o", in, out)...)
				check(t, append(append([]string{}, f...), "-o", out, in)...)
				if !isProfileFormat(f[len(f)-1]) { // a profile is of one trace
					check(t, append(append([]string{}, f...), "-o", out, kernelTrace, in)...)
				}
			})
		}
	}

	t.Run("standard input", func(t *testing.T) {
		f, err := os.Open(in)
		require.NoError(t, err)
		defer f.Close()
		old := stdin
		defer func() { stdin = old }()
		stdin = f
		for _, f := range formats {
			check(t, append(append([]string{}, f...), "-o", in, "-")...)
		}
	})

	t.Run("parquet directory", func(t *testing.T) {
		// The Parquet file the input gets in the directory is a link to
		// the input.
		pdir := t.TempDir()
		named := filepath.Join(pdir, "in.parquet")
		if err := os.Symlink(in, named); err != nil {
			if err := os.Link(in, named); err != nil {
				t.Skipf("no links here: %v", err)
			}
		}
		_, errs, code := runCmd(t, "--format", "parquet", "-o", pdir+string(os.PathSeparator), kernelTrace, in)
		assert.Equal(t, exitFatal, code)
		assert.Contains(t, errs, "in.parquet: it is an input ("+in+")")
		after, err := os.ReadFile(in)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(trace, after))
		assert.NoFileExists(t, filepath.Join(pdir, "kernel64.parquet"), "no output written at all")
	})

	t.Run("manifest", func(t *testing.T) {
		mdir := filepath.Join(t.TempDir(), "manifests", "sub")
		require.NoError(t, os.MkdirAll(mdir, 0o755))
		man := filepath.Join(mdir, "p.man")
		body := []byte(tinyManifest)
		require.NoError(t, os.WriteFile(man, body, 0o644))
		for _, m := range []string{man, filepath.Dir(mdir)} {
			_, errs, code := runCmd(t, "--manifest", m, "-o", man, kernelTrace)
			assert.Equal(t, exitFatal, code)
			assert.Contains(t, errs, "it is an input")
			after, err := os.ReadFile(man)
			require.NoError(t, err)
			assert.Equal(t, body, after)
		}
	})
}

// tinyManifest is a manifest of one provider and one event.
const tinyManifest = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation><events>
<provider name="Tiny" guid="{11111111-2222-3333-4444-555555555555}" symbol="TINY"><events><event value="1" symbol="One"/></events></provider>
</events></instrumentation></instrumentationManifest>`

// A run that fails before it writes leaves a file of the output's name as
// it was; one that completes replaces it; no temporary file is left.
func TestOutputReplacedOnlyWhenComplete(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"jsonl", "etl", "parquet"} {
		out := filepath.Join(dir, "out."+format)
		require.NoError(t, os.WriteFile(out, []byte("old"), 0o644))
		_, _, code := runCmd(t, "--format", format, "-o", out, filepath.Join(dir, "missing.etl"))
		assert.Equal(t, exitFatal, code)
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, "old", string(b), "%s: an unreadable input leaves the old file", format)

		_, errs, code := runCmd(t, "--format", format, "-o", out, kernelTrace)
		require.Equal(t, exitOK, code, errs)
		b, err = os.ReadFile(out)
		require.NoError(t, err)
		assert.Greater(t, len(b), 1000, format)
	}
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	assert.ElementsMatch(t, []string{"out.jsonl", "out.etl", "out.parquet"}, names)
}

// A conversion killed midway leaves nothing under the output's name (an
// old file there stays as it was); interrupted, it leaves nothing at all.
func TestKilledConversionLeavesNoHalfFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and writes a large trace")
	}
	if runtime.GOOS == "windows" {
		t.Skip("sends Unix signals")
	}
	dir := t.TempDir()
	bin := etldumpBinary(t)
	big := filepath.Join(dir, "big.etl")
	f, err := os.Create(big)
	require.NoError(t, err)
	_, err = etltest.WriteBenchmarkTrace(f, 32<<20, 4)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	outDir := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(outDir, 0o755))
	for _, tc := range []struct {
		name   string
		sig    syscall.Signal
		format string
		old    bool
	}{
		{"SIGKILL, no old file", syscall.SIGKILL, "jsonl", false},
		{"SIGKILL, old file", syscall.SIGKILL, "csv", true},
		{"SIGINT", syscall.SIGINT, "jsonl", true},
		// Not etl: it writes this trace in a few milliseconds, which can
		// end the run before the signal arrives.
		{"SIGTERM", syscall.SIGTERM, "xml", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(outDir, "out."+tc.format)
			os.Remove(out)
			if tc.old {
				require.NoError(t, os.WriteFile(out, []byte("old"), 0o644))
			}
			cmd := exec.Command(bin, "--format", tc.format, "-o", out, big)
			require.NoError(t, cmd.Start())
			// Wait until the conversion has written something.
			deadline := time.Now().Add(30 * time.Second)
			var temp string
			for temp == "" && time.Now().Before(deadline) {
				files, _ := os.ReadDir(outDir)
				for _, f := range files {
					if info, err := f.Info(); err == nil && strings.HasSuffix(f.Name(), ".tmp") && info.Size() > 0 {
						temp = f.Name()
					}
				}
				time.Sleep(time.Millisecond)
			}
			require.NotEmpty(t, temp, "the conversion never started writing")
			require.NoError(t, cmd.Process.Signal(tc.sig))
			err := cmd.Wait()
			require.Error(t, err, "the conversion was stopped, not finished")
			if tc.old {
				b, err := os.ReadFile(out)
				require.NoError(t, err)
				assert.Equal(t, "old", string(b))
			} else {
				assert.NoFileExists(t, out)
			}
			files, _ := os.ReadDir(outDir)
			for _, f := range files {
				if tc.sig == syscall.SIGKILL {
					os.Remove(filepath.Join(outDir, f.Name())) // nothing can remove it
				} else {
					assert.False(t, strings.HasSuffix(f.Name(), ".tmp"), "interrupted, the partial file is removed")
				}
			}
			if tc.sig != syscall.SIGKILL {
				assert.Equal(t, 128+int(tc.sig), cmd.ProcessState.ExitCode())
			}
		})
	}
}
