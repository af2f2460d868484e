package stacks

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// Before and After stand for the ends of a trace in the load and unload
// times of modules and methods: loaded before the trace began (a start
// rundown), still loaded when it ended.
const (
	Before int64 = math.MinInt64
	After  int64 = math.MaxInt64
)

// Module is an image mapped into a process (or, for the kernel's images,
// into every process), from the trace's Image Load, Unload and rundown
// records, with the identity KernelTraceControl gives it in a merged
// trace.
type Module struct {
	// Path is the FileName of the image records, an NT path as the trace
	// holds it (\Device\HarddiskVolume2\Windows\System32\ntdll.dll).
	Path string
	// Name is the file name part of Path (ntdll.dll).
	Name       string
	Base, Size uint64
	// PID is the process the image is mapped in; Kernel marks the
	// kernel's images (process 0, or a base at or above the kernel
	// boundary), which every process shares.
	PID    uint32
	Kernel bool
	// Checksum and TimeDateStamp are the PE header's; TimeDateStamp is 0
	// in many rundowns, and then comes from KernelTraceControl's ImageID.
	Checksum      uint32
	TimeDateStamp uint32
	// PDB is the identity of the image's symbols, from DbgID_RSDS; the
	// zero PDB when the trace does not carry it (an unmerged trace).
	PDB PDB
	// Load and Unload bound when the image was mapped, as raw
	// timestamps, Before and After for the ends of the trace.
	Load, Unload int64
}

// PDB is the CodeView identity of an image's symbol file.
type PDB struct {
	GUID uuid.UUID
	Age  uint32
	Name string // the PDB file name as the image records it
}

// BuildID is the image's identity for a symbol server: the PDB's GUID as
// 32 upper-case hex digits followed by its age in hex (the key PerfView
// and symbol servers use), or without a PDB identity the PE code id
// (TimeDateStamp as 8 hex digits, then the image size), or "" when
// neither is known.
func (m *Module) BuildID() string {
	if m.PDB.GUID != uuid.Nil {
		return strings.ToUpper(strings.ReplaceAll(m.PDB.GUID.String(), "-", "")) + strconv.FormatUint(uint64(m.PDB.Age), 16)
	}
	if m.TimeDateStamp != 0 {
		return fmt.Sprintf("%08X%x", m.TimeDateStamp, m.Size)
	}
	return ""
}

// Method is a .NET method whose native code the runtime described in a
// MethodLoadVerbose or a method rundown (MethodDCStartVerbose,
// MethodDCEndVerbose): JIT-compiled code, or precompiled (NGEN,
// ReadyToRun) code the rundown lists.
type Method struct {
	// Namespace holds the type, Name the method, Signature the
	// signature, as the runtime logs them.
	Namespace, Name, Signature string
	Start                      uint64
	Size                       uint32
	ID, ModuleID               uint64
	Flags                      uint32
	// ModulePath is the IL path of the method's module, when the trace's
	// loader events name it.
	ModulePath string
	PID        uint32
	Load       int64
	Unload     int64
}

// FullName is Namespace.Name(parameters), the name PerfView gives a
// method: the signature from its first parenthesis on.
func (m *Method) FullName() string {
	sig := m.Signature
	if i := strings.IndexByte(sig, '('); i >= 0 {
		sig = sig[i:]
	} else {
		sig = ""
	}
	if m.Namespace == "" {
		return m.Name + sig
	}
	return m.Namespace + "." + m.Name + sig
}

// Frame is one resolved frame of a stack.
type Frame struct {
	Address uint64
	// Method is the .NET method whose code holds the address, nil if
	// none; Module the image that holds it, nil if none (JIT code lies in
	// no image).
	Method *Method
	Module *Module
}

// Name is how a frame is shown: a .NET method's FullName; module!+0xRVA
// for an address inside an image; ?!0xADDRESS for one the trace places
// nowhere.
func (f Frame) Name() string { return string(f.AppendName(nil)) }

// AppendName appends Name to dst.
func (f Frame) AppendName(dst []byte) []byte {
	switch {
	case f.Method != nil:
		return append(dst, f.Method.FullName()...)
	case f.Module != nil:
		dst = append(dst, f.Module.Name...)
		dst = append(dst, "!+0x"...)
		return strconv.AppendUint(dst, f.Address-f.Module.Base, 16)
	}
	dst = append(dst, "?!0x"...)
	return strconv.AppendUint(dst, f.Address, 16)
}

// Resolved reports whether the frame is placed in an image or a method.
func (f Frame) Resolved() bool { return f.Method != nil || f.Module != nil }

// ranges is a set of address ranges that may overlap (an address range is
// reused once its image or method is gone), each valid for a time, sorted
// by start for lookups once the trace is read.
type ranges[T any] struct {
	items  []*T
	start  func(*T) uint64
	end    func(*T) uint64
	span   func(*T) (int64, int64)
	maxEnd []uint64 // maxEnd[i]: the largest end among items[:i+1]
	sorted bool
}

func (r *ranges[T]) add(x *T) { r.items = append(r.items, x); r.sorted = false }

func (r *ranges[T]) sort() {
	if r.sorted {
		return
	}
	sort.SliceStable(r.items, func(i, j int) bool { return r.start(r.items[i]) < r.start(r.items[j]) })
	r.maxEnd = r.maxEnd[:0]
	var m uint64
	for _, x := range r.items {
		m = max(m, r.end(x))
		r.maxEnd = append(r.maxEnd, m)
	}
	r.sorted = true
}

// find returns the item holding addr at time t: of those whose range holds
// addr, the one valid at t, else the one valid nearest to t.
func (r *ranges[T]) find(addr uint64, t int64) *T {
	r.sort()
	i := sort.Search(len(r.items), func(i int) bool { return r.start(r.items[i]) > addr }) - 1
	var best *T
	var bestGap uint64
	for ; i >= 0 && r.maxEnd[i] > addr; i-- {
		x := r.items[i]
		if r.end(x) <= addr {
			continue
		}
		from, to := r.span(x)
		var gap uint64
		switch {
		case t < from:
			gap = uint64(from - t)
		case t >= to:
			gap = uint64(t-to) + 1
		}
		if best == nil || gap < bestGap {
			best, bestGap = x, gap
			if gap == 0 {
				break
			}
		}
	}
	return best
}

func newModuleRanges() *ranges[Module] {
	return &ranges[Module]{
		start: func(m *Module) uint64 { return m.Base },
		end:   func(m *Module) uint64 { return m.Base + m.Size },
		span:  func(m *Module) (int64, int64) { return m.Load, m.Unload },
	}
}

func newMethodRanges() *ranges[Method] {
	return &ranges[Method]{
		start: func(m *Method) uint64 { return m.Start },
		end:   func(m *Method) uint64 { return m.Start + uint64(m.Size) },
		span:  func(m *Method) (int64, int64) { return m.Load, m.Unload },
	}
}

// fileName is the part of a Windows path after its last separator.
func fileName(path string) string {
	if i := strings.LastIndexAny(path, `\/`); i >= 0 {
		return path[i+1:]
	}
	return path
}
