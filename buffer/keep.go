package buffer

import "sync"

// Kept holds buffers a walk decompressed, so that a later walk over the same
// input takes their bytes instead of decompressing them again: a reader that
// looks at a trace in a first pass and decodes it in a second then pays for
// decompression once. It holds at most the number of bytes it was made
// with, and hands each buffer out once, which frees its room. It is safe for
// concurrent use.
type Kept struct {
	mu    sync.Mutex
	room  int
	bufs  map[int64]keptBuffer
	saved int
	taken int
}

// keptBuffer is one decompressed buffer, with the length of the
// compressed bytes it came from.
type keptBuffer struct {
	data       []byte // header and records, as Buffer.Data
	compressed int
	c          Compression
}

// NewKept returns a Kept that holds up to limit bytes.
func NewKept(limit int) *Kept {
	return &Kept{room: limit, bufs: make(map[int64]keptBuffer)}
}

// Counts reports how many buffers were kept and how many were taken again.
func (k *Kept) Counts() (saved, taken int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.saved, k.taken
}

// save keeps a copy of a decompressed buffer while there is room.
func (k *Kept) save(off int64, data []byte, compressed int, c Compression) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, dup := k.bufs[off]; dup || len(data) > k.room {
		return
	}
	k.room -= len(data)
	k.bufs[off] = keptBuffer{data: append([]byte(nil), data...), compressed: compressed, c: c}
	k.saved++
}

// take hands out the buffer kept for the one at off, when it has the same
// header and as many compressed bytes.
func (k *Kept) take(off int64, hdr []byte, compressed int) (keptBuffer, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	kb, ok := k.bufs[off]
	if !ok || kb.compressed != compressed || len(kb.data) < HeaderSize || string(kb.data[:HeaderSize]) != string(hdr) {
		return keptBuffer{}, false
	}
	delete(k.bufs, off)
	k.room += len(kb.data)
	k.taken++
	return kb, true
}
