package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/internal/packettest"
	"github.com/etlkit/etlkit/internal/samples"
	"github.com/etlkit/etlkit/internal/tshark"
)

const pktmonGUID = "4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac"

// packetEvents counts the PktMon packet events that pass filters, with
// the same filters through --count.
func packetEvents(t *testing.T, filters []string, files ...string) int {
	t.Helper()
	args := append([]string{"--count", "--provider", pktmonGUID, "--id", "160,170"}, filters...)
	out, errs, code := runCmd(t, append(args, files...)...)
	require.Equal(t, 0, code, errs)
	n, err := strconv.Atoi(strings.TrimSpace(out))
	require.NoError(t, err)
	return n
}

// frames runs tshark on a capture: one row per packet.
func frames(t *testing.T, file string, fields ...string) [][]string {
	return tshark.Fields(t, file, nil, fields...)
}

func TestPcapngSamples(t *testing.T) {
	tshark.Require(t)
	eth := samples.Path(t, "pktmon-ethernet.etl")
	wifi := samples.Path(t, "pktmon-wifi-ethernet-ip.etl")
	dir := t.TempDir()
	out := filepath.Join(dir, "out.pcapng")

	t.Run("one trace", func(t *testing.T) {
		_, errs, code := runCmd(t, "--format", "pcapng", "-o", out, eth)
		require.Equal(t, 0, code, errs)
		assert.Empty(t, errs)
		rows := frames(t, out, "frame.interface_name", "frame.interface_description", "frame.protocols")
		assert.Len(t, rows, 51)
		for _, r := range rows {
			assert.Equal(t, []string{"rtucx22x64.sys", "Realtek USB GbE Family Controller #3"}, r[:2])
			assert.True(t, strings.HasPrefix(r[2], "eth:ethertype:"), r[2])
		}
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, entries, 1, "the output alone, no temporary file left")
	})

	t.Run("merged", func(t *testing.T) {
		_, errs, code := runCmd(t, "--format", "pcapng", "-o", out, wifi, eth)
		require.Equal(t, 0, code, errs)
		rows := frames(t, out, "frame.time_epoch", "frame.interface_description")
		assert.Len(t, rows, packetEvents(t, nil, wifi, eth))
		assert.Equal(t, 30132+51, len(rows))
		for i := 1; i < len(rows); i++ {
			assert.LessOrEqual(t, rows[i-1][0], rows[i][0], "time order")
		}
		assert.Contains(t, tshark.Capinfos(t, "-I", out), "Description = Realtek USB GbE Family Controller #3, from "+eth+"\n")
		assert.Contains(t, tshark.Capinfos(t, "-I", out), "Number of interfaces in file: 21\n")
	})

	t.Run("filters", func(t *testing.T) {
		filters := []string{"--from", "30s", "--to", "60s", "--pid", "4"}
		_, errs, code := runCmd(t, append([]string{"--format", "pcapng", "-o", out}, append(filters, wifi)...)...)
		require.Equal(t, 0, code, errs)
		rows := frames(t, out, "frame.interface_name")
		want := packetEvents(t, filters, wifi)
		assert.Len(t, rows, want)
		assert.Greater(t, want, 100)
		assert.Less(t, want, 30132)
		for _, r := range rows {
			assert.NotContains(t, r[0], "component:", "the filters dropped the component events, which still name the interfaces")
		}
	})

	t.Run("first appearance", func(t *testing.T) {
		_, errs, code := runCmd(t, "--format", "pcapng", "--first-appearance", "-o", out, wifi)
		require.Equal(t, 0, code, errs)
		assert.Len(t, frames(t, out, "frame.number"), 5997)
	})

	t.Run("stdin to stdout", func(t *testing.T) {
		data, err := os.ReadFile(eth)
		require.NoError(t, err)
		old := stdin
		defer func() { stdin = old }()
		stdin = bytes.NewReader(data)
		// The packets wait in a spool file in the temporary directory
		// (this input is small enough to stay in memory, unspilled):
		// none is left behind.
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		got, errs, code := runCmd(t, "--format", "pcapng", "-o", "-", "-")
		require.Equal(t, 0, code, errs)
		left, err := os.ReadDir(tmp)
		require.NoError(t, err)
		assert.Empty(t, left, "spool file removed")
		piped := filepath.Join(dir, "piped.pcapng")
		require.NoError(t, os.WriteFile(piped, []byte(got), 0o644))
		_, _, code = runCmd(t, "--format", "pcapng", "-o", out, eth)
		require.Equal(t, 0, code)
		fields := []string{"frame.md5_hash", "frame.time_epoch", "frame.len", "frame.interface_name", "frame.interface_description", "frame.comment"}
		want := tshark.Fields(t, out, []string{"frame.generate_md5_hash:TRUE"}, fields...)
		assert.Len(t, want, 51)
		assert.Equal(t, want, tshark.Fields(t, piped, []string{"frame.generate_md5_hash:TRUE"}, fields...))
	})
}

func TestPcapngNoPackets(t *testing.T) {
	tshark.Require(t)
	out := filepath.Join(t.TempDir(), "empty.pcapng")
	stdout, errs, code := runCmd(t, "--format", "pcapng", "-o", out, samples.Path(t, "pktmon-no-packets.etl"))
	assert.Equal(t, 0, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "etldump: no packets in the input (no NDIS-PacketCapture or PktMon packet events pass): "+out+" is a capture with no packets\n", errs)
	assert.Empty(t, frames(t, out, "frame.number"))
	assert.Contains(t, tshark.Capinfos(t, "-t", out), "Wireshark/... - pcapng")
}

