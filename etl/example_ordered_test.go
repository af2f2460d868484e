package etl_test

import (
	"bytes"
	"fmt"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/order"
)

// A trace whose processor 1 flushed its buffer before processor 0 did:
// file order steps back in time, Events does not.
func ExampleReader_Events() {
	s := etltest.DefaultSession()
	at := func(tick int64, tag byte) etltest.Record {
		return &etltest.PerfInfo{Version: 2, HookId: 0x0F2E, TimeStamp: s.HeaderTimeStamp + tick, Payload: []byte{tag}}
	}
	data, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		if err := b.WriteBuffer(etltest.Buffer{CPU: 1, SequenceNumber: 1}, at(20, 'b'), at(40, 'd')); err != nil {
			return err
		}
		return b.WriteBuffer(etltest.Buffer{CPU: 0, SequenceNumber: 2}, at(10, 'a'), at(30, 'c'))
	})
	if err != nil {
		panic(err)
	}
	r, err := etl.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		panic(err)
	}
	for _, mode := range []order.Mode{order.FileOrder, order.Ordered} {
		fmt.Printf("%-7s:", mode)
		for rec, err := range r.EventsWith(order.Options{Mode: mode}) {
			if err != nil {
				panic(err)
			}
			if rec.HookId == 0 {
				fmt.Print(" header")
			} else {
				fmt.Print(" ", string(rec.UserData))
			}
		}
		fmt.Println("; backward steps:", r.Stats().Order.BackwardSteps)
	}
	// Output:
	// file   : header b d a c; backward steps: 1
	// ordered: header a b c d; backward steps: 0
}
