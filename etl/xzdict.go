package etl

import (
	"bufio"
	"encoding/binary"
	"fmt"
)

// maxXzDictionary bounds the LZMA2 dictionary of an xz input: the decoder
// allocates it and fills it before handing out a byte, so a few bytes of
// header could otherwise ask for gigabytes. 64 MiB is the dictionary of
// xz -9, the largest preset.
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
			if dict := xzDictionarySize(blk[pos]); dict > maxXzDictionary {
				return fmt.Errorf("the xz stream asks for a dictionary of %s, more than the %s of xz -9 that etlkit accepts: decompress it with xz first", byteSize(dict), byteSize(maxXzDictionary))
			}
		}
		pos += int(n)
	}
	return nil
}

// xzDictionarySize decodes LZMA2's dictionary size byte (xz file format
// 5.3.1): 2 or 3 times a power of two from 4 KiB on.
func xzDictionarySize(b byte) int64 {
	if b >= 40 {
		return 1<<32 - 1
	}
	return int64(2|b&1) << (b/2 + 11)
}