// An NDIS-PacketCapture trace built from the documented layout: every
// packet comes out whole, on its interface, in its direction.
func TestPcapngNDIS(t *testing.T) {
	tshark.Require(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "ndis.etl")
	var b bytes.Buffer
	pkts := packettest.NDISPackets()
	require.NoError(t, packettest.WriteNDIS(&b, pkts))
	require.NoError(t, os.WriteFile(trace, b.Bytes(), 0o644))
	out := filepath.Join(dir, "ndis.pcapng")
	_, errs, code := runCmd(t, "--format", "pcapng", "-o", out, trace)
	require.Equal(t, 0, code, errs)
	rows := frames(t, out, "frame.cap_len", "frame.interface_name", "frame.packet_flags_direction")
	require.Len(t, rows, len(pkts))
	for i, p := range pkts {
		assert.Equal(t, strconv.Itoa(len(p.Data)), rows[i][0], p.Name)
		assert.Contains(t, rows[i][1], ":"+strconv.Itoa(int(p.LowerIfIndex)), p.Name)
	}
	assert.Equal(t, "0x00000002", rows[0][2])
	assert.Equal(t, "0x00000001", rows[1][2])
}

// A packet record too short for the packet it announces costs itself: the
// others are written, the run says so and ends with status 1.
func TestPcapngDamagedRecord(t *testing.T) {
	tshark.Require(t)
	dir := t.TempDir()
	frame := func(ts int64, overstate int) *etltest.Event {
		f := packettest.PktMonFrame{TimeStamp: ts, ProcessID: 4, ThreadID: 8, DirTag: 4, PacketType: 1, ComponentID: 5,
			EdgeID: 1, Data: packettest.Ethernet(packettest.IPv4UDP(100, uint16(ts))), Overstate: overstate}
		return f.Event()
	}
	var b bytes.Buffer
	bd, err := etltest.NewBuilder(&b, packettest.NDISSession())
	require.NoError(t, err)
	bd.CPU(0).Add(frame(2_000_000_000, 0), frame(2_000_000_010, 40), frame(2_000_000_020, 0))
	require.NoError(t, bd.Close())
	trace := filepath.Join(dir, "damaged.etl")
	require.NoError(t, os.WriteFile(trace, b.Bytes(), 0o644))
	out := filepath.Join(dir, "out.pcapng")
	_, errs, code := runCmd(t, "--format", "pcapng", "-o", out, trace)
	assert.Equal(t, exitDamaged, code)
	assert.Equal(t, "etldump: "+out+": left out: 1 packet record shorter than the packet it announces\n", errs)
	assert.Len(t, frames(t, out, "frame.number"), 2)
}

// Packets dated before 1970 are written at 1970-01-01, and the run says
// how many, in the singular for one.
func TestPcapngBeforeEpoch(t *testing.T) {
	dir := t.TempDir()
	for n, want := range map[int]string{
		1: "1 packet dated before 1970, which pcapng cannot hold, is written at 1970-01-01",
		2: "2 packets dated before 1970, which pcapng cannot hold, are written at 1970-01-01",
	} {
		s := packettest.NDISSession()
		// The session starts in 1917: its clock stays FILETIME-based.
		s.StartTime, s.BootTime, s.EndTime = 100_000_000_000_000_000, 99_999_990_000_000_000, 100_000_000_600_000_000
		var b bytes.Buffer
		bd, err := etltest.NewBuilder(&b, s)
		require.NoError(t, err)
		for i := range n {
			ts := 2_000_000_000 + int64(i)*10
			bd.CPU(0).Add((&packettest.PktMonFrame{TimeStamp: ts, DirTag: 4, PacketType: 1, ComponentID: 5,
				Data: packettest.Ethernet(packettest.IPv4UDP(100, uint16(i)))}).Event())
		}
		require.NoError(t, bd.Close())
		trace := filepath.Join(dir, strconv.Itoa(n)+".etl")
		require.NoError(t, os.WriteFile(trace, b.Bytes(), 0o644))
		out := filepath.Join(dir, strconv.Itoa(n)+".pcapng")
		_, errs, code := runCmd(t, "--format", "pcapng", "-o", out, trace)
		assert.Equal(t, 0, code)
		assert.Equal(t, "etldump: "+out+": "+want+"\n", errs)
	}
}

func TestPcapngRefusals(t *testing.T) {
	path := samples.Path(t, "pktmon-ethernet.etl")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--format", "pcapng", path}, "--format pcapng writes a binary file: name it with -o FILE.pcapng, or -o - for standard output"},
		{[]string{"--format", "pcapng", "--count", "-o", "x", path}, "--format pcapng writes packets; it cannot be combined with --count"},
		{[]string{"--first-appearance", path}, "--first-appearance applies to --format pcapng"},
	} {
		out, errs, code := runCmd(t, c.args...)
		assert.Equal(t, exitFatal, code)
		assert.Empty(t, out)
		assert.Contains(t, errs, c.msg)
	}
	// -o naming an input: refused, the input untouched.
	dir := t.TempDir()
	in := filepath.Join(dir, "in.etl")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, data, 0o644))
	_, errs, code := runCmd(t, "--format", "pcapng", "-o", in, in)
	assert.Equal(t, exitFatal, code)
	assert.Contains(t, errs, "it is an input")
	after, err := os.ReadFile(in)
	require.NoError(t, err)
	assert.Equal(t, data, after)
}
