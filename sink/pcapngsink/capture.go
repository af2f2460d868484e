package pcapngsink

import (
	"io"

	"github.com/etlkit/etlkit/packets"
	"github.com/etlkit/etlkit/record"
)

// CaptureOptions are the settings of a Capture.
type CaptureOptions struct {
	// Packets are the converter's settings (first appearances only,
	// reassembly bounds).
	Packets packets.Options
	// Inputs names the traces the records come from, by input index;
	// with more than one, each interface's description ends with the name
	// of its trace.
	Inputs []string
	// Application is the section header's shb_userappl.
	Application string
	// Spool holds the packet blocks of a capture to a stream until Close,
	// so that the interfaces are described with all the trace says of
	// them (PktMon names its components after the packets). Without one,
	// an interface is written as it is known at its first packet. A
	// capture to a file (NewFileCapture) needs none.
	Spool io.ReadWriteSeeker
}

// CaptureStats counts what a Capture wrote and left out.
type CaptureStats struct {
	packets.Stats
	Interfaces int
	// BeforeEpoch counts packets whose time is before 1970, which pcapng
	// cannot hold; they are written at 1970-01-01.
	BeforeEpoch int64
}

// Capture writes the packets of ETW records as pcapng: each record given
// to Add in time order, the packets it completes written as they come.
type Capture struct {
	opts CaptureOptions
	conv *packets.Converter
	w    *Writer
	pkt  Packet
	st   CaptureStats
}

// NewCapture returns a Capture that writes to the stream out.
func NewCapture(out io.Writer, opts CaptureOptions) *Capture {
	return &Capture{
		opts: opts,
		conv: packets.New(opts.Packets),
		w:    NewWriter(out, Options{Application: opts.Application, Spool: opts.Spool}),
	}
}

// NewFileCapture returns a Capture that writes to f, an empty file, and
// describes the interfaces at Close with all the trace said of them.
func NewFileCapture(f File, opts CaptureOptions) *Capture {
	return &Capture{
		opts: opts,
		conv: packets.New(opts.Packets),
		w:    NewFileWriter(f, Options{Application: opts.Application}),
	}
}

// Add reads one record of input in and writes the packet it completes,
// if any. Records of other providers cost a comparison of their provider.
// The error is the output's.
func (c *Capture) Add(r *record.Record, input int) error {
	if !packets.IsPacketProvider(r) {
		return nil
	}
	p, ok := c.conv.Packet(r, input)
	if !ok {
		return nil
	}
	for c.w.Interfaces() < len(c.conv.Interfaces()) {
		if _, err := c.w.AddInterface(c.describe(c.w.Interfaces())); err != nil {
			return err
		}
	}
	ts, ok := Timestamp(p.FileTime)
	if !ok {
		c.st.BeforeEpoch++
	}
	c.pkt = Packet{
		Interface:        uint32(p.Interface),
		Timestamp:        ts,
		Data:             p.Data,
		OriginalLength:   p.OriginalLength,
		Comment:          p.Comment,
		ProcessID:        p.ProcessID,
		ThreadID:         p.ThreadID,
		HasProcessThread: p.HasProcessThread,
	}
	switch p.Direction {
	case packets.Inbound:
		c.pkt.Flags = FlagInbound
	case packets.Outbound:
		c.pkt.Flags = FlagOutbound
	}
	return c.w.WritePacket(&c.pkt)
}

// Learn reads what a record the caller leaves out (a filter did) says of
// the interfaces, so that they are named all the same.
func (c *Capture) Learn(r *record.Record, input int) {
	if packets.IsPacketProvider(r) {
		c.conv.Learn(r, input)
	}
}

// Close ends the capture: the fragments still waiting for the rest of
// their packet are counted and dropped, the interfaces described with all
// the trace said of them (with a spool), and the file finished. It does not
// close the output.
func (c *Capture) Close() (CaptureStats, error) {
	c.conv.Finish()
	if c.w.Deferred() {
		for i := range c.w.Interfaces() {
			if err := c.w.SetInterface(uint32(i), c.describe(i)); err != nil {
				return c.stats(), err
			}
		}
	}
	return c.stats(), c.w.Close()
}

func (c *Capture) stats() CaptureStats {
	st := c.st
	st.Stats = c.conv.Stats()
	st.Interfaces = c.w.Interfaces()
	return st
}

// describe makes the interface block of interface i.
func (c *Capture) describe(i int) Interface {
	ifc := c.conv.Interfaces()[i]
	d := c.conv.Describe(i)
	if len(c.opts.Inputs) > 1 && ifc.Input < len(c.opts.Inputs) {
		if d.Description != "" {
			d.Description += ", "
		}
		d.Description += "from " + c.opts.Inputs[ifc.Input]
	}
	out := Interface{LinkType: ifc.LinkType, Name: d.Name, Description: d.Description,
		MAC: d.MAC, IPv4: d.IPv4, IPv6: d.IPv6}
	if d.Comment != "" {
		out.Comments = []string{d.Comment}
	}
	return out
}
