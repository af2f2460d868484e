//go:build linux && (amd64 || arm64)

package rawfile

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// rawFile reads a trace file from the page cache with a system call the
// scheduler is not told about, and goes through os.File for anything that
// would wait for the disk.
//
// A read of one buffer from the page cache lasts a few microseconds, but
// the scheduler treats every read as a blocking call: with both processors
// busy it hands the goroutine's processor to another thread after 20 µs,
// and its monitor keeps waking every 20 µs to check. On a two-core machine
// that costs about a tenth of a pass. preadv2 with RWF_NOWAIT reads only
// what is cached and returns EAGAIN otherwise, so no read holds a processor
// while waiting for the disk.
type rawFile struct {
	*os.File
	fd     uintptr
	closed atomic.Bool
	noWait atomic.Bool // cleared when the kernel refuses RWF_NOWAIT
	// ring makes ReadAtBatch's reads, set up on first use; ringOff says
	// the kernel refused it, or it failed.
	ringMu  sync.Mutex
	ring    *ring
	ringOff bool
}

// BatchReads reports whether ReadAtBatch reads in batches here.
func (f *rawFile) BatchReads() bool {
	f.ringMu.Lock()
	defer f.ringMu.Unlock()
	return f.setUpRing()
}

func (f *rawFile) setUpRing() bool {
	if f.ring == nil && !f.ringOff && !f.closed.Load() {
		var err error
		if f.ring, err = newRing(BatchEntries); err != nil {
			f.ringOff = true
		}
	}
	return f.ring != nil
}

// ReadAtBatch reads len(p[i]) bytes at off[i] into p[i] for every i, with
// one system call per BatchEntries reads, and sets ok[i] when p[i] was
// filled; the caller reads the others with ReadAt, which reports their
// errors. false: nothing was read, as without a ring.
func (f *rawFile) ReadAtBatch(p [][]byte, off []int64, ok []bool) bool {
	f.ringMu.Lock()
	defer f.ringMu.Unlock()
	if f.closed.Load() || !f.setUpRing() {
		return false
	}
	switch {
	case !f.ring.read(f.fd, p, off, ok):
		// Abandoned, not closed: reads may be in flight.
		f.ring, f.ringOff = nil, true
	case !anyRead(p, ok):
		// A batch of which no read succeeded is what a kernel without the
		// ring's read operation (before 5.6) gives: read as before.
		f.ring.close()
		f.ring, f.ringOff = nil, true
	}
	return true
}

// anyRead reports whether a read of some bytes succeeded, or none was asked.
func anyRead(p [][]byte, ok []bool) bool {
	asked := false
	for i := range p {
		if len(p[i]) > 0 {
			if ok[i] {
				return true
			}
			asked = true
		}
	}
	return !asked
}

// rwfNoWait is RWF_NOWAIT from linux/fs.h.
const rwfNoWait = 0x8

// New wraps f, which New takes over: Close closes it.
func New(f *os.File) File {
	r := &rawFile{File: f, fd: f.Fd()}
	r.noWait.Store(true)
	return r
}

func (f *rawFile) ReadAt(p []byte, off int64) (int, error) {
	if f.closed.Load() || off < 0 || !f.noWait.Load() {
		return f.File.ReadAt(p, off)
	}
	done := 0
	for done < len(p) {
		iov := syscall.Iovec{Base: &p[done]}
		iov.SetLen(len(p) - done)
		n, _, errno := syscall.RawSyscall6(sysPreadv2, f.fd, uintptr(unsafe.Pointer(&iov)), 1,
			uintptr(off+int64(done)), 0, rwfNoWait)
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EOPNOTSUPP || errno == syscall.EINVAL || errno == syscall.ENOSYS:
			f.noWait.Store(false)
			fallthrough
		case errno != 0:
			// Not cached (EAGAIN), or an error os.File reports as usual.
			m, err := f.File.ReadAt(p[done:], off+int64(done))
			return done + m, err
		case n == 0:
			return done, io.EOF
		}
		done += int(n)
	}
	return done, nil
}

// Close closes the file; reads after it go to os.File, which refuses them,
// rather than to a descriptor number that may since name another file.
func (f *rawFile) Close() error {
	f.closed.Store(true)
	f.ringMu.Lock()
	if f.ring != nil {
		f.ring.close()
		f.ring, f.ringOff = nil, true
	}
	f.ringMu.Unlock()
	return f.File.Close()
}
