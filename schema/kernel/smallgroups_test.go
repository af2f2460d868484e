package kernel_test

import (
	"testing"

	"github.com/etlkit/etlkit/schema/kernel"
)

// TestSmallGroupsFields decodes a payload of every class of the smaller
// kernel groups (kernel-events.md §18) at both pointer sizes where they
// have pointers.
func TestSmallGroupsFields(t *testing.T) {
	const (
		obj  = 0xFFFFFA8300004000
		heap = 0x000001D2A5B40000
		pool = 0x000001D2A5B50000
		task = 0x000001D2A5B60010
	)
	checkFields(t, []fieldCase{
		{hook: 0x1B20, version: 2, ps: 8, data: newPB(8).ptr(0xFFFFFA8302A1DC60).ptr(0xFFFFFA8302A1E000).b, event: "SplitIo/VolMgr",
			want: "ParentIrp=0xFFFFFA8302A1DC60 ChildIrp=0xFFFFFA8302A1E000"},
		{hook: 0x1B20, version: 2, ps: 4, data: newPB(4).ptr(0x82A1DC60).ptr(0x82A1E000).b, event: "SplitIo/VolMgr",
			want: "ParentIrp=0x82A1DC60 ChildIrp=0x82A1E000"},

		{hook: 0x1120, version: 2, ps: 8, data: newPB(8).ptr(obj).u32(0x1A4).u16(37).w(`\BaseNamedObjects\x`).b, event: "Object/CreateHandle",
			want: `Object=0xFFFFFA8300004000 Handle=420 ObjectType=37 ObjectName=\BaseNamedObjects\x`},
		{hook: 0x1121, version: 2, ps: 4, data: newPB(4).ptr(obj).u32(0x1A4).u16(37).w("").b, event: "Object/CloseHandle",
			want: "Object=0x4000 Handle=420 ObjectType=37 ObjectName="},
		{hook: 0x1122, version: 2, ps: 4, data: newPB(4).ptr(obj).u32(4).u32(8).u32(980).u16(7).b, event: "Object/DuplicateHandle",
			want: "Object=0x4000 SourceHandle=4 TargetHandle=8 TargetProcessId=980 ObjectType=7"},
		{hook: 0x1124, version: 2, ps: 8, data: newPB(8).u16(7).u16(0).w("Process").b, event: "Object/TypeDCStart",
			want: "ObjectType=7 Reserved=0 TypeName=Process"},
		{hook: 0x1127, version: 2, ps: 8, data: newPB(8).ptr(obj).u32(980).u32(0x1A4).u16(37).w("x").b, event: "Object/HandleDCEnd",
			want: "Object=0xFFFFFA8300004000 ProcessId=980 Handle=420 ObjectType=37 ObjectName=x"},
		{hook: 0x1130, version: 2, ps: 4, data: newPB(4).ptr(obj).u16(37).b, event: "Object/CreateObject",
			want: "Object=0x4000 ObjectType=37"},
		{hook: 0x1133, version: 2, ps: 8, data: newPB(8).ptr(obj).u32(0x6E6C6946).u32(2).b, event: "Object/DereferenceObject",
			want: "Object=0xFFFFFA8300004000 Tag=1852598598 Count=2"},

		{hook: 0x0E20, version: 2, ps: 8, data: newPB(8).u32(1).u32(0x6E6C6946).ptr(4096).ptr(obj).b, event: "Pool/PoolAllocation",
			want: "Type=1 Tag=0x6E6C6946 NumberOfBytes=4096 Entry=0xFFFFFA8300004000"},
		{hook: 0x0E23, version: 2, ps: 4, data: newPB(4).u32(0).u32(0x6E6C6946).ptr(64).ptr(obj).u32(1).b, event: "Pool/SessionPoolFree",
			want: "Type=0 Tag=0x6E6C6946 NumberOfBytes=64 Entry=0x4000 SessionId=1"},
		{hook: 0x0E2A, version: 2, ps: 8, data: nil, event: "Pool/BigPoolSnapDCStart", want: ""},

		{hook: 0x1020, version: 2, ps: 4, data: newPB(4).ptr(heap).u32(2).b, event: "Heap/Create", want: "HeapHandle=0xA5B40000 HeapFlags=0x2"},
		{hook: 0x1020, version: 3, ps: 8, data: newPB(8).ptr(heap).u32(2).ptr(1 << 20).ptr(4096).ptr(1024).b, event: "Heap/Create",
			want: "HeapHandle=0x1D2A5B40000 HeapFlags=0x2 ReservedSpace=1048576 CommittedSpace=4096 AllocatedSpace=1024"},
		{hook: 0x1021, version: 2, ps: 8, data: newPB(8).ptr(heap).ptr(24).ptr(heap + 0x800).u32(3).b, event: "Heap/Alloc",
			want: "HeapHandle=0x1D2A5B40000 AllocSize=24 AllocAddress=0x1D2A5B40800 SourceId=3"},
		// v3 keeps the v2 Alloc.
		{hook: 0x1021, version: 3, ps: 4, data: newPB(4).ptr(heap).ptr(24).ptr(heap + 0x800).u32(3).b, event: "Heap/Alloc",
			want: "HeapHandle=0xA5B40000 AllocSize=24 AllocAddress=0xA5B40800 SourceId=3"},
		{hook: 0x1022, version: 2, ps: 4, data: newPB(4).ptr(heap).ptr(heap + 0x900).ptr(heap + 0x800).ptr(48).ptr(24).u32(3).b,
			event: "Heap/ReAlloc",
			want:  "HeapHandle=0xA5B40000 NewAllocAddress=0xA5B40900 OldAllocAddress=0xA5B40800 NewAllocSize=48 OldAllocSize=24 SourceId=3"},
		{hook: 0x1024, version: 2, ps: 8, data: newPB(8).ptr(heap).ptr(heap + 0x800).u32(3).b, event: "Heap/Free",
			want: "HeapHandle=0x1D2A5B40000 FreeAddress=0x1D2A5B40800 SourceId=3"},
		{hook: 0x1026, version: 2, ps: 4, data: newPB(4).ptr(heap).ptr(100).ptr(200).ptr(300).u32(2).u32(980).ptr(400).u32(5).u32(6).b,
			event: "Heap/SnapShot",
			want: "HeapHandle=0xA5B40000 FreeSpace=100 CommittedSpace=200 ReservedSpace=300 HeapFlags=0x2 ProcessId=980 " +
				"LargeUCRSpace=400 FreeListLength=5 UCRLength=6"},
		{hook: 0x1026, version: 3, ps: 8, data: newPB(8).ptr(heap).ptr(100).ptr(200).ptr(300).u32(2).u32(980).ptr(400).u32(5).u32(6).ptr(700).b,
			event: "Heap/SnapShot",
			want: "HeapHandle=0x1D2A5B40000 FreeSpace=100 CommittedSpace=200 ReservedSpace=300 HeapFlags=0x2 ProcessId=980 " +
				"LargeUCRSpace=400 FreeListLength=5 UCRLength=6 AllocatedSpace=700"},
		{hook: 0x1025, version: 3, ps: 8, data: newPB(8).ptr(heap).ptr(8192).ptr(heap + 0x10000).ptr(1).ptr(2).ptr(3).u32(4).ptr(5).b,
			event: "Heap/Expand",
			want: "HeapHandle=0x1D2A5B40000 CommittedSize=8192 CommitAddress=0x1D2A5B50000 FreeSpace=1 CommittedSpace=2 " +
				"ReservedSpace=3 NoOfUCRs=4 AllocatedSpace=5"},
		{hook: 0x102A, version: 3, ps: 4, data: newPB(4).ptr(heap).ptr(8192).ptr(heap + 0x10000).ptr(1).ptr(2).ptr(3).u32(4).ptr(5).b,
			event: "Heap/Contract",
			want: "HeapHandle=0xA5B40000 DeCommittedSize=8192 DeCommitAddress=0xA5B50000 FreeSpace=1 CommittedSpace=2 " +
				"ReservedSpace=3 NoOfUCRs=4 AllocatedSpace=5"},
		{hook: 0x102E, version: 2, ps: 4, data: newPB(4).ptr(heap).b, event: "Heap/Walk", want: "HeapHandle=0xA5B40000"},
		{hook: 0x1031, version: 2, ps: 8, data: newPB(8).ptr(heap).ptr(heap + 0x2000).ptr(4096).ptr(32).b, event: "Heap/SubsegmentAllocCached",
			want: "HeapHandle=0x1D2A5B40000 SubSegment=0x1D2A5B42000 SubSegmentSize=4096 BlockSize=32"},
		{hook: 0x1034, version: 2, ps: 4, data: newPB(4).ptr(heap).ptr(heap + 0x2000).ptr(4096).u32(0x77001234).b, event: "Heap/Decommit",
			want: "HeapHandle=0xA5B40000 Block=0xA5B42000 Size=4096 Caller=1996493364"},
		{hook: 0x1035, version: 2, ps: 8, data: newPB(8).ptr(heap).ptr(heap + 0x2000).ptr(32).ptr(128).u32(1).b, event: "Heap/SubsegmentInit",
			want: "HeapHandle=0x1D2A5B40000 SubSegment=0x1D2A5B42000 BlockSize=32 BlockCount=128 AffinityIndex=1"},
		{hook: 0x1036, version: 2, ps: 4, data: newPB(4).ptr(heap).u32(7).b, event: "Heap/AffinityManagerEnable",
			want: "HeapHandle=0xA5B40000 BucketIndex=7"},
		{hook: 0x1037, version: 2, ps: 8, data: newPB(8).u32(3).b, event: "Heap/AffinitySlotAssigned", want: "SlotIndex=3"},
		{hook: 0x1038, version: 2, ps: 8, data: newPB(8).ptr(heap).ptr(heap + 0x2000).b, event: "Heap/SubSegmentActivated",
			want: "HeapHandle=0x1D2A5B40000 SubSegment=0x1D2A5B42000"},
		{hook: 0x1039, version: 2, ps: 4, data: newPB(4).ptr(heap).ptr(heap + 0x2000).u32(2).b, event: "Heap/AffinitySlotChanged",
			want: "Heap=0xA5B40000 SubSegment=0xA5B42000 SlotIndex=2"},
		{hook: 0x103A, version: 2, ps: 8, data: newPB(8).ptr(heap).ptr(heap + 0x2000).u32(9).b, event: "Heap/SubsegmentReuseThresholdActivated",
			want: "Heap=0x1D2A5B40000 SubSegment=0x1D2A5B42000 BucketIndex=9"},

		{hook: 0x123C, version: 2, ps: 8, data: newPB(8).u32(1).u32(2).u32(3).u32(4).u32(5).b, event: "Power/IdleExitLatency",
			want: "Flags=0x1 PlatformState=2 ProcessorState=3 ReturnLatency=4 TotalLatency=5"},
		{hook: 0x0A20, version: 2, ps: 8, data: newPB(8).u32(77).u32(3).a("disk: retry\n").b, event: "DbgPrint/DebugPrint",
			want: `Component=77 Level=3 Message=disk: retry\n`},

		{hook: 0x1722, version: 0, ps: 8, data: newPB(8).u32(2).u32(4000).ptr(0x6B4).ptr(heap + 0x40).b, event: "CritSec/Collision",
			want: "LockCount=2 SpinCount=4000 OwningThread=0x6B4 CritSecAddr=0x1D2A5B40040"},
		{hook: 0x1723, version: 2, ps: 4, data: newPB(4).ptr(4000).ptr(heap + 0x40).b, event: "CritSec/Initialize",
			want: "SpinCount=0xFA0 CritSecAddr=0xA5B40040"},

		{hook: 0x1C20, version: 2, ps: 8, data: newPB(8).ptr(pool).ptr(task).ptr(0x7FF812340000).ptr(0x10).ptr(0).b, event: "ThreadPool/CBEnqueue",
			want: "PoolId=0x1D2A5B50000 TaskId=0x1D2A5B60010 CallbackFunction=0x7FF812340000 CallbackContext=0x10 SubProcessTag=0x0"},
		{hook: 0x1C21, version: 2, ps: 4, data: newPB(4).ptr(task).b, event: "ThreadPool/CBDequeue", want: "TaskId=0xA5B60010"},
		{hook: 0x1C23, version: 3, ps: 4, data: newPB(4).ptr(pool).ptr(task).ptr(0x77001234).ptr(0x10).ptr(5).b, event: "ThreadPool/CBStop",
			want: "PoolId=0xA5B50000 TaskId=0xA5B60010 CallbackFunction=0x77001234 CallbackContext=0x10 SubProcessTag=0x5"},
		{hook: 0x1C24, version: 2, ps: 8, data: newPB(8).ptr(task).u32(2).b, event: "ThreadPool/CBCancel", want: "TaskId=0x1D2A5B60010 CancelCount=2"},
		{hook: 0x1C24, version: 3, ps: 8, data: newPB(8).ptr(pool).ptr(task).ptr(0x7FF812340000).ptr(0x10).ptr(5).u32(2).b,
			event: "ThreadPool/CBCancel",
			want:  "PoolId=0x1D2A5B50000 TaskId=0x1D2A5B60010 CallbackFunction=0x7FF812340000 CallbackContext=0x10 SubProcessTag=0x5 CancelCount=2"},
		{hook: 0x1C26, version: 2, ps: 4, data: newPB(4).ptr(pool).b, event: "ThreadPool/PoolClose", want: "PoolId=0xA5B50000"},
		{hook: 0x1C28, version: 2, ps: 8, data: newPB(8).ptr(pool).u32(500).b, event: "ThreadPool/ThreadMaxSet",
			want: "PoolId=0x1D2A5B50000 ThreadNum=500"},
		{hook: 0x1C29, version: 2, ps: 4, data: newPB(4).ptr(pool).u32(0).u32(1).u16(0).u16(1).u32(4).u32(2).b, event: "ThreadPool/WTNodeSwitch",
			want: "PoolId=0xA5B50000 CurrentNode=0 NextNode=1 CurrentGroup=0 NextGroup=1 CurrentWorkerCount=4 NextWorkerCount=2"},
		{hook: 0x1C2A, version: 2, ps: 8, data: newPB(8).u64(132404176000000000).ptr(pool).ptr(task).u32(1000).u32(50).u32(1).b,
			event: "ThreadPool/TimerSet",
			want:  "DueTime=132404176000000000 SubQueue=0x1D2A5B50000 Timer=0x1D2A5B60010 Period=1000 WindowLength=50 Absolute=1"},
		{hook: 0x1C2B, version: 2, ps: 4, data: newPB(4).ptr(pool).ptr(task).b, event: "ThreadPool/TimerCancelled",
			want: "SubQueue=0xA5B50000 Timer=0xA5B60010"},
		{hook: 0x1C2C, version: 2, ps: 8, data: newPB(8).u64(5).ptr(pool).u32(15).b, event: "ThreadPool/TimerSetNtTimer",
			want: "DueTime=5 SubQueue=0x1D2A5B50000 TolerableDelay=15"},
		{hook: 0x1C2E, version: 2, ps: 4, data: newPB(4).ptr(pool).b, event: "ThreadPool/TimerExpirationBegin", want: "SubQueue=0xA5B50000"},
		{hook: 0x1C30, version: 2, ps: 4, data: newPB(4).u64(5).ptr(pool).ptr(task).u32(0).u32(0).b, event: "ThreadPool/TimerExpiration",
			want: "DueTime=5 SubQueue=0xA5B50000 Timer=0xA5B60010 Period=0 WindowLength=0"},

		{hook: 0x0D20, version: 2, ps: 8, data: newPB(8).u64(0x41C64E6DA3BC0075).ptr(obj).ptr(obj + 0x40).ptr(0x7FF812340000).u32(1).u32(0).b,
			event: "Wnf/Subscribe",
			want: "StateName=0x41C64E6DA3BC0075 Subscription=0xFFFFFA8300004000 NameSub=0xFFFFFA8300004040 " +
				"Callback=0x7FF812340000 RefCount=1 DeliveryFlags=0x0"},
		{hook: 0x0D22, version: 2, ps: 4, data: newPB(4).u64(0x41C64E6DA3BC0075).ptr(obj).ptr(obj + 0x40).ptr(0x77001234).u32(9).u32(1).u32(0).b,
			event: "Wnf/Callback",
			want: "StateName=0x41C64E6DA3BC0075 Subscription=0x4000 NameSub=0x4040 Callback=0x77001234 " +
				"ChangeStamp=9 DeliveryFlags=0x1 Return=0x0"},
		{hook: 0x0D23, version: 2, ps: 8, data: newPB(8).u64(0x41C64E6DA3BC0075).u32(4).b, event: "Wnf/Publish",
			want: "StateName=0x41C64E6DA3BC0075 DataLength=4"},
		{hook: 0x0D24, version: 2, ps: 4, data: newPB(4).u64(0x41C64E6DA3BC0075).ptr(obj).b, event: "Wnf/NameSubRundown",
			want: "StateName=0x41C64E6DA3BC0075 NameSub=0x4000"},

		{hook: 0x1920, version: 2, ps: 8, data: newPB(8).u32(980).u32(1001).u32(1002).u32(1).b, event: "Ums/DSwitchStart",
			want: "ProcessId=980 ScheduledThreadId=1001 PrimaryThreadId=1002 SwitchFlags=0x1"},
		{hook: 0x1921, version: 2, ps: 8, data: newPB(8).u32(980).u32(1001).u32(1002).u32(2).b, event: "Ums/DSwitchEnd",
			want: "ProcessId=980 ScheduledThreadId=1001 PrimaryThreadId=1002 SwitchFlags=0x2"},
		{hook: 0x1922, version: 2, ps: 8, data: newPB(8).u32(980).u32(1001).u32(4).b, event: "Ums/ScheduledPark",
			want: "ProcessId=980 ScheduledThreadId=1001 ParkFlags=0x4"},
		{hook: 0x1923, version: 2, ps: 8, data: newPB(8).u32(980).u32(1001).u32(1002).u32(8).u32(0).b, event: "Ums/Disassociate",
			want: "ProcessId=980 ScheduledThreadId=1001 PrimaryThreadId=1002 UmsApcControlFlags=0x8 Status=0x0"},
		{hook: 0x1924, version: 2, ps: 8, data: newPB(8).u32(1001).u32(10).u32(1).u32(2).u32(3).b, event: "Ums/CSwitch",
			want: "ScheduledThreadId=1001 SwitchCount=10 KernelYieldCount=1 MixedYieldCount=2 YieldCount=3"},

		{hook: 0x0C20, version: 2, ps: 8, data: newPB(8).u64(123456).u32(980).u32(1001).u32(1).
			ptr(0x7FF812340010).ptr(0x7FF812340100).ptr(0).ptr(0x7FF812340110).ptr(0x7FF812340200).ptr(0).b,
			event: "Lbr/LbrRecord",
			want: "TimeStamp=123456 ProcessId=980 ThreadId=1001 Options=0x1 Entries=" +
				`[{"FromAddress":"0x7FF812340010","ToAddress":"0x7FF812340100","Reserved":"0x0"},` +
				`{"FromAddress":"0x7FF812340110","ToAddress":"0x7FF812340200","Reserved":"0x0"}]`},
		{hook: 0x0C20, version: 2, ps: 4, data: newPB(4).u64(123456).u32(980).u32(1001).u32(0).
			ptr(0x77000010).ptr(0x77000100).ptr(0).b,
			event: "Lbr/LbrRecord",
			want: "TimeStamp=123456 ProcessId=980 ThreadId=1001 Options=0x0 Entries=" +
				`[{"FromAddress":"0x77000010","ToAddress":"0x77000100","Reserved":"0x0"}]`},
	})
}

// TestGUIDClassFields decodes the classic events of the kernel session
// that have a class GUID and no kernel group: MMCSS and MUI.
func TestGUIDClassFields(t *testing.T) {
	checkClassic(t, []classicCase{
		{kernel.MMCSSTask.String(), 32, nil, "MMCSS/Start", ""},
		{kernel.MMCSSTask.String(), 33, nil, "MMCSS/Stop", ""},
		{kernel.MMCSSTask.String(), 34, newPB(8).u32(980).u32(1001).u32(24).u32(2).b, "MMCSS/Scheduler",
			"ScheduledPID=980 ScheduledTID=1001 SchedulingPriority=24 TaskIndex=2"},
		{kernel.MMCSSTask.String(), 35, newPB(8).u32(1).b, "MMCSS/Wakeup", "Reason=1"},
		{kernel.MMCSSTask.String(), 36, nil, "MMCSS/Sleep", ""},
		{kernel.MMCSSTask.String(), 37, nil, "MMCSS/SleepResp", ""},
		{kernel.MUITask.String(), 0, newPB(4).w(`C:\Windows\en-US\explorer.exe.mui`).b, "MUI/Access",
			`MuiLoadString=C:\Windows\en-US\explorer.exe.mui`},
	})
}
