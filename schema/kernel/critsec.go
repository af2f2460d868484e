package kernel

// CritSec group (0x17), kernel-events.md §18.7: critical section
// collisions and initializations. The MOF gives the class no EventVersion;
// it is registered at 0, which records of any version fall back to.

const groupCritSec = 0x17

func init() {
	later(func() {
		const g = groupCritSec
		register(
			class{name: "CritSecCollision", group: g, version: 0, opcodes: []uint8{34}, fields: fields(
				u32("LockCount"), u32("SpinCount"), ptr("OwningThread"), ptr("CritSecAddr"))},
			// SpinCount is pointer-sized here, unlike in Collision.
			class{name: "CritSecInit", group: g, version: 0, opcodes: []uint8{35}, fields: fields(
				ptr("SpinCount"), ptr("CritSecAddr"))},
		)
	})
}
