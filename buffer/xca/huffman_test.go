package xca

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"math/bits"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// huffToken is a literal (length 0) or a match for the test encoder.
type huffToken struct {
	lit         byte
	off, length int
}

// greedyTokens finds matches with a single-entry hash table, good enough to
// exercise every match form.
func greedyTokens(data []byte, maxOff int) []huffToken {
	var toks []huffToken
	last := map[uint32]int{}
	for i := 0; i < len(data); {
		best, bestOff := 0, 0
		if i+3 <= len(data) {
			k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16
			if c, ok := last[k]; ok && i-c <= maxOff {
				l := 0
				for i+l < len(data) && data[c+l] == data[i+l] {
					l++
				}
				best, bestOff = l, i-c
			}
			last[k] = i
		}
		if best >= 3 {
			toks = append(toks, huffToken{off: bestOff, length: best})
			for p := i + 1; p < i+best && p+3 <= len(data); p++ {
				last[uint32(data[p])|uint32(data[p+1])<<8|uint32(data[p+2])<<16] = p
			}
			i += best
		} else {
			toks = append(toks, huffToken{lit: data[i]})
			i++
		}
	}
	return toks
}

func (t huffToken) symbol() int {
	if t.length == 0 {
		return int(t.lit)
	}
	l := t.length - 3
	if l > 15 {
		l = 15
	}
	return 256 + l + 16*(bits.Len(uint(t.off))-1)
}

// codeLengths builds length-limited (15-bit) Huffman code lengths. When the
// tree is too deep the frequencies are flattened and it is built again.
func codeLengths(freq []int) []int {
	f := append([]int(nil), freq...)
	used := 0
	for _, v := range f {
		if v > 0 {
			used++
		}
	}
	// A lone symbol still needs a complete code: give it a partner.
	for s := 0; used < 2; s++ {
		if f[s] == 0 {
			f[s] = 1
			used++
		}
	}
	for {
		lens := huffmanDepths(f)
		max := 0
		for _, l := range lens {
			if l > max {
				max = l
			}
		}
		if max <= huffMaxBits {
			return lens
		}
		for i := range f {
			if f[i] > 0 {
				f[i] = (f[i] + 1) / 2
			}
		}
	}
}

type hnode struct {
	w           int
	sym         int
	left, right *hnode
}
type hheap []*hnode

func (h hheap) Len() int           { return len(h) }
func (h hheap) Less(i, j int) bool { return h[i].w < h[j].w }
func (h hheap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hheap) Push(x any)        { *h = append(*h, x.(*hnode)) }
func (h *hheap) Pop() any          { o := *h; n := o[len(o)-1]; *h = o[:len(o)-1]; return n }
func huffmanDepths(f []int) []int {
	h := &hheap{}
	for s, w := range f {
		if w > 0 {
			*h = append(*h, &hnode{w: w, sym: s})
		}
	}
	heap.Init(h)
	for h.Len() > 1 {
		a := heap.Pop(h).(*hnode)
		b := heap.Pop(h).(*hnode)
		heap.Push(h, &hnode{w: a.w + b.w, sym: -1, left: a, right: b})
	}
	lens := make([]int, len(f))
	var walk func(n *hnode, d int)
	walk = func(n *hnode, d int) {
		if n.sym >= 0 {
			lens[n.sym] = d
			return
		}
		walk(n.left, d+1)
		walk(n.right, d+1)
	}
	walk((*h)[0], 0)
	return lens
}

// canonicalCodes assigns codes in the order the decoder fills its table:
// by length, then by symbol.
func canonicalCodes(lens []int) []uint32 {
	order := make([]int, 0, len(lens))
	for s, l := range lens {
		if l > 0 {
			order = append(order, s)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return lens[order[a]] < lens[order[b]] })
	codes := make([]uint32, len(lens))
	pos := 0
	for _, s := range order {
		codes[s] = uint32(pos >> (huffMaxBits - lens[s]))
		pos += 1 << (huffMaxBits - lens[s])
	}
	return codes
}

