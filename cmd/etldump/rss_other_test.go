//go:build !linux

package main

import "os"

// peakRSS is read on Linux only.
func peakRSS(*os.ProcessState) (int64, bool) { return 0, false }
