// Package sink is the home of etlkit's outputs. Every output format is a
// package under sink/: a writer of records that Go programs use as
// etldump does, configured by an options struct, with no package-level
// state.
//
//   - sink/etlsink writes a new .etl trace, records copied byte for byte,
//     laid out as ETW lays out its own files.
//   - sink/parquetsink writes Parquet, one row per record, for DuckDB,
//     Spark and the like.
//   - sink/textsink writes text, JSON lines, CSV and tracerpt's XML, and
//     the activity tree as text or JSON.
//   - sink/pcapngsink writes the packets of package packets as pcapng, for
//     Wireshark and tshark.
//   - sink/profilesink writes the stacks of package stacks as pprof,
//     speedscope and folded profiles.
//
// A new output format goes here, as a package of its own. This package
// holds no code.
package sink
