package wpp_test

import (
	"bytes"
	"encoding/binary"
	"testing"
	"unicode/utf16"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/etlkit/etlkit/etl"
	"github.com/etlkit/etlkit/etltest"
	"github.com/etlkit/etlkit/guid"
	"github.com/etlkit/etlkit/header"
	"github.com/etlkit/etlkit/record"
)

// defaultOptions are the option flags WPP passes by default (sequence,
// GUID, timestamp, system info), to which ETW adds the pointer width.
const defaultOptions = header.MessageSequence | header.MessageGUID | header.MessageTimestamp | header.MessageSystemInfo

// message is a MESSAGE record to build: its GUID, number and arguments.
type message struct {
	guid   uuid.UUID
	number uint16
	args   []byte
	ptr    int // 4 or 8: the POINTER32 or POINTER64 flag
}

// readMessages builds a trace of the messages with etltest and reads it
// back with etl, calling fn with each record in order.
func readMessages(t testing.TB, msgs []message, fn func(i int, r *record.Record)) {
	t.Helper()
	s := etltest.DefaultSession()
	out, _, err := etltest.Build(s, func(b *etltest.Builder) error {
		for i, m := range msgs {
			flags := uint16(defaultOptions | header.MessagePointer64)
			if m.ptr == 4 {
				flags = defaultOptions | header.MessagePointer32
			}
			b.CPU(1).Add(&etltest.Message{MessageNumber: m.number, OptionFlags: flags, Sequence: uint32(i),
				Guid: m.guid, TimeStamp: s.HeaderTimeStamp + int64(i), ThreadId: 0xAB, ProcessId: 0x1F0, Args: m.args})
		}
		return nil
	})
	require.NoError(t, err)
	f, err := etl.OpenStream(bytes.NewReader(out), "wpp.etl", nil)
	require.NoError(t, err)
	defer f.Close()
	i := 0
	for r, err := range f.Records() {
		require.NoError(t, err)
		if r.HeaderType != header.TypeMessage {
			continue
		}
		require.Less(t, i, len(msgs))
		require.Equal(t, msgs[i].guid, r.ProviderId)
		require.Equal(t, msgs[i].ptr, r.PointerSize())
		fn(i, r)
		i++
	}
	require.Equal(t, len(msgs), i, "records read")
}

var le = binary.LittleEndian

func u8(v uint8) []byte   { return []byte{v} }
func u16(v uint16) []byte { return le.AppendUint16(nil, v) }
func u32(v uint32) []byte { return le.AppendUint32(nil, v) }
func u64(v uint64) []byte { return le.AppendUint64(nil, v) }
func i32(v int32) []byte  { return u32(uint32(v)) }
func i64(v int64) []byte  { return u64(uint64(v)) }

// ptrOf is a pointer of the given width.
func ptrOf(ptr int, v uint64) []byte {
	if ptr == 4 {
		return u32(uint32(v))
	}
	return u64(v)
}

// cstr is s with its NUL, as WPP logs %s.
func cstr(s string) []byte { return append([]byte(s), 0) }

// wstr is s in UTF-16LE with its NUL, as WPP logs %S.
func wstr(s string) []byte { return append(utf16le(s), 0, 0) }

func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = le.AppendUint16(b, u)
	}
	return b
}

// counted is a u16 byte count and the bytes (ANSI_STRING, UNICODE_STRING,
// hex dumps).
func counted(b []byte) []byte { return append(u16(uint16(len(b))), b...) }

// guidBytes is g as Windows stores a GUID.
func guidBytes(g string) []byte {
	b := guid.Windows(uuid.MustParse(g))
	return b[:]
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
