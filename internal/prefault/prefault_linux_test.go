package prefault

import (
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// resident counts the pages of b that are in memory (mincore).
func resident(t *testing.T, b []byte) int {
	pages := len(b) / int(pageSize)
	vec := make([]byte, pages)
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	require.Zero(t, errno)
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestWritableMapsPages: fresh anonymous memory has no page in place;
// after Writable every whole page is, and what it holds is unchanged.
func TestWritableMapsPages(t *testing.T) {
	const size = 1 << 20
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	require.NoError(t, err)
	defer syscall.Munmap(mem)
	require.Zero(t, resident(t, mem))

	// Start one byte into the mapping: the first page is covered only in
	// part and is left alone.
	Writable(mem[1:])
	if refused.Load() {
		t.Skip("this kernel has no MADV_POPULATE_WRITE (Linux 5.14): Writable does nothing here")
	}
	require.Equal(t, size/int(pageSize)-1, resident(t, mem))
	require.Zero(t, resident(t, mem[:pageSize]), "a page b covers in part is not touched")
	require.Equal(t, make([]byte, size), mem, "what the memory holds is unchanged")
}

// TestSliceMapsPages: Slice covers the whole capacity of a slice of any
// type, and leaves alone one too small to be worth a call.
func TestSliceMapsPages(t *testing.T) {
	const size = 1 << 20
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	require.NoError(t, err)
	defer syscall.Munmap(mem)
	words := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(mem))), size/8)

	Slice(words[: 0 : minBytes/8-1])
	require.Zero(t, resident(t, mem), "below minBytes nothing is done")
	Slice(words[:1])
	if refused.Load() {
		t.Skip("this kernel has no MADV_POPULATE_WRITE (Linux 5.14): Slice does nothing here")
	}
	require.Equal(t, size/int(pageSize), resident(t, mem), "the capacity counts, not the length")
}
