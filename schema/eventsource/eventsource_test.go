package eventsource_test

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"io"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema/eventsource"
)

// envelope writes a manifest event's user data.
func envelope(total, number uint16, chunk string) []byte {
	b := []byte{eventsource.FormatSimpleXML, 1, 0, eventsource.EnvelopeMagic}
	b = binary.LittleEndian.AppendUint16(b, total)
	b = binary.LittleEndian.AppendUint16(b, number)
	return append(b, chunk...)
}

func TestParseEnvelope(t *testing.T) {
	env, chunk, err := eventsource.ParseEnvelope(envelope(3, 2, "<x/>"))
	require.NoError(t, err)
	assert.Equal(t, eventsource.Envelope{Format: 1, MajorVersion: 1, MinorVersion: 0, Magic: 0x5B, TotalChunks: 3, ChunkNumber: 2}, env)
	assert.Equal(t, "<x/>", string(chunk))

	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"short", envelope(1, 0, "")[:7]},
		{"magic", func() []byte { b := envelope(1, 0, "x"); b[3] = 0x5A; return b }()},
		{"format", func() []byte { b := envelope(1, 0, "x"); b[0] = 2; return b }()},
		{"no chunks", envelope(0, 0, "x")},
		{"chunk past the count", envelope(2, 2, "x")},
	} {
		_, _, err := eventsource.ParseEnvelope(c.b)
		assert.ErrorIs(t, err, eventsource.ErrEnvelope, c.name)
		assert.ErrorIs(t, err, buffer.ErrMalformed, c.name)
	}
}

func TestIsManifest(t *testing.T) {
	assert.True(t, eventsource.IsManifest(&header.EventDescriptor{Id: 0xFFFE, Opcode: 0xFE, Task: 0xFFFE, Version: 1}))
	assert.False(t, eventsource.IsManifest(&header.EventDescriptor{Id: 0xFFFE, Opcode: 0xFE, Task: 0}))
	assert.False(t, eventsource.IsManifest(&header.EventDescriptor{Id: 0xFFFE, Opcode: 0, Task: 0xFFFE}))
}

var (
	provA = uuid.MustParse("a8a71ac1-040f-54a2-07ca-00a89b5ab761")
	provB = uuid.MustParse("2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5")
)

func chunk(p uuid.UUID, pid uint32, total, n uint16, data string) eventsource.Chunk {
	return eventsource.Chunk{Provider: p, ProcessID: pid, Data: []byte(data),
		Envelope: eventsource.Envelope{Format: 1, MajorVersion: 1, Magic: 0x5B, TotalChunks: total, ChunkNumber: n}}
}

// feed adds chunks and returns the manifests completed, in order.
func feed(t *testing.T, a *eventsource.Assembler, cs ...eventsource.Chunk) []string {
	t.Helper()
	var out []string
	for _, c := range cs {
		m, done, err := a.Add(c)
		require.NoError(t, err)
		if done {
			out = append(out, string(m))
		}
	}
	return out
}

func TestAssembler(t *testing.T) {
	for _, c := range []struct {
		name   string
		chunks []eventsource.Chunk
		want   []string
	}{
		{"a single chunk", []eventsource.Chunk{chunk(provA, 1, 1, 0, "<one/>")}, []string{"<one/>"}},
		{"in order", []eventsource.Chunk{chunk(provA, 1, 3, 0, "a"), chunk(provA, 1, 3, 1, "b"), chunk(provA, 1, 3, 2, "c")},
			[]string{"abc"}},
		{"out of order, as per-processor buffers can hand them over",
			[]eventsource.Chunk{chunk(provA, 1, 3, 2, "c"), chunk(provA, 1, 3, 0, "a"), chunk(provA, 1, 3, 1, "b")}, []string{"abc"}},
		{"repeated chunks count once", []eventsource.Chunk{chunk(provA, 1, 3, 0, "a"), chunk(provA, 1, 3, 0, "a"),
			chunk(provA, 1, 3, 1, "b"), chunk(provA, 1, 3, 1, "b"), chunk(provA, 1, 3, 2, "c")}, []string{"abc"}},
		{"two providers interleaved", []eventsource.Chunk{
			chunk(provA, 1, 3, 0, "a"), chunk(provB, 1, 3, 0, "x"), chunk(provB, 1, 3, 1, "y"),
			chunk(provA, 1, 3, 1, "b"), chunk(provB, 1, 3, 2, "z"), chunk(provA, 1, 3, 2, "c")}, []string{"xyz", "abc"}},
		{"two processes of one provider", []eventsource.Chunk{
			chunk(provA, 1, 2, 0, "a"), chunk(provA, 2, 2, 0, "p"), chunk(provA, 2, 2, 1, "q"), chunk(provA, 1, 2, 1, "b")},
			[]string{"pq", "ab"}},
		{"a copy sent again after it completed is a repeat", []eventsource.Chunk{
			chunk(provA, 1, 2, 1, "b"), chunk(provA, 1, 2, 0, "a"), chunk(provA, 1, 2, 1, "b"), chunk(provA, 1, 2, 0, "a")},
			[]string{"ab"}},
		{"a changed copy after it completed, its same chunk first", []eventsource.Chunk{
			chunk(provA, 1, 2, 0, "a"), chunk(provA, 1, 2, 1, "b"), chunk(provA, 1, 2, 1, "b"), chunk(provA, 1, 2, 0, "A")},
			[]string{"ab", "Ab"}},
		{"a chunk that contradicts one held starts over", []eventsource.Chunk{
			chunk(provA, 1, 2, 0, "a"), chunk(provA, 1, 2, 0, "A"), chunk(provA, 1, 2, 1, "B")}, []string{"AB"}},
		{"empty chunks are chunks too", []eventsource.Chunk{chunk(provA, 9, 2, 1, ""), chunk(provA, 9, 2, 0, "a")}, []string{"a"}},
	} {
		var a eventsource.Assembler
		var got []string
		for _, ch := range c.chunks {
			m, done, err := a.Add(ch)
			require.NoError(t, err, c.name)
			if done {
				got = append(got, string(m))
			}
		}
		assert.Equal(t, c.want, got, c.name)
		assert.Empty(t, a.Pending(), c.name)
	}

	// Missing chunks leave the manifest pending.
	var a eventsource.Assembler
	assert.Empty(t, feed(t, &a, chunk(provB, 7, 3, 0, "x"), chunk(provB, 7, 3, 2, "z"), chunk(provA, 7, 2, 1, "q")))
	assert.Equal(t, []eventsource.Partial{
		{Provider: provB, ProcessID: 7, Have: 2, Total: 3},
		{Provider: provA, ProcessID: 7, Have: 1, Total: 2},
	}, a.Pending())
	assert.Equal(t, []string{"xyz"}, feed(t, &a, chunk(provB, 7, 3, 1, "y")))
	assert.Equal(t, []eventsource.Partial{{Provider: provA, ProcessID: 7, Have: 1, Total: 2}}, a.Pending())

	_, _, err := a.Add(chunk(provA, 1, 2, 2, "x"))
	assert.ErrorIs(t, err, eventsource.ErrEnvelope)
}

