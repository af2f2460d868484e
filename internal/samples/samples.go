// Package samples finds the real traces that tests read from the shared
// folder beside the repository, and skips tests cleanly when it is absent.
package samples

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// EnvVar, when set, names the samples folder instead of the default
// location beside the repository (../shared/etl-samples).
const EnvVar = "ETLKIT_SAMPLES"

// Dir returns the samples folder, or "" when there is none.
func Dir() string {
	if d := os.Getenv(EnvVar); d != "" {
		return d
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// file is <repo>/internal/samples/samples.go
	repo := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	d := filepath.Join(repo, "..", "shared", "etl-samples")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// Path returns the path of the named sample, skipping the test when the
// samples folder or the file is absent.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		tb.Skipf("shared samples folder not found (../shared/etl-samples beside the repository, or $%s): skipping test on %s", EnvVar, name)
	}
	p := filepath.Join(d, name)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("sample %s not present: %v", name, err)
	}
	return p
}

// All returns the paths of every file in the samples folder with one of the
// given extensions (all files when none), or skips the test.
func All(tb testing.TB, exts ...string) []string {
	tb.Helper()
	d := Dir()
	if d == "" {
		tb.Skipf("shared samples folder not found (../shared/etl-samples beside the repository, or $%s)", EnvVar)
	}
	entries, err := os.ReadDir(d)
	if err != nil {
		tb.Skipf("cannot list samples: %v", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if len(exts) == 0 {
			out = append(out, filepath.Join(d, e.Name()))
			continue
		}
		for _, x := range exts {
			if filepath.Ext(e.Name()) == x {
				out = append(out, filepath.Join(d, e.Name()))
				break
			}
		}
	}
	return out
}

// ManifestPath returns the path of a manifest in the manifests folder
// beside the samples (../shared/manifests), skipping the test when it is
// absent.
func ManifestPath(tb testing.TB, name string) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		tb.Skipf("shared samples folder not found (../shared/etl-samples beside the repository, or $%s): skipping test on %s", EnvVar, name)
	}
	p := filepath.Join(d, "..", "manifests", name)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("manifest %s not present: %v", name, err)
	}
	return p
}

// TMFDir returns the folder of real TMF files beside the samples
// (../shared/wpp/tmf), skipping the test when it is absent.
func TMFDir(tb testing.TB) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		tb.Skipf("shared samples folder not found (../shared/etl-samples beside the repository, or $%s): skipping the TMF test", EnvVar)
	}
	p := filepath.Join(d, "..", "wpp", "tmf")
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		tb.Skipf("TMF folder ../shared/wpp/tmf not present: %v", err)
	}
	return p
}
