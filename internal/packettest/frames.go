package packettest

// Frames for the events: UDP datagrams between two private addresses on
// ports no dissector claims, so that tshark shows them as data, with
// their IP checksums right.

const (
	srcPort = 40000
	dstPort = 40001
)

// IPv4UDP returns an IPv4 packet of n bytes (at least 28) carrying a UDP
// datagram; seq goes into the IP identification and the data.
func IPv4UDP(n int, seq uint16) []byte {
	n = max(n, 28)
	b := make([]byte, n)
	b[0], b[8], b[9] = 0x45, 128, 17
	be.PutUint16(b[2:], uint16(n))
	be.PutUint16(b[4:], seq)
	copy(b[12:], []byte{10, 0, 0, 1, 10, 0, 0, 2})
	be.PutUint16(b[10:], checksum(b[:20], 0))
	udp(b[20:], seq)
	return b
}

// IPv6UDP returns an IPv6 packet of n bytes (at least 48) carrying a UDP
// datagram with its checksum.
func IPv6UDP(n int, seq uint16) []byte {
	n = max(n, 48)
	b := make([]byte, n)
	b[0], b[6], b[7] = 0x60, 17, 64
	be.PutUint16(b[4:], uint16(n-40))
	b[8], b[9], b[23] = 0xfd, 0, 1
	b[24], b[25], b[39] = 0xfd, 0, 2
	u := b[40:]
	udp(u, seq)
	// Pseudo-header: addresses, length, next header.
	var sum uint32
	for i := 8; i < 40; i += 2 {
		sum += uint32(be.Uint16(b[i:]))
	}
	sum += uint32(len(u)) + 17
	if c := checksum(u, sum); c != 0 {
		be.PutUint16(u[6:], c)
	} else {
		be.PutUint16(u[6:], 0xFFFF)
	}
	return b
}

func udp(u []byte, seq uint16) {
	be.PutUint16(u[0:], srcPort)
	be.PutUint16(u[2:], dstPort)
	be.PutUint16(u[4:], uint16(len(u)))
	for i := 8; i < len(u); i++ {
		u[i] = byte(int(seq) + i)
	}
}

// checksum is the Internet checksum of b added to sum.
func checksum(b []byte, sum uint32) uint16 {
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(be.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	for sum>>16 != 0 {
		sum = sum&0xFFFF + sum>>16
	}
	return ^uint16(sum)
}

// Ethernet returns an Ethernet II frame around the IP packet ip.
func Ethernet(ip []byte) []byte {
	b := make([]byte, 14, 14+len(ip))
	copy(b, []byte{0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1})
	et := uint16(0x0800)
	if ip[0]>>4 == 6 {
		et = 0x86DD
	}
	be.PutUint16(b[12:], et)
	return append(b, ip...)
}

// Dot11 returns an 802.11 QoS data frame from the distribution system
// around the IP packet ip (LLC/SNAP encapsulated), with the Protected bit
// when protected is set (the body stays cleartext, as captures log it).
func Dot11(ip []byte, protected bool) []byte {
	b := make([]byte, 26, 26+8+len(ip))
	b[0], b[1] = 0x88, 0x02 // QoS data, FromDS
	if protected {
		b[1] |= 0x40
	}
	copy(b[4:], []byte{0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 9, 0x02, 0, 0, 0, 0, 1})
	if ip[0]>>4 == 6 {
		b = append(b, 0xAA, 0xAA, 0x03, 0, 0, 0, 0x86, 0xDD)
	} else {
		b = append(b, 0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00)
	}
	return append(b, ip...)
}