func TestGUIDFromName(t *testing.T) {
	// The GUIDs .NET declares for these EventSources, which follow the rule.
	assert.Equal(t, uuid.MustParse("49592c0f-5a05-516d-aa4b-a64e02026c89"), eventsource.GUIDFromName("System.Runtime"))
	assert.Equal(t, uuid.MustParse("adb401e1-5296-51f8-c125-5fda75826144"), eventsource.GUIDFromName("Microsoft-Diagnostics-DiagnosticSource"))
	// Case does not matter, and PerfView's "*" marker is dropped.
	assert.Equal(t, eventsource.GUIDFromName("System.Runtime"), eventsource.GUIDFromName("*system.runtime"))
	// PerfView's own EventSource declares no GUID: the samples log it
	// under this one.
	assert.Equal(t, provA, eventsource.GUIDFromName("PerfView"))
}

func TestProviderOf(t *testing.T) {
	p, err := eventsource.ProviderOf([]byte(`<?xml version="1.0"?><instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation><events><provider name="My-Source" guid="{2E5DBA47-A3D2-4D16-8EE0-6671FFDCD7B5}" symbol="x"></provider></events></instrumentation></instrumentationManifest>`))
	require.NoError(t, err)
	assert.Equal(t, eventsource.Provider{Name: "My-Source", GUID: provB}, p)

	p, err = eventsource.ProviderOf([]byte(`<instrumentationManifest><provider name="PerfView"/></instrumentationManifest>`))
	require.NoError(t, err)
	assert.Equal(t, eventsource.Provider{Name: "PerfView", GUID: provA}, p, "no guid: the one derived from the name")

	for _, bad := range []string{
		`<instrumentationManifest></instrumentationManifest>`,
		`<instrumentationManifest><provider/></instrumentationManifest>`,
		`<instrumentationManifest><provider name="x" guid="nope"/></instrumentationManifest>`,
		`<instrumentationManifest><prov`,
	} {
		_, err := eventsource.ProviderOf([]byte(bad))
		assert.ErrorIs(t, err, buffer.ErrMalformed, bad)
	}
}

func TestManifestEvent(t *testing.T) {
	e := eventsource.ManifestEvent("PerfView")
	assert.Equal(t, "PerfView", e.Provider)
	assert.Equal(t, "ManifestData", e.Name)
	r := &record.Record{UserData: envelope(1, 0, "<m/>")}
	vals, err := e.Payload.Decode(r.UserData, 8, nil)
	require.NoError(t, err)
	vals = e.Computed(r, vals)
	assert.Equal(t, `{"Format":1,"MajorVersion":1,"MinorVersion":0,"Magic":91,"TotalChunks":1,"ChunkNumber":0,"Chunk":"<m/>","PayloadLength":12}`,
		string(payload.AppendJSONObject(nil, vals)))
}

// manifestStats checks that a manifest is well-formed XML and counts its
// provider and event elements.
func manifestStats(t *testing.T, m []byte) (providers, events int) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(m))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		require.NoError(t, err, "manifest is not well-formed XML")
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "provider":
				providers++
			case "event":
				events++
			}
		}
	}
}
