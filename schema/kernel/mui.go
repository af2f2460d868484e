package kernel

import "github.com/google/uuid"

// MUI resource loads, kernel-events.md §18.14: a classic event of its own
// class GUID, outside the kernel groups.

// MUITask is the class GUID of the MUI resource load event.
var MUITask = uuid.MustParse("d3de60b2-a663-45d5-9826-a0a5949d2cb0")

func init() {
	later(func() {
		registerKernelClassic(MUITask, 0, "MUI/Access", fields(wstr("MuiLoadString")))
	})
}
