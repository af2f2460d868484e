package kernel

import (
	"encoding/binary"
	"strings"

	"github.com/etlkit/etlkit/internal/nametable"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
)

// State keeps what kernel records say that later records need to be shown
// as TraceEvent shows them: how the kernel's device paths read as DOS
// paths, and the names of file objects.
//
// A merged trace carries the volume mappings of the machine it was taken
// on (KernelTraceControl's SysConfig records: \Device\HarddiskVolume2\ is
// C:\, \SystemRoot\ is C:\Windows\, …); with them a FileName such as
// \Device\HarddiskVolume2\Windows\System32\ntdll.dll reads
// C:\Windows\System32\ntdll.dll, and one without a device (\Windows\…) is
// on the system drive. FileIO's Name, FileCreate, FileDelete and
// FileRundown events name file objects; events that carry a FileKey and no
// FileName of their own (a hard fault, a disk I/O) get the name last given
// to that file object. Both are learned in the order records are seen; a
// State cloned from one that saw the whole trace first (see Clone) also
// knows the names logged after an event, in a rundown at the end of the
// trace, as TraceEvent does.
//
// The zero State is ready to use. It is not safe for concurrent use.
type State struct {
	volumes     []volume
	systemDrive string                  // "C:", from the system paths
	files       nametable.Table[uint64] // file names by file object
	buf         []byte                  // the text of the values made for one record
	// disks holds, by disk number, the time (FILETIME, 0 for none) the
	// last disk request on that disk completed; lastDisk is the disk
	// request Learn saw last, when it was the record Learn saw last.
	disks    []int64
	lastDisk diskCompletion
}

// diskCompletion is a disk request's completion and the one before it on
// its disk (0 for none).
type diskCompletion struct {
	at, previous int64
	ok           bool
}

// maxDisks bounds the disk numbers whose completions a State keeps; a
// request on a disk past it gets no DiskServiceTimeMSec.
const maxDisks = 1 << 10

// volume maps an NT path prefix to its DOS form.
type volume struct{ nt, dos string }

// SysConfig opcodes the state reads: two UTF-16 strings each.
const (
	opSystemPaths   = 33 // SystemDirectory, SystemWindowsDirectory
	opVolumeMapping = 35 // NtPath, DosPath
)

// FileIO opcodes whose payload is a file object and its name.
const (
	groupFileIO       = 0x04
	opFileName        = 0
	opFileCreate      = 32
	opFileDelete      = 35
	opFileNameRundown = 36
)

var fileNameField = payload.NewField(payload.Field{Name: "FileName", InType: payload.InUnicodeString})

// GroupFileIO is the kernel's FileIO group (the high byte of HookId).
const GroupFileIO = groupFileIO

// fileIOClass is the class GUID of FileIO events relogged with classic
// headers.
var fileIOClass = record.KernelGroupGUID(groupFileIO, 0)

// NamesFileObject reports the FileIO opcodes whose payload is a file
// object and its name (Name, FileCreate, FileDelete, FileRundown): the
// records by which later disk, file and page-fault events name their
// files.
func NamesFileObject(op uint8) bool {
	switch op {
	case opFileName, opFileCreate, opFileDelete, opFileNameRundown:
		return true
	}
	return false
}

