package etlsink

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/etlkit/etlkit/buffer"
	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/header"
)

// Input is one trace to write, with the name messages give it.
type Input struct {
	Name   string
	Reader *etl.Reader
}

// Session is the trace that one or more inputs are written as.
type Session struct {
	// Header describes the trace to write, for NewWriter.
	Header etl.Header
	// Base is the input whose clock anchor Header carries: the one that
	// started first.
	Base int
	// Shifts says, for each input, how far the times of its records move
	// when they are converted with Base's anchor instead of their own:
	// zero for Base, and for traces of one machine's counter a rounding
	// of the start times, at most MaxClockShift.
	Shifts []time.Duration
	// StreamOrder is set when, in every input, each processor's buffers
	// lie in the file in the order of their sequence numbers, so that file
	// order gives each processor's records in the order a reader merges
	// them. A single input can then be copied from Reader.Records, which
	// costs less than Reader.Events, into the same trace.
	StreamOrder bool
}

// MaxClockShift bounds how far a merge may move an input's times. Raw
// timestamps are kept, so every input's records are converted with one
// anchor; inputs whose anchors disagree by more than this count different
// clocks (another boot, another machine), and merging them would misplace
// their records.
const MaxClockShift = time.Second

// ClockError refuses to merge inputs whose clocks differ: one trace keeps
// one clock, and raw timestamps are not converted.
type ClockError struct {
	Names  []string
	Clocks []string
	// Shift is set when the clock types and rates agree but the anchors
	// do not: the times of Names[1] would move by Shift under Names[0]'s.
	Shift time.Duration
}

func (e *ClockError) Error() string {
	if e.Shift != 0 {
		return fmt.Sprintf("cannot merge %s and %s: both use %s, but not the same one (times of %s would move by %v); write them to separate files",
			e.Names[0], e.Names[1], e.Clocks[0], e.Names[1], e.Shift)
	}
	var parts []string
	for i, n := range e.Names {
		parts = append(parts, fmt.Sprintf("%s (%s)", n, e.Clocks[i]))
	}
	return "cannot merge traces whose clocks differ: " + strings.Join(parts, ", ") + "; write them to separate files"
}

// ClockName describes the clock of a trace as a ClockError names it.
func ClockName(h *etl.Header) string {
	var s string
	switch h.Clock.Kind {
	case header.ClockQPC:
		s = fmt.Sprintf("QPC at %d Hz", h.PerfFreq)
	case header.ClockSystemTime:
		s = "system time"
	case header.ClockCPUCycle:
		s = fmt.Sprintf("CPU cycles at %d MHz", h.CPUSpeedInMHz)
	default:
		s = fmt.Sprintf("clock type %d", h.Clock.Kind)
	}
	if h.ClockAssumed {
		s += " (assumed)"
	}
	return s
}

func sameClock(a, b *etl.Header) bool {
	if a.Clock.Kind != b.Clock.Kind {
		return false
	}
	switch a.Clock.Kind {
	case header.ClockQPC:
		return a.PerfFreq == b.PerfFreq
	case header.ClockCPUCycle:
		return a.CPUSpeedInMHz == b.CPUSpeedInMHz
	}
	return true
}

