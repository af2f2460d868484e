package wpp_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/schema/wpp"
	"github.com/etlkit/etlkit/schema/wpp/internal/pdb"
)

// annotate turns the entries of a TMF file into the module symbols a
// compiler writes for them: each entry an S_ANNOTATION ("TMF:", the GUID
// line, the #typev line without FUNC=, "{", the arguments, "}") inside
// the procedure FUNC= names. Every other entry also gets a trailing
// PUBLIC_TMF: string, which is not part of the message.
func annotate(t *testing.T, text string) []byte {
	syms := pdb.NewSymbols()
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	guidLine := ""
	n := 0
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "#typev"):
			head, fn, ok := strings.Cut(l, " FUNC=")
			require.True(t, ok, l)
			strs := []string{"TMF:", guidLine, head}
			for i++; lines[i] != "}"; i++ {
				strs = append(strs, lines[i])
			}
			strs = append(strs, "}")
			if n%2 == 1 {
				strs = append(strs, "PUBLIC_TMF:")
			}
			n++
			syms.Proc(fn)
			syms.Annotation(strs...)
			syms.End()
		case l != "" && !strings.HasPrefix(l, "//") && !strings.HasPrefix(l, "{") && !strings.HasPrefix(l, "}"):
			guidLine = l
		}
	}
	return syms.Bytes()
}

// model is what a test compares of a message: everything the TMF says.
func model(m *wpp.Message) wpp.Message {
	return wpp.Message{GUID: m.GUID, Number: m.Number, Name: m.Name, Format: m.Format, Module: m.Module,
		Source: m.Source, MajorComp: m.MajorComp, MinorComp: m.MinorComp, Attrs: m.Attrs, Level: m.Level,
		Flags: m.Flags, Func: m.Func, Args: exportedArgs(m.Args), LevelValue: m.LevelValue, Keyword: m.Keyword}
}

// TestPDBSameAsTMF builds a PDB whose modules hold the annotations of the
// real TMFs and reads it: the messages are those of the TMF text, field for
// field, with 4096- and 512-byte blocks.
func TestPDBSameAsTMF(t *testing.T) {
	dir := samples.TMFDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.tmf"))
	require.NoError(t, err)
	var mods []pdb.BuildModule
	want := map[string]wpp.Message{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		mods = append(mods, pdb.BuildModule{Name: filepath.Base(f), Symbols: annotate(t, string(data))})
		for _, m := range wpp.ParseTMF(data, f).Messages {
			want[m.GUID.String()+"/"+strconv.Itoa(int(m.Number))] = model(m)
		}
	}
	for _, bs := range []int{4096, 512} {
		img := pdb.Build(bs, mods, false)
		pf, err := wpp.ParsePDB(bytes.NewReader(img), int64(len(img)), "all.pdb")
		require.NoError(t, err)
		assert.Empty(t, pf.Warnings)
		require.Equal(t, len(want), len(pf.Messages))
		for _, m := range pf.Messages {
			k := m.GUID.String() + "/" + strconv.Itoa(int(m.Number))
			assert.Equal(t, want[k], model(m), k)
			assert.True(t, strings.HasPrefix(m.Origin, "all.pdb: module "), m.Origin)
		}
	}
}

const pdbEntries = `aaaaaaaa-0000-3000-0000-000000000001 drv // SRC=a.c MJ= MN=
#typev a_c10 10 "%0 [%!FUNC!] one %10!d!" //   LEVEL=TRACE_LEVEL_ERROR FLAGS=TRACE_IO FUNC=Outer
{
n, ItemLong -- 10
}
#typev a_c20 11 "%0 [%!FUNC!] two" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=TRACE_PNP FUNC=Second
{
}
`

