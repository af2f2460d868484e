package etltest

import (
	"errors"
	"io"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/header"
)

// BenchOption adjusts WriteBenchmarkTrace.
type BenchOption func(*benchConfig)

type benchConfig struct {
	bufferSize uint32
	compress   bool
	seed       uint64
}

// BenchCompress compresses every data buffer (plain LZ77 XPRESS). The size
// given to WriteBenchmarkTrace then counts uncompressed buffers, and the
// file is smaller.
func BenchCompress() BenchOption { return func(c *benchConfig) { c.compress = true } }

// BenchBufferSize sets the session buffer size (64 KiB by default).
func BenchBufferSize(n uint32) BenchOption { return func(c *benchConfig) { c.bufferSize = n } }

// BenchSeed changes the pseudo-random record mix; the default seed is fixed,
// so that equal calls write equal files.
func BenchSeed(seed uint64) BenchOption { return func(c *benchConfig) { c.seed = seed } }

// BenchResult describes a trace written by WriteBenchmarkTrace.
type BenchResult struct {
	Bytes   int64 // bytes written
	Buffers int   // buffers, the header buffer included
	Records int64 // records, the logfile header record included
}

// benchProviders are the providers of the benchmark trace's events: those
// of the golden traces, and one more.
var benchProviders = [4]uuid.UUID{
	guidManifest,
	guidManifest2,
	uuid.MustParse("9e814aad-3204-11d2-9a82-006008a86939"),
	guidTLProvider,
}

