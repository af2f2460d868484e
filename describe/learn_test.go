package describe_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/eventsource"
)

var (
	fileProvider = uuid.MustParse("edd08927-9cc4-4e65-b970-c2560fb5c289")
	mySource     = eventsource.GUIDFromName("My-Source")
)

// createInfo is TDH's description of a Kernel-File Create event, cut down:
// a pointer, a mapped integer and a string.
var createInfo = etltest.EventInfo{
	Provider:     fileProvider,
	Descriptor:   header.EventDescriptor{Id: 12, Version: 1, Level: 4, Task: 12},
	ProviderName: "Microsoft-Windows-Kernel-File", Task: "Create", Opcode: "win:Info", TopLevel: -1,
	Properties: []etltest.PropertyInfo{
		{Name: "Irp", InType: 16, OutType: 19, Count: 1, Length: 4},
		{Name: "ShareAccess", InType: 8, OutType: 8, MapName: "ShareMap", Count: 1, Length: 4},
		{Name: "FileName", InType: 1, OutType: 1, Count: 1},
	},
}

var shareMap = etltest.MapInfo{Name: "ShareMap", Flags: 2, Entries: []etltest.MapEntry{
	{Value: 1, Output: "Read "}, {Value: 2, Output: "Write "}, {Value: 4, Output: "Delete "}}}

func createPayload(name string) []byte {
	return (&etltest.Payload{}).U64(0xFFFFFA8300C0DCD8).U32(5).UTF16Z(name).Bytes()
}

