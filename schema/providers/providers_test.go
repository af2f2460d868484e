package providers_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/schema/providers"
)

func TestName(t *testing.T) {
	for id, want := range map[string]string{
		"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4": "Microsoft-Windows-DotNETRuntime",
		"22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716": "Microsoft-Windows-Kernel-Process",
		"dab01d4d-2d48-477d-b1c3-daad0ce6f06b": "ACPI Driver Trace Provider",
		// Listed twice: the manifest provider's name wins.
		"0888e5ef-9b98-4695-979d-e92ce4247224": "Microsoft-Windows-RestartManager",
		// Listed three times without one: the first.
		"485e7de9-0a80-11d8-ad15-505054503030": "UMDF - Framework Trace",
	} {
		got, ok := providers.Name(uuid.MustParse(id))
		assert.True(t, ok, id)
		assert.Equal(t, want, got, id)
	}
	for _, id := range []uuid.UUID{uuid.Nil, uuid.Max, uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e5")} {
		_, ok := providers.Name(id)
		assert.False(t, ok, id.String())
	}
	assert.Equal(t, 1101, providers.Len())
	assert.Zero(t, testing.AllocsPerRun(100, func() { providers.Name(uuid.Max) }))
}

// TestNamesMatchTraceEvent: every provider of the TraceEvent samples that
// the table names has the name TraceEvent prints for it.
func TestNamesMatchTraceEvent(t *testing.T) {
	traces := []string{"net452-x64-merged-compressed.etl", "gcevents-manifest.etl", "gcrundown-manifest.etl"}
	printed := map[string]bool{}
	for _, trace := range traces {
		path := samples.Path(t, trace)
		data, err := os.ReadFile(filepath.Join(filepath.Dir(path), "expected", strings.TrimSuffix(trace, ".etl")+".perfview.txt"))
		require.NoError(t, err)
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "COUNT "); ok {
				name, _, _ := strings.Cut(rest, "/")
				printed[name] = true
			}
		}
	}
	named := map[uuid.UUID]string{}
	for _, trace := range traces {
		f, err := etl.Open(samples.Path(t, trace))
		require.NoError(t, err)
		for r, err := range f.Records() {
			if err != nil || (r.HeaderType != header.TypeEventHeader64 && r.HeaderType != header.TypeEventHeader32) {
				continue
			}
			if n, ok := providers.Name(r.ProviderId); ok {
				named[r.ProviderId] = n
			}
		}
		f.Close()
	}
	for id, n := range named {
		assert.True(t, printed[n], "%v is %q here, a name TraceEvent does not print", id, n)
	}
	assert.Len(t, named, 7)
}
