package kernel

// Object group (0x11, the MOF's ObTrace), kernel-events.md §18.2: handles
// and objects of the object manager. The type rundown pairs the ObjectType
// numbers of the other events with type names.

const groupObject = 0x11

func init() {
	later(func() {
		const g = groupObject
		register(
			class{name: "ObHandleEvent", group: g, version: 2, opcodes: []uint8{32, 33}, fields: fields(
				ptr("Object"), u32("Handle"), u16("ObjectType"), wstr("ObjectName"))},
			class{name: "ObHandleDuplicateEvent", group: g, version: 2, opcodes: []uint8{34}, fields: fields(
				ptr("Object"), u32("SourceHandle"), u32("TargetHandle"), u32("TargetProcessId"), u16("ObjectType"))},
			class{name: "ObTypeEvent", group: g, version: 2, opcodes: []uint8{36, 37}, fields: fields(
				u16("ObjectType"), u16("Reserved"), wstr("TypeName"))},
			class{name: "ObHandleRundownEvent", group: g, version: 2, opcodes: []uint8{38, 39}, fields: fields(
				ptr("Object"), u32("ProcessId"), u32("Handle"), u16("ObjectType"), wstr("ObjectName"))},
			class{name: "ObObjectEvent", group: g, version: 2, opcodes: []uint8{48, 49}, fields: fields(
				ptr("Object"), u16("ObjectType"))},
			class{name: "ObReferenceEvent", group: g, version: 2, opcodes: []uint8{50, 51}, fields: fields(
				ptr("Object"), u32("Tag"), u32("Count"))},
		)
	})
}
