// Runs SQL statements in DuckDB and prints what each returns, for the Go
// tests that read our Parquet files back with the engine users run.
//
// Input (stdin): a JSON array of SQL statements. Output (stdout): a JSON
// array with, per statement, {"columns": [...], "types": [...], "rows": [[...]]},
// values as DuckDB's JSON rendering gives them. Exit status 3 when the
// @duckdb/node-api package cannot be found (the caller skips), 1 on any
// other error, with the message on stderr.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

// require, unlike import, honours NODE_PATH, which the Go side points at
// the directory .ci/run installs the package into.
const require = createRequire(import.meta.url);
let duckdb;
try {
  duckdb = require('@duckdb/node-api');
} catch (e) {
  console.error(`@duckdb/node-api not found: ${e.message}`);
  process.exit(3);
}

const statements = JSON.parse(readFileSync(0, 'utf8'));
const instance = await duckdb.DuckDBInstance.create(':memory:');
const conn = await instance.connect();
// Literals compare in UTC whatever the machine's zone.
await conn.run("SET TimeZone = 'UTC'");
const results = [];
for (const sql of statements) {
  try {
    const reader = await conn.runAndReadAll(sql);
    results.push({
      columns: reader.columnNames(),
      types: reader.columnTypes().map((t) => t.toString()),
      rows: reader.getRowsJson(),
    });
  } catch (e) {
    console.error(`${sql}: ${e.message}`);
    process.exit(1);
  }
}
process.stdout.write(JSON.stringify(results));
