// Package etltest writes synthetic Windows ETW trace logs (.etl) for tests,
// fuzz seeds and benchmarks.
//
// A Builder streams buffers to an io.Writer: the logfile-header buffer first,
// then data buffers, either filled automatically per processor (CPU(n).Add)
// or placed one by one with WriteBuffer when a test needs exact control over
// buffer order, sequence numbers or header quirks. Records are values of the
// types in this package, one per on-disk header kind (System, Compact,
// PerfInfo, Full, Instance, Event, Message, ErrorRecord), plus Raw for bytes
// that are deliberately not a valid record.
//
// Buffer headers and the logfile-header record are encoded by
// buffer.Header.Put and header.AppendLogfileRecord, as the trace writer
// sink/etlsink encodes them; what this package adds is control over every
// field and the damage a test needs.
//
// The same calls always produce the same bytes: nothing depends on the clock,
// on map order or on randomness that the caller does not seed.
package etltest
