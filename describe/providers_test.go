package describe_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/kernel"
	"github.com/etlkit/etlkit/schema/wpp"
)

func TestProviderIndexSources(t *testing.T) {
	mine := uuid.MustParse("6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d01")
	learned := uuid.MustParse("6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d02")
	msgGUID := uuid.MustParse("6d2c9a1e-1b4f-4c3a-9e0d-2f5b7a8c9d03")
	var manifests, trace schema.Set
	manifests.SetProviderName(mine, "Contoso-Mine")
	trace.Add(schema.Key{Provider: learned, ID: 1}, &schema.Event{Provider: "Contoso-Learned", Name: "E"})
	tmf := wpp.NewSet()
	tmf.AddFile(wpp.ParseTMF([]byte(msgGUID.String()+" contosodriver // SRC=a.c MJ= MN=\n#typev a_c10 10 \"%0hello\" //   LEVEL=TRACE_LEVEL_ERROR FUNC=Hi\n{\n}\n"), "a.tmf"))
	x := describe.NewProviderIndex(describe.Options{Manifests: &manifests, Trace: &trace, WPP: tmf})

	assert.Equal(t, []uuid.UUID{mine}, x.Lookup("contoso-MINE"))
	assert.Equal(t, []uuid.UUID{learned}, x.Lookup(" Contoso-Learned "))
	assert.Equal(t, []uuid.UUID{msgGUID}, x.Lookup("ContosoDriver"))
	kernelIDs := x.Lookup("windows kernel")
	assert.Contains(t, kernelIDs, record.KernelGroupGUID(0x0F, 46), "PerfInfo")
	assert.Contains(t, kernelIDs, kernel.SysConfigTask, "the merge's SysConfig class")
	assert.Contains(t, x.Lookup("KernelTraceControl"), kernel.ImageIDTask)
	assert.Equal(t, []uuid.UUID{uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")}, x.Lookup("Microsoft-Windows-DotNETRuntime"))
	assert.NotEmpty(t, x.Lookup("Microsoft-Windows-Kernel-File"), "the provider-names table")
	assert.Empty(t, x.Lookup("Contoso"))

	// Adding a name twice keeps one GUID.
	x.Add(mine, "CONTOSO-MINE")
	assert.Equal(t, []uuid.UUID{mine}, x.Lookup("Contoso-Mine"))

	_, err := x.Resolve("Contoso-Mien")
	var unknown *describe.UnknownProviderError
	require.True(t, errors.As(err, &unknown), "%v", err)
	assert.Equal(t, "Contoso-Mien", unknown.Name)
	require.NotEmpty(t, unknown.Closest)
	assert.Equal(t, "Contoso-Mine", unknown.Closest[0], "%q", unknown.Closest)
	assert.LessOrEqual(t, len(unknown.Closest), 5)
	// A name held in a longer one comes first.
	assert.Equal(t, "Contoso-Learned", x.Closest("learned", 1)[0])
	assert.True(t, slices.Contains(x.Closest("Windows Kernal", 3), "Windows Kernel"), "%q", x.Closest("Windows Kernal", 3))
}
