// Package parse turns SQL text into statements: PostgreSQL's own grammar
// (pg_query_go, the real parser compiled from PostgreSQL's sources) plus the
// few Eddy extensions PostgreSQL has no syntax for, in the
// RisingWave/Materialize dialect: CREATE SOURCE, CREATE TABLE ... WITH
// (connector = ...), WATERMARK FOR, FORMAT ... ENCODE ..., CREATE SINK,
// SUBSCRIBE (also inside COPY and DECLARE CURSOR) and CREATE MATERIALIZED
// VIEW ... EMIT ON WINDOW CLOSE.
//
// The extension front never parses PostgreSQL itself. A text without any
// extension word (SOURCE, SINK, SUBSCRIBE, WATERMARK, EMIT, CONNECTOR) goes
// to pg_query unchanged. Otherwise a small lexer that follows PostgreSQL's
// lexical rules (strings, E'...' and dollar quotes, quoted identifiers, nested
// comments) splits the text into statements at top-level semicolons; the
// extension statements are parsed here, and every PostgreSQL piece inside
// them (column definitions, constraints, expressions, queries, names,
// literal values) is handed to pg_query in a synthesized text that keeps the
// piece at its original byte offset, so AST locations and error positions
// refer to the whole input like those of plain statements. The plain
// statements are parsed by one pg_query call over the input with the
// extension statements blanked out.
//
// Errors are SQLSTATE 42601 with PostgreSQL's messages (syntax error at or
// near "X", syntax error at end of input) and the 1-based character
// position PostgreSQL would report; a recognized but unsupported variant
// (FORMAT AVRO, a cross-database name) is 0A000 with a position.
package parse
