package xca

import (
	"bytes"
	"errors"
	"testing"
)

const fuzzMaxOut = 1 << 20

// fuzzSeedBuffers limits how many real buffers seed each target, and
// fuzzSeedBytes how much of each: a few cover the real token mix, and the
// fuzzer runs, and minimizes what it finds, in proportion to an input's
// size (minimizing is quadratic in it).
const (
	fuzzSeedBuffers = 6
	fuzzSeedBytes   = 1024
)

func addSampleSeeds(f *testing.F, add func(src []byte, size int)) {
	bufs := sampleBuffersIfPresent(f)
	for i, b := range bufs {
		if i >= fuzzSeedBuffers && len(b.data) > 2048 {
			continue
		}
		// The head of a stream decodes as far as it goes.
		add(b.data[:min(len(b.data), fuzzSeedBytes)], min(b.size, 4*fuzzSeedBytes))
	}
}

// checkDecoder runs one decoder on src with a dst of the fuzz-chosen size
// plus a guard area that must stay untouched.
func checkDecoder(t *testing.T, decode decoder, src []byte, size uint32) {
	_, _, err := decodeGuarded(t, decode, src, int(size%(fuzzMaxOut+1)))
	if err != nil && !isCorrupt(err) {
		t.Fatalf("error %v does not match ErrCorrupt", err)
	}
}

func FuzzDecompressLZ77(f *testing.F) {
	f.Add(specAlphabetLZ77, uint32(len(specAlphabet)))
	f.Add(specABCLZ77, uint32(len(specABC)))
	f.Add(newLZ77Builder().lit("z").raw(0x07, 0x00, 0x0f, 0xff, 0xe8, 0x03).bytes(), uint32(1004))
	f.Add(newLZ77Builder().lit("q").raw(0x07, 0x00, 0x0f, 0xff, 0x00, 0x00, 0xa0, 0x86, 0x01, 0x00).bytes(), uint32(100004))
	f.Add(newLZ77Builder().lit("abcd").raw(0x1f, 0x00, 0x52).raw(0x07, 0x00).bytes(), uint32(31))
	f.Add(CompressLZ77(nil, testInputs()["text"][:5000]), uint32(5000))
	addSampleSeeds(f, func(src []byte, size int) { f.Add(src, uint32(size)) })
	f.Fuzz(func(t *testing.T, src []byte, size uint32) {
		checkDecoder(t, DecompressLZ77, src, size)
	})
}

func FuzzDecompressLZ77Huffman(f *testing.F) {
	f.Add(append(bytes.Repeat([]byte{0x99}, 256), 0x98, 0x30, 0x71, 0x8c, 0x00, 0x6c, 0x00, 0x00), uint32(12))
	f.Add(encodeHuffman(greedyTokens(specABC, 65535)), uint32(len(specABC)))
	text := testInputs()["text"][:3000]
	f.Add(encodeHuffman(greedyTokens(text, 65535)), uint32(len(text)))
	f.Add(encodeHuffman([]huffToken{{lit: 'a'}, {off: 1, length: 70000}, {lit: 'b'}, {off: 2, length: 300}}), uint32(70302))
	addSampleSeeds(f, func(src []byte, size int) { f.Add(src, uint32(size)) })
	var d HuffmanDecoder
	f.Fuzz(func(t *testing.T, src []byte, size uint32) {
		checkDecoder(t, d.Decompress, src, size)
	})
}

func FuzzDecompressLZNT1(f *testing.F) {
	f.Add([]byte{0x05, 0xB0, 0x08, 'a', 'b', 'c', 0x0C, 0x20}, uint32(18))
	f.Add([]byte{0x02, 0x30, 'x', 'y', 'z', 0x03, 0xB0, 0x02, 'q', 0x02, 0x00}, uint32(9))
	text := testInputs()["text"][:3000]
	f.Add(encodeLZNT1(text), uint32(len(text)))
	f.Add(encodeLZNT1(make([]byte, 10000)), uint32(10000))
	addSampleSeeds(f, func(src []byte, size int) { f.Add(src, uint32(size)) })
	f.Fuzz(func(t *testing.T, src []byte, size uint32) {
		checkDecoder(t, DecompressLZNT1, src, size)
	})
}

func FuzzRoundTripLZ77(f *testing.F) {
	for _, name := range []string{"empty", "one", "three-same", "alphabet", "abc", "repeat-2", "random-33"} {
		f.Add(testInputs()[name])
	}
	f.Add(testInputs()["text"][:4000])
	f.Add(make([]byte, 300))
	for i, b := range sampleBuffersIfPresent(f) {
		if i >= 2 {
			break
		}
		plain := make([]byte, b.size)
		if _, err := DecompressLZ77(plain, b.data); err == nil {
			// The head of a buffer: compressing it runs for every input.
			f.Add(plain[:min(len(plain), 4*fuzzSeedBytes)])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := CompressLZ77(nil, data)
		// One spare byte shows that the end of the stream, not the size of
		// dst, stops the decoder.
		got := make([]byte, len(data)+1)
		n, err := DecompressLZ77(got, c)
		if err != nil {
			t.Fatalf("decompress: %v", err)
		}
		if n != len(data) || !bytes.Equal(got[:n], data) {
			t.Fatalf("round trip differs: %d of %d bytes", n, len(data))
		}
	})
}

func isCorrupt(err error) bool { return errors.Is(err, ErrCorrupt) }
