package eventsource_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/schema/eventsource"
)

// sampleChunks reads the manifest chunks of a sample in file order.
func sampleChunks(tb testing.TB, name string) []eventsource.Chunk {
	tb.Helper()
	f, err := etl.Open(samples.Path(tb, name))
	require.NoError(tb, err)
	defer f.Close()
	var out []eventsource.Chunk
	for r, err := range f.Records() {
		if err != nil || !eventsource.IsManifest(&r.EventDescriptor) {
			continue
		}
		c, err := eventsource.ChunkOf(r)
		require.NoError(tb, err)
		c.Data = bytes.Clone(c.Data)
		out = append(out, c)
	}
	return out
}

type manifestSummary struct {
	Provider eventsource.Provider
	Logged   uuid.UUID // the provider the manifest events were logged by
	Bytes    int
	Events   int
}

func summarize(t *testing.T, cs []eventsource.Chunk) []manifestSummary {
	var a eventsource.Assembler
	var out []manifestSummary
	for _, c := range cs {
		m, done, err := a.Add(c)
		require.NoError(t, err)
		if !done {
			continue
		}
		providers, events := manifestStats(t, m)
		assert.Equal(t, 1, providers)
		p, err := eventsource.ProviderOf(m)
		require.NoError(t, err)
		assert.True(t, bytes.HasPrefix(m, []byte("<instrumentationManifest")), "starts %q", m[:min(len(m), 40)])
		out = append(out, manifestSummary{Provider: p, Logged: c.Provider, Bytes: len(m), Events: events})
	}
	assert.Empty(t, a.Pending())
	return out
}

func TestSampleManifests(t *testing.T) {
	perfView := eventsource.Provider{Name: "PerfView", GUID: uuid.MustParse("a8a71ac1-040f-54a2-07ca-00a89b5ab761")}
	tpl := eventsource.Provider{Name: "System.Threading.Tasks.TplEventSource", GUID: uuid.MustParse("2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5")}
	fx := eventsource.Provider{Name: "System.Diagnostics.Eventing.FrameworkEventSource", GUID: uuid.MustParse("8e9f5090-2d75-4d03-8a81-e5afbf85daf1")}

	got := summarize(t, sampleChunks(t, "net452-x64-merged-compressed.etl"))
	// PerfView wrote its manifest twice (at the start and at the rundown);
	// the second copy is the same and counts as a repeat. In file order
	// PerfView's comes after the two others, which it precedes in time.
	// TraceEvent's PayloadLength (the chunk and its 8-byte envelope) is
	// 13046, 8839 and 50588.
	assert.Equal(t, []manifestSummary{
		{tpl, tpl.GUID, 8831, 12},
		{fx, fx.GUID, 50580, 128},
		{perfView, perfView.GUID, 13038, 23},
	}, got)

	got = summarize(t, sampleChunks(t, "diaghub-user-paged.etl"))
	// manifest-formats.md §4.1: one chunk of 17,766 bytes, written twice.
	assert.Equal(t, []manifestSummary{{tpl, tpl.GUID, 17766, 20}}, got)
}

// TestSampleManifestsCut reassembles the samples' manifests cut into
// chunks of every size EventSource uses when it halves its chunk size, sent
// out of order, repeated and interleaved: the XML comes out whole.
func TestSampleManifestsCut(t *testing.T) {
	var whole [][]byte
	var providers []uuid.UUID
	for _, name := range []string{"net452-x64-merged-compressed.etl", "diaghub-user-paged.etl"} {
		var a eventsource.Assembler
		for _, c := range sampleChunks(t, name) {
			m, done, err := a.Add(c)
			require.NoError(t, err)
			if done {
				whole = append(whole, m)
				providers = append(providers, c.Provider)
			}
		}
	}
	require.NotEmpty(t, whole)
	for _, size := range []int{eventsource.MaxChunkSize, 0x7F80, 0x3FC0, 0x1FE0, 0xFF0, 0x7F8, 0x3FC, 0x1FE} {
		var a eventsource.Assembler
		// Cut every manifest, then send chunk i of each in turn, last
		// chunks first, each one twice.
		var cut [][]eventsource.Chunk
		for i, m := range whole {
			n := (len(m) + size - 1) / size
			var cs []eventsource.Chunk
			for j := 0; j < n; j++ {
				part := m[j*size : min(len(m), (j+1)*size)]
				cs = append(cs, chunk(providers[i], uint32(100+i), uint16(n), uint16(j), string(part)))
			}
			cut = append(cut, cs)
		}
		got := map[int][]byte{}
		for step := 0; ; step++ {
			sent := false
			for i, cs := range cut {
				if step >= len(cs) {
					continue
				}
				c := cs[len(cs)-1-step]
				for range 2 {
					m, done, err := a.Add(c)
					require.NoError(t, err)
					if done {
						got[i] = m
					}
				}
				sent = true
			}
			if !sent {
				break
			}
		}
		require.Len(t, got, len(whole), "chunk size %d", size)
		for i, m := range whole {
			assert.True(t, bytes.Equal(m, got[i]), fmt.Sprintf("manifest %d, chunk size %d", i, size))
		}
	}
}
