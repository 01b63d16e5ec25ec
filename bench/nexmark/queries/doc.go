// Package queries holds the Nexmark suite in Eddy's dialect (queries.sql, a
// verbatim copy of /work/shared/nexmark/queries.sql) and splits it into the
// three CREATE SOURCE statements and one Query per materialized view, with
// the plain views and the sources each reads. The benchmark
// (bench/nexmark) and the oracle test (tests/nexmark_test.go) both run
// these statements unchanged; only the sources get the options that bound
// the stream (BoundedSource).
package queries
