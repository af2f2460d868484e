//go:build !linux

package main

import "os/exec"

// measuredCommand measures peak memory on Linux only.
func measuredCommand(name string, args ...string) (*exec.Cmd, func() (int64, bool)) {
	return exec.Command(name, args...), func() (int64, bool) { return 0, false }
}
