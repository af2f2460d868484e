package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/etlkit/etlkit/etl"
)

// A count of one takes the singular, in every message that counts.
func TestCountsTakeTheirNumber(t *testing.T) {
	assert.Equal(t, "0 records", counted(0, "record", "records"))
	assert.Equal(t, "1 record", counted(1, "record", "records"))
	assert.Equal(t, "2 records", counted(2, "record", "records"))
	assert.Equal(t, "1 byte", counted(int64(1), "byte", "bytes"))

	st := &etl.Stats{Records: 1, BuffersSkipped: 1, RecordsSkipped: 1, BuffersCut: 1}
	assert.Equal(t, "etldump: x.etl: offset 0x0: damaged: 1 buffer skipped, 1 record skipped, 1 buffer cut short; 1 record read",
		damageSummary("x.etl", st))
	st = &etl.Stats{Records: 2, BuffersSkipped: 2, RecordsSkipped: 3, Truncated: true}
	assert.Equal(t, "etldump: x.etl: offset 0x0: damaged: 2 buffers skipped, 3 records skipped, the file ends inside its last buffer; 2 records read",
		damageSummary("x.etl", st))
}