// TestPDBControl reads a control GUID's flag names (TMC annotation): a
// message's FLAGS= gets its bit as the keyword, in the PDB and, through
// the set, in TMF files loaded beside it.
func TestPDBControl(t *testing.T) {
	syms := pdb.NewSymbols()
	syms.Proc("DriverEntry")
	syms.Annotation("TMC:", "586AA8B1-53A6-404F-9B3E-14483E514A2C", "DrvTraceGuid", "ALL_INFO", "TRACE_IO", "TRACE_PNP", "PUBLIC_TMF:")
	syms.End()
	syms2 := annotate(t, pdbEntries)
	img := pdb.Build(4096, []pdb.BuildModule{{Name: "init", Symbols: syms.Bytes()}, {Name: "a", Symbols: syms2}}, false)
	pf, err := wpp.ParsePDB(bytes.NewReader(img), int64(len(img)), "drv.pdb")
	require.NoError(t, err)
	require.Len(t, pf.Controls, 1)
	c := pf.Controls[0]
	assert.Equal(t, "586aa8b1-53a6-404f-9b3e-14483e514a2c", c.GUID.String())
	assert.Equal(t, "DrvTraceGuid", c.Name)
	assert.Equal(t, []string{"ALL_INFO", "TRACE_IO", "TRACE_PNP"}, c.Flags)
	s := wpp.NewSet()
	s.AddFile(pf)
	require.Equal(t, 2, s.Len())
	for _, m := range []struct {
		n  uint16
		kw uint64
	}{{10, 2}, {11, 4}} {
		assert.Equal(t, m.kw, s.Lookup(pf.Messages[0].GUID, m.n).Keyword)
	}

	// The control alone, in a directory beside the TMF.
	img = pdb.Build(4096, []pdb.BuildModule{{Name: "init", Symbols: syms.Bytes()}}, false)
	d := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(d, "drv.pdb"), img, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(d, "aaaaaaaa-0000-3000-0000-000000000001.tmf"), []byte(pdbEntries), 0o644))
	s, err = wpp.Load(d)
	require.NoError(t, err)
	assert.Empty(t, s.Warnings())
	assert.Equal(t, 2, s.Sources())
	m := s.Lookup(pf.Messages[0].GUID, 10)
	require.NotNil(t, m)
	assert.Equal(t, uint64(2), m.Keyword)
	assert.Equal(t, "Outer", m.Func, "the TMF's own FUNC=")
}

// TestPDBFunctions: the function of an annotation is the innermost
// procedure around it; one the #typev line names already is kept.
func TestPDBFunctions(t *testing.T) {
	syms := pdb.NewSymbols()
	syms.Proc("Outer")
	syms.Annotation("TMF:", "bbbbbbbb-0000-3000-0000-000000000001 m // SRC=b.c", `#typev b_c1 10 "%0 outer"`, "{", "}")
	syms.Proc("Inner")
	syms.Annotation("TMF:", "bbbbbbbb-0000-3000-0000-000000000001 m // SRC=b.c", `#typev b_c2 11 "%0 inner" // LEVEL=TRACE_LEVEL_ERROR`, "{", "}")
	syms.End()
	syms.Annotation("TMF:", "bbbbbbbb-0000-3000-0000-000000000001 m // SRC=b.c", `#typev b_c3 12 "%0 outer again" // FUNC=Given`, "{", "}")
	syms.End()
	syms.Annotation("TMF:", "bbbbbbbb-0000-3000-0000-000000000001 m // SRC=b.c", `#typev b_c4 13 "%0 outside"`, "{", "}")
	// A second annotation of message 10 (a funclet's) is not kept.
	syms.Proc("Outer'::fin$0")
	syms.Annotation("TMF:", "bbbbbbbb-0000-3000-0000-000000000001 m // SRC=b.c", `#typev b_c1 10 "%0 outer"`, "{", "}")
	syms.End()
	// One that does not read costs its message only.
	syms.Annotation("TMF:", "bbbbbbbb-0000-3000-0000-000000000001 m // SRC=b.c", `#typev b_c5 14 "%0 bad"`, "{", "x, ItemLong", "}")
	img := pdb.Build(1024, []pdb.BuildModule{{Name: "b", Symbols: syms.Bytes()}}, false)
	pf, err := wpp.ParsePDB(bytes.NewReader(img), int64(len(img)), "b.pdb")
	require.NoError(t, err)
	var funcs []string
	for _, m := range pf.Messages {
		funcs = append(funcs, m.Name+"="+m.Func)
	}
	assert.Equal(t, []string{"b_c1=Outer", "b_c2=Inner", "b_c3=Given", "b_c4="}, funcs)
	require.Len(t, pf.Warnings, 1)
	assert.Contains(t, pf.Warnings[0].Error(), "b.pdb: module b: annotation at 0x")
	assert.Contains(t, pf.Warnings[0].Error(), "message b_c5")
}