// Learn takes from r what later records need: a volume mapping, the
// system paths, or a file object's name. Other records cost a few
// comparisons.
func (s *State) Learn(r *record.Record) {
	s.lastDisk.ok = false
	switch {
	case r.HeaderType.IsKernel():
		if r.HookId>>8 == groupDiskIo {
			s.learnDisk(r)
			return
		}
		if r.HookId>>8 != groupFileIO {
			return
		}
	case !r.HeaderType.IsClassic():
		return
	case r.ProviderId == diskIoClass:
		s.learnDisk(r)
		return
	case r.ProviderId == SysConfigTask:
		switch r.EventDescriptor.Opcode {
		case opVolumeMapping:
			nt, rest, ok := payload.CutUTF16(r.UserData)
			dos, _, ok2 := payload.CutUTF16(rest)
			if ok && ok2 && len(nt) > 0 {
				s.buf = payload.AppendUTF16(s.buf[:0], nt)
				n := len(s.buf)
				s.buf = payload.AppendUTF16(s.buf, dos)
				s.addVolume(s.buf[:n], s.buf[n:])
			}
		case opSystemPaths:
			if dir, _, ok := payload.CutUTF16(r.UserData); ok {
				s.buf = payload.AppendUTF16(s.buf[:0], dir)
				if d := s.buf; len(d) >= 2 && d[1] == ':' && string(d[:2]) != s.systemDrive {
					s.systemDrive = string(d[:2])
				}
			}
		}
		return
	case r.ProviderId != fileIOClass:
		return
	}
	if !NamesFileObject(r.EventDescriptor.Opcode) {
		return
	}
	p := r.PointerSize()
	if p != 4 && p != 8 || len(r.UserData) < p {
		return
	}
	key := uint64(binary.LittleEndian.Uint32(r.UserData))
	if p == 8 {
		key = binary.LittleEndian.Uint64(r.UserData)
	}
	name, _, ok := payload.CutUTF16(r.UserData[p:])
	if !ok {
		return
	}
	s.files.AddUTF16(key, name)
}

// diskIoClass is the class GUID of DiskIo events relogged with classic
// headers.
var diskIoClass = record.KernelGroupGUID(groupDiskIo, 0)

// Disk request completions: a read or a write done. A flush is a request
// on the disk too, and its completion ends the disk's previous work as
// well.
const (
	opDiskRead  = 10
	opDiskWrite = 11
	opDiskFlush = 14
)

// learnDisk keeps the time a disk request completed, by disk, and the
// completion before it on that disk for the record's DiskServiceTimeMSec.
func (s *State) learnDisk(r *record.Record) {
	switch r.EventDescriptor.Opcode {
	case opDiskRead, opDiskWrite, opDiskFlush:
	default:
		return
	}
	at, ok := r.FileTime()
	if !ok || len(r.UserData) < 4 {
		return
	}
	disk := binary.LittleEndian.Uint32(r.UserData)
	if disk >= maxDisks {
		return
	}
	if int(disk) >= len(s.disks) {
		s.disks = append(s.disks, make([]int64, int(disk)+1-len(s.disks))...)
	}
	s.lastDisk = diskCompletion{at: at, previous: s.disks[disk], ok: true}
	s.disks[disk] = at
}

// Clone returns a State that starts from what s knows and learns on its
// own: a first pass over a trace fills one (describe.Learner), and each
// Describer of the trace starts from a copy. The disks' last completions
// are not copied: they are state in time order, which a first pass
// would leave at the trace's end.
func (s *State) Clone() *State {
	return &State{
		volumes:     append([]volume(nil), s.volumes...),
		systemDrive: s.systemDrive,
		files:       s.files.Clone(),
	}
}

