// Package sql is Eddy's statement layer: sessions that prepare, bind and
// execute statements; the catalog of tables and views; and the coordinator
// (Engine) that assigns logical times to transactions, pushes every
// committed write through the dataflows of the materialized views that read
// it, and makes the write, the operator state and the view contents durable
// in one atomic Pebble batch before acknowledging.
//
// Consistency: the Engine's lock orders commits; a commit applies at one
// logical time, and a read holds the lock shared, so every SELECT sees all
// collections at the same, latest committed time (read-your-writes across
// sessions).
//
// Error policy for view maintenance: if maintaining any view fails for a
// write (for example a division by zero caused by a new row), the whole
// transaction fails with that error and nothing changes: tables, views and
// operator state are rolled back. A view therefore never skips a row and
// never shows a partial transaction.
package sql
