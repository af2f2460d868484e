// Package wpptest builds what tests of WPP decoding need beside a trace:
// PDBs whose module symbols hold the annotations the compiler writes for
// WPP's trace macros (TMF: messages, TMC: control GUIDs).
package wpptest

import "github.com/etlkit/etlkit/schema/wpp/internal/pdb"

// Symbols writes a module symbol stream: procedures (Proc … End) and
// annotations (Annotation) inside or outside them.
type Symbols = pdb.Symbols

// NewSymbols starts a module symbol stream.
func NewSymbols() *Symbols { return pdb.NewSymbols() }

// Module is one module of a PDB to build; nil Symbols gives it no symbol
// stream, as stripping does.
type Module = pdb.BuildModule

// BuildPDB writes a PDB (MSF 7.00, blocks of blockSize bytes) with the
// given modules; stripped sets the DBI flag that PDBCopy sets.
func BuildPDB(blockSize int, mods []Module, stripped bool) []byte {
	return pdb.Build(blockSize, mods, stripped)
}
