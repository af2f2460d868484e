// Package stacks joins the stacks of an ETW trace to the events they
// belong to and names their frames from what the trace itself says: the
// CPU profile of a trace, or the stacks of any event that carries them.
//
// A Joiner reads the records in time order. It matches each stack record
// (StackWalk, a stack-cache key, a stack in an event's extended data, a
// .NET ClrStackWalk) to its event by thread and timestamp, stitches a
// kernel part to the user part the thread logs when it returns to user
// mode, and resolves stack-cache keys when the cache defines them. It
// interns what it joins, so that its memory grows with the threads in
// flight and the distinct stacks, not with the length of the trace. The
// image loads and rundowns of each process (the kernel's images shared by
// all), the .NET runtime's method ranges, and the PDB identities a merged
// trace carries then name each frame: a .NET method, module!+0xRVA, or the
// address itself.
//
// The layouts and rules come from the notes on samples and stacks
// (stacks.md) and the kernel's events (kernel-events.md); payloads are
// read through the schemas of packages schema/kernel and schema/dotnet.
// Package sink/profilesink writes the result as pprof, speedscope or
// folded stacks.
package stacks
