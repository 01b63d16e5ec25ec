// Package tpcds is Eddy's TPC-DS proof: the 24 tables of the TPC-DS
// specification, a deterministic, seeded generator of small but
// referentially consistent data (dsdgen is not available; gen.go writes
// values from the domains the 99 queries filter on, so that most queries
// return rows), the 99 queries (testdata/queries, as duckdb's
// extension/tpcds/dsdgen/queries publishes them with the validation
// parameters), and a test that runs each query ad hoc on Eddy and on
// PostgreSQL 15, then creates each as a materialized view, applies seeded
// batches of inserts, deletes and updates to the fact tables, and checks
// every view against its query recomputed on Eddy and on PostgreSQL.
//
// Queries Eddy cannot run yet, or cannot maintain, are listed with the
// reason in testdata/known_gaps; the test checks that each still fails the
// listed way, so the list shrinks as Eddy learns.
package tpcds
