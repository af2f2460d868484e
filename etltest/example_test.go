package etltest_test

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/header"
)

func Example() {
	s := etltest.DefaultSession()
	s.BufferSize = 0x1000
	s.DataBuffer.ProcIndex = true
	provider := uuid.MustParse("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716")
	meta := (&etltest.TLEvent{Name: "Hello", Fields: []etltest.TLField{{Name: "who", InType: etltest.TLUnicodeString}}}).MustMetadata()

	out, st, err := etltest.Build(s, func(b *etltest.Builder) error {
		// Buffers filled per CPU, flushed when full and at Close.
		b.CPU(1).Add(&etltest.Event{TimeStamp: s.HeaderTimeStamp + 10, ProviderId: provider,
			Descriptor: header.EventDescriptor{Channel: etltest.TLChannel, Level: 4},
			Ext:        []etltest.ExtItem{etltest.ExtEventSchemaTL(meta), etltest.ExtProviderTraits(etltest.ProviderTraits("Demo"))},
			UserData:   etltest.UTF16Z("world")})
		// A buffer placed by hand, with the sequence number a test needs.
		return b.WriteBuffer(etltest.Buffer{CPU: 0, SequenceNumber: 9, Compress: true},
			&etltest.System{Version: 2, HookId: 0x0524, TimeStamp: s.HeaderTimeStamp + 5})
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(out) > 0x1000, st.Buffers, st.Records)
	// Output: true 3 map[EVENT_HEADER64:1 SYSTEM64:2]
}