// SessionFor works out the trace that inputs are written as. With one
// input it is that input's header, with a buffer size that holds its
// largest buffer. With several, their clocks must agree (the same type and
// rate, and anchors no more than MaxClockShift apart), or a *ClockError
// names them; the header is that of the input that started first, with
// the largest buffer size and processor count, the sums of the events and
// buffers lost, the latest EndTime (0, to be worked out by the Writer,
// when one is unknown), no per-processor buffering only when every input
// has none, and compressed mode when any input is compressed.
func SessionFor(inputs ...Input) (*Session, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("etlsink: no input")
	}
	base := 0
	for i, in := range inputs {
		if in.Reader.Header().StartTime < inputs[base].Reader.Header().StartTime {
			base = i
		}
	}
	b := inputs[base].Reader.Header()
	s := &Session{Header: *b, Base: base, Shifts: make([]time.Duration, len(inputs))}
	h := &s.Header
	h.BufferSize = 0
	single, compressed := true, false
	need := 0
	s.StreamOrder = true
	for i, in := range inputs {
		ih := in.Reader.Header()
		if !sameClock(b, ih) {
			return nil, &ClockError{Names: names(inputs), Clocks: clocks(inputs)}
		}
		shift := time.Duration(b.Clock.FileTime(ih.RawTimeStamp)-ih.StartTime) * 100
		if shift > MaxClockShift || shift < -MaxClockShift {
			return nil, &ClockError{Names: []string{inputs[base].Name, in.Name}, Clocks: []string{ClockName(b), ClockName(ih)}, Shift: shift}
		}
		s.Shifts[i] = shift
		if ih.BufferSize <= buffer.MaxSessionBufferSize {
			h.BufferSize = max(h.BufferSize, ih.BufferSize)
		}
		largest, inOrder := scanBuffers(in.Reader)
		need = max(need, largest)
		s.StreamOrder = s.StreamOrder && inOrder
		h.NumberOfProcessors = max(h.NumberOfProcessors, ih.NumberOfProcessors)
		if i != base {
			h.EventsLost += ih.EventsLost
			h.BuffersLost += ih.BuffersLost
			if h.EndTime != 0 {
				h.EndTime = max(h.EndTime, ih.EndTime)
			}
			if ih.EndTime == 0 {
				h.EndTime = 0
			}
		}
		single = single && ih.LogFileMode&header.ModeNoPerProcessorBuffering != 0
		compressed = compressed || ih.LogFileMode&header.ModeCompressed != 0
	}
	if compressed {
		h.LogFileMode |= header.ModeCompressed
	}
	if !single {
		h.LogFileMode &^= header.ModeNoPerProcessorBuffering
	}
	if int(h.BufferSize) < need {
		h.BufferSize = uint32(roundPage(need))
	}
	return s, nil
}

func names(inputs []Input) []string {
	var s []string
	for _, in := range inputs {
		s = append(s, in.Name)
	}
	return s
}

func clocks(inputs []Input) []string {
	var s []string
	for _, in := range inputs {
		s = append(s, ClockName(in.Reader.Header()))
	}
	return s
}

// largestRecordBuffer is the most a buffer needs to hold one record of the
// largest size ETW writes.
var largestRecordBuffer = buffer.HeaderSize + header.Align(header.MaxRecordSize)

// scanBuffers reads the buffer headers of r. It returns the size of the
// largest buffer of records (decompressed), up to what one record can
// need: a buffer of the session's size may not hold them where a damaged
// or odd trace has buffers larger than its header says. And it reports
// whether each stream's buffers (the header buffer, each processor's, or
// all of them without per-processor buffering, as package order forms
// them) lie in increasing sequence numbers.
func scanBuffers(r *etl.Reader) (largest int, inOrder bool) {
	h := r.Header()
	single := h.LogFileMode&header.ModeNoPerProcessorBuffering != 0
	w := r.Source().NewWalker()
	w.HeadersOnly = true
	var b buffer.Buffer
	last := map[int]int64{}
	inOrder = true
	for {
		err := w.Next(&b)
		if err == io.EOF {
			break
		}
		if err != nil && b.BufferSize == 0 {
			continue // no header was read: the buffer belongs to no stream
		}
		key := int(b.ProcessorNumber())
		switch {
		case b.Index == 0 && h.RealTimeBackup == nil:
			key = -1
		case single:
			key = 0
		}
		if seq, ok := last[key]; ok && b.SequenceNumber < seq {
			inOrder = false
		}
		last[key] = b.SequenceNumber
		if err != nil || b.Offset <= buffer.HeaderSize {
			continue
		}
		end := int(b.Offset)
		if !b.Compressed() {
			end = min(end, int(b.BufferSize))
		}
		largest = max(largest, min(header.Align(end), largestRecordBuffer))
	}
	return largest, inOrder
}
