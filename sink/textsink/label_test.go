package textsink

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/describe"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// TestTextLabel: the PROVIDER/EVENT column holds the names as they are,
// and is one JSON string when a name would split the line: the names
// read back are those of every other format.
func TestTextLabel(t *testing.T) {
	id := uuid.MustParse("30336ed4-e327-447c-9de0-51b652c86108")
	for _, c := range []struct {
		provider, event string
		want            string
	}{
		{"Microsoft-Windows-Shell-Core", "Task/Start", "Microsoft-Windows-Shell-Core/Task/Start"},
		{"Windows Kernel", "Process/Start", `"Windows Kernel/Process/Start"`},
		{"Sonde", `event crates\gw\src\modem.rs:583`, `"Sonde/event crates\\gw\\src\\modem.rs:583"`},
		{"Sonde", `crates\gw`, `Sonde/crates\gw`},
		{`Say "hi"`, "E", `"Say \"hi\"/E"`},
		{"Tab\tName", "E", `"Tab\tName/E"`},
		{"Windows Kernel", "", `"Windows Kernel/EventID(7)"`},
		{"", "My Event", `"30336ed4-e327-447c-9de0-51b652c86108/My Event"`},
		{"", "", "30336ed4-e327-447c-9de0-51b652c86108/EventID(7)"},
	} {
		r := &record.Record{HeaderType: header.TypeEventHeader64, ProviderId: id, EventDescriptor: header.EventDescriptor{Id: 7}}
		d := &describe.Description{ProviderName: c.provider, EventName: c.event}
		e := &textEncoder{}
		for range 2 { // the second from the cache
			line := string(e.record(nil, r, d, &Extra{}))
			fields := strings.SplitN(line, " ", 4)
			require.Len(t, fields, 4)
			assert.True(t, strings.HasPrefix(fields[3], c.want+" "), "%q, want %s", line, c.want)
		}
	}
}

// TestTextUndecodedPayload: the hex of a payload no schema decoded, then
// its strings; none for bytes without a run of four.
func TestTextUndecodedPayload(t *testing.T) {
	r := &record.Record{HeaderType: header.TypeEventHeader64, HasThreadProcess: true, ProcessId: 4, ThreadId: 0xFFFFFFFF,
		UserData: []byte("ab\x00C\x00:\x00\\\x00x\x00\x00\x00")}
	line := string((&textEncoder{}).record(nil, r, &describe.Description{}, &Extra{}))
	assert.True(t, strings.HasSuffix(line, ` data=0x61620043003a005c0078000000 strings=["C:\\x"]`+"\n"), line)
	assert.Contains(t, line, " 4/-1 ")
	r.UserData = []byte{1, 2, 3}
	line = string((&textEncoder{}).record(nil, r, &describe.Description{}, &Extra{}))
	assert.True(t, strings.HasSuffix(line, " data=0x010203\n"), line)
}
