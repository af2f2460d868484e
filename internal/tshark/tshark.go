// Package tshark runs tshark and capinfos, the readers of Wireshark's
// command-line package, for tests that check our pcapng output with what
// users open it with rather than with our own reader.
//
// .ci/run installs them (Debian package tshark) when missing; by hand:
//
//	apt-get install -y tshark
//
// Without them the tests skip and say so.
package tshark

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const installHint = "apt-get install -y tshark"

// Require skips the test when tshark or capinfos is not on PATH, before it
// does the work whose result they would check.
func Require(t testing.TB) {
	t.Helper()
	for _, name := range []string{"tshark", "capinfos"} {
		if _, err := exec.LookPath(name); err != nil {
			t.Skipf("%s is not on PATH: this test reads pcapng back with Wireshark's readers (%s)", name, installHint)
		}
	}
}

// Fields runs tshark over file with the given preferences (name:value)
// and returns one row per packet, one column per field, as tshark prints
// them; several occurrences of a field are joined by commas. A file tshark
// reports as damaged fails the test.
func Fields(t testing.TB, file string, prefs []string, fields ...string) [][]string {
	t.Helper()
	Require(t)
	args := []string{"-r", file, "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,"}
	for _, p := range prefs {
		args = append(args, "-o", p)
	}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	out := run(t, "tshark", args...)
	if out == "" {
		return nil
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows
}

// Capinfos runs capinfos with args and returns what it prints.
func Capinfos(t testing.TB, args ...string) string {
	t.Helper()
	Require(t)
	return run(t, "capinfos", args...)
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	// Running as root prints a warning; anything else on stderr is a
	// complaint about the file.
	for _, line := range strings.Split(stderr.String(), "\n") {
		if line != "" && !strings.HasPrefix(line, "Running as user") {
			t.Fatalf("%s %s: %s", name, strings.Join(args, " "), stderr.String())
		}
	}
	return stdout.String()
}
