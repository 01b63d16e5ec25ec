// Package harness starts the servers that Eddy's end-to-end tests talk to:
// a real Eddy process built from ./cmd/eddy, or a real PostgreSQL used as
// the reference implementation. Every server listens on a free loopback
// port, keeps its data in a temporary directory and is stopped by the test's
// cleanup.
//
// The environment variable EDDY_TEST_TARGET=postgres makes StartTarget
// start PostgreSQL instead of Eddy, so that target-generic tests (the
// sqllogictest files, the oracle test) can be validated against PostgreSQL.
// EDDY_REQUIRE_PG=1 turns "PostgreSQL is not installed" from a skip into a
// failure (CI sets it).
package harness
