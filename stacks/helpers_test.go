package stacks_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/internal/stacktest"
	"github.com/etlkit/etlkit/record"
	"github.com/etlkit/etlkit/stacks"
)

const t0 = stacktest.T0

// joined is the outcome of a Joiner over a trace.
type joined struct {
	j       *stacks.Joiner
	samples []stacks.Sample
}

// join runs a Joiner with the given selection over the trace.
func join(t testing.TB, tr *stacktest.Trace, sel func(r *record.Record) bool) *joined {
	t.Helper()
	return joinBytes(t, tr.Bytes(t), sel)
}

func joinBytes(t testing.TB, b []byte, sel func(r *record.Record) bool) *joined {
	t.Helper()
	r, err := etl.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	out := &joined{}
	out.j = stacks.NewJoiner(stacks.Options{Select: sel, Emit: func(s *stacks.Sample) { out.samples = append(out.samples, *s) }})
	for rec, err := range r.Events() {
		require.NoError(t, err)
		out.j.Add(rec)
	}
	out.j.Close()
	return out
}

// at returns the sample of raw time t0+at.
func (o *joined) at(t testing.TB, at int64) stacks.Sample {
	t.Helper()
	for _, s := range o.samples {
		if s.Time == t0+at {
			return s
		}
	}
	t.Fatalf("no sample at %d", at)
	return stacks.Sample{}
}

// addrs is the stack of the sample at raw time t0+at.
func (o *joined) addrs(t testing.TB, at int64) []uint64 {
	t.Helper()
	return o.j.Addresses(nil, o.at(t, at).Stack)
}

// names is the stack of the sample at t0+at, each frame named.
func (o *joined) names(t testing.TB, at int64) []string {
	t.Helper()
	var out []string
	for _, f := range o.j.Frames(nil, o.at(t, at).Stack) {
		out = append(out, f.Name())
	}
	return out
}
