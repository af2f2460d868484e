package xca

import (
	"testing"
)

func benchBuffers(b *testing.B) ([]compressedBuffer, int) {
	bufs := compressedBuffers(b, readSample(b, "net452-x64-merged-compressed.etl"))
	maxSize := 0
	for _, c := range bufs {
		maxSize = max(maxSize, c.size)
	}
	return bufs, maxSize
}

func BenchmarkDecompressLZ77(b *testing.B) {
	bufs, maxSize := benchBuffers(b)
	dst := make([]byte, maxSize)
	total := 0
	for _, c := range bufs {
		total += c.size
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range bufs {
			n, err := DecompressLZ77(dst[:c.size], c.data)
			if err != nil || n != c.size {
				b.Fatalf("buffer at 0x%x: n=%d err=%v", c.at, n, err)
			}
		}
	}
}

func BenchmarkCompressLZ77(b *testing.B) {
	bufs, maxSize := benchBuffers(b)
	plain := make([][]byte, len(bufs))
	total := 0
	for i, c := range bufs {
		plain[i] = make([]byte, c.size)
		if _, err := DecompressLZ77(plain[i], c.data); err != nil {
			b.Fatal(err)
		}
		total += c.size
	}
	out := make([]byte, 0, maxSize+maxSize/32+8)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range plain {
			out = CompressLZ77(out[:0], p)
		}
	}
}

// The Huffman and LZNT1 decoders run over synthetic data, since no sample
// uses them; the input is the first 2 MiB of the decompressed sample.
func benchPlain(b *testing.B, limit int) []byte {
	bufs, _ := benchBuffers(b)
	var plain []byte
	for _, c := range bufs {
		p := make([]byte, c.size)
		if _, err := DecompressLZ77(p, c.data); err != nil {
			b.Fatal(err)
		}
		plain = append(plain, p...)
		if len(plain) >= limit {
			break
		}
	}
	return plain[:min(limit, len(plain))]
}

func BenchmarkDecompressLZ77Huffman(b *testing.B) {
	plain := benchPlain(b, 2<<20)
	src := encodeHuffman(greedyTokens(plain, 65535))
	dst := make([]byte, len(plain))
	var d HuffmanDecoder
	b.SetBytes(int64(len(plain)))
	b.ReportAllocs()
	for b.Loop() {
		n, err := d.Decompress(dst, src)
		if err != nil || n != len(dst) {
			b.Fatalf("n=%d err=%v", n, err)
		}
	}
}

func BenchmarkDecompressLZNT1(b *testing.B) {
	plain := benchPlain(b, 256<<10)
	src := encodeLZNT1(plain)
	dst := make([]byte, len(plain))
	b.SetBytes(int64(len(plain)))
	b.ReportAllocs()
	for b.Loop() {
		n, err := DecompressLZNT1(dst, src)
		if err != nil || n != len(dst) {
			b.Fatalf("n=%d err=%v", n, err)
		}
	}
}
