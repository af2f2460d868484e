package kernel

import "github.com/etlkit/etlkit/record"

// EventName is the "Group/Opcode" name of a kernel event, e.g.
// "Process/Start" or "Image/Load", "" when the opcode has no name.
func EventName(group, opcode uint8) string { return record.KernelEventName(group, opcode) }

// eventNames lists the named opcodes per group, for Lookup's events without
// a class.
var eventNames = func() [][]string {
	t := make([][]string, 0x20)
	for g := range t {
		t[g] = make([]string, 256)
		for op := range t[g] {
			t[g][op] = record.KernelEventName(uint8(g), uint8(op))
		}
	}
	return t
}()
