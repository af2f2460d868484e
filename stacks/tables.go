package stacks

import "slices"

// The tables below intern what samples share, so that memory grows with the
// distinct stacks of a trace, not with its samples: frame sequences (the
// frames of one StackWalk record, one stack-key definition, one .NET
// stack), the stack-cache keys, and the stacks (a process and its kernel
// and user parts).

// partKind says what a stack part refers to.
type partKind uint8

const (
	partNone   partKind = iota
	partFrames          // an interned frame sequence
	partSlot            // a stack-cache key, defined now or later
)

// part is the kernel or the user half of a stack.
type part struct {
	kind partKind
	id   uint32
}

// seqTable interns frame sequences, leaf first, in one arena.
type seqTable struct {
	frames []uint64
	seqs   []seqEntry
	index  map[uint64]uint32 // hash → 1 + the first sequence with it
}

type seqEntry struct {
	off, n int
	next   uint32 // 1 + the next sequence with the same hash, 0 for none
}

// hashFrames mixes the addresses of a sequence; equal hashes are compared.
func hashFrames(f []uint64) uint64 {
	h := uint64(len(f)) * 0x9E3779B97F4A7C15
	for _, a := range f {
		h ^= a
		h *= 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	return h
}

// intern returns the id of the sequence f, adding a copy of it when new.
func (t *seqTable) intern(f []uint64) uint32 {
	if t.index == nil {
		t.index = make(map[uint64]uint32)
	}
	h := hashFrames(f)
	first := t.index[h]
	for at := first; at != 0; at = t.seqs[at-1].next {
		if slices.Equal(t.get(at-1), f) {
			return at - 1
		}
	}
	id := uint32(len(t.seqs))
	t.seqs = append(t.seqs, seqEntry{off: len(t.frames), n: len(f), next: first})
	t.frames = append(t.frames, f...)
	t.index[h] = id + 1
	return id
}

// get returns the frames of sequence id; the slice belongs to the table.
func (t *seqTable) get(id uint32) []uint64 {
	e := t.seqs[id]
	return t.frames[e.off : e.off+e.n : e.off+e.n]
}

// keySpace is the kernel's or the user stacks' cache: the same key value
// can name a kernel stack and a user stack at once.
type keySpace uint8

const (
	kernelKeys keySpace = iota
	userKeys
)

// slotTable holds the stack-cache keys the joined events refer to. A slot
// is one life of a key: from its first reference to the definition that
// retires it (KeyDelete when the cache evicts it, KeyRundown at the end),
// after which the key value may name another stack.
type slotTable struct {
	seq  []int32 // the frame sequence of each slot, -1 while undefined
	live [2]map[uint64]uint32
}

// ref returns the live slot of key in space, making one.
func (t *slotTable) ref(space keySpace, key uint64) uint32 {
	m := t.live[space]
	if m == nil {
		m = make(map[uint64]uint32)
		t.live[space] = m
	}
	if s, ok := m[key]; ok {
		return s
	}
	s := uint32(len(t.seq))
	t.seq = append(t.seq, -1)
	m[key] = s
	return s
}

// define gives the live slot of key in space its frames and, unless keep,
// retires it. It reports false when no event refers to the key.
func (t *slotTable) define(space keySpace, key uint64, seq uint32, keep bool) bool {
	s, ok := t.live[space][key]
	if !ok {
		return false
	}
	t.seq[s] = int32(seq)
	if !keep {
		delete(t.live[space], key)
	}
	return true
}

// create makes a live slot that is defined already (KeyCreate).
func (t *slotTable) create(space keySpace, key uint64, seq uint32) {
	s := t.ref(space, key)
	t.seq[s] = int32(seq)
}

// stackKey identifies a stack: its process, the generation of that
// process's address space (see Joiner.gen), and its two parts.
type stackKey struct {
	pid, gen uint32
	kernel   part
	user     part
}

type stackEntry struct {
	stackKey
	time int64 // raw time of the first sample with the stack, to symbolise at
}

// StackID names a stack of a Joiner; Joiner.Frames gives its frames.
type StackID uint32

type stackTable struct {
	stacks []stackEntry
	index  map[stackKey]StackID
}

func (t *stackTable) intern(k stackKey, time int64) StackID {
	if t.index == nil {
		t.index = make(map[stackKey]StackID)
	}
	if id, ok := t.index[k]; ok {
		return id
	}
	id := StackID(len(t.stacks))
	t.stacks = append(t.stacks, stackEntry{stackKey: k, time: time})
	t.index[k] = id
	return id
}
