package stacks

import (
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/dotnet"
	"github.com/etlkit/etlkit/schema/kernel"
)

// maxPendingIDs bounds the image identities kept for an image record yet
// to come; identities of images the trace never logs would otherwise
// pile up.
const maxPendingIDs = 4096

// image follows an Image Load, Unload, DCStart or DCEnd (stacks.md §4.1).
// A kernel image (process 0, or a base at or above the kernel boundary)
// goes into the table every process shares.
func (j *Joiner) image(r *record.Record, op uint8) {
	switch op {
	case opImageLoad, opImageUnload, opImageDCStart, opImageDCEnd:
	default:
		return
	}
	e, _, ok := kernel.LookupRecord(r)
	if !ok || !j.dec.decode(r, e, kindImage) || !j.dec.has(1) {
		return
	}
	base, size := j.dec.uint(0), j.dec.uint(1)
	if size == 0 {
		return
	}
	pid := uint32(0)
	switch {
	case j.dec.has(2):
		pid = uint32(j.dec.uint(2))
	case r.HasThreadProcess:
		pid = r.ProcessId
	}
	kernelImage := pid == 0 || base >= KernelBoundary(r.PointerSize())
	if kernelImage {
		pid = kernelPID
	}
	key := modKey{pid, base}
	at := r.RawTimeStamp
	open := j.openImages[key]
	newModule := func(load, unload int64) *Module {
		m := &Module{Base: base, Size: size, PID: pid, Kernel: kernelImage, Load: load, Unload: unload,
			Checksum: uint32(j.dec.uint(3)), TimeDateStamp: uint32(j.dec.uint(4))}
		if kernelImage {
			m.PID = 0
		}
		if v, ok := j.dec.field(5); ok {
			m.Path = v.Str()
			m.Name = fileName(m.Path)
		}
		rs := j.images[pid]
		if rs == nil {
			rs = newModuleRanges()
			j.images[pid] = rs
		}
		rs.add(m)
		if id := j.pendingIDs[key]; id != nil {
			id.apply(m)
			delete(j.pendingIDs, key)
		}
		j.lastImage, j.lastImageAt = m, at
		return m
	}
	switch op {
	case opImageLoad, opImageDCStart:
		if open != nil {
			if op == opImageDCStart && open.Size == size {
				j.lastImage, j.lastImageAt = open, at
				return
			}
			open.Unload = at
			j.unmapped(pid)
		}
		load := at
		if op == opImageDCStart {
			load = Before
		}
		j.openImages[key] = newModule(load, After)
	case opImageUnload:
		if open != nil {
			open.Unload = at
			delete(j.openImages, key)
			j.lastImage, j.lastImageAt = open, at
		} else {
			newModule(Before, at)
		}
		j.unmapped(pid)
	case opImageDCEnd:
		if open != nil {
			j.lastImage, j.lastImageAt = open, at
			return
		}
		j.openImages[key] = newModule(Before, After)
	}
}

// unmapped notes that an address range of process pid (kernelPID: of the
// kernel) may mean something else from now on: stacks interned from now on
// are kept apart from those before.
func (j *Joiner) unmapped(pid uint32) {
	if pid == kernelPID {
		j.kernelGen++
		return
	}
	j.gens[pid]++
}

// imageIdentity takes KernelTraceControl's ImageID (the PE TimeDateStamp)
// and DbgID_RSDS (the PDB's GUID, age and name) of an image. A merge puts
// them just before the image's own record, with its timestamp; PerfView
// also pairs them in the other order (stacks.md §4.3).
func (j *Joiner) imageIdentity(r *record.Record) {
	op := r.EventDescriptor.Opcode
	var k kind
	switch op {
	case kernel.OpcodeImageID:
		k = kindImageID
	case kernel.OpcodeDbgIDRSDS:
		k = kindDbgID
	default:
		return
	}
	e, _, ok := kernel.LookupRecord(r)
	if !ok || !j.dec.decode(r, e, k) || !j.dec.has(0) {
		return
	}
	var id identity
	base := j.dec.uint(0)
	var pid uint32
	if k == kindImageID {
		pid = uint32(j.dec.uint(2))
		id.tds, id.hasTDS = uint32(j.dec.uint(3)), j.dec.has(3)
	} else {
		pid = uint32(j.dec.uint(1))
		if v, ok := j.dec.field(2); ok {
			id.pdb.GUID = v.GUID()
			id.pdb.Age = uint32(j.dec.uint(3))
			if n, ok := j.dec.field(4); ok {
				id.pdb.Name = n.Str()
			}
			id.hasPDB = true
		}
	}
	if pid == 0 || base >= KernelBoundary(r.PointerSize()) {
		pid = kernelPID
	}
	key := modKey{pid, base}
	if m := j.lastImage; m != nil && j.lastImageAt == r.RawTimeStamp && m.Base == base && (m.Kernel == (pid == kernelPID)) &&
		(m.Kernel || m.PID == pid) {
		id.apply(m)
		return
	}
	p := j.pendingIDs[key]
	if p == nil {
		if len(j.pendingIDs) >= maxPendingIDs {
			clear(j.pendingIDs)
		}
		p = new(identity)
		j.pendingIDs[key] = p
	}
	if id.hasTDS {
		p.tds, p.hasTDS = id.tds, true
	}
	if id.hasPDB {
		p.pdb, p.hasPDB = id.pdb, true
	}
}

