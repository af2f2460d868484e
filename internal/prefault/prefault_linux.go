package prefault

import (
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14).
const madvPopulateWrite = 23

// refused is set once the kernel has refused the call, so that an older
// kernel is asked once.
var refused atomic.Bool

var pageSize = uintptr(os.Getpagesize())

func writable(b []byte) {
	if refused.Load() {
		return
	}
	// madvise takes whole pages: the pages b covers only in part are left
	// to fault in.
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	end := start + uintptr(len(b))
	first := (start + pageSize - 1) &^ (pageSize - 1)
	last := end &^ (pageSize - 1)
	if last <= first {
		return
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, first, last-first, madvPopulateWrite)
	if errno == syscall.EINVAL || errno == syscall.ENOSYS {
		refused.Store(true)
	}
}
