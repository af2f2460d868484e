package payload

import "testing"

func TestFixedOffset(t *testing.T) {
	s := MustSchema("E", []Field{
		{Name: "IP", InType: InPointer}, {Name: "TID", InType: InUInt32}, {Name: "Count", InType: InUInt16},
		{Name: "S", InType: InUnicodeString}, {Name: "After", InType: InUInt32},
	})
	for _, c := range []struct {
		i, ptr, off, size int
		ok                bool
	}{
		{0, 8, 0, 8, true}, {1, 8, 8, 4, true}, {1, 4, 4, 4, true}, {2, 4, 8, 2, true},
		{3, 8, 0, 0, false}, {4, 8, 0, 0, false}, {5, 8, 0, 0, false}, {-1, 8, 0, 0, false}, {1, 0, 0, 0, false},
	} {
		off, size, ok := s.FixedOffset(c.i, c.ptr)
		if off != c.off || size != c.size || ok != c.ok {
			t.Errorf("FixedOffset(%d, %d) = %d, %d, %v; want %d, %d, %v", c.i, c.ptr, off, size, ok, c.off, c.size, c.ok)
		}
	}
}