const myManifest = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation><events>` +
	`<provider name="My-Source" symbol="MySource" guid="{%v}"><events><event value="1" version="0" symbol="Hello" template="HelloArgs"/></events>` +
	`<templates><template tid="HelloArgs"><data name="message" inType="win:UnicodeString"/></template></templates></provider>` +
	`</events></instrumentation></instrumentationManifest>`

// parseMySource is a stand-in for the manifest parser that knows the one
// event of My-Source.
func parseMySource(xml []byte, source string, set *schema.Set) error {
	p, err := eventsource.ProviderOf(xml)
	if err != nil {
		return err
	}
	if p.Name != "My-Source" {
		return fmt.Errorf("%s: provider %s unknown to the test", source, p.Name)
	}
	set.Add(schema.Key{Provider: p.GUID, ID: 1}, &schema.Event{Provider: p.Name, Name: "Hello",
		Payload: payload.MustSchema("Hello", []payload.Field{{Name: "message", InType: payload.InUnicodeString}})})
	return nil
}

// mergedTrace is a trace whose metadata comes after the events it
// describes: TDH metadata on processor 1, its map after it, and an
// EventSource manifest in two chunks, the second written first and
// repeated.
func mergedTrace(t *testing.T) []byte {
	s := etltest.DefaultSession()
	at := func(tick int64) int64 { return s.HeaderTimeStamp + tick }
	manifest := []byte(fmt.Sprintf(myManifest, mySource))
	half := len(manifest) / 2
	chunk := func(tick int64, n uint16, part []byte) etltest.Record {
		return &etltest.Event{ProviderId: mySource, Descriptor: etltest.ManifestDescriptor, ProcessId: 40, ThreadId: 41,
			TimeStamp: at(tick), UserData: etltest.ManifestChunk(2, n, part)}
	}
	create := func(tick int64, name string) etltest.Record {
		return &etltest.Event{ProviderId: fileProvider, Descriptor: createInfo.Descriptor, ProcessId: 4, ThreadId: 8,
			TimeStamp: at(tick), UserData: createPayload(name)}
	}
	metadata := func(tick int64, opcode uint8, p []byte) etltest.Record {
		return &etltest.Full{Type: opcode, Guid: etltest.MetaDataClass, ProcessId: 4, ThreadId: 8, TimeStamp: at(tick), Payload: p}
	}
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		if err := b.WriteBuffer(etltest.Buffer{CPU: 0, SequenceNumber: 1},
			create(10, `C:\a`),
			&etltest.Event{ProviderId: mySource, Descriptor: header.EventDescriptor{Id: 1}, ProcessId: 40, ThreadId: 41,
				TimeStamp: at(11), UserData: etltest.UTF16Z("hi")},
			chunk(12, 1, manifest[half:]),
		); err != nil {
			return err
		}
		return b.WriteBuffer(etltest.Buffer{CPU: 1, SequenceNumber: 2},
			metadata(20, etltest.OpcodeEventInfo, createInfo.Bytes()),
			create(20, `C:\b`),
			metadata(20, etltest.OpcodeEventMapInfo, etltest.EventMapInfoPayload(fileProvider, &shareMap)),
			chunk(30, 0, manifest[:half]),
			chunk(31, 1, manifest[half:]),
		)
	})
	require.NoError(t, err)
	return data
}

func openBytes(t *testing.T, data []byte) *etl.Reader {
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	return r
}

// describeAll describes every record in time order as "Provider/Event
// payload".
func describeAll(t *testing.T, r *etl.Reader, z *describe.Describer) []string {
	var out []string
	var d describe.Description
	for rec, err := range r.Events() {
		require.NoError(t, err)
		if rec.HookId == 0 && rec.HeaderType.IsKernel() {
			continue // the trace header
		}
		z.Describe(rec, &d, true)
		s := d.ProviderName + "/" + d.EventName
		if d.Decoded {
			s += " " + string(payload.AppendJSONObject(nil, d.Fields))
		}
		out = append(out, s)
	}
	return out
}

func TestLearnerScan(t *testing.T) {
	r := openBytes(t, mergedTrace(t))
	l := describe.NewLearner()
	l.SetManifestParser(parseMySource)
	l.Scan(r.Buffers(), &r.Header().Clock)
	assert.Empty(t, l.Errors())
	assert.Empty(t, l.Pending())
	assert.Equal(t, describe.LearnStats{EventInfos: 1, EventMapInfos: 1, Events: 1, Maps: 1,
		ManifestChunks: 3, Manifests: 1, ManifestsParsed: 1}, l.Stats())

	got := describeAll(t, r, describe.New(describe.Options{Trace: l.Set()}))
	manifest := `My-Source/ManifestData {"Format":1,"MajorVersion":1,"MinorVersion":0,"Magic":91,"TotalChunks":2,"ChunkNumber":%d,"Chunk":`
	require.Len(t, got, 8)
	// The events logged before their metadata are described too, and the
	// map that came after its event names the value.
	assert.Equal(t, `Microsoft-Windows-Kernel-File/Create {"IrpPtr":"0xFFFFFA8300C0DCD8","ShareAccess":5,"ShareAccessName":"Read, Delete","FileName":"C:\\a"}`, got[0])
	assert.Equal(t, `My-Source/Hello {"message":"hi"}`, got[1])
	assert.Contains(t, got[2], fmt.Sprintf(manifest, 1))
	assert.Equal(t, `Microsoft-Windows-Kernel-File/Create {"IrpPtr":"0xFFFFFA8300C0DCD8","ShareAccess":5,"ShareAccessName":"Read, Delete","FileName":"C:\\b"}`, got[4])
	assert.Contains(t, got[6], fmt.Sprintf(manifest, 0))
	assert.Contains(t, got[6], `"PayloadLength":`)
}

func TestLearnerStreaming(t *testing.T) {
	// Learning record by record as the main pass reads them leaves the
	// events before their metadata undescribed: what Scan is for.
	r := openBytes(t, mergedTrace(t))
	l := describe.NewLearner()
	l.SetManifestParser(parseMySource)
	z := describe.New(describe.Options{Trace: l.Set()})
	var names []string
	var d describe.Description
	for rec, err := range r.Records() {
		require.NoError(t, err)
		learned := l.Learn(rec)
		z.Describe(rec, &d, true)
		if rec.ProviderId == fileProvider || rec.ProviderId == mySource {
			names = append(names, fmt.Sprintf("%s/%s %v", d.ProviderName, d.EventName, learned))
		}
	}
	assert.Equal(t, []string{
		"/ false", "/ false", "/ManifestData true",
		"Microsoft-Windows-Kernel-File/Create false", "My-Source/ManifestData true", "My-Source/ManifestData true",
	}, names)
}

func TestLearnerTwoTraces(t *testing.T) {
	// The metadata in one file of a capture describes the events of
	// another: one Learner over both.
	s := etltest.DefaultSession()
	meta, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		return b.WriteBuffer(etltest.Buffer{CPU: 0, SequenceNumber: 1},
			&etltest.Full{Type: etltest.OpcodeEventInfo, Guid: etltest.MetaDataClass, TimeStamp: s.HeaderTimeStamp + 1, Payload: createInfo.Bytes()})
	})
	require.NoError(t, err)
	events, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		return b.WriteBuffer(etltest.Buffer{CPU: 0, SequenceNumber: 1},
			&etltest.Event{ProviderId: fileProvider, Descriptor: createInfo.Descriptor, TimeStamp: s.HeaderTimeStamp + 2, UserData: createPayload("x")})
	})
	require.NoError(t, err)
	l := describe.NewLearner()
	for _, data := range [][]byte{meta, events} {
		r := openBytes(t, data)
		l.Scan(r.Buffers(), &r.Header().Clock)
	}
	got := describeAll(t, openBytes(t, events), describe.New(describe.Options{Trace: l.Set()}))
	// The map never came, but Kernel-File's ShareAccess is named as
	// TraceEvent names it whatever the metadata says (and its Irp is
	// IrpPtr).
	assert.Equal(t, []string{`Microsoft-Windows-Kernel-File/Create {"IrpPtr":"0xFFFFFA8300C0DCD8","ShareAccess":5,"ShareAccessName":"Read, Delete","FileName":"x"}`}, got)
}

func TestLearnerDefer(t *testing.T) {
	k := schema.Key{Provider: fileProvider, ID: 12, Version: 1}
	for _, c := range []struct {
		name    string
		builtIn schema.Key
		learned bool
	}{
		{"the same version is left to the built-in table", k, false},
		{"an older version in the table: the trace's is better", schema.Key{Provider: fileProvider, ID: 12, Version: 0}, true},
		{"another event", schema.Key{Provider: fileProvider, ID: 13, Version: 1}, true},
	} {
		var builtIn schema.Set
		builtIn.Add(c.builtIn, &schema.Event{Name: "BuiltIn"})
		l := describe.NewLearner()
		l.Defer(&builtIn)
		assert.True(t, l.Learn(metadataRecord(etltest.OpcodeEventInfo, createInfo.Bytes())))
		e, _ := l.Set().Lookup(k)
		assert.Equal(t, c.learned, e != nil, c.name)
		assert.Equal(t, c.learned, l.Stats().Events == 1, c.name)
		assert.Equal(t, !c.learned, l.Stats().Deferred == 1, c.name)
		name, _ := l.Set().ProviderName(fileProvider)
		assert.Equal(t, "Microsoft-Windows-Kernel-File", name, c.name)
	}
}

func metadataRecord(opcode uint8, p []byte) *record.Record {
	return &record.Record{HeaderType: header.TypeFull64, ProviderId: etltest.MetaDataClass,
		EventDescriptor: header.EventDescriptor{Opcode: opcode}, UserData: p, FileOffset: 0x1234, BufferIndex: 3, BufferOffset: 0x48}
}

func manifestChunkRecord(p []byte) *record.Record {
	return &record.Record{HeaderType: header.TypeEventHeader64, ProviderId: mySource, ProcessId: 40,
		EventDescriptor: etltest.ManifestDescriptor, UserData: p, FileOffset: 0x5678}
}

func TestLearnerErrors(t *testing.T) {
	l := describe.NewLearner()
	l.SetManifestParser(parseMySource)
	bad := createInfo.Bytes()
	bad[0x34], bad[0x35], bad[0x36], bad[0x37] = 0xFF, 0xFF, 0, 0 // the provider name's offset, past the blob
	assert.True(t, l.Learn(metadataRecord(etltest.OpcodeEventInfo, bad)))
	assert.True(t, l.Learn(metadataRecord(etltest.OpcodeEventMapInfo, etltest.EventMapInfoPayload(fileProvider, &shareMap)[:20])))
	assert.True(t, l.Learn(manifestChunkRecord([]byte{1, 1, 0, 0x5A, 1, 0, 0, 0})))
	assert.True(t, l.Learn(manifestChunkRecord(etltest.ManifestChunk(1, 0, []byte("<instrumentationManifest/>")))))
	other := fmt.Sprintf(myManifest, mySource)
	other = string(bytes.Replace([]byte(other), []byte("My-Source"), []byte("Other"), 1))
	assert.True(t, l.Learn(manifestChunkRecord(etltest.ManifestChunk(1, 0, []byte(other)))))
	// Not metadata.
	assert.False(t, l.Learn(&record.Record{HeaderType: header.TypeFull64, ProviderId: etltest.MetaDataClass,
		EventDescriptor: header.EventDescriptor{Opcode: 34}}))
	assert.False(t, l.Learn(&record.Record{HeaderType: header.TypeEventHeader64, ProviderId: mySource,
		EventDescriptor: header.EventDescriptor{Id: 0xFFFE}}))

	errs := l.Errors()
	require.Len(t, errs, 5)
	assert.Equal(t, 5, l.Stats().Errors)
	var le *describe.LearnError
	require.True(t, errors.As(errs[0], &le))
	assert.Equal(t, "MetaData/EventInfo", le.What)
	assert.Equal(t, int64(0x1234), le.FileOffset)
	assert.ErrorIs(t, errs[0], buffer.ErrMalformed)
	assert.Contains(t, errs[0].Error(), "MetaData/EventInfo record at file offset 0x1234 (buffer 3, offset 0x48): "+
		"TRACE_EVENT_INFO at offset 0x34: provider name offset 0xffff is past the blob's")
	assert.Contains(t, errs[1].Error(), "MetaData/EventMapInfo record at file offset 0x1234")
	assert.ErrorIs(t, errs[2], eventsource.ErrEnvelope)
	assert.Contains(t, errs[3].Error(), "no provider element")
	assert.Contains(t, errs[4].Error(), "provider Other unknown to the test")
	assert.Contains(t, errs[4].Error(), "EventSource manifest of Other {", "the parser is told where the manifest came from")
	assert.Equal(t, 2, l.Stats().Manifests)
	assert.Equal(t, 0, l.Stats().ManifestsParsed)
}

func TestLearnerErrorsAreBounded(t *testing.T) {
	l := describe.NewLearner()
	for range describe.MaxLearnErrors + 10 {
		l.Learn(metadataRecord(etltest.OpcodeEventInfo, []byte{1, 2, 3}))
	}
	assert.Len(t, l.Errors(), describe.MaxLearnErrors)
	assert.Equal(t, describe.MaxLearnErrors+10, l.Stats().Errors)
}