// huffWriter lays out the bit stream the way the decoder reads it: a word
// slot is reserved in the output at the moment the decoder would fetch that
// word, so length bytes written in between land where the decoder looks.
type huffWriter struct {
	out   []byte
	slots []int // output position of each 16-bit word of the block
	nbits int
}

// wordsRead is how many words the decoder has fetched after consuming n
// bits: it starts with two and keeps at least 16 unconsumed bits.
func wordsRead(n int) int {
	return (n+15)/16 + 1
}

func (w *huffWriter) reserve() {
	for len(w.slots) < wordsRead(w.nbits) {
		w.slots = append(w.slots, len(w.out))
		w.out = append(w.out, 0, 0)
	}
}

func (w *huffWriter) put(v uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		if v>>uint(i)&1 != 0 {
			word := w.nbits / 16
			bit := 15 - w.nbits%16
			p := w.slots[word]
			binary.LittleEndian.PutUint16(w.out[p:], binary.LittleEndian.Uint16(w.out[p:])|1<<uint(bit))
		}
		w.nbits++
	}
	w.reserve()
}

// encodeHuffman writes tokens as LZ77+Huffman. Blocks end as the decoder
// sees them: once 64 KiB of output have been produced, so a match may run
// past a block end. The last block carries the end-of-stream symbol.
func encodeHuffman(toks []huffToken) []byte {
	w := &huffWriter{}
	for i := 0; i == 0 || i < len(toks); {
		// Collect one block.
		j, produced := i, 0
		for j < len(toks) && produced < huffBlockSize {
			produced += max(toks[j].length, 1)
			j++
		}
		block := toks[i:j]
		last := j == len(toks)
		freq := make([]int, huffSymbols)
		for _, t := range block {
			freq[t.symbol()]++
		}
		if last {
			freq[256]++
		}
		lens := codeLengths(freq)
		codes := canonicalCodes(lens)
		table := make([]byte, huffTableBytes)
		for s := 0; s < huffSymbols; s += 2 {
			table[s/2] = byte(lens[s]) | byte(lens[s+1])<<4
		}
		w.out = append(w.out, table...)
		w.slots, w.nbits = w.slots[:0], 0
		w.reserve()
		for _, t := range block {
			s := t.symbol()
			w.put(codes[s], lens[s])
			if t.length == 0 {
				continue
			}
			if l := t.length - 3; l >= 15 {
				if l-15 < 255 {
					w.out = append(w.out, byte(l-15))
				} else if l < 1<<16 {
					w.out = append(w.out, 255, byte(l), byte(l>>8))
				} else {
					w.out = append(w.out, 255, 0, 0)
					w.out = binary.LittleEndian.AppendUint32(w.out, uint32(l))
				}
			}
			ob := bits.Len(uint(t.off)) - 1
			w.put(uint32(t.off)-1<<uint(ob), ob)
		}
		if last {
			w.put(codes[256], lens[256])
			break
		}
		i = j
	}
	return w.out
}

func decodeHuffman(t *testing.T, src []byte, size int) []byte {
	t.Helper()
	return decodeExact(t, DecompressLZ77Huffman, src, size)
}

func TestDecompressLZ77HuffmanHandVector(t *testing.T) {
	// Every symbol 9 bits long, so the code of symbol s is s itself.
	// Stream: 'a' 'b' 'c', match length 9 offset 3 (symbol 256+6+16*1,
	// one offset bit = 1), end-of-stream 256. 46 bits padded to three
	// words plus the extra word the decoder reads ahead.
	src := append(bytes.Repeat([]byte{0x99}, 256),
		0x98, 0x30, 0x71, 0x8c, 0x00, 0x6c, 0x00, 0x00)
	require.Equal(t, []byte("abcabcabcabc"), decodeHuffman(t, src, 12))

	// The test encoder must agree with the hand layout.
	lens := make([]int, huffSymbols)
	for i := range lens {
		lens[i] = 9
	}
	require.Equal(t, uint32(0x116), canonicalCodes(lens)[278])
}

