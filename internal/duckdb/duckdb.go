// Package duckdb runs SQL in DuckDB, through node and the @duckdb/node-api
// package, for tests that check our Parquet output with the engine users
// run rather than with our own reader.
//
// .ci/run installs the package into .ci/duckdb/node_modules when node and
// npm are present; by hand:
//
//	npm install --no-save --no-package-lock --prefix .ci/duckdb @duckdb/node-api
//
// Without node or the package, Query skips the test and says why.
package duckdb

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Result is what one statement returned.
type Result struct {
	Columns []string `json:"columns"`
	Types   []string `json:"types"`
	// Rows hold the values as DuckDB renders them in JSON: numbers that
	// may exceed 2^53 (BIGINT and wider) and timestamps come as strings.
	Rows [][]any `json:"rows"`
}

// Column returns the values of the named column.
func (r *Result) Column(name string) []any {
	for i, c := range r.Columns {
		if c == name {
			out := make([]any, len(r.Rows))
			for j, row := range r.Rows {
				out[j] = row[i]
			}
			return out
		}
	}
	return nil
}

const installHint = "npm install --no-save --no-package-lock --prefix .ci/duckdb @duckdb/node-api"

// paths gives node, this directory and the node_modules directory .ci/run
// installs into, or skips the test when node or the package is absent.
func paths(t testing.TB) (node, dir, modules string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: this test reads Parquet back with DuckDB under node (see internal/duckdb)")
	}
	_, self, _, _ := runtime.Caller(0)
	dir = filepath.Dir(self)
	modules = filepath.Join(dir, "..", "..", ".ci", "duckdb", "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@duckdb", "node-api")); err != nil && os.Getenv("NODE_PATH") == "" {
		t.Skipf("@duckdb/node-api is not installed: %s (or set NODE_PATH to a node_modules that has it)", installHint)
	}
	return node, dir, modules
}

// Require skips the test at once when DuckDB cannot be run, before it
// does the work whose result DuckDB would check.
func Require(t testing.TB) {
	t.Helper()
	paths(t)
}

// Query runs the statements in one in-memory DuckDB, in order, and returns
// their results. It skips the test when node or @duckdb/node-api is absent.
func Query(t testing.TB, statements ...string) []Result {
	t.Helper()
	node, dir, modules := paths(t)
	in, err := json.Marshal(statements)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(dir, "query.mjs"))
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = append(os.Environ(), "NODE_PATH="+strings.Join(nonEmpty(modules, os.Getenv("NODE_PATH")), string(os.PathListSeparator)))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		t.Skipf("@duckdb/node-api is not installed: %s: %s", installHint, strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		t.Fatalf("duckdb: %v: %s", err, stderr.String())
	}
	var results []Result
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil {
		t.Fatalf("duckdb: reading its output: %v", err)
	}
	if len(results) != len(statements) {
		t.Fatalf("duckdb: %d results for %d statements", len(results), len(statements))
	}
	return results
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
