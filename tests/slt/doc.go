// Package slt is Eddy's sqllogictest runner: it parses sqllogictest files,
// runs them over the PostgreSQL wire protocol with pgx (simple query
// protocol, text results) and reports every record that fails with its
// file:line and a diff.
//
// Supported records: "statement ok", "statement error [SQLSTATE|regexp]",
// "query <types> <nosort|rowsort|valuesort> [label]" with a "----" result
// block, "hash-threshold N", "skipif <engine>" / "onlyif <engine>" guards
// and "halt". Values print as the SQLite corpus expects: NULL, (empty) for
// the empty string, integers for type I, "%.3f" for type R, text for T.
// A result block lists either one value per line or one row per line with
// values separated by single spaces; a block of the form
// "N values hashing to MD5" compares the md5 of the sorted values.
//
// Materialized views and PostgreSQL: PostgreSQL computes a materialized
// view once, Eddy keeps it up to date. When the runner talks to real
// PostgreSQL (to produce or check expectations) its BeforeQuery hook
// refreshes the views before every query, so the same file states what a
// fresh view must contain, and Eddy must already be fresh.
//
// MaterializeQueries turns a corpus file into its "materialized view mode":
// every SELECT query becomes a view created before the data is inserted and
// read back, sorted, at the query's position.
package slt
