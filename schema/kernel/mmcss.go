package kernel

import "github.com/google/uuid"

// MMCSS, kernel-events.md §18.13: the multimedia class scheduler. It has
// a class GUID and no kernel group, so its records are classic ones found
// by that GUID.

// MMCSSTask is the class GUID of the MMCSS events.
var MMCSSTask = uuid.MustParse("f8f10121-b617-4a56-868b-9df1b27fe32c")

func init() {
	later(func() {
		for op, name := range map[uint8]string{32: "Start", 33: "Stop", 36: "Sleep", 37: "SleepResp"} {
			registerKernelClassic(MMCSSTask, op, "MMCSS/"+name, noFields)
		}
		registerKernelClassic(MMCSSTask, 34, "MMCSS/Scheduler", fields(
			u32("ScheduledPID"), u32("ScheduledTID"), u32("SchedulingPriority"), u32("TaskIndex")))
		registerKernelClassic(MMCSSTask, 35, "MMCSS/Wakeup", fields(u32("Reason")))
	})
}
