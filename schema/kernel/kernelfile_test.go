package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/payload"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/schema"
	"github.com/etlkit/etlkit/schema/kernel"
)

// kernelFileCreate is Create v1 as the trace's metadata describes it.
func kernelFileCreate() *schema.Event {
	return &schema.Event{Provider: "Microsoft-Windows-Kernel-File", Name: "Create", Payload: payload.MustSchema("Create", []payload.Field{
		{Name: "Irp", InType: payload.InPointer},
		{Name: "FileObject", InType: payload.InPointer},
		{Name: "IssuingThreadId", InType: payload.InUInt32},
		{Name: "CreateOptions", InType: payload.InUInt32, OutType: payload.OutHexInt32},
		{Name: "CreateAttributes", InType: payload.InUInt32, OutType: payload.OutHexInt32},
		{Name: "ShareAccess", InType: payload.InUInt32, OutType: payload.OutHexInt32},
		{Name: "FileName", InType: payload.InUnicodeString},
	})}
}

// TestKernelFileCreate: Kernel-File's Create shows as TraceEvent shows
// it, from the record's bits, with its file name as a DOS path.
func TestKernelFileCreate(t *testing.T) {
	k := schema.Key{Provider: kernel.KernelFileProvider, ID: 12, Version: 1}
	raw := kernelFileCreate()
	e := kernel.KernelFileEvent(k, raw)
	require.NotSame(t, raw, e)
	assert.Equal(t, "Irp", raw.Payload.Fields[0].Name, "the event given is left alone")
	assert.Same(t, raw, kernel.KernelFileEvent(schema.Key{Provider: kernel.KernelFileProvider, ID: 13, Version: 1}, raw))
	assert.Same(t, raw, kernel.KernelFileEvent(schema.Key{ID: 12, Version: 1}, raw))

	var state kernel.State
	mapping := &record.Record{HeaderType: header.TypeFull64, ProviderId: kernel.SysConfigTask,
		EventDescriptor: header.EventDescriptor{Opcode: 35},
		UserData:        new(etltest.Payload).UTF16Z(`\Device\HarddiskVolume2\`).UTF16Z(`C:\`).Bytes()}
	state.Learn(mapping)

	r := &record.Record{HeaderType: header.TypeEventHeader64, ProviderId: kernel.KernelFileProvider,
		EventDescriptor: header.EventDescriptor{Id: 12, Version: 1}}
	show := func(options, share uint32, name string) string {
		r.UserData = new(etltest.Payload).Ptr(8, 0xFFFFFA830393A3E8).Ptr(8, 0xFFFFFA83004BDA90).U32(3780).
			U32(options).U32(0).U32(share).UTF16Z(name).Bytes()
		require.True(t, kernel.IsKernelFile(r))
		vals, err := e.Payload.DecodeKeep(r.UserData, 8, nil)
		require.NoError(t, err)
		vals = e.Computed(r, vals)
		state.Learn(r)
		return string(payload.AppendTextFields(nil, state.Rewrite(e, vals), "; "))
	}
	assert.Equal(t, `IrpPtr=0xFFFFFA830393A3E8; FileObject=0xFFFFFA83004BDA90; IssuingThreadId=3780; CreateOptions=2097152; `+
		`FileAttributes=0x0; ShareAccess=ReadWrite, Delete; FileName=C:\Windows\SysWOW64\inetsrv\iiscore.dll; CreateDisposition=OPEN_EXISTING`,
		show(0x1200000, 7, `\Device\HarddiskVolume2\Windows\SysWOW64\inetsrv\iiscore.dll`))
	// A share as a UNC path; a file created anew, shared for reading.
	assert.Equal(t, `IrpPtr=0xFFFFFA830393A3E8; FileObject=0xFFFFFA83004BDA90; IssuingThreadId=3780; CreateOptions=32; `+
		`FileAttributes=0x0; ShareAccess=Read; FileName=\\DfsClient\;Z:0\share\a.etl; CreateDisposition=CREATE_NEW`,
		show(0x2000020, 1, `\Device\Mup\DfsClient\;Z:0\share\a.etl`))

	// Showing a record so costs nothing once the buffers have grown.
	var vals []payload.Value
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		vals, _ = e.Payload.DecodeKeep(r.UserData, 8, vals[:0])
		vals = e.Computed(r, vals)
		state.Learn(r)
		vals = state.Rewrite(e, vals)
	}))
	assert.Len(t, vals, 8)
}
