package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/filter"
	"github.com/etlkit/etlkit/internal/samples"
)

// readmeCounts reads the events column of the samples README table: the
// record count an independent reader found in each file.
func readmeCounts(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join(filepath.Dir(samples.Path(t, "README.md")), "README.md"))
	require.NoError(t, err)
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 7 {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		n, err := strconv.Atoi(strings.TrimSpace(cells[5]))
		if err != nil || !strings.Contains(name, ".etl") {
			continue
		}
		// The wrapped copies the counting reader could not open carry 0;
		// TestWrappedInputsMatchPlain covers them.
		if n == 0 && strings.Contains(cells[8], "wrapped copy") {
			continue
		}
		counts[name] = n
	}
	require.NotEmpty(t, counts, "no rows read from the samples README table")
	return counts
}

func statsJSON(t *testing.T, args ...string) (map[string]any, string, int) {
	t.Helper()
	out, errs, code := runCmd(t, append([]string{"--stats", "--format", "json"}, args...)...)
	var m map[string]any
	if out != "" {
		require.NoError(t, json.Unmarshal([]byte(out), &m), out)
	}
	return m, errs, code
}

func TestStatsRecordsMatchReadme(t *testing.T) {
	for name, want := range readmeCounts(t) {
		t.Run(name, func(t *testing.T) {
			m, errs, code := statsJSON(t, samples.Path(t, name))
			require.Equal(t, 0, code, errs)
			assert.EqualValues(t, want, m["Records"])
		})
	}
}

func TestCountMatchesFilterPackage(t *testing.T) {
	for _, path := range samples.All(t, ".etl", ".gz", ".zst", ".bz2", ".etlgz") {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			f, err := etl.Open(path)
			if err != nil {
				t.Skipf("not a readable trace: %v", err)
			}
			defer f.Close()
			flt, err := filter.Compile(filter.Options{}, filter.Session{Level: 3, MatchAny: 0x5})
			require.NoError(t, err)
			want := 0
			for r, err := range f.Records() {
				if err == nil && flt.Match(r) {
					want++
				}
			}
			out, errs, code := runCmd(t, path, "--level", "3", "--any", "0x5", "--count")
			require.Equal(t, 0, code, errs)
			assert.Equal(t, strconv.Itoa(want)+"\n", out)
		})
	}
}

func TestWrappedInputsMatchPlain(t *testing.T) {
	plain := samples.Path(t, "win11-waasmedic.etl")
	for _, format := range []string{"text", "jsonl", "csv", "xml"} {
		want, _, code := runCmd(t, "--format", format, plain)
		require.Equal(t, 0, code)
		require.NotEmpty(t, want)
		for _, wrapped := range []string{"win11-waasmedic.etl.gz", "win11-waasmedic.etl.zst", "win11-waasmedic.etl.bz2"} {
			got, errs, code := runCmd(t, "--format", format, samples.Path(t, wrapped))
			assert.Equal(t, 0, code, errs)
			assert.Equal(t, want, got, "%s as %s", wrapped, format)
		}
	}
	// The .etlgz traces have no plain copy: their records must match what
	// the library reads from them.
	for _, name := range []string{"win11-onedrive-cldflt0.etlgz", "win11-onedrive-cldflt1.etlgz"} {
		path := samples.Path(t, name)
		f, err := etl.Open(path)
		require.NoError(t, err)
		n := 0
		for _, err := range f.Records() {
			require.NoError(t, err)
			n++
		}
		f.Close()
		out, errs, code := runCmd(t, "--format", "jsonl", path)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, n, strings.Count(out, "\n"), name)
		assert.Contains(t, out, `"HeaderType":"MESSAGE"`)
	}
}

// TestHeadOneExitsQuietly runs the real binary behind `| head -1`, where
// the closed pipe arrives as SIGPIPE/EPIPE from the kernel rather than from
// a test writer.
func TestHeadOneExitsQuietly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	bin := etldumpBinary(t)
	for _, format := range []string{"text", "jsonl", "csv", "xml"} {
		// With pipefail the pipe fails if etldump does, whatever head did.
		cmd := exec.Command("bash", "-c", `set -o pipefail; "$0" --format "$1" "$2" | head -1 >/dev/null`, bin, format, path)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		assert.NoError(t, err, "%s: exit status of the pipe", format)
		assert.Empty(t, stderr.String(), format)
	}
}

// TestReadmeExample keeps the README's example the real output of its
// command; the example cuts the first record's payload with "…".
func TestReadmeExample(t *testing.T) {
	path := samples.Path(t, "win11-waasmedic.etl")
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(readme), "## Example")
	require.True(t, ok)
	_, rest, _ = strings.Cut(rest, "```\n")
	block, _, _ := strings.Cut(rest, "```")
	want := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	out, errs, code := runCmd(t, path, "--level", "warning")
	require.Equal(t, 0, code, errs)
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, got, len(want))
	for i := range want {
		if prefix, cut := strings.CutSuffix(want[i], "…"); cut {
			assert.True(t, strings.HasPrefix(got[i], prefix), "line %d: %s", i+1, got[i])
		} else {
			assert.Equal(t, want[i], got[i], "line %d", i+1)
		}
	}
}

// A filter that drops the records kernel file names are learned from (the
// merge's volume mappings) leaves the names of the records it keeps as they
// read without it.
func TestKernelFileNamesIgnoreFilters(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	name := func(args ...string) string {
		for _, l := range linesOf(t, append(args, "--to", "30ms", path)...) {
			if strings.Contains(l, `"EventName":"Image/DCStart"`) && strings.Contains(l, `"ImageBase":"0xFFFFF80021489000"`) {
				return objectOf(t, l)["Payload"].(map[string]any)["FileName"].(string)
			}
		}
		return ""
	}
	assert.Equal(t, `C:\Windows\system32\ntoskrnl.exe`, name())
	assert.Equal(t, `C:\Windows\system32\ntoskrnl.exe`, name("--provider", "2cb15d1d-5fc1-11d2-abe1-00a0c911f518"))
}