// WriteBenchmarkTrace writes a trace of about size bytes (whole buffers,
// at least two) to w, with records spread round-robin over cpus processors.
// The mix is what large kernel and manifest traces hold: about 55%
// EVENT_HEADER64 (some with a stack or related-activity item), 30% SYSTEM64
// and 15% PERFINFO64 (some with PEBS or PMC values), each 40 to 200 bytes.
// Per-CPU timestamps rise, so buffers of different CPUs interleave in file
// order and in sequence numbers. Memory stays at one buffer per CPU.
func WriteBenchmarkTrace(w io.Writer, size int64, cpus int, opts ...BenchOption) (BenchResult, error) {
	cfg := benchConfig{bufferSize: 0x10000, seed: 0x9E3779B97F4A7C15}
	for _, o := range opts {
		o(&cfg)
	}
	if cpus < 1 || cpus > 0x7FF {
		return BenchResult{}, errors.New("etltest: cpus must be 1..2047")
	}
	if cfg.bufferSize < 0x400 || cfg.bufferSize%8 != 0 {
		return BenchResult{}, errors.New("etltest: benchmark buffer size must be a multiple of 8, at least 1 KiB")
	}
	total := max(size/int64(cfg.bufferSize), 2)
	if total > 1<<32-1 {
		return BenchResult{}, errors.New("etltest: benchmark trace too large")
	}
	data := int(total - 1)
	cpus = min(cpus, data)

	s := DefaultSession()
	s.BufferSize = cfg.bufferSize
	s.NumberOfProcessors = uint32(cpus)
	s.BuffersWritten = Ptr(uint32(total))
	s.LoggerName = "etlkit-bench"
	s.DataBuffer = Buffer{ProcIndex: true, Compress: cfg.compress}
	if cfg.compress {
		s.LogFileMode |= ModeCompressed
		s.SubVersion, s.SubMinorVersion = 2, 0
	}
	b, err := NewBuilder(w, s)
	if err != nil {
		return BenchResult{}, err
	}
	b.countKind = false

	// Payload bytes come from a fixed pool: repetitive enough to compress
	// the way real payloads do, cheap to copy.
	rng := cfg.seed | 1
	next := func() uint64 {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return rng
	}
	pool := make([]byte, 8192)
	for i := range pool {
		if i%16 < 6 {
			pool[i] = byte(next())
		} else {
			pool[i] = byte(i / 16)
		}
	}
	payload := func(n int) []byte {
		off := int(next() % uint64(len(pool)-n))
		return pool[off : off+n]
	}

	var (
		ev     Event
		sys    System
		pi     PerfInfo
		stack  = ExtStackTrace64(0, 0xFFFFF800_00100000, 0xFFFFF800_00200000, 0x7FF6_0000_3000, 0x7FF6_0000_4000)
		rel    = ExtRelatedActivityID(guidActivity)
		ext    [1]ExtItem
		pmc    [2]uint64
		ts     = s.HeaderTimeStamp
		count  = int64(1)
		target = data
	)
	ev.ActivityId = guidActivity
	for i := 0; ; i++ {
		// Every open buffer will be flushed at Close, so stop when those
		// and the ones already written make the announced count.
		written := b.buffers
		if b.hdrDone {
			written--
		}
		if i >= cpus && written+cpus >= target {
			break
		}
		if b.err != nil {
			return BenchResult{}, b.err
		}
		cpu := i % cpus
		r := next()
		ts += int64(1 + r>>58)
		tid := uint32(0x1000 + cpu*8 + int(r>>20)&7)
		var rec Record
		switch kind := r % 100; {
		case kind < 55:
			ev.ThreadId, ev.ProcessId, ev.TimeStamp = tid, 0x400+uint32(r>>40)&0xF, ts
			ev.ProviderId = benchProviders[r>>30&3]
			ev.Descriptor = header.EventDescriptor{Id: uint16(r >> 8 & 0x3F), Version: 1, Level: 4, Task: uint16(r >> 16 & 0xF), Keyword: 0x8000_0000_0000_0010}
			ev.KernelTime, ev.UserTime = uint32(r>>44&0xFF), uint32(r>>52&0xF)
			ev.Ext = nil
			n := int(r>>24) % 121 // user data 0..120: records of 80..200 bytes
			switch r >> 36 & 15 {
			case 0:
				stack.Data[0] = byte(i)
				ext[0] = stack
				ev.Ext = ext[:]
				n = min(n, 200-0x50-len(stack.Data)-8)
			case 1:
				ext[0] = rel
				ev.Ext = ext[:]
				n = min(n, 200-0x50-24)
			}
			ev.UserData = payload(n)
			rec = &ev
		case kind < 85:
			sys.ThreadId, sys.ProcessId, sys.TimeStamp = tid, 0x400+uint32(r>>40)&0xF, ts
			sys.Version, sys.HookId = 2, benchHooks[r>>32&7]
			sys.KernelTime, sys.UserTime = uint32(r>>44&0xFF), 0
			sys.Payload = payload(8 + int(r>>24)%161) // 40..200 bytes
			rec = &sys
		default:
			pi.Version, pi.HookId, pi.TimeStamp = 2, 0x0F2E, ts
			pi.HasPEBS, pi.PMC = false, nil
			switch r >> 36 & 7 {
			case 0:
				pi.HookId, pi.HasPEBS, pi.PEBSIndex = 0x0524, true, r>>8
			case 1:
				pmc[0], pmc[1] = r>>4, r>>12
				pi.HookId, pi.PMC = 0x0F2F, pmc[:]
			}
			pi.Payload = payload(24 + int(r>>24)%(200-0x10-24-16+1)) // 40..200 bytes
			rec = &pi
		}
		b.CPU(cpu).Add(rec)
		count++
	}
	if err := b.Close(); err != nil {
		return BenchResult{}, err
	}
	if b.buffers != int(total) {
		return BenchResult{}, errors.New("etltest: benchmark trace buffer count went wrong")
	}
	return BenchResult{Bytes: b.pos, Buffers: b.buffers, Records: count}, nil
}

// benchHooks are SYSTEM64 HookIds of busy kernel events: CSwitch, ReadyThread,
// DiskIo read/write, FileIo create/read, Image load, page fault.
var benchHooks = [8]uint16{0x0524, 0x0532, 0x010A, 0x010B, 0x0440, 0x0443, 0x140A, 0x020A}
