package kernel

import (
	"github.com/google/uuid"

	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
)

// KernelFileProvider is Microsoft-Windows-Kernel-File, the manifest
// provider of the kernel's file system events. Its schema comes from the
// trace's metadata (or a manifest); TraceEvent shows its events through a
// parser of its own, and KernelFileEvent makes them look so.
var KernelFileProvider = uuid.MustParse("edd08927-9cc4-4e65-b970-c2560fb5c289")

// kernelFileCreate is the provider's Create event.
const kernelFileCreate = 12

// KernelFileEvent returns the event of Microsoft-Windows-Kernel-File with
// key k as TraceEvent shows it, or e itself when there is nothing to
// change. Of Create (a file opened or created):
//
//   - Irp is IrpPtr and CreateAttributes FileAttributes, TraceEvent's names;
//   - CreateOptions holds NtCreateFile's CreateDisposition in its high 8
//     bits and its CreateOptions in the low 24: they show as the two
//     fields, the disposition named;
//   - ShareAccess names its FILE_SHARE_* bits, with ReadWrite for Read and
//     Write together ("ReadWrite, Delete").
//
// Every FileName of the provider shows as a DOS path, which the Describer
// does with its State (see State.Rewrite). Both parts of CreateOptions are
// the record's bits; nothing else changes.
func KernelFileEvent(k schema.Key, e *schema.Event) *schema.Event {
	if k.Provider != KernelFileProvider || k.Classic || k.ID != kernelFileCreate || e == nil || e.Payload == nil {
		return e
	}
	fields := make([]payload.Field, len(e.Payload.Fields))
	hasOptions := false
	for i, f := range e.Payload.Fields {
		if len(f.Members) != 0 {
			return e
		}
		g := f.Description()
		switch f.Name {
		case "Irp":
			g.Name = "IrpPtr"
		case "CreateAttributes":
			g.Name = "FileAttributes"
		case "ShareAccess":
			g.Map = shareAccess
		case "CreateOptions":
			hasOptions = isInteger32(f.InType)
		}
		fields[i] = g
	}
	s, err := payload.NewSchema(e.Payload.Name, fields)
	if err != nil {
		return e
	}
	s.Spare = max(e.Payload.Spare, 1)
	c := *e
	c.Payload = s
	if hasOptions {
		c.Computed = splitCreateOptions
	}
	return &c
}

func isInteger32(t payload.InType) bool {
	return t == payload.InUInt32 || t == payload.InHexInt32 || t == payload.InInt32
}

// IsKernelFile reports whether a record is of Microsoft-Windows-Kernel-File,
// whose file names the Describer shows as DOS paths.
func IsKernelFile(r *record.Record) bool { return r.ProviderId == KernelFileProvider }

// The parts of Kernel-File Create's CreateOptions.
var (
	createOptionsField     = payload.Field{Name: "CreateOptions", InType: payload.InUInt32}
	createDispositionField = payload.Field{Name: "CreateDisposition", InType: payload.InUInt8, Map: createDisposition}
)

// createDisposition names NtCreateFile's dispositions (FILE_SUPERSEDE …
// FILE_OVERWRITE_IF) as TraceEvent prints them, in the words of the
// Win32 CreateFile dispositions that do the same (FILE_OPEN opens an
// existing file: OPEN_EXISTING).
var createDisposition = values("CreateDisposition",
	entry(0, "SUPERSEDE"),
	entry(1, "OPEN_EXISTING"),
	entry(2, "CREATE_NEW"),
	entry(3, "OPEN_ALWAYS"),
	entry(4, "TRUNCATE_EXISTING"),
	entry(5, "CREATE_ALWAYS"),
)

// shareAccess names the FILE_SHARE_* bits as .NET's FileShare does, which
// TraceEvent prints: Read and Write together are ReadWrite. A value map of
// every combination, since a bit map names each bit alone.
var shareAccess = values("ShareAccess",
	entry(0, "None"),
	entry(1, "Read"),
	entry(2, "Write"),
	entry(3, "ReadWrite"),
	entry(4, "Delete"),
	entry(5, "Read, Delete"),
	entry(6, "Write, Delete"),
	entry(7, "ReadWrite, Delete"),
)

// splitCreateOptions shows CreateOptions as its low 24 bits and appends
// CreateDisposition, its high 8.
func splitCreateOptions(_ *record.Record, vals []payload.Value) []payload.Value {
	for i := range vals {
		if vals[i].Name() == "CreateOptions" {
			v := vals[i].Uint()
			vals[i] = payload.NewUint(&createOptionsField, v&0xFFFFFF)
			return append(vals, payload.NewUint(&createDispositionField, v>>24&0xFF))
		}
	}
	return vals
}