func TestRoundTripLZ77Huffman(t *testing.T) {
	for name, data := range testInputs() {
		t.Run(name, func(t *testing.T) {
			src := encodeHuffman(greedyTokens(data, 65535))
			require.Equal(t, data, decodeHuffman(t, src, len(data)))
		})
	}
}

func TestLZ77HuffmanLengthsAndOffsets(t *testing.T) {
	var data []byte
	for i := 0; i < 300; i++ {
		data = append(data, byte(i*37), byte(i>>3))
	}
	var toks []huffToken
	for _, b := range data {
		toks = append(toks, huffToken{lit: b})
	}
	// Every length escape and offsets of every bit width.
	for _, tk := range []struct{ off, length int }{
		{1, 3}, {2, 17}, {3, 18}, {4, 19}, {600, 272}, {599, 273}, {7, 274}, {100, 1000},
		{1, 65538}, {5, 65539}, {33, 70000}, {65535, 10}, {32768, 40}, {32767, 4},
	} {
		if tk.off > len(data) {
			continue
		}
		toks = append(toks, huffToken{off: tk.off, length: tk.length})
		for i := 0; i < tk.length; i++ {
			data = append(data, data[len(data)-tk.off])
		}
		toks = append(toks, huffToken{lit: 'x'})
		data = append(data, 'x')
	}
	require.Greater(t, len(data), 3*huffBlockSize)
	src := encodeHuffman(toks)
	require.Equal(t, data, decodeHuffman(t, src, len(data)))
}

func TestDecompressLZ77HuffmanErrors(t *testing.T) {
	good := encodeHuffman(greedyTokens(specABC, 65535))
	require.Equal(t, specABC, decodeHuffman(t, good, len(specABC)))

	incomplete := append([]byte{}, good...)
	incomplete[0x61/2] = 0 // drops 'a' (odd symbol: high nibble) from an otherwise complete code
	lone := append(bytes.Repeat([]byte{0}, 256), 0, 0, 0, 0)
	lone[0] = 1 // a single one-bit code covers half the table
	oversubscribed := append(bytes.Repeat([]byte{0x11}, 256), 0, 0, 0, 0)

	offsetBefore := encodeHuffman([]huffToken{{lit: 'a'}, {lit: 'b'}, {off: 3, length: 3}})

	cases := []struct {
		name string
		src  []byte
		size int
		want error
	}{
		{"incomplete code", incomplete, len(specABC), ErrCorrupt},
		{"single code", lone, 10, ErrCorrupt},
		{"oversubscribed code", oversubscribed, 10, ErrCorrupt},
		{"short table", good[:200], len(specABC), ErrTruncated},
		{"no bit stream", good[:256+2], len(specABC), ErrTruncated},
		{"offset before start", offsetBefore, 5, ErrBadOffset},
		{"overflow", good, len(specABC) - 1, ErrOutputOverflow},
		{"cut bit stream", good[:len(good)-6], len(specABC), ErrTruncated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireDecodeError(t, DecompressLZ77Huffman, c.src, c.size, c.want)
		})
	}

	// Ending at a block boundary before dst is full is a short count.
	n, err := DecompressLZ77Huffman(make([]byte, 400), good)
	require.ErrorIs(t, err, ErrTruncated, "the stream ends inside its only block")
	require.LessOrEqual(t, n, 400)
	n, err = DecompressLZ77Huffman(make([]byte, 10), nil)
	require.NoError(t, err)
	require.Zero(t, n)
}

func TestHuffmanDecoderNoAlloc(t *testing.T) {
	src := encodeHuffman(greedyTokens(testInputs()["text"], 65535))
	dst := make([]byte, len(testInputs()["text"]))
	var d HuffmanDecoder
	allocs := testing.AllocsPerRun(5, func() {
		n, err := d.Decompress(dst, src)
		if err != nil || n != len(dst) {
			t.Fatalf("n=%d err=%v", n, err)
		}
	})
	require.Zero(t, allocs)
}
