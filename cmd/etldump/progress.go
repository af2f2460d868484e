package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/etlkit/etlkit/record"
)

// progress draws a one-line bar on standard error during long runs: bytes
// read of the total, records per second and the time left. It redraws at
// most five times a second and only after the first second, so that short
// runs never show it.
//
// In file order the bytes walked measure the progress. In time order every
// buffer is indexed before the first record comes out, so the bytes walked
// reach the total at once; there the timestamp of the record being
// delivered, between the traces' start and end, measures it instead, and
// stands for the same share of the bytes.
type progress struct {
	on      bool
	w       io.Writer
	inputs  []*input
	total   int64
	start   time.Time
	last    time.Time
	records int
	drawn   bool
	now     func() time.Time

	byTime     bool
	from, to   int64 // the traces' span, FILETIME
	lastRecord int64 // FILETIME of the last record seen
}

const (
	progressDelay    = time.Second
	progressInterval = 200 * time.Millisecond
	ticksPerRecord   = 4096 // each tick stands for this many records
)

func newProgress(mode string, w io.Writer, inputs []*input, timeOrder bool) *progress {
	p := &progress{w: w, inputs: inputs, now: time.Now}
	switch mode {
	case "always":
		p.on = true
	case "auto":
		p.on = isTerminal(w)
	}
	for i, in := range inputs {
		p.total += in.f.Size()
		h := in.f.Header()
		if i == 0 || h.StartTime < p.from {
			p.from = h.StartTime
		}
		p.to = max(p.to, h.EndTime)
	}
	// A header without an end time (a trace cut off while written) leaves
	// only the bytes to go by.
	p.byTime = timeOrder && p.to > p.from
	p.start = p.now()
	p.last = p.start
	return p
}

// isTerminal reports whether w is a character device: a pipe or a file
// must never receive the bar unless it is asked for.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// done estimates the bytes behind the records delivered.
func (p *progress) done() int64 {
	if p.byTime {
		frac := float64(p.lastRecord-p.from) / float64(p.to-p.from)
		return int64(max(0, min(frac, 1)) * float64(p.total))
	}
	var n int64
	for _, in := range p.inputs {
		n += in.f.Stats().Bytes
	}
	return min(n, p.total)
}

// tick is called once per ticksPerRecord records, with the record at hand
// (nil in place of a damaged one).
func (p *progress) tick(r *record.Record) {
	if p == nil || !p.on {
		return
	}
	p.records += ticksPerRecord
	if r != nil {
		if ft, ok := r.FileTime(); ok {
			p.lastRecord = ft
		}
	}
	now := p.now()
	if now.Sub(p.start) < progressDelay || now.Sub(p.last) < progressInterval {
		return
	}
	p.last = now
	io.WriteString(p.w, "\r"+p.line(now)+"\x1b[K")
	p.drawn = true
}

// line renders the bar for the state at now.
func (p *progress) line(now time.Time) string {
	done := p.done()
	elapsed := now.Sub(p.start).Seconds()
	frac := 0.0
	if p.total > 0 {
		frac = float64(done) / float64(p.total)
	}
	const width = 24
	filled := int(frac * width)
	bar := strings.Repeat("#", filled) + strings.Repeat("-", width-filled)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.records) / elapsed
	}
	left := "--:--"
	if frac > 0 && elapsed > 0 {
		rest := time.Duration(elapsed * (1 - frac) / frac * float64(time.Second))
		left = clock(rest)
	}
	return fmt.Sprintf("[%s] %3.0f%% %s of %s  %s records/s  %s left",
		bar, frac*100, size(done), size(p.total), count(rate), left)
}

// finish clears the bar so that it leaves no trace among the messages.
func (p *progress) finish() {
	if p != nil && p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func count(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
