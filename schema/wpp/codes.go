package wpp

import (
	"sort"
	"sync"

	"github.com/etlkit/etlkit/payload"
)

//go:generate sh -c "go run ../../internal/cmd/genwppcodes -o zcodes.go -source \"golang.org/x/sys $(go list -m -f '{{.Version}}' golang.org/x/sys) windows/zerrors_windows.go\" $(go list -m -f '{{.Dir}}' golang.org/x/sys)/windows/zerrors_windows.go"

// codeName is one named status code of the generated tables.
type codeName struct {
	code uint32
	name string
}

func lookupCode(t []codeName, code uint32) (string, bool) {
	i := sort.Search(len(t), func(i int) bool { return t[i].code >= code })
	if i < len(t) && t[i].code == code {
		return t[i].name, true
	}
	return "", false
}

// NTStatusName, HResultName and Win32ErrorName are the symbolic names of
// status codes, from the Windows SDK's ntstatus.h and winerror.h; false
// for a code they do not name.
func NTStatusName(code uint32) (string, bool)   { return lookupCode(ntStatusNames[:], code) }
func HResultName(code uint32) (string, bool)    { return lookupCode(hresultNames[:], code) }
func Win32ErrorName(code uint32) (string, bool) { return lookupCode(win32ErrorNames[:], code) }

var (
	ntStatusName   = NTStatusName
	hresultName    = HResultName
	win32ErrorName = Win32ErrorName
)

// The value maps of the argument fields of those types, so that jsonl
// gives each code's name beside it; made on first use and shared.
var (
	ntStatusMap   = codeMap("NTSTATUS", ntStatusNames[:])
	hresultMap    = codeMap("HRESULT", hresultNames[:])
	win32ErrorMap = codeMap("WINERROR", win32ErrorNames[:])
)

func codeMap(name string, t []codeName) func() *payload.Map {
	return sync.OnceValue(func() *payload.Map {
		m := &payload.Map{Name: name, Entries: make([]payload.MapEntry, len(t))}
		for i, c := range t {
			m.Entries[i] = payload.MapEntry{Value: uint64(c.code), Name: c.name}
		}
		return m
	})
}
