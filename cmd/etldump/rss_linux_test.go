package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// Linux starts a child's peak resident memory at its parent's: exec keeps
// the high-water mark of the address space it replaces, and os/exec's
// child shares the parent's until then. Measured straight from the test
// process, which has read samples by then, a small child would show the
// test's peak. So the command is started by a fresh copy of the test
// binary (small at exec), which reports the command's own rusage.
const (
	rssHelperEnv    = "ETLDUMP_TEST_RSS_OF"   // set: run the command after "--"
	rssHelperOutEnv = "ETLDUMP_TEST_RSS_INTO" // where the helper writes the peak
)

func init() {
	if os.Getenv(rssHelperEnv) == "" {
		return
	}
	args := os.Args[1:]
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "rss helper: no command after --")
		os.Exit(125)
	}
	args = args[1:]
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "rss helper:", err)
		os.Exit(125)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		_ = os.WriteFile(os.Getenv(rssHelperOutEnv), []byte(strconv.FormatInt(int64(ru.Maxrss), 10)), 0o644)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// measuredCommand returns a command that runs name with args and, once
// run, the function giving its peak resident memory in KiB.
func measuredCommand(name string, args ...string) (*exec.Cmd, func() (int64, bool)) {
	self, err := os.Executable()
	if err != nil {
		return exec.Command(name, args...), func() (int64, bool) { return 0, false }
	}
	out, err := os.CreateTemp("", "rss")
	if err != nil {
		return exec.Command(name, args...), func() (int64, bool) { return 0, false }
	}
	out.Close()
	cmd := exec.Command(self, append([]string{"-test.run=^$", "--", name}, args...)...)
	cmd.Env = append(os.Environ(), rssHelperEnv+"=1", rssHelperOutEnv+"="+out.Name())
	return cmd, func() (int64, bool) {
		defer os.Remove(out.Name())
		data, err := os.ReadFile(out.Name())
		if err != nil {
			return 0, false
		}
		kib, err := strconv.ParseInt(string(data), 10, 64)
		return kib, err == nil && kib > 0 // KiB on Linux
	}
}
