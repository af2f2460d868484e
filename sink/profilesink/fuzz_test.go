package profilesink_test

import (
	"bytes"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/seeds"
	"github.com/etlkit/etlkit/order"
	"github.com/etlkit/etlkit/sink/profilesink"
	"github.com/etlkit/etlkit/stacks"
)

// FuzzProfile joins the stacks of arbitrary trace bytes and writes every
// profile form: no panic; the pprof profile parses and is valid, with one
// count per sample; the speedscope file passes the format's schema and
// weighs every sample; the folded counts add up
// to the samples.
func FuzzProfile(f *testing.F) {
	f.Add(builtTrace(f))
	for _, b := range seeds.SmallFiles() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := etl.NewReader(bytes.NewReader(in), int64(len(in)))
		if err != nil {
			return
		}
		var p *profilesink.Profile
		j := stacks.NewJoiner(stacks.Options{Emit: func(s *stacks.Sample) { p.Add(s) }})
		p = profilesink.New(j, profilesink.Options{Name: "fuzz", Clock: &r.Header().Clock, Timeline: true})
		n := 0
		for rec, err := range r.EventsWith(order.Options{ReadAhead: -1}) {
			if err != nil {
				continue
			}
			if n++; n > 5000 {
				break
			}
			j.Add(rec)
		}
		j.Close()

		var pb bytes.Buffer
		if err := p.WritePprof(&pb); err != nil {
			t.Fatal(err)
		}
		prof, err := profile.Parse(&pb)
		if err != nil {
			t.Fatalf("pprof: %v", err)
		}
		if err := prof.CheckValid(); err != nil {
			t.Fatalf("pprof: %v", err)
		}
		var count int64
		for _, s := range prof.Sample {
			count += s.Value[0]
		}
		if count != p.Samples() {
			t.Fatalf("pprof counts %d samples of %d", count, p.Samples())
		}

		var ss bytes.Buffer
		if err := p.WriteSpeedscope(&ss); err != nil {
			t.Fatal(err)
		}
		if w := CheckSpeedscope(t, ss.Bytes()).totalWeight(); int64(w) != p.Samples() {
			t.Fatalf("speedscope weighs %v samples of %d", w, p.Samples())
		}

		var folded bytes.Buffer
		if err := p.WriteFolded(&folded); err != nil {
			t.Fatal(err)
		}
		if sum := foldedTotal(t, folded.Bytes()); sum != p.Samples() {
			t.Fatalf("folded counts %d samples of %d", sum, p.Samples())
		}
	})
}
