package kernel_test

import "testing"

// TestRegistryFields decodes a payload of every Registry class: Status is
// pointer-sized before v2, and a v2 operation's ElapsedTimeMSec is the
// record's time stamp less InitialTime.
func TestRegistryFields(t *testing.T) {
	const key = `\REGISTRY\MACHINE\SOFTWARE\Microsoft`
	kcb := uint64(0xFFFFF8A000123450)
	checkFields(t, []fieldCase{
		{hook: 0x090B, version: 0, ps: 4, data: newPB(4).ptr(0xC0000034).ptr(kcb).u64(25).w(key).b, event: "Registry/Open",
			want: "Status=0xC0000034 KeyHandle=0x123450 ElapsedTime=25 KeyName=" + key},
		{hook: 0x0916, version: 1, ps: 8, data: newPB(8).ptr(0).ptr(kcb).u64(25).u32(3).w(key).b, event: "Registry/KCBCreate",
			want: "Status=0x0 KeyHandle=0xFFFFF8A000123450 ElapsedTime=25 Index=3 KeyName=" + key},
		{hook: 0x0910, version: 2, ps: 8, raw: 1_000_000, data: newPB(8).u64(990_000).u32(0).u32(0).ptr(kcb).w("Version").b,
			event: "Registry/QueryValue",
			want:  "InitialTime=990000 Status=0x0 Index=0 KeyHandle=0xFFFFF8A000123450 KeyName=Version ElapsedTimeMSec=1"},
		{hook: 0x091D, version: 2, ps: 4, raw: 1_000_000, data: newPB(4).u64(999_995).u32(0xC0000022).u32(1).ptr(kcb).w("").b,
			event: "Registry/QuerySecurity",
			want:  "InitialTime=999995 Status=0xC0000022 Index=1 KeyHandle=0x123450 KeyName= ElapsedTimeMSec=0.0005"},
		// An InitialTime after the record gives no elapsed time.
		{hook: 0x090A, version: 2, ps: 4, raw: 1_000, data: newPB(4).u64(2_000).u32(0).u32(0).ptr(kcb).w("k").b,
			event: "Registry/Create",
			want:  "InitialTime=2000 Status=0x0 Index=0 KeyHandle=0x123450 KeyName=k"},
		{hook: 0x091E, version: 2, ps: 8, data: newPB(8).guid("6a5b1f2e-1c3d-4e5f-8a9b-0c1d2e3f4a5b").u32(0).u32(2).u64(77).w(`\REGISTRY\A\x`).b,
			event: "Registry/TxRCommit",
			want:  `TxrGUID=6a5b1f2e-1c3d-4e5f-8a9b-0c1d2e3f4a5b Status=0x0 UowCount=2 OperationTime=77 Hive=\REGISTRY\A\x`},
		{hook: 0x0922, version: 2, ps: 8, data: newPB(8).u64(1).u64(2).u64(3).u64(4).u64(5).u64(6).u64(7).u64(8).u64(9).u64(10).u64(11).b,
			event: "Registry/Counters",
			want: "Counter1=1 Counter2=2 Counter3=3 Counter4=4 Counter5=5 Counter6=6 Counter7=7 Counter8=8 Counter9=9 " +
				"Counter10=10 Counter11=11"},
		{hook: 0x0923, version: 2, ps: 4, data: newPB(4).u32(1).b, event: "Registry/Config", want: "CurrentControlSet=1"},
		{hook: 0x0924, version: 2, ps: 4, data: newPB(4).ptr(0x8A001000).u32(1).u32(0x30314d43).u32(8192).w(`\SystemRoot\System32\Config\SAM`).b,
			event: "Registry/HiveInit",
			want:  `Hive=0x8A001000 OperationType=1 PoolTag=808537411 Size=8192 FileName=\SystemRoot\System32\Config\SAM`},
		{hook: 0x0925, version: 2, ps: 8, data: newPB(8).ptr(0xFFFFF8A000001000).w("ntuser.dat").w(`\REGISTRY\USER\S-1-5-18`).b,
			event: "Registry/HiveDestroy",
			want:  `Hive=0xFFFFF8A000001000 FileName=ntuser.dat Path=\REGISTRY\USER\S-1-5-18`},
		{hook: 0x0926, version: 2, ps: 4, data: newPB(4).ptr(0x8A001000).w(`\REGISTRY\MACHINE\SAM`).b,
			event: "Registry/HiveLink", want: `Hive=0x8A001000 Path=\REGISTRY\MACHINE\SAM`},
		{hook: 0x0927, version: 2, ps: 8, data: newPB(8).u64(262144).ptr(0xFFFFF8A000001000).u32(120).w("SAM").w(`\REGISTRY\MACHINE\SAM`).b,
			event: "Registry/HiveDCEnd",
			want:  `Size=262144 Hive=0xFFFFF8A000001000 LoadedKeyCount=120 FileName=SAM LinkPath=\REGISTRY\MACHINE\SAM`},
		{hook: 0x0928, version: 2, ps: 4, data: newPB(4).ptr(0x8A001000).w(`\REGISTRY\MACHINE\SAM`).u32(5).b,
			event: "Registry/HiveDirty", want: `Hive=0x8A001000 LinkPath=\REGISTRY\MACHINE\SAM DirtyReason=5`},
		{hook: 0x0930, version: 2, ps: 8, data: newPB(8).ptr(0xFFFFFA8300003000).ptr(kcb).u8(1).u8(1).u8(0).b,
			event: "Registry/ChangeNotify",
			want:  "Notification=0xFFFFFA8300003000 KeyHandle=0xFFFFF8A000123450 Type=1 WatchSubtree=1 Primary=0"},
		{hook: 0x0930, version: 2, ps: 4, data: newPB(4).ptr(0x83003000).ptr(kcb).u8(2).u8(0).u8(1).b,
			event: "Registry/ChangeNotify", want: "Notification=0x83003000 KeyHandle=0x123450 Type=2 WatchSubtree=0 Primary=1"},
	})
}

// TestALPCFields decodes a payload of every ALPC class.
func TestALPCFields(t *testing.T) {
	checkFields(t, []fieldCase{
		{hook: 0x1A21, version: 2, ps: 8, data: newPB(8).u32(4711).b, event: "ALPC/ALPC-Send-Message", want: "MessageID=4711"},
		{hook: 0x1A22, version: 2, ps: 4, data: newPB(4).u32(4711).b, event: "ALPC/ALPC-Receive-Message", want: "MessageID=4711"},
		{hook: 0x1A23, version: 2, ps: 8, data: newPB(8).u32(4712).b, event: "ALPC/ALPC-Wait-For-Reply", want: "MessageID=4712"},
		{hook: 0x1A24, version: 2, ps: 8, data: newPB(8).u32(1).w(`\RPC Control\lsasspirpc`).b,
			event: "ALPC/ALPC-Wait-For-New-Message", want: `IsServerPort=1 PortName=\RPC Control\lsasspirpc`},
		{hook: 0x1A25, version: 2, ps: 4, data: newPB(4).u32(0x102).b, event: "ALPC/ALPC-Unwait", want: "Status=0x102"},
	})
}
