package etl_test

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/etlkit/etlkit"

// modulePackages reads the imports of every package of the module, by
// import path: the package's own, and with its tests'.
func modulePackages(t *testing.T) (imports, withTests map[string][]string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	imports, withTests = map[string][]string{}, map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		ip := module
		if rel != "." {
			ip += "/" + filepath.ToSlash(rel)
		}
		own := inModule(p.Imports)
		imports[ip] = own
		withTests[ip] = slices.Concat(own, inModule(p.TestImports), inModule(p.XTestImports))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports, withTests
}

func inModule(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == module || strings.HasPrefix(p, module+"/") {
			out = append(out, p)
		}
	}
	return out
}

// closure is every package reached from roots through imports, roots
// included.
func closure(imports map[string][]string, roots ...string) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, q := range imports[p] {
			visit(q)
		}
	}
	for _, r := range roots {
		visit(r)
	}
	return seen
}

// TestLayers holds the module to the direction of its data flow where it
// matters most: nothing etl builds on (buffer, header, record, order and
// the internal packages under them) reaches etl, not even in its tests,
// which would have those packages tested through the door they sit
// behind; and record, the decoded event, does not depend on the payload
// model, which describes events to its right.
func TestLayers(t *testing.T) {
	imports, withTests := modulePackages(t)
	etl := module + "/etl"
	if _, ok := imports[etl]; !ok {
		t.Fatalf("package %s not found", etl)
	}
	below := closure(imports, imports[etl]...)
	if len(below) < 4 {
		t.Fatalf("etl builds on %d packages of the module: the walk found too little", len(below))
	}
	for p := range below {
		for _, q := range withTests[p] {
			if closure(imports, q)[etl] {
				t.Errorf("%s (below etl) imports %s, which reaches etl", p, q)
			}
		}
	}
	if closure(imports, module+"/record")[module+"/payload"] {
		t.Errorf("record reaches payload")
	}
}

// layerRank places the module's top-level packages along the data flow,
// bytes to outputs: a package may import only those of a lower rank (and
// its own subpackages). internal/ serves every layer and is left out.
var layerRank = map[string]int{
	"guid": 0, "buffer": 1, "header": 2, "record": 3, "order": 4, "filter": 5,
	"payload": 6, "schema": 7, "describe": 8, "etl": 9, "stacks": 10, "packets": 10,
	"sink": 11, "etltest": 12, "cmd": 13,
}

// rankOf is the rank of a package of the module by its top-level
// directory, and false for one outside the ranks.
func rankOf(path string) (int, bool) {
	rel := strings.TrimPrefix(path, module+"/")
	top, _, _ := strings.Cut(rel, "/")
	r, ok := layerRank[top]
	return r, ok
}

// TestImportsFlowOneWay: no package imports one to its right.
func TestImportsFlowOneWay(t *testing.T) {
	imports, _ := modulePackages(t)
	checked := 0
	for p, deps := range imports {
		rp, ok := rankOf(p)
		if !ok {
			continue
		}
		checked++
		for _, q := range deps {
			if rq, ok := rankOf(q); ok && rq > rp {
				t.Errorf("%s imports %s, to its right in the data flow", p, q)
			}
		}
	}
	if checked < 30 {
		t.Fatalf("%d packages checked: the walk found too little", checked)
	}
}
