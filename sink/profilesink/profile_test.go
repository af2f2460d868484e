package profilesink_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/google/uuid"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/internal/stacktest"
	"github.com/etlkit/etlkit/sink/profilesink"
	"github.com/etlkit/etlkit/stacks"
)

// speedscopeSchema is the speedscope file format's JSON schema, written
// here from the published fields of its file-format-spec.ts (the schema at
// https://www.speedscope.app/file-format-schema.json is generated from
// it): a file with $schema, shared frames and profiles, evented or
// sampled.
const speedscopeSchema = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "$ref": "#/definitions/File",
  "definitions": {
    "File": {
      "type": "object",
      "properties": {
        "$schema": {"type": "string", "const": "https://www.speedscope.app/file-format-schema.json"},
        "shared": {
          "type": "object",
          "properties": {"frames": {"type": "array", "items": {"$ref": "#/definitions/Frame"}}},
          "required": ["frames"],
          "additionalProperties": false
        },
        "profiles": {
          "type": "array",
          "items": {"anyOf": [{"$ref": "#/definitions/EventedProfile"}, {"$ref": "#/definitions/SampledProfile"}]}
        },
        "name": {"type": "string"},
        "activeProfileIndex": {"type": "number"},
        "exporter": {"type": "string"}
      },
      "required": ["$schema", "profiles", "shared"],
      "additionalProperties": false
    },
    "Frame": {
      "type": "object",
      "properties": {
        "name": {"type": "string"},
        "file": {"type": "string"},
        "line": {"type": "number"},
        "col": {"type": "number"}
      },
      "required": ["name"],
      "additionalProperties": false
    },
    "ValueUnit": {"type": "string", "enum": ["none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"]},
    "SampledProfile": {
      "type": "object",
      "properties": {
        "type": {"type": "string", "const": "sampled"},
        "name": {"type": "string"},
        "unit": {"$ref": "#/definitions/ValueUnit"},
        "startValue": {"type": "number"},
        "endValue": {"type": "number"},
        "samples": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
        "weights": {"type": "array", "items": {"type": "number"}}
      },
      "required": ["type", "name", "unit", "startValue", "endValue", "samples", "weights"],
      "additionalProperties": false
    },
    "EventedProfile": {
      "type": "object",
      "properties": {
        "type": {"type": "string", "const": "evented"},
        "name": {"type": "string"},
        "unit": {"$ref": "#/definitions/ValueUnit"},
        "startValue": {"type": "number"},
        "endValue": {"type": "number"},
        "events": {"type": "array", "items": {"type": "object", "properties": {
          "type": {"type": "string", "enum": ["O", "C"]}, "at": {"type": "number"}, "frame": {"type": "number"}},
          "required": ["type", "at", "frame"]}}
      },
      "required": ["type", "name", "unit", "startValue", "endValue", "events"],
      "additionalProperties": false
    }
  }
}`

// CheckSpeedscope validates a speedscope file against the schema and the
// rules the importer adds (samples and weights of the same length, frame
// indices in range), and returns it decoded.
func CheckSpeedscope(t testing.TB, b []byte) speedscope {
	t.Helper()
	sch := compileSchema(t)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	require.NoError(t, sch.Validate(inst))
	var f speedscope
	require.NoError(t, json.Unmarshal(b, &f))
	for _, p := range f.Profiles {
		require.Len(t, p.Weights, len(p.Samples), p.Name)
		var total float64
		for i, s := range p.Samples {
			for _, fr := range s {
				require.Less(t, fr, len(f.Shared.Frames))
			}
			total += p.Weights[i]
		}
		require.Equal(t, total, p.EndValue-p.StartValue, p.Name)
	}
	return f
}

func compileSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(speedscopeSchema))
	require.NoError(t, err)
	require.NoError(t, c.AddResource("speedscope.json", doc))
	sch, err := c.Compile("speedscope.json")
	require.NoError(t, err)
	return sch
}

// TestSpeedscopeSchemaRejects: the schema tells a file that breaks the
// format from one that keeps it.
func TestSpeedscopeSchemaRejects(t *testing.T) {
	sch := compileSchema(t)
	good := `{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},` +
		`"profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":1,"samples":[[0]],"weights":[1]}]}`
	for _, tc := range []struct{ from, to string }{
		{`"unit":"none"`, `"unit":"ticks"`},
		{`"weights":[1]`, `"weights":["1"]`},
		{`{"name":"a"}`, `{"file":"a"}`},
		{`"type":"sampled",`, ``},
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(good))
		require.NoError(t, err)
		require.NoError(t, sch.Validate(inst))
		bad := strings.Replace(good, tc.from, tc.to, 1)
		inst, err = jsonschema.UnmarshalJSON(strings.NewReader(bad))
		require.NoError(t, err)
		assert.Error(t, sch.Validate(inst), bad)
	}
}

type speedscope struct {
	Shared struct {
		Frames []struct {
			Name string `json:"name"`
			File string `json:"file"`
		} `json:"frames"`
	} `json:"shared"`
	Profiles []struct {
		Name       string    `json:"name"`
		Unit       string    `json:"unit"`
		StartValue float64   `json:"startValue"`
		EndValue   float64   `json:"endValue"`
		Samples    [][]int   `json:"samples"`
		Weights    []float64 `json:"weights"`
	} `json:"profiles"`
}

func (f speedscope) totalWeight() float64 {
	var n float64
	for _, p := range f.Profiles {
		for _, w := range p.Weights {
			n += w
		}
	}
	return n
}

// foldedTotal adds up the counts of folded stacks, checking that every
// line is frames, a space, and a count.
func foldedTotal(t testing.TB, b []byte) int64 {
	t.Helper()
	var n int64
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		require.Positive(t, i, line)
		c, err := strconv.ParseInt(line[i+1:], 10, 64)
		require.NoError(t, err, line)
		n += c
	}
	require.NoError(t, sc.Err())
	return n
}

const (
	k1, k2   = 0xFFFFF800_00001000, 0xFFFFF800_00002000
	appBase  = 0x7FF6_0000_0000
	jitStart = 0x7FF5_0000_1000
	pid, tid = 1234, 5678
)

// builtTrace has two threads of app.exe sampled: in the kernel under a
// .NET method and app.exe's code, and in the method itself.
func builtTrace(t testing.TB) []byte {
	tr := stacktest.New()
	tr.ProcessRundown(0, 1, pid, "app.exe")
	tr.ThreadRundown(0, 2, pid, tid)
	tr.ThreadRundown(0, 3, pid, tid+4)
	tr.ImageID(0, 4, 0, 0xFFFFF800_00000000, 0x100000, 0x5010ADCB, uuid.MustParse("72482100-1c1c-4a03-aed8-c4c71c2e8d1d"), 2, "ntkrnlmp.pdb")
	tr.Image(0, 4, 3, 0, 0xFFFFF800_00000000, 0x100000, `\SystemRoot\system32\ntoskrnl.exe`)
	tr.Image(0, 5, 3, pid, appBase, 0x10000, `\Device\HarddiskVolume2\app\app.exe`)
	tr.Method(0, 6, true, 143, false, pid, tid, jitStart, 0x100, "App.Program", "Work", "void  (int32)")
	for i := range int64(3) {
		at := 100 + 10*i
		tr.Sample(0, at, tid, k1)
		tr.Stack(0, at+1, at, pid, tid, k1, k2)
		tr.Stack(0, at+2, at, pid, tid, jitStart+0x10, appBase+0x2000)
	}
	tr.Sample(1, 200, tid+4, jitStart+0x20)
	tr.Stack(1, 201, 200, pid, tid+4, jitStart+0x20, appBase+0x2000)
	return tr.Bytes(t)
}

// profileOf runs a Joiner over a trace into a Profile.
func profileOf(t testing.TB, b []byte, opts profilesink.Options) *profilesink.Profile {
	t.Helper()
	r, err := etl.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	var p *profilesink.Profile
	j := stacks.NewJoiner(stacks.Options{Emit: func(s *stacks.Sample) { p.Add(s) }})
	opts.Clock = &r.Header().Clock
	p = profilesink.New(j, opts)
	for rec, err := range r.Events() {
		require.NoError(t, err)
		j.Add(rec)
	}
	j.Close()
	return p
}

func TestFolded(t *testing.T) {
	p := profileOf(t, builtTrace(t), profilesink.Options{})
	var out bytes.Buffer
	require.NoError(t, p.WriteFolded(&out))
	assert.Equal(t,
		"app.exe;app.exe!+0x2000;App.Program.Work(int32) 1\n"+
			"app.exe;app.exe!+0x2000;App.Program.Work(int32);ntoskrnl.exe!+0x2000;ntoskrnl.exe!+0x1000 3\n", out.String())
}

func TestSpeedscope(t *testing.T) {
	for _, byProcess := range []bool{false, true} {
		p := profileOf(t, builtTrace(t), profilesink.Options{Name: "built.etl", Timeline: true, ByProcess: byProcess})
		var out bytes.Buffer
		require.NoError(t, p.WriteSpeedscope(&out))
		f := CheckSpeedscope(t, out.Bytes())
		assert.EqualValues(t, 4, f.totalWeight())
		names := make([]string, len(f.Shared.Frames))
		for i, fr := range f.Shared.Frames {
			names[i] = fr.Name
		}
		if !byProcess {
			require.Len(t, f.Profiles, 2)
			first := f.Profiles[0]
			assert.Equal(t, "app.exe (1234) / 5678", first.Name, "the busiest thread first")
			assert.Equal(t, []float64{3}, first.Weights, "a run of equal stacks is one sample")
			var stack []string
			for _, i := range first.Samples[0] {
				stack = append(stack, names[i])
			}
			assert.Equal(t, []string{"app.exe!+0x2000", "App.Program.Work(int32)", "ntoskrnl.exe!+0x2000", "ntoskrnl.exe!+0x1000"},
				stack, "root first")
			assert.Equal(t, "none", first.Unit)
		} else {
			require.Len(t, f.Profiles, 1)
			assert.Equal(t, "app.exe (1234)", f.Profiles[0].Name)
			assert.Equal(t, []float64{3, 1}, f.Profiles[0].Weights)
		}
	}
}

func TestPprof(t *testing.T) {
	p := profileOf(t, builtTrace(t), profilesink.Options{Name: "built.etl"})
	var out bytes.Buffer
	require.NoError(t, p.WritePprof(&out))
	pr, err := profile.Parse(&out)
	require.NoError(t, err)
	require.NoError(t, pr.CheckValid())
	assert.Equal(t, "cpu", pr.DefaultSampleType)
	require.Len(t, pr.SampleType, 2)
	assert.Equal(t, "samples", pr.SampleType[0].Type)
	assert.EqualValues(t, 1_000_000, pr.Period, "the default 1 ms interval: the trace states none")
	require.Len(t, pr.Sample, 2)
	var count, nanos int64
	for _, s := range pr.Sample {
		count += s.Value[0]
		nanos += s.Value[1]
		assert.Equal(t, []string{"1234"}, s.Label["pid"])
		assert.Equal(t, []string{"app.exe"}, s.Label["process"])
	}
	assert.EqualValues(t, 4, count)
	assert.EqualValues(t, 4_000_000, nanos)

	assert.Equal(t, `\Device\HarddiskVolume2\app\app.exe`, pr.Mapping[0].File, "the process's executable first")
	var kernel *profile.Mapping
	for _, m := range pr.Mapping {
		if strings.HasSuffix(m.File, "ntoskrnl.exe") {
			kernel = m
		}
	}
	require.NotNil(t, kernel)
	assert.Equal(t, "724821001C1C4A03AED8C4C71C2E8D1D2", kernel.BuildID)
	assert.Equal(t, uint64(0xFFFFF800_00000000), kernel.Start)
	assert.Equal(t, uint64(0xFFFFF800_00100000), kernel.Limit)
	assert.Contains(t, pr.Comments, "# pdb \\SystemRoot\\system32\\ntoskrnl.exe 724821001C1C4A03AED8C4C71C2E8D1D2 ntkrnlmp.pdb")

	leaf := func(s *profile.Sample) string { return s.Location[0].Line[0].Function.Name }
	got := []string{leaf(pr.Sample[0]), leaf(pr.Sample[1])}
	assert.ElementsMatch(t, []string{"ntoskrnl.exe!+0x1000", "App.Program.Work(int32)"}, got)
	for _, s := range pr.Sample {
		if leaf(s) == "App.Program.Work(int32)" {
			assert.Equal(t, "[jit]", s.Location[0].Mapping.File)
			assert.Equal(t, uint64(jitStart+0x20), s.Location[0].Address)
		}
	}
}

// TestNet452 writes the three formats of the merged .NET sample: the
// speedscope file passes the schema and weighs as many samples as the
// trace has, and so do the folded stacks.
func TestNet452(t *testing.T) {
	path := samples.Path(t, "net452-x64-merged-compressed.etl")
	f, err := etl.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var p *profilesink.Profile
	j := stacks.NewJoiner(stacks.Options{Emit: func(s *stacks.Sample) { p.Add(s) }})
	p = profilesink.New(j, profilesink.Options{Name: "net452", Clock: &f.Header().Clock, Timeline: true})
	for r, err := range f.Events() {
		require.NoError(t, err)
		j.Add(r)
	}
	j.Close()
	const n = 79528
	require.EqualValues(t, n, p.Samples())

	var ss bytes.Buffer
	require.NoError(t, p.WriteSpeedscope(&ss))
	sf := CheckSpeedscope(t, ss.Bytes())
	assert.EqualValues(t, n, sf.totalWeight())

	var folded bytes.Buffer
	require.NoError(t, p.WriteFolded(&folded))
	assert.EqualValues(t, n, foldedTotal(t, folded.Bytes()))

	var pp bytes.Buffer
	require.NoError(t, p.WritePprof(&pp))
	pr, err := profile.Parse(&pp)
	require.NoError(t, err)
	var count int64
	for _, s := range pr.Sample {
		count += s.Value[0]
	}
	assert.EqualValues(t, n, count)
}