// addVolume records a mapping; one the State has already costs nothing.
func (s *State) addVolume(nt, dos []byte) {
	for i := range s.volumes {
		if s.volumes[i].nt == string(nt) {
			if s.volumes[i].dos != string(dos) {
				s.volumes[i].dos = string(dos)
			}
			return
		}
	}
	s.volumes = append(s.volumes, volume{string(nt), string(dos)})
	if s.systemDrive == "" && strings.EqualFold(string(nt), `\SystemRoot\`) && len(dos) >= 2 && dos[1] == ':' {
		s.systemDrive = string(dos[:2])
	}
}

// Which of the fields Rewrite looks at a schema has.
const (
	hasFileName = 1 << iota
	hasFileKey
	checked
)

// fileFields says which of FileName and FileKey the tables' schemas have
// (set when the tables are built, read-only after), so that Rewrite passes
// over the others at the cost of a map lookup.
var fileFields = map[*payload.Schema]uint8{}

func fileFieldsOf(s *payload.Schema) uint8 {
	f := uint8(checked)
	for i := range s.Fields {
		switch s.Fields[i].Name {
		case "FileName":
			f |= hasFileName
		case "FileKey":
			f |= hasFileKey
		}
	}
	return f
}

// Rewrite shows the file names of a kernel event's decoded values as
// TraceEvent does: every FileName as a DOS path, and for an event with a
// FileKey and no FileName, the FileName of that file object when it is
// known. The values it makes refer to memory the State reuses at the next
// Rewrite.
//
// A disk read's or write's record (learned just before) also gets
// DiskServiceTimeMSec: the time the disk spent on it, from the later of
// its start and the previous completion on the same disk to its own
// completion; that is its ElapsedTimeMSec, less the time it waited
// behind the disk's earlier requests.
func (s *State) Rewrite(e *schema.Event, vals []payload.Value) []payload.Value {
	if s.lastDisk.ok {
		vals = s.diskService(e, vals)
	}
	if e != nil && e.Payload != nil && fileFields[e.Payload] == checked {
		return vals
	}
	s.buf = s.buf[:0]
	var key payload.Value
	hasKey, hasName := false, false
	for i := range vals {
		switch vals[i].Name() {
		case "FileName":
			hasName = true
			if vals[i].IsText() && (len(s.volumes) > 0 || s.systemDrive != "") {
				vals[i] = s.dosPath(vals[i].Field(), vals[i].AppendText)
			}
		case "FileKey":
			key, hasKey = vals[i], true
		}
	}
	if !hasKey || hasName {
		return vals
	}
	name, ok := s.files.Lookup(key.Uint())
	if !ok {
		return vals
	}
	return append(vals, s.dosPath(fileNameField, func(dst []byte) []byte { return append(dst, name...) }))
}

// dosPath makes a string value of field f from the path that text
// appends, turned into its DOS form.
func (s *State) dosPath(f *payload.Field, text func([]byte) []byte) payload.Value {
	start := len(s.buf)
	s.buf = text(s.buf)
	path := s.buf[start:]
	out := len(s.buf)
	best := -1
	for i, v := range s.volumes {
		if hasPrefixFold(path, v.nt) && (best < 0 || len(v.nt) > len(s.volumes[best].nt)) {
			best = i
		}
	}
	switch {
	case best >= 0:
		s.buf = append(s.buf, s.volumes[best].dos...)
		s.buf = append(s.buf, path[len(s.volumes[best].nt):]...)
	case hasPrefixFold(path, uncDevice):
		// The Multiple UNC Provider's device is the root of UNC paths.
		s.buf = append(s.buf, `\\`...)
		s.buf = append(s.buf, path[len(uncDevice):]...)
	case s.systemDrive != "" && onSystemDrive(path):
		s.buf = append(s.buf, s.systemDrive...)
		s.buf = append(s.buf, path...)
	default:
		s.buf = append(s.buf, path...)
	}
	return payload.NewString(f, s.buf[out:len(s.buf):len(s.buf)])
}

// uncDevice is the device of \\server\share paths.
const uncDevice = `\Device\Mup\`

// onSystemDrive reports whether path is rooted without naming a device or
// a share (\Windows\…), which the kernel writes for files on the system
// drive.
func onSystemDrive(path []byte) bool {
	return hasPrefixFold(path, `\`) && !hasPrefixFold(path, `\\`) &&
		!hasPrefixFold(path, `\??\`) && !hasPrefixFold(path, `\Device\`)
}

// hasPrefixFold reports whether b starts with prefix, ASCII letters in
// either case (NT paths are case-insensitive).
func hasPrefixFold(b []byte, prefix string) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		x, y := b[i], prefix[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

var diskServiceField = payload.NewField(payload.Field{Name: "DiskServiceTimeMSec", InType: payload.InDouble})

// diskService appends DiskServiceTimeMSec to a disk read or write that
// has an ElapsedTimeMSec.
func (s *State) diskService(e *schema.Event, vals []payload.Value) []payload.Value {
	s.lastDisk.ok = false
	if e == nil || e.Name != "DiskIO/Read" && e.Name != "DiskIO/Write" {
		return vals
	}
	elapsed, ok := payload.Lookup(vals, "ElapsedTimeMSec")
	if !ok {
		return vals
	}
	ms := elapsed.Float()
	if c := s.lastDisk; c.previous != 0 && c.previous <= c.at {
		ms = min(ms, float64(c.at-c.previous)/10_000)
	}
	return append(vals, payload.NewFloat(diskServiceField, ms))
}
