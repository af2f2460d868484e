package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/etlkit/etlkit/record"
)

func TestStandardNames(t *testing.T) {
	classic := map[uint8]string{0: "Info", 1: "Start", 2: "End", 3: "DC_Start", 4: "DC_End", 5: "Extension",
		6: "Reply", 7: "Dequeue", 8: "Checkpoint", 9: "Send", 10: "", 240: "", 255: ""}
	for ty, want := range classic {
		assert.Equal(t, want, record.ClassicTypeName(ty), "type %d", ty)
	}
	assert.Equal(t, "DC_End", string(record.AppendClassicTypeName(nil, 4)))
	assert.Equal(t, "10", string(record.AppendClassicTypeName(nil, 10)))
	assert.Equal(t, "240", string(record.AppendClassicTypeName(nil, 240)))

	levels := []struct {
		l          uint8
		name, text string
	}{
		{0, "LOG_ALWAYS", "LOG_ALWAYS"}, {1, "CRITICAL", "CRITICAL"}, {2, "ERROR", "ERROR"},
		{3, "WARNING", "WARNING"}, {4, "INFO", "INFO"}, {5, "VERBOSE", "VERBOSE"},
		{6, "", "Reserved(6)"}, {15, "", "Reserved(15)"}, {16, "", "Level(16)"}, {255, "", "Level(255)"},
	}
	for _, c := range levels {
		assert.Equal(t, c.name, record.LevelName(c.l))
		assert.Equal(t, c.text, string(record.AppendLevelName(nil, c.l)))
	}
	assert.Equal(t, "WARNING", record.LevelName(record.LevelWarning))

	opcodes := map[uint8]string{0: "Info", 1: "Start", 2: "Stop", 3: "DC_Start", 4: "DC_Stop", 5: "Extension",
		6: "Reply", 7: "Resume", 8: "Suspend", 9: "Send", 240: "Receive", 10: "", 11: "", 239: "", 241: ""}
	for o, want := range opcodes {
		assert.Equal(t, want, record.OpcodeName(o), "opcode %d", o)
	}
	assert.Equal(t, "Receive", string(record.AppendOpcodeName(nil, 240)))
	assert.Equal(t, "Opcode(12)", string(record.AppendOpcodeName(nil, 12)))

	channels := map[uint8]string{0: "", 8: "System", 9: "Application", 10: "Security", 11: "TraceLogging", 12: "ProviderMetadata", 16: ""}
	for c, want := range channels {
		assert.Equal(t, want, record.ChannelName(c), "channel %d", c)
	}
}

// kernelRecord builds a PERFINFO64 record with the given HookId and payload.
func u16z(s string) []byte {
	var b []byte
	for _, c := range s {
		b = append(b, byte(c), 0)
	}
	return append(b, 0, 0)
}
