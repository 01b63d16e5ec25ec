// Package format decodes the records of a message-bus source (Kafka) into
// row changes: FORMAT PLAIN, UPSERT or DEBEZIUM, ENCODE JSON or CSV, as in
// RisingWave's CREATE SOURCE ... FORMAT ... ENCODE.
//
// A Decoder is a deterministic function of one record's key and value bytes:
// no clock, no I/O, no goroutines. It appends Changes; a bad record (invalid
// JSON, a value of the wrong type, a missing key column) is an error, a
// *repr.Error with a SQLSTATE, and appends nothing. What to do with a bad
// record (skip and count it, or stop the source) is the caller's policy.
//
// # Formats
//
//   - PLAIN: every record is one inserted row (Insert, diff +1). An empty
//     value (a Kafka tombstone) carries no row and yields no change.
//   - UPSERT: the value is the new row for its key columns (Upsert); an
//     empty value or JSON null is a tombstone deleting the row with the key
//     (Tombstone), whose key columns are read from the record's key: a JSON
//     object naming the key columns, or, for a single key column, any JSON
//     scalar. Replacing the old row of a key is the caller's job: it owns the
//     table state. UPSERT needs key columns (a PRIMARY KEY).
//   - DEBEZIUM: the Debezium JSON envelope, with or without the schema part
//     ({"schema":...,"payload":{...}} or the payload alone). Ops c (create)
//     and r (snapshot read) insert "after"; d deletes "before"; u deletes
//     "before" and inserts "after". An update or delete without a before
//     image (PostgreSQL's REPLICA IDENTITY DEFAULT) becomes an Upsert or a
//     Tombstone by key, which needs key columns. An empty value (the
//     tombstone Debezium writes after a delete) yields no change.
//
// When key columns are given, every Change also carries Key, the values of
// the key columns, so the caller can apply any format by key.
//
// # JSON (ENCODE JSON)
//
// The decoder is a hand-rolled single-pass scanner that converts values
// straight into datums without building a tree (see bench_test.go for the
// comparison with encoding/json and fastjson). Object keys map to columns by
// name, case-sensitively (as RisingWave does): "ID" does not fill column id.
// Keys that name no column are validated and ignored; columns with no key
// are NULL; a duplicate key's last value wins (as in jsonb). Key columns
// must be present and non-null (23502).
//
// Values convert to the column type with PostgreSQL's semantics:
//
//   - null is SQL NULL for every type, jsonb included.
//   - strings are the type's text input (repr.ParseText), so a timestamp,
//     date, interval, numeric or bytea ('\x..') column reads its PostgreSQL
//     text form; "42" fills an integer column. Timestamps are only read from
//     strings; timestamptz without an offset is UTC.
//   - numbers fill int, numeric and float columns as PostgreSQL's cast from
//     jsonb does (1.5 into an integer rounds to 2; out of range is 22003);
//     into a text column they are their JSON text. A number into any other
//     type is 22023 ("cannot cast jsonb numeric to type timestamp").
//   - true/false fill boolean columns; text columns get 'true'/'false'.
//   - objects and arrays fill jsonb columns (canonicalized as jsonb input);
//     text columns get their JSON text; other types are 22023.
//   - a jsonb column takes any value, scalars included, as jsonb.
//
// # CSV (ENCODE CSV, PLAIN only)
//
// Each record value is one CSV line (a trailing newline is ignored) whose
// fields fill the columns by position; the field count must match. Fields
// are PostgreSQL CSV: quotes with "" escapes, an unquoted empty field is
// NULL, a quoted empty field is the empty string; every field is the
// column type's text input. Option delimiter (one byte, default ','). Header
// lines are not supported: without_header, if given, must be 'true'.
package format
