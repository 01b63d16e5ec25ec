// Package pgregress runs PostgreSQL's own regression SQL
// (src/test/regress/sql/*.sql) against Eddy and against a throwaway
// PostgreSQL 15, statement by statement, and classifies every difference.
//
// The corpus is not part of this repository (licence and size). Point the
// test at a PostgreSQL source tree's src/test/regress directory (the one
// holding sql/ and data/):
//
//	git clone --depth 1 https://github.com/postgres/postgres /tmp/pg
//	make pgregress PGREGRESS_DIR=/tmp/pg/src/test/regress
//
// Without PGREGRESS_DIR the test skips, so `make test` never runs it.
// PGREGRESS_FILES (space-separated base names, default DefaultFiles)
// chooses the files; PGREGRESS_OUT names a file that receives every
// non-equal statement with both engines' answers.
//
// The script runner (script.go) splits a file as psql does: statements end
// at a semicolon outside quotes, comments and parentheses; lines starting
// with a backslash are psql meta-commands and are skipped, except \set and
// \getenv (variables are interpolated as :name, :'name' and :"name") and
// the inline data of COPY ... FROM stdin. COPY ... FROM '<file>' reads the
// corpus's data file and sends it as COPY FROM STDIN, which is how
// test_setup.sql's tables are loaded. test_setup.sql runs first on both
// engines, then each file in a fresh session of the same database.
//
// Each statement's outcomes are compared (compare.go): results as
// multisets, and also in order when the statement has a top-level ORDER BY
// whose keys are output columns (rows with equal keys may come in any
// order); errors by SQLSTATE class. The categories, worst first: crash
// (Eddy's process died, the connection broke, an XX000 internal error or a
// statement that outran its timeout), different (both succeeded with
// different rows or row counts), eddy-ok (Eddy succeeded where PostgreSQL
// raised an error), eddy-error (PostgreSQL succeeded, Eddy raised an error
// other than 0A000), error-class (both failed, in different SQLSTATE
// classes), unsupported (Eddy raised 0A000), follow-on (an Eddy error
// naming an object PostgreSQL created and Eddy did not, or a different
// answer while a SET of a setting that changes answers, DateStyle say,
// that PostgreSQL accepted and Eddy refused is in force), unchecked (LIMIT
// without a total order: only the row counts are compared; EXPLAIN
// output; an ORDER BY on expressions with the rows in another order) and
// equal.
package pgregress
