package parquetsink

import (
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// The columns, in file order: the field names and order of etldump's JSON
// lines, and File last.
const (
	colTimeStamp = iota
	colRawTimeStamp
	colHeaderType
	colProviderId
	colProviderName
	colEventName
	colId
	colVersion
	colChannel
	colLevel
	colOpcode
	colTask
	colKeyword
	colProcessId
	colThreadId
	colProcessorNumber
	colActivityId
	colRelatedActivityId
	colFlags
	colPayload
	colUserData
	colFile
	numColumns
)

// physical is how a column is staged: the Parquet physical type of its
// values.
type physical uint8

const (
	physInt32 physical = iota
	physInt64
	physBytes
)

// encodingKind picks the page encoding of a column.
type encodingKind uint8

const (
	// encPlain: values as they are, for payloads, where a dictionary would
	// cost hashing and seldom pay.
	encPlain encodingKind = iota
	// encDictionary: a dictionary per column chunk and RLE indices; names
	// and GUIDs repeat from record to record. Plain pages and zstd take
	// as much CPU (arrow hashes and boxes every value for its dictionary,
	// zstd has the repeats to squeeze out instead), but give a larger
	// file and hold more memory. Past the dictionary page limit the
	// writer falls back to plain pages.
	encDictionary
	// encDelta: DELTA_BINARY_PACKED, for the timestamps, which rise by
	// small steps in time order.
	encDelta
)

// columnSpec describes one column.
type columnSpec struct {
	name     string
	phys     physical
	logical  schema.LogicalType // nil: no logical type (UserData)
	required bool
	enc      encodingKind
	// stats: min/max statistics, which engines use to skip row groups;
	// off where bounds select nothing: payloads, GUIDs and names (they
	// interleave in every row group) and the header type.
	stats bool
	// guid: the values are GUIDs, staged as they are and written as text.
	guid bool
}

// timestampUTC is the isAdjustedToUTC flag of the TimeStamp column. The
// values are UTC; the flag is false because DuckDB reads a UTC-adjusted
// nanosecond timestamp as TIMESTAMP WITH TIME ZONE, which holds
// microseconds (the 100 ns digit is lost) and compares with literals in the
// session's time zone, while a nanosecond timestamp without the flag
// becomes TIMESTAMP_NS with every digit kept.
const timestampUTC = false

func unsigned(bits int8) schema.LogicalType { return schema.NewIntLogicalType(bits, false) }

var columns = [numColumns]columnSpec{
	colTimeStamp:         {name: "TimeStamp", phys: physInt64, logical: schema.NewTimestampLogicalTypeForce(timestampUTC, schema.TimeUnitNanos), enc: encDelta, stats: true},
	colRawTimeStamp:      {name: "RawTimeStamp", phys: physInt64, required: true, enc: encDelta, stats: true},
	colHeaderType:        {name: "HeaderType", phys: physBytes, logical: schema.StringLogicalType{}, required: true, enc: encDictionary},
	colProviderId:        {name: "ProviderId", phys: physBytes, logical: schema.StringLogicalType{}, enc: encDictionary, guid: true},
	colProviderName:      {name: "ProviderName", phys: physBytes, logical: schema.StringLogicalType{}, enc: encDictionary},
	colEventName:         {name: "EventName", phys: physBytes, logical: schema.StringLogicalType{}, enc: encDictionary},
	colId:                {name: "Id", phys: physInt32, logical: unsigned(16), enc: encDelta, stats: true},
	colVersion:           {name: "Version", phys: physInt32, logical: unsigned(8), enc: encDelta, stats: true},
	colChannel:           {name: "Channel", phys: physInt32, logical: unsigned(8), enc: encDelta, stats: true},
	colLevel:             {name: "Level", phys: physInt32, logical: unsigned(8), enc: encDelta, stats: true},
	colOpcode:            {name: "Opcode", phys: physInt32, logical: unsigned(8), enc: encDelta, stats: true},
	colTask:              {name: "Task", phys: physInt32, logical: unsigned(16), enc: encDelta, stats: true},
	colKeyword:           {name: "Keyword", phys: physInt64, logical: unsigned(64), enc: encDelta, stats: true},
	colProcessId:         {name: "ProcessId", phys: physInt32, logical: unsigned(32), enc: encDelta, stats: true},
	colThreadId:          {name: "ThreadId", phys: physInt32, logical: unsigned(32), enc: encDelta, stats: true},
	colProcessorNumber:   {name: "ProcessorNumber", phys: physInt32, logical: unsigned(16), required: true, enc: encDelta, stats: true},
	colActivityId:        {name: "ActivityId", phys: physBytes, logical: schema.StringLogicalType{}, enc: encPlain, guid: true},
	colRelatedActivityId: {name: "RelatedActivityId", phys: physBytes, logical: schema.StringLogicalType{}, enc: encPlain, guid: true},
	colFlags:             {name: "Flags", phys: physInt32, logical: unsigned(16), required: true, enc: encDelta, stats: true},
	colPayload:           {name: "Payload", phys: physBytes, logical: schema.JSONLogicalType{}},
	colUserData:          {name: "UserData", phys: physBytes},
	colFile:              {name: "File", phys: physBytes, logical: schema.StringLogicalType{}, required: true, enc: encDictionary, stats: true},
}

// ColumnNames lists the columns of a file, in order; File is last and only
// there when Options.FileColumn is set.
func ColumnNames(fileColumn bool) []string {
	n := numColumns
	if !fileColumn {
		n--
	}
	names := make([]string, n)
	for i := range names {
		names[i] = columns[i].name
	}
	return names
}

// newSchema builds the Parquet schema of the first n columns.
func newSchema(n int) (*schema.GroupNode, error) {
	fields := make(schema.FieldList, n)
	for i := range fields {
		c := &columns[i]
		rep := parquet.Repetitions.Optional
		if c.required {
			rep = parquet.Repetitions.Required
		}
		var typ parquet.Type
		switch c.phys {
		case physInt32:
			typ = parquet.Types.Int32
		case physInt64:
			typ = parquet.Types.Int64
		default:
			typ = parquet.Types.ByteArray
		}
		var err error
		if c.logical != nil {
			fields[i], err = schema.NewPrimitiveNodeLogical(c.name, rep, c.logical, typ, -1, -1)
		} else {
			fields[i], err = schema.NewPrimitiveNode(c.name, rep, typ, -1, -1)
		}
		if err != nil {
			return nil, err
		}
	}
	return schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
}

// zstdLevel is the zstd level of every column: the fastest, which on trace
// columns compresses within a few percent of the default level at about
// twice its speed.
const zstdLevel = 1

// writerProperties sets compression, encodings and statistics per column.
func writerProperties(n int) *parquet.WriterProperties {
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(zstdLevel),
		parquet.WithDictionaryDefault(false),
		// Row groups are cut here, by rows and bytes; the library's own
		// limit is kept out of the way.
		parquet.WithMaxRowGroupLength(1 << 40),
		// A chunk goes to a column writer in one batch: its per-batch
		// work (levels, statistics, page checks) is then paid once per
		// chunk rather than once per 1024 rows, about a sixth of the CPU
		// on trace data.
		parquet.WithBatchSize(chunkRows),
	}
	for i := 0; i < n; i++ {
		c := &columns[i]
		switch c.enc {
		case encDictionary:
			opts = append(opts, parquet.WithDictionaryFor(c.name, true))
		case encDelta:
			opts = append(opts, parquet.WithEncodingFor(c.name, parquet.Encodings.DeltaBinaryPacked))
		}
		opts = append(opts, parquet.WithStatsFor(c.name, c.stats))
	}
	return parquet.NewWriterProperties(opts...)
}
