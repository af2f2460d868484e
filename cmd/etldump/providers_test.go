package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/internal/samples"
)

// providerGUIDs are the GUIDs --stats names name under, read from its
// JSON: what the output calls a provider is what --provider must take.
func providerGUIDs(t *testing.T, name string, args ...string) []string {
	t.Helper()
	out, errs, code := runCmd(t, append([]string{"--stats", "--format", "json"}, args...)...)
	require.Equal(t, exitOK, code, errs)
	var st struct {
		Providers []struct{ ProviderId, ProviderName string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	var ids []string
	for _, p := range st.Providers {
		if strings.EqualFold(p.ProviderName, name) {
			ids = append(ids, p.ProviderId)
		}
	}
	return ids
}

// TestProviderNameIsItsGUIDs: --provider NAME gives the same records as
// --provider with every GUID the output names so, for a provider of each
// source: the .NET runtime's tables, the kernel's groups, KernelTraceControl's
// classes, TDH metadata in the trace (PktMon's), an EventSource manifest
// in the trace, TraceLogging traits, and a --manifest file.
func TestProviderNameIsItsGUIDs(t *testing.T) {
	manifestOnly := writeRenamingManifest(t)
	cases := []struct {
		trace, name string
		extra       []string
		// static: the built-in tables know the name, without the trace.
		static bool
	}{
		{"net452-x64-merged-compressed.etl", "microsoft-windows-DotNETRuntime", nil, true},
		{"net452-x64-merged-compressed.etl", "Windows Kernel", nil, true},
		{"net452-x64-merged-compressed.etl", "KernelTraceControl", nil, true},
		{"net452-x64-merged-compressed.etl", "System.Threading.Tasks.TplEventSource", nil, false},
		{"pktmon-ethernet.etl", "Microsoft-Windows-PktMon", nil, false},
		{"amsi-tracelogging.etl", "amsitrace", nil, false},
		{"hw3d-tracelogging.etl", "Atum-Hw3d", nil, false},
		{"powershell-manifest.etl", "Contoso-Renamed-PowerShell", []string{"--manifest", manifestOnly}, false},
	}
	static := describe.NewProviderIndex(describe.NewTraceLearner(nil).DescribeOptions())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := samples.Path(t, c.trace)
			assert.Equal(t, c.static, len(static.Lookup(c.name)) > 0, "built-in tables know %q", c.name)
			ids := providerGUIDs(t, c.name, append(c.extra, path)...)
			require.NotEmpty(t, ids, "no provider named %q in %s", c.name, c.trace)
			if c.name == "Windows Kernel" {
				assert.Greater(t, len(ids), 5, "the kernel's groups")
			}
			byGUID := append(append([]string{"--format", "jsonl"}, c.extra...), path)
			for _, id := range ids {
				byGUID = append(byGUID, "--provider", id)
			}
			want, errs, code := runCmd(t, byGUID...)
			require.Equal(t, exitOK, code, errs)
			require.NotEmpty(t, want)
			got, errs, code := runCmd(t, append(append([]string{"--format", "jsonl", "--provider", c.name}, c.extra...), path)...)
			require.Equal(t, exitOK, code, errs)
			assert.Empty(t, errs)
			if got != want {
				t.Errorf("--provider %q: %d lines, --provider by GUID: %d lines", c.name, strings.Count(got, "\n"), strings.Count(want, "\n"))
			}
		})
	}
}

// writeRenamingManifest writes a manifest that gives PowerShell's provider
// GUID a name no other source knows, so that only --manifest names it.
func writeRenamingManifest(t *testing.T) string {
	t.Helper()
	man := `<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Contoso-Renamed-PowerShell" guid="{a0c1853b-5c40-4b15-8766-3cf1c58f985a}" symbol="RENAMED"
        resourceFileName="x.dll" messageFileName="x.dll">
      <events><event value="40961" version="1" level="win:Informational"/></events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
`
	path := filepath.Join(t.TempDir(), "renamed.man")
	require.NoError(t, os.WriteFile(path, []byte(man), 0o644))
	return path
}

// TestUnknownProviderName: a name no source knows stops the run with
// status 2 and the closest known names; the manifest's name is unknown
// without the manifest.
func TestUnknownProviderName(t *testing.T) {
	net := samples.Path(t, "net452-x64-merged-compressed.etl")
	out, errs, code := runCmd(t, "--provider", "Microsoft-Windows-DotNETRuntim", "--count", net)
	assert.Equal(t, exitFatal, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errs, "\n"), errs)
	assert.Contains(t, errs, `"Microsoft-Windows-DotNETRuntim"`)
	assert.Contains(t, errs, "the closest names: Microsoft-Windows-DotNETRuntime,")

	ps := samples.Path(t, "powershell-manifest.etl")
	_, errs, code = runCmd(t, "--provider", "Contoso-Renamed-PowerShell", ps)
	assert.Equal(t, exitFatal, code, errs)
	assert.Contains(t, errs, "Contoso-Renamed-PowerShell")

	// A GUID is always taken, known or not.
	out, errs, code = runCmd(t, "--provider", "01234567-89ab-cdef-0123-456789abcdef", "--count", ps)
	assert.Equal(t, exitOK, code, errs)
	assert.Equal(t, "0\n", out)
}
