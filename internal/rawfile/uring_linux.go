//go:build linux && (amd64 || arm64)

package rawfile

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// ring is an io_uring instance used for one thing: many small reads of one
// file in a single system call, as a walk over 64 KiB buffers needs for
// their 0x48-byte headers. A read call per header costs a system call each
// (on a virtual machine, several microseconds); a ring takes a batch of
// them in one. Its layout is the kernel's (linux/io_uring.h); the names
// below follow it.
type ring struct {
	fd      uintptr
	entries uint32
	sqRing  []byte
	cqRing  []byte
	sqeMem  []byte
	sqHead  *uint32
	sqTail  *uint32
	sqMask  uint32
	sqArray []uint32
	cqHead  *uint32
	cqTail  *uint32
	cqMask  uint32
	cqes    []ringCQE
	sqes    []ringSQE
	// pinned keeps the buffers of reads the kernel may still complete after
	// a failure, with the ring (see abandoned).
	pinned [][]byte
}

// abandoned keeps rings that failed with reads possibly in flight, never
// closed or unmapped, with their buffers: freed, those could be written
// into. No kernel has been seen to fail this way; the cost is a leak.
var abandoned struct {
	sync.Mutex
	rings []*ring
}

// maxStalls bounds the calls in a row that fail and complete nothing.
const maxStalls = 1000

const (
	sysIoUringSetup = 425 // the same number on every architecture
	sysIoUringEnter = 426
	ioringOpRead    = 22
	ioringEnterWait = 1 // IORING_ENTER_GETEVENTS
	ioringOffCQRing = 0x8000000
	ioringOffSQEs   = 0x10000000
)

type ringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sq                                                                     struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	cq struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
}

type ringSQE struct {
	opcode, flags uint8
	ioprio        uint16
	fd            int32
	off, addr     uint64
	len, rwFlags  uint32
	userData      uint64
	_             [3]uint64
}

type ringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// newRing sets up a ring of the given size, or fails where the kernel or a
// sandbox refuses io_uring.
func newRing(entries uint32) (*ring, error) {
	var p ringParams
	fd, _, errno := syscall.Syscall(sysIoUringSetup, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, errno
	}
	r := &ring{fd: fd, entries: p.sqEntries}
	mmap := func(off int64, size uint32) ([]byte, error) {
		return syscall.Mmap(int(fd), off, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	}
	var err error
	if r.sqRing, err = mmap(0, p.sq.array+p.sqEntries*4); err == nil {
		if r.cqRing, err = mmap(ioringOffCQRing, p.cq.cqes+p.cqEntries*uint32(unsafe.Sizeof(ringCQE{}))); err == nil {
			r.sqeMem, err = mmap(ioringOffSQEs, p.sqEntries*uint32(unsafe.Sizeof(ringSQE{})))
		}
	}
	if err != nil {
		r.close()
		return nil, err
	}
	word := func(b []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }
	r.sqHead, r.sqTail, r.sqMask = word(r.sqRing, p.sq.head), word(r.sqRing, p.sq.tail), *word(r.sqRing, p.sq.ringMask)
	r.sqArray = unsafe.Slice(word(r.sqRing, p.sq.array), p.sqEntries)
	r.cqHead, r.cqTail, r.cqMask = word(r.cqRing, p.cq.head), word(r.cqRing, p.cq.tail), *word(r.cqRing, p.cq.ringMask)
	r.cqes = unsafe.Slice((*ringCQE)(unsafe.Pointer(&r.cqRing[p.cq.cqes])), p.cqEntries)
	r.sqes = unsafe.Slice((*ringSQE)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	return r, nil
}

// read reads len(p[i]) bytes at off[i] of the file fd into p[i], for every
// i, and sets ok[i] when all of them were read. false: the ring failed, is
// abandoned and must not be used again; ok says which reads completed.
func (r *ring) read(fd uintptr, p [][]byte, off []int64, ok []bool) bool {
	for i := range ok {
		ok[i] = false
	}
	for start := 0; start < len(p); start += int(r.entries) {
		if !r.readBatch(fd, p[start:min(start+int(r.entries), len(p))], off[start:], ok[start:]) {
			return false
		}
	}
	return true
}

func (r *ring) readBatch(fd uintptr, p [][]byte, off []int64, ok []bool) bool {
	tail := atomic.LoadUint32(r.sqTail)
	n := 0
	for i, b := range p {
		if len(b) == 0 {
			ok[i] = true
			continue
		}
		idx := (tail + uint32(n)) & r.sqMask
		r.sqes[idx] = ringSQE{opcode: ioringOpRead, fd: int32(fd), off: uint64(off[i]),
			addr: uint64(uintptr(unsafe.Pointer(&b[0]))), len: uint32(len(b)), userData: uint64(i)}
		r.sqArray[idx] = idx
		n++
	}
	atomic.StoreUint32(r.sqTail, tail+uint32(n))
	for pending, stalls := n, 0; pending > 0; {
		submit := atomic.LoadUint32(r.sqTail) - atomic.LoadUint32(r.sqHead)
		_, _, errno := syscall.Syscall6(sysIoUringEnter, r.fd, uintptr(submit), 1, ioringEnterWait, 0, 0)
		if errno != 0 && atomic.LoadUint32(r.cqHead) == atomic.LoadUint32(r.cqTail) {
			// EAGAIN and EBUSY say the kernel is short of something for
			// now; a call that keeps failing is given up like any error.
			if stalls++; stalls > maxStalls {
				errno = syscall.EIO
			}
		} else {
			stalls = 0
		}
		switch errno {
		case 0, syscall.EINTR, syscall.EAGAIN, syscall.EBUSY:
		default:
			// Reads may be in flight: the ring and their buffers stay.
			r.pinned = p
			abandoned.Lock()
			abandoned.rings = append(abandoned.rings, r)
			abandoned.Unlock()
			return false
		}
		head, cqTail := atomic.LoadUint32(r.cqHead), atomic.LoadUint32(r.cqTail)
		for ; head != cqTail; head++ {
			c := &r.cqes[head&r.cqMask]
			if i := int(c.userData); i < len(p) {
				ok[i] = c.res == int32(len(p[i]))
			}
			pending--
		}
		atomic.StoreUint32(r.cqHead, head)
	}
	runtime.KeepAlive(p)
	return true
}

func (r *ring) close() {
	for _, m := range [][]byte{r.sqeMem, r.cqRing, r.sqRing} {
		if m != nil {
			syscall.Munmap(m)
		}
	}
	syscall.Close(int(r.fd))
}
