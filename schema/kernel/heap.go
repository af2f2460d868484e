package kernel

import "github.com/etlkit/etlkit/payload"

// Heap group (0x10), kernel-events.md §18.4: user-mode heap operations.
// 32-bit processes on 64-bit Windows log them with 4-byte pointers, which
// their records' header types say.

const groupHeap = 0x10

func init() {
	later(func() {
		const g = groupHeap
		snapshot := func(tail ...payload.Field) []payload.Field {
			return append(fields(ptr("HeapHandle"), size("FreeSpace"), size("CommittedSpace"), size("ReservedSpace"),
				hex(u32("HeapFlags")), u32("ProcessId"), size("LargeUCRSpace"), u32("FreeListLength"), u32("UCRLength")),
				tail...)
		}
		// Expand and Contract share a layout but for the names of the size
		// and address that changed.
		change := func(sizeName, addrName string) []payload.Field {
			return fields(ptr("HeapHandle"), size(sizeName), ptr(addrName), size("FreeSpace"), size("CommittedSpace"),
				size("ReservedSpace"), u32("NoOfUCRs"), size("AllocatedSpace"))
		}
		register(
			class{name: "HeapCreate_V2", group: g, version: 2, opcodes: []uint8{32}, fields: fields(
				ptr("HeapHandle"), hex(u32("HeapFlags")))},
			class{name: "HeapAlloc", group: g, version: 2, opcodes: []uint8{33}, fields: fields(
				ptr("HeapHandle"), size("AllocSize"), ptr("AllocAddress"), u32("SourceId"))},
			class{name: "HeapRealloc", group: g, version: 2, opcodes: []uint8{34}, fields: fields(
				ptr("HeapHandle"), ptr("NewAllocAddress"), ptr("OldAllocAddress"), size("NewAllocSize"),
				size("OldAllocSize"), u32("SourceId"))},
			class{name: "HeapFree", group: g, version: 2, opcodes: []uint8{36}, fields: fields(
				ptr("HeapHandle"), ptr("FreeAddress"), u32("SourceId"))},
			class{name: "HeapSnapShot_V2", group: g, version: 2, opcodes: []uint8{38}, fields: snapshot()},
			class{name: "Heap_TypeGroup1", group: g, version: 2, opcodes: []uint8{35, 43, 44, 45, 46}, fields: fields(
				ptr("HeapHandle"))},
			class{name: "Heap_SubsegmentGroup", group: g, version: 2, opcodes: []uint8{47, 48, 49, 50}, fields: fields(
				ptr("HeapHandle"), ptr("SubSegment"), size("SubSegmentSize"), size("BlockSize"))},
			class{name: "HeapCommitDecommit", group: g, version: 2, opcodes: []uint8{51, 52}, fields: fields(
				ptr("HeapHandle"), ptr("Block"), size("Size"), u32("Caller"))},
			class{name: "HeapSubsegmentInitialize", group: g, version: 2, opcodes: []uint8{53}, fields: fields(
				ptr("HeapHandle"), ptr("SubSegment"), size("BlockSize"), size("BlockCount"), u32("AffinityIndex"))},
			class{name: "HeapAffinityManagerEnable", group: g, version: 2, opcodes: []uint8{54}, fields: fields(
				ptr("HeapHandle"), u32("BucketIndex"))},
			class{name: "HeapAffinitySlotAssigned", group: g, version: 2, opcodes: []uint8{55}, fields: fields(
				u32("SlotIndex"))},
			class{name: "HeapSubSegmentActivated", group: g, version: 2, opcodes: []uint8{56}, fields: fields(
				ptr("HeapHandle"), ptr("SubSegment"))},
			class{name: "HeapAffinitySlotChanged", group: g, version: 2, opcodes: []uint8{57}, fields: fields(
				ptr("Heap"), ptr("SubSegment"), u32("SlotIndex"))},
			class{name: "HeapSubsegmentReuseThresholdActivated", group: g, version: 2, opcodes: []uint8{58}, fields: fields(
				ptr("Heap"), ptr("SubSegment"), u32("BucketIndex"))},

			// v3 redefines Create and SnapShot and adds Expand and Contract;
			// the other opcodes keep their v2 layouts.
			class{name: "HeapCreate", group: g, version: 3, opcodes: []uint8{32}, fields: fields(
				ptr("HeapHandle"), hex(u32("HeapFlags")), size("ReservedSpace"), size("CommittedSpace"),
				size("AllocatedSpace"))},
			class{name: "HeapExpand", group: g, version: 3, opcodes: []uint8{37}, fields: change("CommittedSize", "CommitAddress")},
			class{name: "HeapSnapShot", group: g, version: 3, opcodes: []uint8{38}, fields: snapshot(size("AllocatedSpace"))},
			class{name: "HeapContract", group: g, version: 3, opcodes: []uint8{42}, fields: change("DeCommittedSize", "DeCommitAddress")},
		)
	})
}
