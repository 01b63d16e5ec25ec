// Package tests holds Eddy's whole-system tests: real clients (psql, pgx)
// against a real server process, crash recovery under SIGKILL, the
// randomized oracle that compares every materialized view with its query
// (and with PostgreSQL), and the layering test that keeps imports flowing
// one way. The servers come from tests/harness; the sqllogictest runner
// lives in tests/slt.
package tests
