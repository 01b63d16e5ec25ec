// Package clients drives real PostgreSQL client programs against Eddy:
// pgjdbc (java/Clients.java, run by the JDK's single-file launcher),
// psycopg2, psycopg 3, SQLAlchemy with pandas (python/*.py, run by Debian's
// /usr/bin/python3; the SQLAlchemy program runs under bookworm's 1.4 and,
// as client sqlalchemy2, under Debian trixie's 2.0 that
// python/fetch_sqla2.sh extracts into python/.sqla2), Alembic (a migration
// run: a failing upgrade rolls back whole, then upgrade and downgrade) and node-postgres with pg-cursor and pg-copy-streams
// (node/clients.js, its packages installed by `npm ci` in node/).
//
// Each client program does ordinary work on the schema of schema.sql
// (metadata, prepared statements of every type, batches, transactions,
// cursors, COPY both ways) and prints a transcript of "## check" sections.
// The expected transcript of each client is testdata/<client>.golden,
// written by running the same program against a real PostgreSQL 15
// (TestClientsPostgres -rewrite). TestClients runs it against Eddy and
// compares section by section; testdata/gaps lists the sections where Eddy
// is known to differ, each with its reason, and a listed gap that no longer
// differs fails too, so the list cannot go stale.
//
// A client that is not installed is skipped with a message naming the
// package to install; EDDY_REQUIRE_CLIENTS=1 (set by .ci/run) makes that
// a failure. `make clients` runs only this package.
package clients
