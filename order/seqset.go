package order

// seqSet is the set of sequence numbers met in one run of numbering, which
// the scan asks about for every buffer. A session numbers its buffers
// 1, 2, 3, … (a file may start high, skip some, or hold them out of
// order), so a bitmap from the first number met holds nearly all of them
// in a bit each, where a map costs an entry and rehashes as it grows. A
// number the bitmap does not reach goes to a map. The bitmap grows only to
// twice the numbers added, so a hostile file's scattered numbers cost no
// more memory than its buffers.
type seqSet struct {
	base int64
	n    int // numbers added since the last reset
	bits []uint64
	far  map[int64]struct{}
}

// add adds seq and reports whether it was in the set already, in which
// case the set is unchanged.
func (s *seqSet) add(seq int64) (again bool) {
	if s.n == 0 {
		s.base = seq
	}
	if d := uint64(seq) - uint64(s.base); d < uint64(2*s.n+64)*64 {
		w, bit := int(d>>6), uint64(1)<<(d&63)
		if w >= len(s.bits) {
			s.bits = append(s.bits, make([]uint64, w+1-len(s.bits))...)
		}
		if s.bits[w]&bit != 0 {
			return true
		}
		// Met before the bitmap reached it.
		if _, ok := s.far[seq]; ok {
			return true
		}
		s.bits[w] |= bit
		s.n++
		return false
	}
	if _, ok := s.far[seq]; ok {
		return true
	}
	if s.far == nil {
		s.far = map[int64]struct{}{}
	}
	s.far[seq] = struct{}{}
	s.n++
	return false
}

// reset empties the set, keeping its storage.
func (s *seqSet) reset() {
	clear(s.bits)
	clear(s.far)
	s.n = 0
}
