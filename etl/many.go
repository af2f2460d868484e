package etl

import (
	"errors"
	"iter"

	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/record"
)

// Set is several traces read as one, as ProcessTrace reads several logs at
// once: the processors' streams of every file merged onto one timeline of
// UTC time, so that files with different clocks line up.
type Set struct {
	// Readers are the traces, in the order given. Their Stats count what
	// an iteration of the Set met in each of them.
	Readers []*Reader
	files   []*File
	merge   *order.Merge
	// single: the last iteration was one file in file order, read by
	// Reader.EventsWith on two goroutines.
	single bool
}

// OpenMany opens every trace (plain or wrapped, as Open) and returns them as
// a Set. When one cannot be opened, those already opened are closed.
func OpenMany(paths ...string) (*Set, error) {
	s := &Set{}
	for _, p := range paths {
		f, err := Open(p)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.files = append(s.files, f)
		s.Readers = append(s.Readers, f.Reader)
	}
	return s, nil
}

// NewSet reads the given readers as one trace; closing them is the caller's
// business.
func NewSet(readers ...*Reader) *Set {
	return &Set{Readers: readers}
}

// Close closes the files OpenMany opened.
func (s *Set) Close() error {
	var errs []error
	for _, f := range s.files {
		errs = append(errs, f.Close())
	}
	s.files = nil
	return errors.Join(errs...)
}

// Events iterates the records of every trace in time order: each file's
// header buffer first, in the order the files were given, then all the
// processors' streams of all the files merged by time. Origin tells which
// file a record comes from. Records and errors are delivered as by
// Reader.Events.
func (s *Set) Events() iter.Seq2[*record.Record, error] {
	return s.EventsWith(order.Options{})
}

// EventsWith iterates in the mode opts asks for; order.FileOrder reads the
// files one after another.
func (s *Set) EventsWith(opts order.Options) iter.Seq2[*record.Record, error] {
	return func(yield func(*record.Record, error) bool) {
		s.merge, s.single = nil, false
		if len(s.Readers) == 1 && opts.Mode == order.FileOrder {
			s.single = true
			s.Readers[0].EventsWith(opts)(yield)
			return
		}
		srcs := make([]order.Source, len(s.Readers))
		for i, r := range s.Readers {
			r.newStats()
			srcs[i] = r.Source()
		}
		m := order.New(opts, srcs...)
		s.merge = m
		for _, r := range s.Readers {
			r.stats.Order = m.Stats()
		}
		m.Records()(yield)
		for i, r := range s.Readers {
			r.stats.counted(&m.Stats().Sources[i])
		}
	}
}

// Origin is the index in Readers of the file the record just delivered came
// from; call it in the body of the loop.
func (s *Set) Origin() int {
	if s.single {
		return 0
	}
	if s.merge == nil {
		return -1
	}
	return s.merge.Source()
}

// Stats sums what the last iteration met in every trace, with Order
// describing the order over the whole Set (never nil); each reader's Stats
// counts its own buffers and records.
func (s *Set) Stats() *Stats {
	st := &Stats{}
	for _, r := range s.Readers {
		st.add(&r.stats)
	}
	switch {
	case s.single && s.Readers[0].stats.Order != nil:
		st.Order = s.Readers[0].stats.Order
	case s.merge != nil:
		st.Order = s.merge.Stats()
	default:
		st.Order = &order.Stats{}
	}
	return st
}