func (id *identity) apply(m *Module) {
	if id.hasTDS && id.tds != 0 {
		m.TimeDateStamp = id.tds
	}
	if id.hasPDB {
		m.PDB = id.pdb
	}
}

// dotnetRecord reads the .NET runtime's method, module and stack events;
// it reports false for the others.
func (j *Joiner) dotnetRecord(r *record.Record) bool {
	id := r.EventDescriptor.Id
	rundown := r.ProviderId == dotnet.RundownProvider
	switch id {
	case clrMethodLoadVerbose, clrMethodUnloadVerbose, clrDomainModuleLoad, clrModuleLoad, clrModuleUnload, clrModuleDCEnd:
	case clrStackWalk:
		if rundown {
			return false
		}
	default:
		return false
	}
	e, _ := j.clr.Lookup(schema.Key{Provider: r.ProviderId, ID: id, Version: uint16(r.EventDescriptor.Version)})
	if e == nil {
		return false
	}
	switch id {
	case clrStackWalk:
		j.clrStack(r, e)
		return true
	case clrMethodLoadVerbose, clrMethodUnloadVerbose:
		j.method(r, e, id == clrMethodLoadVerbose, rundown)
	default:
		// Module loads, unloads and rundowns name a ModuleID's IL path.
		if j.dec.decode(r, e, kindModule) && j.dec.has(1) && r.HasThreadProcess {
			if v, _ := j.dec.field(1); v.IsText() {
				k := modKey{r.ProcessId, j.dec.uint(0)}
				if _, ok := j.modulePaths[k]; !ok {
					j.modulePaths[k] = v.Str()
				}
			}
		}
	}
	return false
}

// method follows a .NET method's code (stacks.md §5.4): MethodLoadVerbose
// from its load on, MethodDCStartVerbose from before the trace,
// MethodUnloadVerbose until then, and MethodDCEndVerbose, the end
// rundown, for code made before the trace and not in its start rundown.
func (j *Joiner) method(r *record.Record, e *schema.Event, load, rundown bool) {
	if !r.HasThreadProcess || !j.dec.decode(r, e, kindMethod) || !j.dec.has(7) {
		return
	}
	start, size := j.dec.uint(2), uint32(j.dec.uint(3))
	if size == 0 {
		return
	}
	pid, at := r.ProcessId, r.RawTimeStamp
	key := modKey{pid, start}
	open := j.openMethods[key]
	newMethod := func(from, to int64) *Method {
		m := &Method{Start: start, Size: size, ID: j.dec.uint(0), ModuleID: j.dec.uint(1), Flags: uint32(j.dec.uint(4)),
			PID: pid, Load: from, Unload: to}
		if v, ok := j.dec.field(5); ok {
			m.Namespace = v.Str()
		}
		if v, ok := j.dec.field(6); ok {
			m.Name = v.Str()
		}
		if v, ok := j.dec.field(7); ok {
			m.Signature = v.Str()
		}
		rs := j.methods[pid]
		if rs == nil {
			rs = newMethodRanges()
			j.methods[pid] = rs
		}
		rs.add(m)
		return m
	}
	switch {
	case load && !rundown: // MethodLoadVerbose
		if open != nil {
			open.Unload = at
			j.unmapped(pid)
		}
		j.openMethods[key] = newMethod(at, After)
	case load: // MethodDCStartVerbose
		if open == nil {
			j.openMethods[key] = newMethod(Before, After)
		}
	case !rundown: // MethodUnloadVerbose
		if open != nil {
			open.Unload = at
			delete(j.openMethods, key)
		} else {
			newMethod(Before, at)
		}
		j.unmapped(pid)
	default: // MethodDCEndVerbose
		if open == nil {
			j.openMethods[key] = newMethod(Before, After)
		}
	}
}
