// Package prefault maps in, with one system call, the pages of memory that
// is about to be written in full, such as a buffer a read is about to fill.
//
// Each first touch of a fresh page otherwise costs a page fault, and on
// some virtual machines a fault costs ten times the work of filling the
// page (PERFORMANCE.md). Where the call is not available
// (other systems, Linux before 5.14) nothing is done and the pages fault
// in as before; what the memory holds never changes.
package prefault

import "unsafe"

// minBytes is the least worth a system call: below it, the pages are few
// and may well be in place already.
const minBytes = 32 << 10

// Writable maps in the whole pages of b for writing.
func Writable(b []byte) {
	if cap(b) < minBytes {
		return
	}
	writable(b[:cap(b)])
}

// Slice maps in the whole pages of s's backing array, as far as its
// capacity, for writing.
func Slice[T any](s []T) {
	var zero T
	n := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if n < minBytes {
		return
	}
	writable(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), n))
}
