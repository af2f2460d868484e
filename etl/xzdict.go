package etl

import (
	"bufio"
	"encoding/binary"
	"fmt"

	"github.com/ulikunitz/xz/lzma"
)

// maxXzDictionary bounds the LZMA2 dictionary of an xz input's first
// block: the decoder allocates it before handing out a byte, so a few
// bytes of header could otherwise ask for gigabytes. 64 MiB is the
// dictionary of xz -9, the largest preset. Later blocks are not checked:
// their headers lie behind compressed data that only the decoder walks,
// and it offers no bound of its own.
const maxXzDictionary = 64 << 20

// xzLZMA2 is the filter ID of LZMA2 (xz file format, 5.3.1).
const xzLZMA2 = 0x21

// checkXzDictionary reads the header of the first block of the xz stream
// br starts with (xz file format 2.1.1, 3.1) and refuses an LZMA2
// dictionary larger than maxXzDictionary. A header it cannot read is left
// for the decoder to report.
func checkXzDictionary(br *bufio.Reader) error {
	const streamHeader = 12
	head, _ := br.Peek(streamHeader + 1024)
	if len(head) <= streamHeader {
		return nil
	}
	blk := head[streamHeader:]
	if blk[0] == 0 { // an index: no block
		return nil
	}
	size := (int(blk[0]) + 1) * 4
	if len(blk) < size {
		return nil
	}
	blk = blk[:size]
	flags := blk[1]
	pos := 2
	varint := func() (uint64, bool) {
		v, n := binary.Uvarint(blk[min(pos, len(blk)):])
		if n <= 0 {
			return 0, false
		}
		pos += n
		return v, true
	}
	if flags&0x40 != 0 { // compressed size
		if _, ok := varint(); !ok {
			return nil
		}
	}
	if flags&0x80 != 0 { // uncompressed size
		if _, ok := varint(); !ok {
			return nil
		}
	}
	for range int(flags&0x03) + 1 {
		id, ok := varint()
		if !ok {
			return nil
		}
		n, ok := varint()
		if !ok || pos+int(n) > len(blk) {
			return nil
		}
		if id == xzLZMA2 && n == 1 {
			// An invalid code is left for the decoder to report.
			if dict, err := lzma.DecodeDictCap(blk[pos]); err == nil && dict > maxXzDictionary {
				return fmt.Errorf("the xz stream asks for a dictionary of %s, more than the %s of xz -9 that etlkit accepts: decompress it with xz first", byteSize(dict), byteSize(maxXzDictionary))
			}
		}
		pos += int(n)
	}
	return nil
}