// TestPDBNoMessages: public PDBs and PDBs without WPP say so.
func TestPDBNoMessages(t *testing.T) {
	syms := pdb.NewSymbols()
	syms.Proc("f")
	syms.End()
	for _, c := range []struct {
		name string
		img  []byte
		want error
	}{
		{"stripped", pdb.Build(4096, []pdb.BuildModule{{Name: "a", Symbols: syms.Bytes()}}, true), wpp.ErrStripped},
		{"no symbol streams", pdb.Build(4096, []pdb.BuildModule{{Name: "a"}, {Name: "b"}}, false), wpp.ErrStripped},
		{"no annotations", pdb.Build(4096, []pdb.BuildModule{{Name: "a", Symbols: syms.Bytes()}}, false), wpp.ErrNoAnnotations},
		{"text", []byte(pdbEntries), wpp.ErrNotPDB},
		{"MSF 2.00", append([]byte("Microsoft C/C++ program database 2.00\r\n\x1aJG\x00\x00"), make([]byte, 64)...), wpp.ErrNotPDB},
	} {
		_, err := wpp.ParsePDB(bytes.NewReader(c.img), int64(len(c.img)), c.name+".pdb")
		assert.ErrorIs(t, err, c.want, c.name)
		var pe *wpp.PDBError
		assert.True(t, errors.As(err, &pe), c.name)
		assert.True(t, strings.HasPrefix(err.Error(), c.name+".pdb: "), err.Error())
	}
	_, err := wpp.ParsePDB(bytes.NewReader(nil), 0, "stripped.pdb")
	assert.ErrorIs(t, err, wpp.ErrNotPDB)
	img := pdb.Build(4096, []pdb.BuildModule{{Name: "a", Symbols: syms.Bytes()}}, true)
	_, err = wpp.ParsePDB(bytes.NewReader(img), int64(len(img)), "x.pdb")
	assert.Contains(t, err.Error(), "private symbols stripped")
}

// smallPDB is a PDB with two modules of messages, the input of the damage
// tests and the fuzz target's seed.
func smallPDB(t testing.TB, blockSize int) []byte {
	syms := pdb.NewSymbols()
	syms.Proc("DriverEntry")
	syms.Annotation("TMC:", "586aa8b1-53a6-404f-9b3e-14483e514a2c", "Drv", "A", "B")
	syms.Annotation("TMF:", "aaaaaaaa-0000-3000-0000-000000000001 drv // SRC=a.c MJ= MN=",
		`#typev a_c10 10 "%0 [%!FUNC!] one %10!d! %11!s!" //   LEVEL=TRACE_LEVEL_ERROR FLAGS=A`, "{", "n, ItemLong -- 10", "s, ItemString -- 11", "}")
	syms.End()
	syms2 := pdb.NewSymbols()
	syms2.Proc("Other")
	syms2.Annotation("TMF:", "aaaaaaaa-0000-3000-0000-000000000002 drv // SRC=b.c MJ= MN=",
		`#typev b_c10 10 "%0 [%!FUNC!] two %10!p!" //   LEVEL=TRACE_LEVEL_VERBOSE FLAGS=B`, "{", "p, ItemPtr -- 10", "}")
	syms2.End()
	return pdb.Build(blockSize, []pdb.BuildModule{{Name: "a", Symbols: syms.Bytes()}, {Name: "none"}, {Name: "b", Symbols: syms2.Bytes()}}, false)
}

// parseBounded parses a PDB image and reports the bytes allocated, which
// must stay within a small multiple of the image's size.
func parseBounded(t *testing.T, img []byte) error {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := wpp.ParsePDB(bytes.NewReader(img), int64(len(img)), "x.pdb")
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(8*len(img)+256<<10) {
		t.Errorf("parsing %d bytes allocated %d", len(img), got)
	}
	return err
}

// TestPDBDamage: a PDB cut anywhere, or with any of its sizes and block
// numbers made hostile, gives an error and never a panic, and allocates in
// proportion to the file.
func TestPDBDamage(t *testing.T) {
	img := smallPDB(t, 512)
	pf, err := wpp.ParsePDB(bytes.NewReader(img), int64(len(img)), "x.pdb")
	require.NoError(t, err)
	require.Len(t, pf.Messages, 2)
	for n := 0; n < len(img); n += 7 {
		err := parseBounded(t, img[:n])
		assert.Error(t, err, "cut at %d", n)
	}
	// Every aligned u32 of the file (so every u16 too) set to hostile
	// values.
	for off := 0; off+4 <= len(img); off += 4 {
		for _, v := range []uint32{0, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, uint32(len(img))} {
			bad := bytes.Clone(img)
			binary.LittleEndian.PutUint32(bad[off:], v)
			parseBounded(t, bad)
		}
	}
}
